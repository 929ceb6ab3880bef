"""SDFormat scoped names (``a::b::c``) and reserved-name rules."""

from __future__ import annotations

__all__ = ["SEP", "join", "split", "split_first", "is_reserved", "MODEL_FRAME", "WORLD"]

SEP = "::"
MODEL_FRAME = "__model__"
WORLD = "world"


def join(*parts: str) -> str:
    """Join non-empty scope parts with ``::``."""
    return SEP.join(p for p in parts if p)


def split(name: str) -> list[str]:
    return name.split(SEP) if name else []


def split_first(name: str) -> tuple[str, str]:
    """``"a::b::c"`` -> ``("a", "b::c")``; ``"a"`` -> ``("a", "")``."""
    head, sep, rest = name.partition(SEP)
    return head, rest


def is_reserved(name: str) -> bool:
    """``world`` and any name of four or more characters that starts and ends with ``__``."""
    return name == WORLD or (len(name) >= 4 and name.startswith("__") and name.endswith("__"))
