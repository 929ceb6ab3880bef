"""The implementation module the ``sdformat`` descriptor names (loaded on first use)."""

from .reader import include_references, parse_include, read
from .writer import write

__all__ = ["read", "write", "parse_include", "include_references"]
