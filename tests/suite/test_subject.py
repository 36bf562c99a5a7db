"""The lazy subject: started at the first ``get()``, once; a failure kept and said once."""

from pathlib import Path

import pytest

from harness.suite import LazySubject, SubjectUnavailable
from tests.suite import pid_subject

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where the pid subject logs its starts; the subject process finds the harness."""
    monkeypatch.setenv("PREFIX_PID_LOG", str(tmp_path / "pids.log"))
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    return tmp_path / "pids.log"


def test_the_subject_starts_at_the_first_get_and_only_then(log: Path) -> None:
    lazy = LazySubject(pid_subject.spec())
    assert not lazy.started
    assert pid_subject.started(log) == []
    subject = lazy.get()
    assert lazy.get() is subject
    assert subject.name == "pid-logger"
    assert len(pid_subject.started(log)) == 1
    lazy.close()
    lazy.close()
    assert not lazy.started


def test_a_failure_is_one_sentence_and_not_tried_again(
    log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PREFIX_PID_EXIT", "1")
    lazy = LazySubject(pid_subject.spec())
    for _ in range(3):
        with pytest.raises(SubjectUnavailable) as raised:
            lazy.get()
        assert str(raised.value).startswith(f"--prefix-subject {pid_subject.spec()!r}: ")
        assert "exited during start (exit code 1)" in str(raised.value)
    assert len(pid_subject.started(log)) == 1
    assert not lazy.started
