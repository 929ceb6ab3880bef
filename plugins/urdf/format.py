"""The implementation module the ``urdf`` descriptor names (loaded on first use)."""

from .reader import parse_include, read
from .writer import write

__all__ = ["read", "write", "parse_include"]
