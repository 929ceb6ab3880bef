"""The one error floor plan readers raise: a message located in a source file."""
from __future__ import annotations

from pathlib import Path


class FloorPlanError(Exception):
    """Bad floor plan input, located as precisely as the reader can.

    ``element`` names the floor plan element (space, wall, opening, JSON-LD ``@id``)
    the problem is about, when there is one.
    """

    def __init__(self, message: str, file: str | Path | None = None, line: int | None = None,
                 column: int | None = None, element: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.file = str(file) if file is not None else None
        self.line = line
        self.column = column
        self.element = element

    def __str__(self) -> str:
        where = self.file or ""
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        what = f" ({self.element})" if self.element else ""
        return f"{where}: {self.message}{what}" if where else f"{self.message}{what}"
