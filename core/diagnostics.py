"""Structured diagnostics: what readers, graph checks and solvers report about bad input.

Codes use libsdformat's ``sdf::ErrorCode`` *names* (never its numbers, which changed
between releases).  Formats that are not SDFormat add their own names here so every
tool (CLI, editor panel) can filter and sort one kind of record.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Iterable, Iterator

__all__ = ["Severity", "Code", "Diagnostic", "Diagnostics", "SourceLocation"]


class Severity(enum.IntEnum):
    INFO = 0
    WARNING = 1
    ERROR = 2

    def __str__(self) -> str:  # "error", "warning", "info" in printed output
        return self.name.lower()


class Code(str, enum.Enum):
    """Diagnostic codes.  The SDFormat ones are libsdformat's names."""

    FILE_READ = "FILE_READ"
    DUPLICATE_NAME = "DUPLICATE_NAME"
    RESERVED_NAME = "RESERVED_NAME"
    ATTRIBUTE_MISSING = "ATTRIBUTE_MISSING"
    ATTRIBUTE_INVALID = "ATTRIBUTE_INVALID"
    ATTRIBUTE_DEPRECATED = "ATTRIBUTE_DEPRECATED"
    ATTRIBUTE_INCORRECT_TYPE = "ATTRIBUTE_INCORRECT_TYPE"
    ELEMENT_MISSING = "ELEMENT_MISSING"
    ELEMENT_INVALID = "ELEMENT_INVALID"
    ELEMENT_DEPRECATED = "ELEMENT_DEPRECATED"
    ELEMENT_INCORRECT_TYPE = "ELEMENT_INCORRECT_TYPE"
    ELEMENT_ERROR = "ELEMENT_ERROR"
    URI_INVALID = "URI_INVALID"
    URI_LOOKUP = "URI_LOOKUP"
    DIRECTORY_NONEXISTANT = "DIRECTORY_NONEXISTANT"
    MODEL_CANONICAL_LINK_INVALID = "MODEL_CANONICAL_LINK_INVALID"
    MODEL_WITHOUT_LINK = "MODEL_WITHOUT_LINK"
    NESTED_MODELS_UNSUPPORTED = "NESTED_MODELS_UNSUPPORTED"
    LINK_INERTIA_INVALID = "LINK_INERTIA_INVALID"
    JOINT_CHILD_LINK_INVALID = "JOINT_CHILD_LINK_INVALID"
    JOINT_PARENT_LINK_INVALID = "JOINT_PARENT_LINK_INVALID"
    JOINT_PARENT_SAME_AS_CHILD = "JOINT_PARENT_SAME_AS_CHILD"
    FRAME_ATTACHED_TO_INVALID = "FRAME_ATTACHED_TO_INVALID"
    FRAME_ATTACHED_TO_CYCLE = "FRAME_ATTACHED_TO_CYCLE"
    FRAME_ATTACHED_TO_GRAPH_ERROR = "FRAME_ATTACHED_TO_GRAPH_ERROR"
    POSE_RELATIVE_TO_INVALID = "POSE_RELATIVE_TO_INVALID"
    POSE_RELATIVE_TO_CYCLE = "POSE_RELATIVE_TO_CYCLE"
    POSE_RELATIVE_TO_GRAPH_ERROR = "POSE_RELATIVE_TO_GRAPH_ERROR"
    ROTATION_SNAP_CONFIG_ERROR = "ROTATION_SNAP_CONFIG_ERROR"
    MODEL_PLACEMENT_FRAME_INVALID = "MODEL_PLACEMENT_FRAME_INVALID"
    VERSION_DEPRECATED = "VERSION_DEPRECATED"
    MERGE_INCLUDE_UNSUPPORTED = "MERGE_INCLUDE_UNSUPPORTED"
    PARAMETER_ERROR = "PARAMETER_ERROR"
    UNKNOWN_PARAMETER_TYPE = "UNKNOWN_PARAMETER_TYPE"
    FATAL_ERROR = "FATAL_ERROR"
    WARNING = "WARNING"
    JOINT_AXIS_EXPRESSED_IN_INVALID = "JOINT_AXIS_EXPRESSED_IN_INVALID"
    CONVERSION_ERROR = "CONVERSION_ERROR"
    #: A save wrote files besides the one asked for (meshes held in memory, as STL); the
    #: message's first line says how many and where, the next names them.
    FILES_WRITTEN = "FILES_WRITTEN"
    PARSING_ERROR = "PARSING_ERROR"
    JOINT_AXIS_MIMIC_INVALID = "JOINT_AXIS_MIMIC_INVALID"
    # Snapframe's own (non-SDFormat) codes.
    PLUGIN_ERROR = "PLUGIN_ERROR"
    INCLUDE_CYCLE = "INCLUDE_CYCLE"
    MESH_NOT_CLOSED = "MESH_NOT_CLOSED"
    SNAP_ERROR = "SNAP_ERROR"
    SNAP_FORCED = "SNAP_FORCED"
    SNAP_VIOLATED = "SNAP_VIOLATED"
    SNAP_UNMATED = "SNAP_UNMATED"
    #: A description that expands past a budget of snapframe.core.limits.
    RESOURCE_LIMIT = "RESOURCE_LIMIT"
    #: A save kept everything Snapframe reads back, but other tools (libsdformat, Gazebo)
    #: cannot load all of it (an include of a file only a custom model parser reads).
    NOT_PORTABLE = "NOT_PORTABLE"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class SourceLocation:
    """Where an element came from: file path (may be empty for in-memory text) and 1-based line."""

    file: str = ""
    line: int = 0

    def __str__(self) -> str:
        if not self.file:
            return f"<string>:{self.line}" if self.line else "<string>"
        return f"{self.file}:{self.line}" if self.line else self.file


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding about the input.

    ``element`` is an XPath-like path of the element the finding is about
    (``/sdf/model[@name="arm"]/frame[@name="tool"]``); ``key`` is that element's instance
    key in the open document (see :mod:`snapframe.core.live.keys`), None when the finding
    is about the file as a whole, so a view can select the element.
    """

    severity: Severity
    code: Code
    message: str
    file: str = ""
    line: int = 0
    element: str = ""
    key: str | None = None

    @property
    def is_error(self) -> bool:
        return self.severity >= Severity.ERROR

    def format(self) -> str:
        """``file:line: error CODE: message`` as printed by ``snapframe check``."""
        where = self.file or "<string>"
        if self.line:
            where += f":{self.line}"
        text = f"{where}: {self.severity} {self.code}: {self.message}"
        if self.element:
            text += f" [{self.element}]"
        return text

    def to_json(self) -> dict:
        return {"code": str(self.code), "message": self.message, "file": self.file,
                "line": self.line, "severity": str(self.severity), "element": self.element,
                "key": self.key}

    __str__ = format


@dataclass(slots=True)
class Diagnostics:
    """An ordered collector that drops exact duplicates (a root cause is reported once)."""

    items: list[Diagnostic] = field(default_factory=list)
    _seen: set = field(default_factory=set, repr=False)

    def add(self, diagnostic: Diagnostic) -> Diagnostic:
        # Elements made in the editor have no line: their key tells two findings apart.
        key = (diagnostic.code, diagnostic.message, diagnostic.file, diagnostic.line,
               None if diagnostic.line else diagnostic.key)
        if key not in self._seen:
            self._seen.add(key)
            self.items.append(diagnostic)
        return diagnostic

    def error(self, code: Code, message: str, where: SourceLocation | None = None,
              element: str = "", key: str | None = None) -> Diagnostic:
        where = where or SourceLocation()
        return self.add(Diagnostic(Severity.ERROR, code, message, where.file, where.line, element,
                                   key))

    def warning(self, code: Code, message: str, where: SourceLocation | None = None,
                element: str = "", key: str | None = None) -> Diagnostic:
        where = where or SourceLocation()
        return self.add(Diagnostic(Severity.WARNING, code, message, where.file, where.line,
                                   element, key))

    def replace(self, diagnostics: Iterable[Diagnostic]) -> None:
        """Make this collector hold exactly ``diagnostics`` (after an edit re-validated)."""
        self.items.clear()
        self._seen.clear()
        self.extend(diagnostics)

    def extend(self, diagnostics: Iterable[Diagnostic]) -> None:
        for d in diagnostics:
            self.add(d)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.items if d.is_error]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity == Severity.WARNING]

    def has_errors(self) -> bool:
        return any(d.is_error for d in self.items)

    def __iter__(self) -> Iterator[Diagnostic]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)
