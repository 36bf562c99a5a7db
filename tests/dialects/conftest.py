"""The capture side of each dialect (its ``test_wire``) is driven through a fake provider on
loopback, as capture's own tests drive it."""

from ..capture.conftest import serve

__all__ = ["serve"]
