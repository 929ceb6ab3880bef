"""Source positions and the errors the OpenPLX front end reports.

Every problem carries the file, a 1-based line and a 1-based column (counted in
characters, a tab counts as one column), so a message can point at the exact spot.
"""

from __future__ import annotations

from dataclasses import dataclass

from snapframe.core.diagnostics import Code, Diagnostic, Severity

__all__ = ["Position", "OpenPlxProblem", "OpenPlxSyntaxError"]


@dataclass(frozen=True, slots=True)
class Position:
    """A point in a source file (1-based line and column)."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file or '<string>'}:{self.line}:{self.col}"


@dataclass(frozen=True, slots=True)
class OpenPlxProblem:
    """One problem found while reading or evaluating OpenPLX source."""

    message: str
    file: str
    line: int
    col: int
    code: Code = Code.PARSING_ERROR
    severity: Severity = Severity.ERROR

    def __str__(self) -> str:
        return f"{self.file or '<string>'}:{self.line}:{self.col}: {self.severity}: {self.message}"

    def to_diagnostic(self) -> Diagnostic:
        """The core diagnostic record (a known column goes into the message's prefix)."""
        message = f"column {self.col}: {self.message}" if self.col else self.message
        return Diagnostic(self.severity, self.code, message, self.file, self.line)


class OpenPlxSyntaxError(Exception):
    """Raised internally by the parser for one statement; collected as a problem."""

    def __init__(self, message: str, line: int, col: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col
