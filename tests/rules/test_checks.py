from harness.rules import catalog
from harness.rules._checks import CHECKS


def test_every_catalog_rule_has_an_implementation_and_vice_versa() -> None:
    assert set(CHECKS) == {r.id for r in catalog()}
