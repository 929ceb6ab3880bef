"""The implementation module the ``mirabuf`` descriptor names (loaded on first use)."""

from .reader import read

__all__ = ["read"]
