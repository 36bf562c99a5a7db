"""The protocol's JSON Schemas, shipped in ``schemas/`` — the single source of truth for the
message shapes — and ``validate_message`` over them.

Schemas refer to each other by ``$id`` (``assemble`` takes its scenario from the scenario
schema that ships with ``harness.scenarios``), the portable way for any language's
validator given the files; nothing is fetched from the network.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal, TypeAlias

import orjson

from ..model import join_path
from ..scenarios import inline_refs

if TYPE_CHECKING:  # loaded with the first validator: a run that validates nothing never pays
    from jsonschema import Draft202012Validator  # type: ignore[import-untyped, unused-ignore]
    from jsonschema.exceptions import ValidationError  # type: ignore[import-untyped, unused-ignore]
    from referencing import Registry

__all__ = ["MESSAGE_KINDS", "MessageKind", "schema_path", "validate_message"]

MessageKind: TypeAlias = Literal["start", "start-reply", "assemble", "assemble-reply", "stop"]
MESSAGE_KINDS: Final[tuple[MessageKind, ...]] = (
    "start",
    "start-reply",
    "assemble",
    "assemble-reply",
    "stop",
)

_HERE: Final = Path(__file__).resolve().parent / "schemas"
_SCENARIOS: Final = _HERE.parent.parent / "scenarios"
_MAX_PROBLEMS: Final = 20


def schema_path(kind: MessageKind) -> Path:
    """The file holding the schema of one message kind."""
    if kind not in MESSAGE_KINDS:
        raise ValueError(f"unknown message kind {kind!r}; known kinds: {', '.join(MESSAGE_KINDS)}")
    return _HERE / f"{kind}.schema.json"


def _schema_files() -> Iterator[Path]:
    yield from sorted(_HERE.glob("*.schema.json"))
    yield from sorted(_SCENARIOS.glob("*.schema.json"))


@cache
def _documents() -> dict[str, Any]:
    """Every shipped schema by its ``$id``."""
    documents = {}
    for path in _schema_files():
        contents = orjson.loads(path.read_bytes())
        documents[contents["$id"]] = contents
    return documents


@cache
def _registry() -> Registry[Any]:
    """Every shipped schema under its ``$id``."""
    from referencing import Registry, Resource

    return Registry().with_resources(
        (uri, Resource.from_contents(contents)) for uri, contents in _documents().items()
    )


@cache
def _validator(kind: MessageKind) -> Draft202012Validator:
    """Built once per kind, with every ``$ref`` put in place (``inline_refs``): the validator
    then looks nothing up while it validates."""
    from jsonschema import Draft202012Validator

    schema = orjson.loads(schema_path(kind).read_bytes())
    return Draft202012Validator(inline_refs(schema, _documents()), registry=_registry())


def validate_message(kind: MessageKind, message: Any) -> list[str]:
    """Every way ``message`` breaks the schema of ``kind``, as ``path: problem`` sentences.

    An empty list means the message is valid. The most specific errors are reported (those
    inside an ``if``/``then`` branch rather than the branch itself), in document order.
    """
    errors = sorted(_validator(kind).iter_errors(message), key=lambda e: list(e.absolute_path))
    problems = list(dict.fromkeys(_describe(leaf) for e in errors for leaf in _leaves(e)))
    if len(problems) > _MAX_PROBLEMS:
        problems[_MAX_PROBLEMS:] = [f"... and {len(problems) - _MAX_PROBLEMS} more"]
    return problems


def _leaves(error: ValidationError) -> list[ValidationError]:
    """The most specific errors under ``error`` (an anyOf/oneOf keeps its own sentence)."""
    if not error.context or error.validator in ("anyOf", "oneOf"):
        return [error]
    return [leaf for sub in error.context for leaf in _leaves(sub)]


def _describe(error: ValidationError) -> str:
    where = join_path("", *error.absolute_path) or "(the message)"
    text = error.message
    return f"{where}: {text if len(text) <= 300 else text[:297] + '...'}"
