"""Public names of a package loaded on first use, from the private modules that define them.

A package's ``__init__`` maps each public name to its module and takes ``__getattr__`` and
``__dir__`` from ``lazy``: importing the package then loads none of its modules, so that a
command loads only what it uses (``prefix-harness diff`` never loads the checker).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy"]


def lazy(
    package: str, namespace: dict[str, Any], modules: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``: a name of ``modules`` is imported from
    ``package.<its module>`` when first asked for, then kept in ``namespace`` (the package's
    globals) so that it is asked for once only. A name mapped to itself is the module of
    that name (``{"strategies": "strategies"}``: the subpackage ``package.strategies``)."""

    def getattr_(name: str) -> Any:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        # the import statement's own machinery, not importlib.import_module: only it is
        # reported by ``python -X importtime``, which the start-up tests read
        loaded = __import__(f"{package}.{module}", fromlist=(name,))
        value = loaded if module == name else getattr(loaded, name)
        namespace[name] = value
        return value

    def dir_() -> list[str]:
        return sorted({*namespace, *modules})

    return getattr_, dir_
