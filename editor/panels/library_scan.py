"""Finding models in library folders (plain Python: runs in a worker thread, no Qt).

A library folder holds model directories (a folder with a ``model.config``, as Gazebo's
model paths do) and loose files of any readable format.  Folders that are not models are
searched a few levels deep, so ``models/robots/ur5/`` is found, but the walk is bounded:
search paths such as ``ROS_PACKAGE_PATH`` can name very large trees.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from snapframe.core.diagnostics import Diagnostics, SourceLocation
from snapframe.core.loading import LoadContext
from snapframe.core.xmlsafe import XmlError, parse_xml_file

__all__ = ["LibraryEntry", "scan_folder", "scan_folders", "read_model_config"]

#: How deep below a library folder models are looked for, and how many folders at most.
MAX_DEPTH = 3
MAX_FOLDERS = 5000


@dataclass(frozen=True)
class LibraryEntry:
    """One model of the library.

    ``path`` is the model directory or the loose file; ``file`` the file that opens (for a
    model directory, the SDFormat file its model.config names; None if it names none);
    ``mtime_ns`` the newest modification time of what the thumbnail is drawn from.
    """

    path: Path
    file: Path | None
    name: str
    description: str
    kind: str          # "model" (a model directory) or "file"
    location: Path     # the library folder it was found in
    mtime_ns: int = 0

    @property
    def is_model_directory(self) -> bool:
        return self.kind == "model"


def _text(root, tag: str) -> str:
    el = root.find(tag)
    return " ".join((el.text or "").split()) if el is not None else ""


def read_model_config(folder: Path) -> tuple[str, str, Path | None] | None:
    """``(name, description, model file)`` of a model directory, None if ``folder`` is
    not one.  A ``manifest.xml`` counts only when it describes a model (ROS packages have
    manifests too)."""
    for manifest_name in ("model.config", "manifest.xml"):
        manifest = folder / manifest_name
        if manifest.is_file():
            break
    else:
        return None
    try:
        root = parse_xml_file(manifest).getroot()
    except (XmlError, OSError):
        if manifest_name == "manifest.xml":
            return None
        return folder.name, "(unreadable model.config)", None
    if root.tag != "model":
        if manifest_name == "manifest.xml":
            return None
        model = root.find("model")  # some old files wrap <model> in another element
        root = model if model is not None else root
    name = _text(root, "name") or folder.name
    model_file = LoadContext(use_environment=False).model_file_of_directory(
        folder, Diagnostics(), SourceLocation())
    return name, _text(root, "description"), model_file


def _mtime(*paths: Path | None) -> int:
    best = 0
    for p in paths:
        if p is None:
            continue
        try:
            best = max(best, p.stat().st_mtime_ns)
        except OSError:
            pass
    return best


def scan_folder(root: Path, extensions: list[str], seen: set[Path] | None = None
                ) -> list[LibraryEntry]:
    """Every model directory and loose readable file below ``root`` (see module doc).

    ``seen`` (resolved paths) skips what another library folder already listed.
    """
    seen = set() if seen is None else seen
    exts = tuple(e.lower() for e in extensions)
    out: list[LibraryEntry] = []
    queue: list[tuple[Path, int]] = [(root, 0)]
    visited = 0
    while queue and visited < MAX_FOLDERS:
        folder, depth = queue.pop(0)
        visited += 1
        try:
            children = sorted(os.scandir(folder), key=lambda e: e.name.casefold())
        except OSError:
            continue
        for child in children:
            if child.name.startswith("."):
                continue
            path = Path(child.path)
            try:
                is_dir = child.is_dir()
            except OSError:
                continue
            if is_dir:
                config = read_model_config(path)
                if config is not None:
                    real = path.resolve()
                    if real in seen:
                        continue
                    seen.add(real)
                    name, description, model_file = config
                    out.append(LibraryEntry(path, model_file, name, description, "model", root,
                                            _mtime(path / "model.config", model_file)))
                elif depth + 1 < MAX_DEPTH:
                    queue.append((path, depth + 1))
            elif child.name.lower().endswith(exts):
                real = path.resolve()
                if real in seen:
                    continue
                seen.add(real)
                out.append(LibraryEntry(path, path, path.name, "", "file", root, _mtime(path)))
    return out


def scan_folders(roots: list[Path], extensions: list[str]) -> list[LibraryEntry]:
    """Entries of every folder in ``roots`` (first folder wins a duplicate), by name."""
    seen: set[Path] = set()
    entries: list[LibraryEntry] = []
    for root in roots:
        if root.is_dir():
            entries.extend(scan_folder(root, extensions, seen))
    entries.sort(key=lambda e: (e.name.casefold(), str(e.path)))
    return entries
