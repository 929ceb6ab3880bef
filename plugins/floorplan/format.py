"""The implementation module the ``floorplan`` descriptor names (loaded on first use).

``read`` opens a floor plan as a document (a world: the building and its doors, see
:func:`.world.build_document`): a ``.fpm`` file (the DSL, :func:`.dsl.load_fpm`) with the
door models of the ``<stem>.doors/`` folder beside it (:mod:`.door_files`), or a JSON-LD
folder or its ``floorplan.json`` (:func:`.jsonld.load_jsonld`: every JSON file of the
folder and of its direct subfolders, so door models may sit next to the plan).  Door
files may also be named explicitly (``doors`` of :func:`load_plan` and :func:`read`).
``parse_include`` is the custom model parser that lets an SDFormat ``//include`` name
either: the included model is the plan as one model holding the building and the doors.
A :class:`FloorPlanError` becomes one error diagnostic naming the file, line and element;
nothing a floor plan holds makes the reader raise.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from snapframe.core.diagnostics import Code, Diagnostic, Diagnostics, Severity, SourceLocation
from snapframe.core.model import Document, Model, NestedInclude

from .errors import FloorPlanError
from .model import FloorPlan

__all__ = ["read", "parse_include", "load_plan", "source_files", "MARKER"]

#: The file that makes a folder a FloorPlan JSON-LD folder.
MARKER = "floorplan.json"


def load_plan(path: str | Path, doors: Iterable[str | Path] | None = None) -> FloorPlan:
    """The floor plan in ``path``: a ``.fpm`` file, a JSON-LD folder or its
    ``floorplan.json``, with its doors.  ``doors`` lists door JSON-LD files and folders
    to read with it; None reads, for a ``.fpm`` file, its ``<stem>.doors/`` folder when
    there is one (a JSON-LD folder holds its doors itself).  Raises
    :class:`FloorPlanError`."""
    path = Path(path)
    extra = [Path(d) for d in doors] if doors is not None else None
    if path.suffix.lower() == ".fpm" and not path.is_dir():
        from .dsl import load_fpm   # the DSL path (textX) is imported only when needed
        plan = load_fpm(path)
        if extra is None:
            from .door_files import doors_folder
            folder = doors_folder(path)
            extra = [folder] if folder.is_dir() else []
        if extra:
            from .door_files import read_plan_doors
            plan.doors = read_plan_doors(plan, extra)
        return plan
    if path.is_dir() and not (path / MARKER).is_file():
        raise FloorPlanError(f"not a FloorPlan JSON-LD folder: it has no {MARKER}", file=path)
    from .jsonld import load_jsonld
    folder = path.parent if path.name == MARKER and path.is_file() else path
    return load_jsonld([folder, *extra] if extra else folder)


def _diagnostic(error: FloorPlanError, path: Path) -> Diagnostic:
    message = error.message
    if error.column is not None:
        message += f" (column {error.column})"
    return Diagnostic(Severity.ERROR, Code.FILE_READ, message, error.file or str(path),
                      error.line or 0, error.element or "")


def source_files(path: str | Path, doors: Iterable[str | Path] | None = None) -> list[str]:
    """The JSON-LD files a plan at ``path`` is read from (its folder's files, door files;
    the ``.fpm`` file itself is ``path``), as :func:`load_plan` finds them; the editor
    watches them.  [] when they cannot be listed."""
    from .door_files import doors_folder
    from .jsonld import jsonld_files
    path = Path(path)
    read = [Path(d) for d in doors] if doors is not None else None
    try:
        if path.suffix.lower() == ".fpm" and not path.is_dir():
            if read is None:
                folder = doors_folder(path)
                read = [folder] if folder.is_dir() else []
        else:
            read = [path.parent if path.name == MARKER else path, *(read or [])]
        return [str(f) for f in jsonld_files(read)] if read else []
    except (FloorPlanError, OSError):
        return []


def _load(path: Path, diagnostics: Diagnostics, doors=None) -> FloorPlan | None:
    try:
        return load_plan(path, doors)
    except FloorPlanError as error:
        diagnostics.add(_diagnostic(error, path))
    except RecursionError:
        diagnostics.error(Code.FILE_READ, "the floor plan is nested too deeply to read",
                          SourceLocation(str(path)))
    except Exception as exc:   # a bug of ours: a diagnostic, never a crash of the caller
        diagnostics.error(Code.PLUGIN_ERROR, f"the floor plan reader failed on [{path}]: "
                          f"{type(exc).__name__}: {exc}", SourceLocation(str(path)))
    return None


def read(path: str | Path, context=None, *, check: bool = True,
         doors: Iterable[str | Path] | None = None) -> Document:
    """Read a floor plan as a document whose root is a world (``check``: run the frame
    graph checks, as for any file opened on its own; ``doors``: see :func:`load_plan`).
    Doors are written in their own coordinates, closed, their start states as Gazebo
    controllers (:mod:`.world`).  Never raises for bad input."""
    from .world import build_document
    path = Path(path)
    found = Diagnostics()
    plan = _load(path, found, doors)
    if plan is None:
        doc = Document(path=str(path), format="floorplan")
        doc.diagnostics.extend(found)
        return doc
    try:
        doc = build_document(plan, path=path)
        doc.extras["source_files"] = source_files(path, doors)
        if check:
            from snapframe.core.frames import check_document   # local: frames imports the model
            check_document(doc)
    except FloorPlanError as error:
        doc = Document(path=str(path), format="floorplan")
        doc.diagnostics.extend(found)
        doc.diagnostics.add(_diagnostic(error, path))
    except Exception as exc:   # a bug of ours: a diagnostic, never a crash of the caller
        doc = Document(path=str(path), format="floorplan")
        doc.diagnostics.extend(found)
        doc.diagnostics.error(Code.PLUGIN_ERROR, f"the floor plan reader failed on [{path}]: "
                              f"{type(exc).__name__}: {exc}", SourceLocation(str(path)))
    return doc


def parse_include(include: NestedInclude, context) -> Model | None:
    """Custom model parser for an ``//include`` of a ``.fpm`` file (with the door files of
    its ``<stem>.doors/`` folder) or a JSON-LD folder (the loader resolves a folder with a
    ``floorplan.json`` and no ``model.config`` to that file).  Returns the plan as one
    model (the core applies the include's name and pose), or None with the problems in
    ``context.diagnostics``; declines other files."""
    path = Path(include.resolved_file_name)
    if path.suffix.lower() != ".fpm" and path.name != MARKER:
        return None
    from .world import build_model
    target = getattr(context, "diagnostics", None)
    found = Diagnostics()
    plan = _load(path, found)
    model = None
    if plan is not None:
        try:
            model = build_model(plan, diagnostics=found)
            model.extras["source_files"] = source_files(path)
        except FloorPlanError as error:
            found.add(_diagnostic(error, path))
            model = None
        except Exception as exc:   # a bug of ours: reported, the including file still reads
            found.error(Code.PLUGIN_ERROR, f"the floor plan reader failed on [{path}]: "
                        f"{type(exc).__name__}: {exc}", SourceLocation(str(path)))
            model = None
    if target is not None:
        target.extend(found)
    if model is None or found.has_errors():
        return None   # spec 1.5: a parser that reported an error returns no model
    return model
