"""A real headless Chromium for the HTML report tests: the DOM after load, a screenshot, and
the little needed to read both (an HTML tree from ``html.parser``, a PNG decoder).

Chromium is Debian's (``apt-get install -y chromium``). It runs headless as root without its
sandbox, with a fresh profile, and with everything that would reach the network on its own
(background networking, component updates, sync, QUIC) turned off; ``offline`` also maps
every host name to nothing, so a page that tried to fetch anything could not.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
INSTALL = "apt-get install -y chromium"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
OFFLINE = "--host-resolver-rules=MAP * ~NOTFOUND"
WINDOW = (1280, 2000)


def chromium() -> str:
    """The browser's path; the test fails (never skips) when it is not installed."""
    found = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    if found is None:
        pytest.fail(f"Chromium is not installed: install it with `{INSTALL}` (Debian)")
    return found


def _run(page: Path, tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    profile = tmp / f"profile-{len(list(tmp.glob('profile-*')))}"
    command = [chromium(), *FLAGS, OFFLINE, f"--user-data-dir={profile}", *args]
    return subprocess.run(
        [*command, page.resolve().as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def dump_dom(page: Path, tmp: Path, *flags: str) -> Node:
    """The page's DOM after load, as Chromium serializes it, parsed; ``flags`` are added to
    Chromium's command line."""
    done = _run(page, tmp, *flags, "--dump-dom")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "<html" in done.stdout, done.stderr[-2000:]
    return parse(done.stdout)


def page_requests(page: Path, tmp: Path) -> list[str]:
    """The URLs the page asked for while it loaded, from Chromium's network log: requests
    whose initiator is an origin (the page's, ``null`` for a file); those Chromium makes on
    its own behalf (update checks, the clock) have none and are left out."""
    log = tmp / "net-log.json"
    done = _run(page, tmp, f"--log-net-log={log}", "--dump-dom")
    assert done.returncode == 0, done.stderr[-2000:]
    document = json.loads(log.read_text(encoding="utf-8"))
    start = document["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    return [
        e["params"]["url"]
        for e in document["events"]
        if e["type"] == start
        and "url" in e.get("params", {})
        and e["params"].get("initiator") != "not an origin"
    ]


def screenshot(page: Path, tmp: Path) -> bytes:
    """A PNG of the page in a window of ``WINDOW`` pixels."""
    out = tmp / "page.png"
    width, height = WINDOW
    done = _run(page, tmp, f"--screenshot={out}", f"--window-size={width},{height}")
    assert done.returncode == 0, done.stderr[-2000:]
    assert out.exists(), done.stderr[-2000:]
    return out.read_bytes()


SCREEN = (1280, 800)
"""A laptop's first screen: what a reader sees of a page before scrolling."""


def layout(page: Path, tmp: Path, expression: str, *, window: tuple[int, int] = SCREEN) -> object:
    """The value of a JavaScript ``expression`` evaluated in the page after it loaded, in a
    window of ``window`` pixels: Chromium is driven over its DevTools protocol on a pipe
    (``--remote-debugging-pipe``: commands on its fd 3, replies on its fd 4), so a test can
    measure where the page lays things out (the page's own policy runs no script; DevTools
    is not the page)."""
    commands_r, commands_w = os.pipe()
    replies_r, replies_w = os.pipe()

    def wire() -> None:  # in the child: the two ends Chromium expects at fds 3 and 4
        high_r, high_w = os.dup(commands_r), os.dup(replies_w)
        os.dup2(high_r, 3)
        os.dup2(high_w, 4)

    profile = tmp / f"profile-{len(list(tmp.glob('profile-*')))}"
    width, height = window
    process = subprocess.Popen(
        [
            chromium(),
            *FLAGS,
            OFFLINE,
            f"--user-data-dir={profile}",
            f"--window-size={width},{height}",
            "--remote-debugging-pipe",
            page.resolve().as_uri(),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        close_fds=False,
        preexec_fn=wire,
    )
    os.close(commands_r)
    os.close(replies_w)
    replies = os.fdopen(replies_r, "rb", buffering=0)
    pending = bytearray()
    counter = iter(range(1, 1_000_000))

    def call(method: str, session: str | None = None, **params: object) -> dict[str, object]:
        ident = next(counter)
        message: dict[str, object] = {"id": ident, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        os.write(commands_w, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in pending:
                chunk = replies.read(65536)
                assert chunk, f"Chromium closed its DevTools pipe during {method}"
                pending.extend(chunk)
            end = pending.index(b"\0")
            reply = json.loads(pending[:end])
            del pending[: end + 1]
            if reply.get("id") == ident:
                assert "error" not in reply, (method, reply["error"])
                result: dict[str, object] = reply["result"]
                return result

    try:
        deadline = time.monotonic() + 60
        target = None
        while target is None and time.monotonic() < deadline:
            infos = call("Target.getTargets")["targetInfos"]
            assert isinstance(infos, list)
            target = next((t for t in infos if t["type"] == "page"), None)
        assert target is not None, "Chromium opened no page"
        session = call("Target.attachToTarget", targetId=target["targetId"], flatten=True)
        session_id = str(session["sessionId"])

        def evaluate(source: str) -> object:
            found = call("Runtime.evaluate", session_id, expression=source, returnByValue=True)
            value = found["result"]
            assert isinstance(value, dict)
            return value.get("value")

        loaded = f"location.href === {json.dumps(page.resolve().as_uri())}"
        while evaluate(f"{loaded} && document.readyState === 'complete'") is not True:
            assert time.monotonic() < deadline, "the page did not load"
            time.sleep(0.05)
        return evaluate(expression)
    finally:
        os.close(commands_w)  # Chromium exits when its pipe closes
        replies.close()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass
class Node:
    """An element: its tag, attributes, children (elements and text) in order."""

    tag: str
    attrs: dict[str, str]
    children: list[Node | str] = field(default_factory=list)

    def iter(self) -> Iterator[Node]:
        yield self
        for child in self.children:
            if isinstance(child, Node):
                yield from child.iter()

    def find_all(self, tag: str | None = None, **attrs: str) -> list[Node]:
        """Elements with ``tag`` (any: None) whose attributes hold ``attrs`` (``class_``
        matches one class of the element)."""
        return [n for n in self.iter() if (tag is None or n.tag == tag) and n.has(**attrs)]

    def find(self, tag: str | None = None, **attrs: str) -> Node:
        found = self.find_all(tag, **attrs)
        assert found, f"no <{tag}> with {attrs}"
        return found[0]

    def has(self, **attrs: str) -> bool:
        for key, value in attrs.items():
            if key == "class_":
                if value not in self.attrs.get("class", "").split():
                    return False
            elif self.attrs.get(key.replace("_", "-")) != value:
                return False
        return True

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def style(self, name: str) -> str | None:
        """One property of the element's inline style."""
        for item in self.attrs.get("style", "").split(";"):
            key, _, value = item.partition(":")
            if key.strip() == name:
                return value.strip()
        return None


_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source"}


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(node)
        if tag not in _VOID:
            self.stack.append(node)

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse(document: str) -> Node:
    builder = _Builder()
    builder.feed(document)
    builder.close()
    return builder.root


def png_size(data: bytes) -> tuple[int, int]:
    """The width and height of a PNG; AssertionError when it is not one."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    length, kind = struct.unpack(">I4s", data[8:16])
    assert (kind, length) == (b"IHDR", 13)
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def png_colours(data: bytes, *, rows: int = 400, limit: int = 64) -> set[bytes]:
    """Distinct pixel values in the first ``rows`` rows of an 8-bit RGB or RGBA PNG (up to
    ``limit`` of them): rows are decoded in Python, so a few hundred are what a test affords."""
    width, _ = png_size(data)
    depth, colour = data[24], data[25]
    assert (depth, colour) in ((8, 2), (8, 6)), f"bit depth {depth}, colour type {colour}"
    bpp = 3 if colour == 2 else 4
    chunks, pos = [], 8
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        if kind == b"IDAT":
            chunks.append(data[pos + 8 : pos + 8 + length])
        pos += 12 + length
    raw = zlib.decompress(b"".join(chunks))
    stride = width * bpp
    previous = bytearray(stride)
    seen: set[bytes] = set()
    for start in range(0, min(len(raw), rows * (stride + 1)), stride + 1):
        row = _unfilter(raw[start], bytearray(raw[start + 1 : start + 1 + stride]), previous, bpp)
        for x in range(0, stride, bpp * 7):  # a sample of each row is enough
            seen.add(bytes(row[x : x + bpp]))
            if len(seen) >= limit:
                return seen
        previous = row
    return seen


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def _unfilter(kind: int, row: bytearray, above: bytearray, bpp: int) -> bytearray:
    predictors: dict[int, Callable[[int, int, int], int]] = {
        0: lambda a, b, c: 0,
        1: lambda a, b, c: a,
        2: lambda a, b, c: b,
        3: lambda a, b, c: (a + b) // 2,
        4: _paeth,
    }
    predict = predictors[kind]
    for i in range(len(row)):
        a = row[i - bpp] if i >= bpp else 0
        c = above[i - bpp] if i >= bpp else 0
        row[i] = (row[i] + predict(a, above[i], c)) & 0xFF
    return row
