"""The implementation module the ``urdf`` descriptor names (loaded on first use)."""

from .reader import parse_include, read

__all__ = ["read", "parse_include"]
