"""How a report names an equivalence: documented, inferred, or an undocumented candidate."""

from __future__ import annotations

from harness.dialects import Equivalence, get_dialect


def test_a_documented_equivalence_is_applied_and_cites_its_source() -> None:
    found = get_dialect("anthropic").facts.equivalence("string-content")
    assert found is not None
    assert found.applied
    assert found.sentence().startswith("same to the cache: a string content is shorthand")
    assert found.source in found.sentence()


def test_an_inferred_one_says_so() -> None:
    found = Equivalence("x", "two spellings", "inferred", "because", "https://example.org")
    assert found.sentence() == "same to the cache (inferred): two spellings — https://example.org"


def test_an_undocumented_candidate_is_not_applied() -> None:
    found = get_dialect("openai").facts.equivalence("string-content-part")
    assert found is not None
    assert not found.applied
    assert found.sentence().startswith("possibly the same to the cache")
    assert "undocumented" in found.sentence()


def test_every_equivalence_names_a_source() -> None:
    from harness.dialects import all_dialects

    for dialect in all_dialects().values():
        for equivalence in dialect.facts.equivalences:
            assert equivalence.source.startswith("https://"), equivalence.id
            assert equivalence.why
