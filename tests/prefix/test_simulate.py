"""The cache simulator over hand-built units, with each provider's cache model.

The Anthropic cases follow the prompt-caching guide's own worked example of the 20-position
lookback: a conversation of 10, 15 and 35 blocks whose third turn misses the entry the second
wrote 20 blocks back.
"""

from __future__ import annotations

from typing import Any

import pytest

from harness.dialects import Unit
from harness.dialects._openai_cache import deepseek_plan, openai_plan
from harness.dialects.anthropic._cache import plan as anthropic_plan
from harness.dialects.gemini._cache import plan as gemini_plan
from harness.prefix._simulate import CacheSimulator, prefix_digests
from tests.dialects.cache_support import blocks, facts, keyed, send


def test_the_guides_worked_example_misses_an_entry_20_blocks_back() -> None:
    sim = CacheSimulator()
    turn1 = blocks(10, marked=(9,))
    first = send(sim, turn1, anthropic_plan(turn1, {}, facts()))
    assert (first.read, first.written) == (0, 1000)
    turn2 = blocks(15, marked=(14,))
    second = send(sim, turn2, anthropic_plan(turn2, {}, facts()))
    assert (second.read, second.written) == (1000, 500)  # block 10 is within 20 of block 15
    turn3 = blocks(35, marked=(34,))
    third = send(sim, turn3, anthropic_plan(turn3, {}, facts()))
    assert third.read == 0  # blocks 35 through 16 are checked: block 15 is one outside
    assert third.written == 3500


@pytest.mark.parametrize(("count", "read"), [(29, 1000), (30, 0)])
def test_an_entry_19_blocks_back_is_read_20_back_is_not(count: int, read: int) -> None:
    sim = CacheSimulator()
    parent = blocks(10, marked=(9,))
    send(sim, parent, anthropic_plan(parent, {}, facts()))
    child = blocks(count, marked=(count - 1,))  # block 29 checks 29..10; block 30, 30..11
    assert send(sim, child, anthropic_plan(child, {}, facts())).read == read


def test_a_second_breakpoint_bridges_a_long_gap() -> None:
    sim = CacheSimulator()
    parent = blocks(10, marked=(9,))
    send(sim, parent, anthropic_plan(parent, {}, facts()))
    child = blocks(40, marked=(19, 39))
    assert send(sim, child, anthropic_plan(child, {}, facts())).read == 1000


def test_a_changed_model_or_tool_choice_reads_nothing() -> None:
    parent = blocks(4, marked=(3,))
    first = keyed(anthropic_plan(parent, {}, facts()), model="m1")
    for settings in ({"model": "m2"}, {"model": "m1", "tool_choice": "any"}):
        sim = CacheSimulator()
        send(sim, parent, first)
        child = blocks(6, marked=(5,))
        assert send(sim, child, keyed(anthropic_plan(child, {}, facts()), **settings)).read == 0
    sim = CacheSimulator()
    send(sim, parent, first)
    child = blocks(6, marked=(5,))
    assert send(sim, child, keyed(anthropic_plan(child, {}, facts()), model="m1")).read == 400


def test_an_entry_below_the_minimum_is_not_written_unless_minimums_are_off() -> None:
    parent = blocks(4, marked=(3,))
    plan = anthropic_plan(parent, {}, facts(minimum=1024))
    assert send(CacheSimulator(), parent, plan).below_minimum == 1
    assert send(CacheSimulator(minimums=False), parent, plan).written == 400


def test_a_different_byte_early_breaks_every_later_entry() -> None:
    sim = CacheSimulator()
    parent = blocks(6, marked=(5,))
    send(sim, parent, anthropic_plan(parent, {}, facts()))
    child = blocks(8, marked=(7,))
    child[0] = Unit(**{**_fields(child[0]), "data": b"other"})
    assert send(sim, child, anthropic_plan(child, {}, facts())).read == 0


def _fields(unit: Unit) -> dict[str, Any]:
    return {name: getattr(unit, name) for name in Unit.__slots__}


def test_digests_fold_keyed_settings_in_from_their_position() -> None:
    units = blocks(3)
    plain = prefix_digests([u.data for u in units], anthropic_plan(units, {}, facts()))
    other = prefix_digests(
        [u.data for u in units], keyed(anthropic_plan(units, {}, facts()), tool_choice="auto")
    )
    assert plain[:2] == other[:2]  # keyed from unit 1 on: the prefixes up to it are the same
    assert plain[2:] != other[2:]


def test_openai_reads_an_earlier_eligible_end_when_the_last_message_grew() -> None:
    """The guide's "extending a message" case: the parent's entry sits at the end of its last
    user message; a child that appends to that message has no boundary there, and reads the
    entry an earlier turn wrote at the message before."""
    parent = blocks(4)
    plan = openai_plan(parent, {"model": "gpt-5.6-terra"}, facts())
    assert [w.position for w in plan.writes] == [4]
    sim = CacheSimulator()
    sim.prime([u.data for u in parent], [100 * i for i in range(5)], plan)
    send(sim, parent, plan)
    grown = blocks(4)
    grown[3] = Unit(**{**_fields(grown[3]), "data": grown[3].data + b" and the task"})
    assert send(sim, grown, openai_plan(grown, {"model": "gpt-5.6-terra"}, facts())).read == 300
    child = blocks(6)
    assert send(sim, child, openai_plan(child, {"model": "gpt-5.6-terra"}, facts())).read == 400


def test_openai_keeps_caches_apart_by_routing_key() -> None:
    parent = blocks(3)
    sim = CacheSimulator()
    send(sim, parent, keyed(openai_plan(parent, {}, facts()), prompt_cache_key="a"))
    child = blocks(5)
    other = keyed(openai_plan(child, {}, facts()), prompt_cache_key="b")
    assert send(sim, child, other).read == 0
    same = keyed(openai_plan(child, {}, facts()), prompt_cache_key="a")
    assert send(sim, child, same).read == 300


def test_legacy_openai_reads_whole_128_token_blocks() -> None:
    parent = blocks(5)
    sim = CacheSimulator()
    send(sim, parent, openai_plan(parent, {"model": "gpt-4o"}, facts()), per_unit=150)
    child = blocks(7)
    usage = send(sim, child, openai_plan(child, {"model": "gpt-4o"}, facts()), per_unit=150)
    assert usage.read == 640  # 750 tokens shared, in whole blocks of 128


def test_deepseek_reads_only_whole_units() -> None:
    parent = blocks(4)
    sim = CacheSimulator()
    plan = deepseek_plan(parent, {}, facts())
    sim.prime([u.data for u in parent], [100 * i for i in range(5)], plan)
    send(sim, parent, plan)
    child = blocks(6)
    assert send(sim, child, deepseek_plan(child, {}, facts())).read == 400


def test_gemini_matches_any_unit_boundary() -> None:
    parent = blocks(4)
    sim = CacheSimulator()
    send(sim, parent, gemini_plan(parent, {}, facts()))
    child = blocks(4)
    child[3] = Unit(**{**_fields(child[3]), "data": b"changed"})
    assert send(sim, child, gemini_plan(child, {}, facts())).read == 0  # never primed
    sim = CacheSimulator()
    sim.prime(
        [u.data for u in parent], [100 * i for i in range(5)], gemini_plan(parent, {}, facts())
    )
    assert send(sim, child, gemini_plan(child, {}, facts())).read == 300


def test_entries_expire_after_their_ttl_unless_read() -> None:
    sim = CacheSimulator()
    parent = blocks(3, marked=(2,))
    tokens = [100 * i for i in range(4)]
    sim.send([u.data for u in parent], tokens, anthropic_plan(parent, {}, facts()), at=0.0)
    assert sim.send(
        [u.data for u in parent], tokens, anthropic_plan(parent, {}, facts()), at=299.0
    ).read
    assert sim.send(
        [u.data for u in parent], tokens, anthropic_plan(parent, {}, facts()), at=598.0
    ).read
    assert not sim.send(
        [u.data for u in parent], tokens, anthropic_plan(parent, {}, facts()), at=1000.0
    ).read


def test_token_counts_must_match_the_units() -> None:
    with pytest.raises(ValueError, match="token counts"):
        CacheSimulator().send([b"a"], [0], anthropic_plan(blocks(1), {}, facts()))
