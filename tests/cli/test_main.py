import pytest

from harness import __version__
from harness.cli import run


def test_no_command_prints_help_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert run([]) == 2
    assert "diff" in capsys.readouterr().err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        run(["--version"])
    assert exited.value.code == 0
    assert __version__ in capsys.readouterr().out


def test_unknown_command_is_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        run(["frobnicate"])
    assert exited.value.code == 2
    assert "invalid choice" in capsys.readouterr().err
