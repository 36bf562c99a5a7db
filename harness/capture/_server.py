"""The fake provider: a provider's wire protocols, a script and a record, served on loopback.

Only loopback addresses are accepted, so an agent under test cannot expose it, and nothing
it is sent can leave the machine.
"""

from __future__ import annotations

import ipaddress
import threading
from pathlib import Path
from types import TracebackType

from ..dialects import providers
from ._env import provider_environment
from ._exchange import Exchange
from ._http import HTTPServer
from ._match import Matcher
from ._record import Record, RecordWriter
from ._script import Script

__all__ = [
    "DEFAULT_MAX_REQUEST_BYTES",
    "FakeProvider",
    "LoopbackError",
    "loopback_host",
]

DEFAULT_MAX_REQUEST_BYTES = 32 * 1024 * 1024


class LoopbackError(ValueError):
    """A bind address that is not loopback."""


def loopback_host(host: str) -> str:
    """The loopback IP to bind for ``host`` (``localhost`` is ``127.0.0.1``), or
    ``LoopbackError``: the fake provider never listens beyond this machine."""
    if host == "localhost":
        return "127.0.0.1"
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        address = None
    if address is None or not address.is_loopback:
        raise LoopbackError(
            f"refusing to bind the fake provider to {host!r}: it listens only on a loopback"
            " address (127.0.0.1, another 127.x.y.z, ::1 or localhost), so that nothing an"
            " agent sends it can leave this machine"
        )
    return str(address)


class FakeProvider:
    """A scripted fake of one provider, asked for by the name of a dialect with a wire
    (``harness.dialects.providers``: openai, openai-responses, anthropic, gemini, and any
    registered since).

    ``wires`` are the wire protocols it serves: the dialect's, then those of the other
    dialects of the same provider (openai and openai-responses: both OpenAI ones); the first
    gives the base URL and the shape of refusals for URLs that no wire has. Each request is
    recorded under the dialect of the wire that served it. Use as a
    context manager, or ``start()``/``stop()``. ``base_url`` is what an SDK takes
    as its base URL; ``records`` holds every request so far; with ``record`` given, each is
    appended to that JSON-lines file as it arrives (and read back from it by ``records``):
    to ``record`` + ``.partial`` while it runs, locked against a second provider on the same
    file (``start()`` raises ``RecordError``), renamed to ``record`` by ``stop()``.
    """

    def __init__(
        self,
        dialect: str,
        script: Script | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        record: str | Path | None = None,
        max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
    ) -> None:
        served = providers()
        if dialect not in served:
            known = ", ".join(sorted(served))
            raise ValueError(f"no fake provider for dialect {dialect!r}; known: {known}")
        if not 0 <= port <= 65535:
            raise ValueError(f"port {port} is not between 0 and 65535")
        if max_request_bytes < 1:
            raise ValueError("max_request_bytes must be at least 1")
        self.dialect = dialect
        self.wires = served[dialect]
        self.script = script if script is not None else Script()
        self.host = loopback_host(host)
        self.max_request_bytes = max_request_bytes
        self._port = port
        self.record_path = None if record is None else Path(record)
        self._server: HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._writer: RecordWriter | None = None

    def start(self) -> FakeProvider:
        """Bind and serve in a background thread; ``OSError`` if the port is taken,
        ``RecordError`` if the record file is another run's or cannot be one."""
        if self._server is not None:
            raise RuntimeError("the fake provider is already running")
        writer = RecordWriter(self.record_path)
        exchange = Exchange(self.wires, Matcher(self.script), writer, self.max_request_bytes)
        try:
            server = HTTPServer((self.host, self._port), exchange)
        except OSError:
            writer.discard()
            raise
        self._writer, self._server = writer, server
        self._thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"fake-{self.dialect}-provider",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, close open connections and the record file (renamed into place).
        Idempotent."""
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
            server.close_connections()
        if self._thread is not None:
            self._thread.join()
        if self._writer is not None:
            self._writer.close()

    def __enter__(self) -> FakeProvider:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the fake provider is not running")
        return int(self._server.server_address[1])

    @property
    def origin(self) -> str:
        """``http://127.0.0.1:PORT`` (IPv6 hosts in brackets)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def base_url(self) -> str:
        """The base URL the provider's SDK takes: ``/v1`` appended for the OpenAI ones."""
        return self.origin + self.wires[0].base_path

    def environment(self) -> dict[str, str]:
        """The variables that point every official SDK at this fake provider."""
        return provider_environment(self.origin)

    @property
    def records(self) -> tuple[Record, ...]:
        """Every request recorded so far, in sequence order: read back from the record file
        when there is one (bodies are not held in memory; records the caller still holds
        from an earlier call are reused, so only the lines since are read), else kept in
        memory. ``RecordError`` when the record file could not be written (``failure``)."""
        return () if self._writer is None else self._writer.records

    @property
    def record_file(self) -> Path | None:
        """The file the records are in now: the record's path + ``.partial`` while the
        provider runs, the record's path after ``stop()``; None without a record file."""
        return None if self._writer is None else self._writer.file

    @property
    def recorded(self) -> int:
        """How many requests were recorded so far."""
        return 0 if self._writer is None else self._writer.count

    @property
    def failure(self) -> str | None:
        """Why the record file could not be written (a full disk), or ``None``: after a
        failure every request is answered 500 and none is recorded."""
        return None if self._writer is None else self._writer.failure
