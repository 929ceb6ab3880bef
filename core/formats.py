"""The file-format registry and its entry-point discovery.

A format plugin exposes a cheap :class:`FormatDescriptor` through the
``snapframe.formats`` entry-point group::

    [project.entry-points."snapframe.formats"]
    myformat = "mypackage.myformat:FORMAT"

The descriptor names the module that does the work (``implementation``); that module is
imported only when a file of the format is first read or written.  The module may define:

``read(path, context) -> snapframe.core.model.Document``
    Load a file (``context`` is a :class:`snapframe.core.loading.LoadContext`); a format
    whose descriptor has a ``folder_marker`` is also given folders holding that file.
``write(document, path, **options) -> None``
    Save a document (atomically: use :func:`snapframe.core.fileio.atomic_write`).
``parse_include(include, context) -> snapframe.core.model.Model | None``
    Custom model parser for ``//include`` of a non-SDFormat file (``include`` is a
    :class:`snapframe.core.model.NestedInclude`); return ``None`` to decline.  Report
    problems into ``context.diagnostics``; any error there means the include failed.
``read_string(data, context, path) -> snapframe.core.model.Document`` (optional)
    Read ``data`` (bytes or text) as if it were the content of the file ``path``
    (relative includes, meshes and diagnostics refer to that file).
``to_string(document, out_dir=None, **options) -> str | bytes`` (optional)
    The text (bytes for a binary format) ``write`` would save to a file in ``out_dir``,
    without writing it.

A reader that reads more files than the one it is given (imports, a folder's files) lists
them in ``extras["source_files"]`` of the document (or of the model
``parse_include`` returns), so that the editor watches them for changes.

A plugin that fails to import or load becomes a diagnostic in :attr:`FormatRegistry.problems`,
never a crash.
"""

from __future__ import annotations

import importlib
import logging
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Iterable

from .diagnostics import Code, Diagnostic, Severity

__all__ = ["FormatDescriptor", "FormatRegistry", "registry", "ENTRY_POINT_GROUP", "API_VERSION"]

ENTRY_POINT_GROUP = "snapframe.formats"
#: Bumped when the contract of the implementation module changes incompatibly.
API_VERSION = 1
_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FormatDescriptor:
    """What a format is, without importing its implementation."""

    name: str
    label: str
    extensions: tuple[str, ...]
    implementation: str
    can_read: bool = True
    can_write: bool = False
    #: The format can be named by an SDFormat ``//include/uri`` (custom model parser).
    can_include: bool = False
    #: Its writer keeps includes or writes them in place (``write(..., flatten=bool)``).
    can_flatten: bool = False
    api_version: int = API_VERSION
    #: A format whose documents are folders of files names the file that marks such a
    #: folder (``floorplan.json``): the folder, and that file in it, are the format's.
    folder_marker: str = ""

    def matches(self, path: str | Path) -> bool:
        name = str(path).lower()
        if any(name.endswith(ext) for ext in self.extensions):
            return True
        if not self.folder_marker:
            return False
        p = Path(path)
        if p.name == self.folder_marker:
            return True
        try:
            return p.is_dir() and (p / self.folder_marker).is_file()
        except (OSError, ValueError):   # a name no file can have
            return False


@dataclass
class FormatRegistry:
    """Known formats, filled from entry points on first use and by :meth:`register`."""

    _formats: dict[str, FormatDescriptor] = field(default_factory=dict)
    _modules: dict[str, ModuleType] = field(default_factory=dict)
    _discovered: bool = False
    problems: list[Diagnostic] = field(default_factory=list)

    # -- registration -------------------------------------------------------------
    def register(self, descriptor: FormatDescriptor) -> None:
        """Add (or replace) a format.  Later registrations take precedence on lookup."""
        self._formats.pop(descriptor.name, None)
        self._formats[descriptor.name] = descriptor
        self._modules.pop(descriptor.name, None)

    def unregister(self, name: str) -> None:
        self._formats.pop(name, None)
        self._modules.pop(name, None)

    def discover(self) -> None:
        if self._discovered:
            return
        self._discovered = True
        from .commandline import installed_entry_points   # (no importlib.metadata)
        for ep in installed_entry_points(ENTRY_POINT_GROUP):
            try:
                descriptor = ep.load()
                if not isinstance(descriptor, FormatDescriptor):
                    raise TypeError(f"entry point does not name a FormatDescriptor: {descriptor!r}")
                if descriptor.api_version != API_VERSION:
                    raise ValueError(f"plugin API version {descriptor.api_version}, "
                                     f"expected {API_VERSION}")
            except Exception as exc:  # a broken plugin must not stop start-up
                self.problems.append(Diagnostic(
                    Severity.WARNING, Code.PLUGIN_ERROR,
                    f"format plugin '{ep.name}' ({ep.value}) could not be loaded: {exc}"))
                continue
            if descriptor.name not in self._formats:  # explicit registrations win
                self._formats[descriptor.name] = descriptor

    # -- lookup -------------------------------------------------------------------
    def formats(self) -> list[FormatDescriptor]:
        self.discover()
        return list(self._formats.values())

    def get(self, name: str) -> FormatDescriptor | None:
        self.discover()
        return self._formats.get(name)

    def for_path(self, path: str | Path, *, capability: str = "read") -> FormatDescriptor | None:
        """The most recently registered format that claims ``path`` and has ``capability``."""
        for d in reversed(self.formats()):
            if d.matches(path) and getattr(d, f"can_{capability}"):
                return d
        return None

    def include_parsers(self) -> list[FormatDescriptor]:
        """Custom model parsers, most recently registered first (the spec's precedence)."""
        return [d for d in reversed(self.formats()) if d.can_include]

    def implementation(self, descriptor: FormatDescriptor | str) -> ModuleType:
        """Import (once) the module that implements a format."""
        if isinstance(descriptor, str):
            found = self.get(descriptor)
            if found is None:
                raise KeyError(f"unknown format '{descriptor}'")
            descriptor = found
        module = self._modules.get(descriptor.name)
        if module is None:
            module = importlib.import_module(descriptor.implementation)
            self._modules[descriptor.name] = module
        return module

    def extensions(self, capability: str = "read") -> list[str]:
        out: list[str] = []
        for d in self.formats():
            if getattr(d, f"can_{capability}"):
                out.extend(e for e in d.extensions if e not in out)
        return out

    def copy(self) -> "FormatRegistry":
        """An independent registry with the same formats (for tests and sandboxes)."""
        self.discover()
        return FormatRegistry(dict(self._formats), {}, True, list(self.problems))


#: The process-wide registry used by the CLI and the editor.
registry = FormatRegistry()


def names(descriptors: Iterable[FormatDescriptor]) -> list[str]:
    return [d.name for d in descriptors]
