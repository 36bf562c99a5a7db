"""The signals that end a run (harness/_interrupt.py): each raises ``Interrupted`` once, with
128 + its number; clean-up is never cut short (a signal during it is held, or hurries it);
the handlers are put back. Real signals, sent to this process."""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator

import pytest

from harness._interrupt import Interrupted, deferred, handled, hurried, interruption


def _send(signum: int) -> None:
    """Send ``signum`` to this process and give the handler its chance to run."""
    os.kill(os.getpid(), signum)
    time.sleep(0.01)  # a handler runs between bytecodes: after the call returns at the latest


@pytest.mark.parametrize(
    ("signum", "name", "code"),
    [
        (signal.SIGINT, "SIGINT", 130),
        (signal.SIGTERM, "SIGTERM", 143),
        (signal.SIGHUP, "SIGHUP", 129),
    ],
)
def test_each_signal_raises_interrupted_with_its_exit_code(
    signum: int, name: str, code: int
) -> None:
    before = signal.getsignal(signum)
    with handled(), pytest.raises(Interrupted) as raised:
        _send(signum)
    assert isinstance(raised.value, KeyboardInterrupt)  # what lets Ctrl-C through lets it through
    assert (raised.value.signum, raised.value.name, raised.value.exit_code) == (signum, name, code)
    assert raised.value.sentence() == f"interrupted by {name}"
    raised.value.detail = "the command was ended"
    assert raised.value.sentence() == f"interrupted by {name}: the command was ended"
    assert signal.getsignal(signum) is before  # put back


def test_a_second_signal_is_noted_not_raised_and_hurries_the_clean_up() -> None:
    with handled():
        with pytest.raises(Interrupted):
            _send(signal.SIGTERM)
        assert not hurried()
        _send(signal.SIGINT)  # during the clean-up: no second exception cuts it short
        assert hurried()
    assert not hurried()  # outside a handled run, nothing is


def test_a_signal_during_a_deferred_block_is_raised_when_it_ends() -> None:
    done: list[object] = []

    def clean_up() -> None:
        with deferred():
            _send(signal.SIGHUP)
            done.append(hurried())  # what the block is ending should end now
            done.append("the block ran to its end")
        done.append("never: the signal is raised as the block ends")

    with handled(), pytest.raises(Interrupted) as raised:
        clean_up()
    assert done == [True, "the block ran to its end"]
    assert raised.value.signum == signal.SIGHUP


def test_nested_deferred_blocks_raise_once_at_the_outermost_end() -> None:
    done: list[str] = []

    def clean_up() -> None:
        with deferred():
            with deferred():
                _send(signal.SIGTERM)
            time.sleep(0.01)
            done.append("still held: the outer block is running")

    with handled(), pytest.raises(Interrupted):
        clean_up()
    assert done == ["still held: the outer block is running"]


class _RaisesInDel:
    """Sends a signal when collected: its handler raises inside ``__del__``."""

    def __init__(self, signum: int) -> None:
        self.signum = signum

    def __del__(self) -> None:
        signal.raise_signal(self.signum)  # the handler runs before this call returns


def _in_gc_callback(signum: int) -> Callable[[], None]:
    sent: list[int] = []

    def callback(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and not sent:
            sent.append(signum)
            signal.raise_signal(signum)

    def collect() -> None:
        gc.callbacks.append(callback)
        try:
            gc.collect()
        finally:
            gc.callbacks.remove(callback)
        assert sent == [signum]

    return collect


def _in_del(signum: int) -> Callable[[], None]:
    def drop() -> None:
        _RaisesInDel(signum)  # dropped at once: __del__ runs here

    return drop


@pytest.fixture
def unraisable() -> Iterator[list[object]]:
    """What reaches the interpreter's unraisable hook (what it would print as "Exception
    ignored")."""
    seen: list[object] = []
    hook = sys.unraisablehook
    sys.unraisablehook = lambda u: seen.append(u.exc_value)
    yield seen
    sys.unraisablehook = hook


@pytest.mark.parametrize("where", [_in_gc_callback, _in_del], ids=["gc-callback", "del"])
@pytest.mark.parametrize(
    "signum", [signal.SIGHUP, signal.SIGTERM, signal.SIGINT], ids=["SIGHUP", "SIGTERM", "SIGINT"]
)
def test_a_signal_raised_where_python_cannot_raise_is_raised_again(
    where: Callable[[int], Callable[[], None]], signum: int, unraisable: list[object]
) -> None:
    """The earliest moment a handler's raise is lost: it runs inside a garbage collector
    callback (Hypothesis keeps one) or a ``__del__``, where the interpreter only prints the
    exception. The run must still end: the wait after it is cut short, by the one signal."""
    lose = where(signum)

    def stuck() -> None:
        lose()
        time.sleep(10)  # a subject stuck: only the signal ends the wait

    began = time.monotonic()
    with handled():
        with pytest.raises(Interrupted) as raised:
            stuck()
        assert not hurried()  # sent again, it is still the first signal, not a second
    assert raised.value.signum == signum
    assert time.monotonic() - began < 5
    assert unraisable == []  # nothing printed as "Exception ignored"


def test_a_signal_sent_again_during_a_deferred_block_is_raised_as_it_ends(
    unraisable: list[object],
) -> None:
    done: list[object] = []

    def clean_up() -> None:
        _in_del(signal.SIGTERM)()  # lost, and sent again: it arrives during the block
        with deferred():
            time.sleep(0.05)
            done.append(hurried())  # the first signal, not a second: no hurry
            done.append("the block ran to its end")
        done.append("never: the signal is raised as the block ends")

    with handled(), pytest.raises(Interrupted) as raised:
        clean_up()
    assert done == [False, "the block ran to its end"]
    assert raised.value.signum == signal.SIGTERM
    assert unraisable == []


def test_other_unraisable_errors_still_reach_the_hook(unraisable: list[object]) -> None:
    class Fails:
        def __del__(self) -> None:
            raise RuntimeError("not ours")

    with handled():
        Fails()
    assert [type(e) for e in unraisable] == [RuntimeError]
    assert sys.unraisablehook is not None


def test_the_interruption_behind_an_error_raised_over_it_is_found() -> None:
    signal_error = Interrupted(signal.SIGHUP)

    def clean_up_fails() -> None:
        try:
            raise signal_error
        except KeyboardInterrupt:
            try:
                raise AssertionError("a clean-up failing as the signal passes")
            except AssertionError as e:
                raise RuntimeError("and another over it") from e

    with pytest.raises(RuntimeError) as raised:
        clean_up_fails()
    assert interruption(raised.value) is signal_error
    assert interruption(signal_error) is signal_error
    assert interruption(None) is None
    looped = ValueError("its own context")
    looped.__context__ = RuntimeError("no signal")
    looped.__context__.__context__ = looped
    assert interruption(looped) is None


def test_without_handled_nothing_changes() -> None:
    with deferred():  # no run is handled: a plain block
        pass
    assert not hurried()
    with pytest.raises(KeyboardInterrupt) as raised:
        _send(signal.SIGINT)  # Python's own handler
    assert not isinstance(raised.value, Interrupted)


def test_a_signal_ignored_by_whoever_started_us_stays_ignored() -> None:
    """``nohup`` ignores SIGHUP, a background job SIGINT: the run does not undo that."""
    code = (
        "import os, signal, time\n"
        "from harness._interrupt import handled\n"
        "signal.signal(signal.SIGHUP, signal.SIG_IGN)\n"
        "with handled():\n"
        "    os.kill(os.getpid(), signal.SIGHUP); time.sleep(0.05)\n"
        "    print(signal.getsignal(signal.SIGHUP) is signal.SIG_IGN)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, "True\n"), done.stderr


def test_a_worker_leaves_sigint_to_its_parent_and_ends_on_sigterm() -> None:
    code = (
        "import os, signal, time\n"
        "from harness._interrupt import Interrupted, quiet_worker\n"
        "quiet_worker()\n"
        "os.kill(os.getpid(), signal.SIGINT); time.sleep(0.05)\n"
        "try:\n"
        "    os.kill(os.getpid(), signal.SIGTERM); time.sleep(0.05)\n"
        "except Interrupted as e:\n"
        "    print(e.exit_code)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, "143\n"), done.stderr
