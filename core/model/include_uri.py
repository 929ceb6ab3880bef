"""Which URI an ``//include`` of a file should be written with.

:func:`include_uri_for` picks, in this order, the first form that names the file:

1. **In the document's folder** (or below it): a relative file URI,
   ``file://parts/gripper.sdf``.  It moves with the project; relative include URIs are
   resolved against the including file (and :meth:`Document.save` rebases them on a Save
   As elsewhere).  The ``file://`` scheme is kept because a bare relative path is looked up
   by libsdformat 12 in its own share folder first, where ``gripper.sdf``, ``model.sdf``,
   ``link.sdf``... are the specification's element descriptions (see tests/oracle).
2. **A model folder on a model search path** (a folder holding ``model.config``, directly
   below a search path, SDFormat's ``model://`` convention): ``model://NAME`` when the file
   is the one ``model.config`` names (or the folder itself was given), else
   ``model://NAME/rest`` for another file of that folder.
3. **Inside a ROS package on a search path** (the nearest enclosing folder with
   ``package.xml``, directly below a search path): ``package://PACKAGE/rest``.
4. **Near the document** (below the document folder's parent, a sibling folder):
   ``file://../models/gripper.sdf``; search-path forms win over this one because they keep
   working when the document moves away from its neighbours.
5. Anything else: an absolute file URI, ``file:///abs/path/gripper.sdf``.

A candidate is only returned if resolving it again (with the same search paths, from the
document's folder) finds the same file, so the choice never names another file that
shadows it.  An unsaved document has no folder: rules 1 and 4 do not apply.  Paths are
written with ``/`` and not percent-encoded (the loader and libsdformat read them as is).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

__all__ = ["include_uri_for"]


def include_uri_for(document, path: str | os.PathLike,
                    search_paths: Iterable[str | os.PathLike] | None = None) -> str:
    """The URI an ``//include`` in ``document`` should use for ``path`` (a model file or a
    model folder); see the module docstring for the rule.  ``search_paths`` default to the
    ones the document was loaded with (``--path``, ``SDF_PATH``...); given, they replace
    them (the environment is then not read)."""
    from ..loading import LoadContext
    context = document.extras.get("load_context") if document is not None else None
    if search_paths is None:
        paths = context.all_search_paths() if context is not None else []
        check = context or LoadContext(use_environment=False)
    else:
        paths = [Path(p) for p in search_paths]
        check = LoadContext(search_paths=paths, use_environment=False)
    roots = [_real(p) for p in paths]
    target = _real(Path(path))
    folder = _real(Path(document.path)).parent if document is not None and document.path \
        else None
    base = folder or Path.cwd()
    wanted = _model_file(target, check) if target.is_dir() else target

    def names_it(uri: str) -> bool:
        found = check.resolve_uri(uri, base)
        if found is None:
            return False
        found = found if not found.is_dir() else _model_file(found, check)
        return found is not None and wanted is not None and _real(found) == wanted

    candidates: list[str] = []
    if folder is not None and _is_below(target, folder):
        candidates.append(_relative(target, folder))
    model_uri = _model_uri(target, roots, check)
    if model_uri:
        candidates.append(model_uri)
    package_uri = _package_uri(target, roots)
    if package_uri:
        candidates.append(package_uri)
    if folder is not None and _is_below(target, folder.parent):
        candidates.append(_relative(target, folder))
    for uri in candidates:
        if names_it(uri):
            return uri
    return "file://" + target.as_posix()


def _real(p: Path) -> Path:
    return Path(os.path.realpath(p))


def _is_below(path: Path, folder: Path) -> bool:
    return path != folder and folder in path.parents


def _relative(target: Path, folder: Path) -> str:
    return "file://" + Path(os.path.relpath(target, folder)).as_posix()


def _model_file(folder: Path, context) -> Path | None:
    from ..diagnostics import Diagnostics, SourceLocation
    found = context.model_file_of_directory(folder, Diagnostics(), SourceLocation())
    return _real(found) if found is not None else None


def _model_uri(target: Path, roots: list[Path], context) -> str:
    """``model://NAME[/rest]`` when ``target`` is (in) a model folder below a search path."""
    for folder in [target, *target.parents] if target.is_dir() else target.parents:
        if not (folder / "model.config").is_file() and not (folder / "manifest.xml").is_file():
            continue
        if folder.parent not in roots:
            return ""  # the nearest model folder is not on a search path
        if target == folder or target == _model_file(folder, context):
            return f"model://{folder.name}"
        return f"model://{folder.name}/{target.relative_to(folder).as_posix()}"
    return ""


def _package_uri(target: Path, roots: list[Path]) -> str:
    """``package://PACKAGE/rest`` when ``target`` is inside a package below a search path
    (the package is named by its folder, which is what ``package://`` URIs look up)."""
    for folder in target.parents:
        if not (folder / "package.xml").is_file():
            continue
        if folder.parent not in roots:
            return ""
        return f"package://{folder.name}/{target.relative_to(folder).as_posix()}"
    return ""
