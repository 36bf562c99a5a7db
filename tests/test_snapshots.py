"""The assembled request heads of every fixture in every dialect, pinned in snapshots/.

Review a change with ``python3 -m pytest --snapshot-update`` and the diff of snapshots/.
A snapshot without its fixture fails the run: syrupy reports it as unused when the whole
suite runs, and ``test_every_snapshot_has_its_fixture`` catches it in any run.
"""

from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion

from harness.dialects import all_dialects
from harness.pytest_plugin import HeadsSnapshotExtension
from harness.scenarios import Scenario, load_fixtures
from harness.subjects import ReferenceSubject

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = load_fixtures(ROOT / "fixtures")
DIALECTS = tuple(all_dialects())
SUBJECT = ReferenceSubject()


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_heads_match_their_snapshot(
    scenario: Scenario, dialect: str, snapshot: SnapshotAssertion
) -> None:
    heads = snapshot.use_extension(HeadsSnapshotExtension)
    assert heads(name=f"{dialect}/{scenario.id}") == SUBJECT.assemble(scenario, dialect)


def test_every_snapshot_has_its_fixture(request: pytest.FixtureRequest) -> None:
    if request.config.getoption("update_snapshots"):
        pytest.skip("--snapshot-update deletes unused snapshots itself (in a whole-suite run)")
    expected = {f"{d}/{s.id}.json" for d in DIALECTS for s in SCENARIOS}
    folder = ROOT / "snapshots"
    files = [p for p in folder.rglob("*") if p.is_file() and not p.name.startswith(".")]
    found = {p.relative_to(folder).as_posix() for p in files}
    assert sorted(found - expected) == [], (
        "files in snapshots/ without a fixture and dialect: delete them, or run "
        "`python3 -m pytest --snapshot-update` on the whole suite"
    )
