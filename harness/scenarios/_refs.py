"""JSON Schemas with their ``$ref``s put in place once, when the validator is built.

``jsonschema`` looks every ``$ref`` up again in its registry each time it is crossed: for a
400-message scenario that is tens of thousands of lookups per validation, most of its time.
The shipped schemas refer to each other without cycles, so each reference can be replaced
by what it points to (a copy of it); the validator then has nothing left to look up. A
reference with keywords beside it becomes an ``allOf`` of the two, which validates the same;
a reference in a cycle, or to a document not given, is left as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urljoin

__all__ = ["inline_refs"]


def inline_refs(schema: Any, documents: Mapping[str, Any]) -> Any:
    """``schema`` (its ``$id`` resolving relative references) with every ``$ref`` into
    ``documents`` (by ``$id``) replaced by its target."""
    return _inline(schema, schema, str(schema.get("$id", "")), documents, ())


def _inline(
    node: Any, root: Any, base: str, documents: Mapping[str, Any], seen: tuple[str, ...]
) -> Any:
    if isinstance(node, list):
        return [_inline(v, root, base, documents, seen) for v in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        target = _target(ref, root, base, documents)
        full = urljoin(base, ref)
        if target is not None and full not in seen:
            doc, doc_base, sub = target
            inlined = _inline(sub, doc, doc_base, documents, (*seen, full))
            rest = {
                k: _inline(v, root, base, documents, seen) for k, v in node.items() if k != "$ref"
            }
            return inlined if not rest else {**rest, "allOf": [*rest.pop("allOf", []), inlined]}
    return {k: _inline(v, root, base, documents, seen) for k, v in node.items()}


def _target(
    ref: str, root: Any, base: str, documents: Mapping[str, Any]
) -> tuple[Any, str, Any] | None:
    """(the document, its base, the subschema) that ``ref`` points to, or None."""
    url, _, fragment = urljoin(base, ref).partition("#")
    doc = root if url == base.partition("#")[0] else documents.get(url)
    if doc is None:
        return None
    sub = doc
    for token in filter(None, fragment.split("/")):
        token = token.replace("~1", "/").replace("~0", "~")
        if not isinstance(sub, dict) or token not in sub:
            return None
        sub = sub[token]
    return doc, str(doc.get("$id", url)), sub
