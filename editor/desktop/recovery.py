"""Recovery copies of open documents on disk, and the copies a crashed editor left behind.

Each running editor keeps its copies in a folder of its own below the recovery folder::

    <recovery folder>/<pid>-<random>/
        lock          held (flock) by that editor for as long as it runs
        owner.json    {"pid", "host", "started"}
        doc-3.json    the manifest of one document: its file, format, title, time, pid
        doc-3.sdf     the document's content, in its own format, as its writer writes it
        doc-3.meshes.npz  meshes the document holds in memory (a floor plan's walls), if any

A document whose format cannot be written (a floor plan) is copied as the SDFormat world
a save writes for it; its manifest says so (``format`` is ``sdformat``,
``original_format`` the document's own) and the restored document is again one of its
own format, bound to its file.

A folder is made hidden (``.new-<pid>-<random>``), locked and given its owner before it
is renamed into place, so that no other editor sees it half made.  A folder whose lock
nobody holds belongs to an editor that is gone (the kernel releases a lock when its
process dies, SIGKILL included).  A starting editor *claims* such a folder by taking its
lock, so that two editors starting at once never offer (or delete) the same copies, and
a running editor's copies are never offered at all.  Where the filesystem
has no locks (some FUSE and NFS mounts), the owner's process id decides instead, and a
starting editor claims a folder by renaming it to one of its own.

What this version cannot read (a manifest another version wrote, a file it does not
know) is never deleted: such a folder is left as it is.

No Qt here: the autosave manager (:mod:`.autosave`) writes through
:class:`RecoverySession` from its worker thread, and the start-up offer
(:mod:`.recovery_dialog`) reads :func:`claim_orphans`.
"""

from __future__ import annotations

import errno
import io
import json
import os
import re
import secrets
import shutil
import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from snapframe.core.fileio import atomic_write, read_regular_file
from snapframe.core.model import Collision, Document, Visual
from snapframe.core.model.nodes import MeshData

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: the process ids decide
    fcntl = None  # type: ignore[assignment]

__all__ = ["RecoveryEntry", "RecoverySession", "OrphanedSession", "claim_orphans",
           "read_recovered", "read_meshes", "MANIFEST_VERSION"]

MANIFEST_VERSION = 1
LOCK_NAME = "lock"
OWNER_NAME = "owner.json"
#: A manifest is tiny; anything larger is not one of ours.
_MAX_MANIFEST_BYTES = 64 * 1024
#: Largest file of meshes read back (a floor plan's walls: a few MB).
_MAX_MESH_BYTES = 1 << 30
#: New session folders tried when each one made is claimed before it is locked.
_FOLDER_ATTEMPTS = 8
#: A session folder is made under this prefix (hidden), locked, given its owner, and only
#: then renamed into place: no other editor ever sees it unlocked or without an owner.
_STAGING = ".new-"
#: A staging folder this old was left by a crash while it was being made: removed.
_STALE_STAGING_SECONDS = 3600
#: The files a session folder of ours holds besides its lock and owner: a document's
#: content and meshes (``doc-3.sdf``, ``doc-3.meshes.npz``).  A manifest's name is ours too.
_OUR_FILE = re.compile(r"doc-\d+\.[A-Za-z0-9_.-]+")


@dataclass(frozen=True)
class RecoveryEntry:
    """One document's recovery copy: ``content`` (in ``format``) described by
    ``manifest``; ``original_path`` is the file it belongs to ("" if it had none).
    ``original_format``: the document's own format when the copy is in another (a floor
    plan copied as SDFormat), else "".  ``meshes``: the file of the meshes it held in
    memory (None: none)."""

    manifest: Path
    content: Path
    original_path: str
    format: str
    title: str
    saved_at: float
    pid: int
    original_format: str = ""
    meshes: Path | None = None

    @property
    def files(self) -> list[Path]:
        """The files of the copy (content first, then its meshes)."""
        return [self.content, *([self.meshes] if self.meshes is not None else [])]

    @property
    def entry_id(self) -> str:
        return self.manifest.stem

    @property
    def label(self) -> str:
        """The file's name, as a list of recovered documents shows it."""
        return Path(self.original_path).name if self.original_path else (self.title or
                                                                         "Untitled")


# -- locks ----------------------------------------------------------------------------
class _NoLocks(Exception):
    """The filesystem cannot lock files: process ids decide who owns a folder."""


def _take_lock(path: Path) -> int | None:
    """A descriptor holding the exclusive lock of ``path`` (created if missing), or None
    when another process (or another descriptor of this one) holds it.  Raises
    :class:`_NoLocks` where locks are not available."""
    if fcntl is None:
        raise _NoLocks()
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
                 | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(fd)
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return None
        raise _NoLocks() from exc
    return fd


def _process_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True     # someone else's process: alive
    except OSError:
        return False
    return True


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(read_regular_file(path, _MAX_MANIFEST_BYTES))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _plain_name(value: Any) -> str | None:
    """``value`` when it is a file name in the folder (never a path out of it)."""
    if not isinstance(value, str) or not value or Path(value).name != value or \
            value in (".", ".."):
        return None
    return value


def _entry_of(manifest: Path) -> RecoveryEntry | None:
    """The entry a manifest describes; None for a manifest that is not one (unreadable,
    another version, its content missing)."""
    data = _read_json(manifest)
    if data is None or data.get("version") != MANIFEST_VERSION:
        return None
    content_name = _plain_name(data.get("content"))
    if content_name is None:
        return None
    content = manifest.parent / content_name
    if not content.is_file():
        return None
    meshes = None
    if data.get("meshes") is not None:
        meshes_name = _plain_name(data.get("meshes"))
        if meshes_name is None or not (manifest.parent / meshes_name).is_file():
            return None      # a copy without the walls it names is no copy
        meshes = manifest.parent / meshes_name
    try:
        return RecoveryEntry(manifest, content, str(data.get("original_path") or ""),
                             str(data.get("format") or ""), str(data.get("title") or ""),
                             float(data.get("saved_at") or 0.0), int(data.get("pid") or 0),
                             str(data.get("original_format") or ""), meshes)
    except (TypeError, ValueError):
        return None


def _manifests(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if p.suffix == ".json"
                      and p.name != OWNER_NAME)
    except OSError:
        return []


def _entries_in(folder: Path) -> list[RecoveryEntry]:
    out = []
    for manifest in _manifests(folder):
        entry = _entry_of(manifest)
        if entry is not None:
            out.append(entry)
    return out


def _foreign(folder: Path) -> bool:
    """Whether ``folder`` holds what this version cannot read and must not delete: a
    manifest another version wrote (JSON naming another version), or a file of a name
    no version of ours gives.  (A manifest that is no JSON, or claims our version and
    names no copy, is junk of ours; hidden files are temporaries of interrupted writes.)"""
    try:
        names = [n for n in os.listdir(folder) if not n.startswith(".")]
    except OSError:
        return True      # not ours to judge
    for name in names:
        if name in (LOCK_NAME, OWNER_NAME):
            continue
        if not _OUR_FILE.fullmatch(name):
            return True
        if name.endswith(".json"):
            data = _read_json(folder / name)
            if data is not None and data.get("version") != MANIFEST_VERSION:
                return True
    return False


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass


def _remove_folder(folder: Path) -> None:
    """Remove one of our session folders (never a symlink's target)."""
    if folder.is_symlink():
        _unlink(folder)
        return
    shutil.rmtree(folder, ignore_errors=True)


def _write_owner(folder: Path) -> None:
    atomic_write(folder / OWNER_NAME, json.dumps(
        {"pid": os.getpid(), "host": socket.gethostname(), "started": time.time()}))


def _meshes_bytes(meshes: dict[str, MeshData]) -> bytes:
    """An ``.npz`` of ``meshes`` (URI -> triangles): per mesh its vertices and faces, and
    the URIs in that order (plain arrays: read back without unpickling anything)."""
    import numpy as np
    arrays: dict[str, Any] = {"uris": np.array(list(meshes), dtype=str)}
    for i, data in enumerate(meshes.values()):
        arrays[f"v{i}"] = data.vertices
        arrays[f"f{i}"] = data.faces
    out = io.BytesIO()
    np.savez(out, **arrays)
    return out.getvalue()


def read_meshes(path: Path) -> dict[str, MeshData]:
    """The meshes of a copy's ``.npz`` (URI -> triangles); ValueError when it is not one."""
    import numpy as np
    data = read_regular_file(path, _MAX_MESH_BYTES)
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            uris = [str(u) for u in npz["uris"]]
            out = {}
            for i, uri in enumerate(uris):
                out[uri] = MeshData(npz[f"v{i}"], npz[f"f{i}"], Path(uri).name)
    except (KeyError, OSError, ValueError, EOFError) as exc:
        raise ValueError(f"{path.name} holds no meshes this version reads: {exc}") from None
    return out


# -- this editor's copies -------------------------------------------------------------------
class RecoverySession:
    """This process's recovery copies below ``root``: a folder created on the first write
    and locked until :meth:`close`.  Safe to call from one worker thread at a time (the
    autosave manager's) and from the UI thread for :meth:`close`."""

    def __init__(self, root: str | os.PathLike) -> None:
        self.root = Path(root)
        self.folder: Path | None = None
        self._fd: int | None = None
        self._guard = threading.Lock()

    def _ensure(self) -> Path:
        with self._guard:
            if self.folder is not None:
                return self.folder
            self.root.mkdir(parents=True, exist_ok=True)
            try:
                os.chmod(self.root, 0o700)   # the user's unsaved work: theirs only
            except OSError:
                pass
            for _attempt in range(_FOLDER_ATTEMPTS):
                name = f"{os.getpid()}-{secrets.token_hex(4)}"
                staging, folder = self.root / f"{_STAGING}{name}", self.root / name
                try:
                    staging.mkdir(mode=0o700)
                except FileExistsError:
                    continue
                try:
                    fd = _take_lock(staging / LOCK_NAME)
                except _NoLocks:
                    fd = None   # the process id in owner.json decides
                else:
                    if fd is None:
                        # Another editor holds the lock of the folder just made (it took
                        # it for a dead one's): it is theirs now, make another.
                        continue
                try:
                    _write_owner(staging)
                    os.rename(staging, folder)   # in place: locked, with its owner
                except OSError:
                    if fd is not None:
                        os.close(fd)
                    shutil.rmtree(staging, ignore_errors=True)
                    raise
                self._fd = fd
                self.folder = folder
                return folder
            raise OSError(f"no recovery folder of our own could be locked in {self.root} "
                          f"({_FOLDER_ATTEMPTS} made, each claimed by another editor)")

    def content_path(self, entry_id: str, suffix: str) -> Path:
        """Where the content of ``entry_id`` goes (the folder is created if needed)."""
        return self._ensure() / f"{entry_id}{suffix}"

    def write(self, entry_id: str, suffix: str, payload: bytes | None,
              manifest: dict[str, Any], meshes: dict[str, MeshData] | None = None
              ) -> RecoveryEntry:
        """Write the content (unless ``payload`` is None: written there already, see
        :meth:`content_path`) and the ``meshes`` it holds in memory (URI -> triangles),
        then its manifest, each atomically: a manifest always names a complete copy."""
        content = self.content_path(entry_id, suffix)
        if payload is not None:
            atomic_write(content, payload)
        data = {**manifest, "version": MANIFEST_VERSION, "content": content.name,
                "pid": os.getpid()}
        keep = {content}
        if meshes:
            mesh_file = content.with_name(f"{entry_id}.meshes.npz")
            atomic_write(mesh_file, _meshes_bytes(meshes))
            data["meshes"] = mesh_file.name
            keep.add(mesh_file)
        manifest_path = content.with_name(f"{entry_id}.json")
        atomic_write(manifest_path, json.dumps(data, indent=1))
        keep.add(manifest_path)
        for stale in manifest_path.parent.glob(f"{entry_id}.*"):
            if stale not in keep:
                _unlink(stale)      # an earlier copy under another suffix (a Save As)
        entry = _entry_of(manifest_path)
        assert entry is not None
        return entry

    def remove(self, entry_id: str) -> None:
        """Remove the copy of ``entry_id`` (saved, closed, or discarded)."""
        folder = self.folder
        if folder is None:
            return
        manifest = folder / f"{entry_id}.json"
        _unlink(manifest)       # first: a manifest never names a missing file
        for path in folder.glob(f"{entry_id}.*"):
            _unlink(path)

    def adopt(self, entry: RecoveryEntry, entry_id: str) -> RecoveryEntry:
        """Move a claimed copy (a restored document's) into this session under
        ``entry_id``: this editor answers for it from now on."""
        folder = self._ensure()
        content = folder / f"{entry_id}{entry.content.suffix}"
        shutil.copyfile(entry.content, content)
        data = _read_json(entry.manifest) or {}
        data.update({"version": MANIFEST_VERSION, "content": content.name, "pid": os.getpid()})
        data.pop("meshes", None)
        if entry.meshes is not None:
            meshes = folder / f"{entry_id}.meshes.npz"
            shutil.copyfile(entry.meshes, meshes)
            data["meshes"] = meshes.name
        atomic_write(folder / f"{entry_id}.json", json.dumps(data, indent=1))
        adopted = _entry_of(folder / f"{entry_id}.json")
        assert adopted is not None
        return adopted

    def entries(self) -> list[RecoveryEntry]:
        return _entries_in(self.folder) if self.folder is not None else []

    def close(self) -> None:
        """A clean exit: every copy goes, and the folder with them."""
        with self._guard:
            folder, fd = self.folder, self._fd
            self.folder, self._fd = None, None
        if folder is not None:
            _remove_folder(folder)
        if fd is not None:
            os.close(fd)


# -- copies of editors that are gone ----------------------------------------------------------
class OrphanedSession:
    """The copies of an editor that is gone, claimed by this one (its lock held) until
    :meth:`release`, :meth:`discard` or :meth:`finish`."""

    def __init__(self, folder: Path, entries: list[RecoveryEntry], fd: int | None) -> None:
        self.folder = folder
        self.entries = entries
        self._fd = fd

    def release(self) -> None:
        """Keep the copies for a later start (another editor may claim them now)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def forget(self, entry: RecoveryEntry) -> None:
        """``entry`` was restored or discarded: its files go."""
        _unlink(entry.manifest)     # first: a manifest never names a missing file
        for path in entry.files:
            _unlink(path)
        self.entries = [e for e in self.entries if e != entry]

    def discard(self) -> None:
        """Delete every copy of this session (and its folder)."""
        for entry in list(self.entries):
            self.forget(entry)
        self.finish()

    def finish(self) -> None:
        """Remove the folder if no copy is left in it (and nothing this version cannot
        read: another version's copies stay), then let go of the claim."""
        if not _entries_in(self.folder) and not _foreign(self.folder):
            _remove_folder(self.folder)
        self.release()


def _claim_without_locks(folder: Path, host: str) -> Path | None:
    """Claim a folder where files cannot be locked: its owner's process must be gone, and
    the folder is renamed to one of ours (one rename wins when two editors start at once;
    the new owner.json names this process, so others keep off while it runs).  The
    folder now ours, or None."""
    owner = _read_json(folder / OWNER_NAME) or {}
    pid = owner.get("pid")
    if owner.get("host") == host and isinstance(pid, int) and \
            (pid == os.getpid() or _process_alive(pid)):
        return None        # ours, or its editor still runs
    claimed = folder.with_name(f"{os.getpid()}-{secrets.token_hex(4)}")
    try:
        os.rename(folder, claimed)
    except OSError:
        return None        # claimed by another editor first (or not ours to move)
    try:
        _write_owner(claimed)
    except OSError:
        pass
    return claimed


def _remove_stale_staging(folder: Path) -> None:
    """Remove a session folder a crash left while it was being made (nothing in it is a
    copy yet): once it is old, and its lock is free."""
    try:
        if time.time() - folder.stat().st_mtime < _STALE_STAGING_SECONDS:
            return
        fd = _take_lock(folder / LOCK_NAME)
    except _NoLocks:
        fd = -1
    except OSError:
        return
    if fd is None:
        return
    _remove_folder(folder)
    if fd >= 0:
        os.close(fd)


def claim_orphans(root: str | os.PathLike) -> list[OrphanedSession]:
    """Claim the sessions below ``root`` whose editor is gone and that hold copies (empty
    ones are removed); sessions of running editors, and those another starting editor
    has claimed, are left alone, and so are copies this version cannot read."""
    root = Path(root)
    try:
        folders = sorted(p for p in root.iterdir() if p.is_dir() and not p.is_symlink())
    except OSError:
        return []
    host = socket.gethostname()
    out: list[OrphanedSession] = []
    for folder in folders:
        if folder.name.startswith("."):
            if folder.name.startswith(_STAGING):
                _remove_stale_staging(folder)
            continue            # being made by a starting editor (or not ours)
        try:
            fd = _take_lock(folder / LOCK_NAME)
        except _NoLocks:
            claimed = _claim_without_locks(folder, host)
            if claimed is None:
                continue
            folder, fd = claimed, None
        except OSError:
            continue        # not ours to look at (permissions): leave it
        else:
            if fd is None:
                continue    # locked: its editor runs, or another one claimed it
        entries = _entries_in(folder)
        session = OrphanedSession(folder, entries, fd)
        if not entries:
            session.finish()    # left by a crash before any copy was complete
            continue
        out.append(session)
    return out


# -- reading a copy back ----------------------------------------------------------------------
def read_recovered(entry: RecoveryEntry, search_paths: list[Path] | None = None,
                   registry=None) -> Document:
    """The document a recovery copy holds, read as if it were its original file (relative
    includes, imports, meshes and diagnostics refer to where the file belongs, not to the
    recovery folder): through the format's ``read_string(data, context, path)`` (every
    format Snapframe writes has one); a format without it is read from the copy and then
    given the original path.  Meshes the copy holds are given back to the geometries
    that name them.  The document is bound to its original file and format (a save
    writes there, a floor plan saved as SDFormat asks where); its undo history is empty.
    Raises ``ValueError`` for a copy that cannot be read."""
    from snapframe.core.formats import registry as default_registry
    from snapframe.core.frames.budget import check_document_budget
    from snapframe.core.loading import LoadContext, load
    from snapframe.core.model_checks import check_values
    reg = registry or default_registry
    context = LoadContext(search_paths=list(search_paths or []), registry=reg)
    descriptor = reg.get(entry.format) if entry.format else None
    module = reg.implementation(descriptor) if descriptor is not None else None
    read_string = getattr(module, "read_string", None)
    if read_string is None:
        document = load(entry.content, context)
        document.path = entry.original_path
    else:
        data = read_regular_file(entry.content)
        document = read_string(data, context, path=entry.original_path)
        document.format = document.format or descriptor.name
        # what load() adds after a format's reader (see snapframe.core.loading.load)
        check_document_budget(document)
        if document.root is not None:
            document.diagnostics.extend(check_values(document))
        document.extras["load_context"] = context
    if entry.meshes is not None and document.root is not None:
        _give_meshes(document, read_meshes(entry.meshes))
    if entry.original_format and entry.original_format != document.format and \
            reg.get(entry.original_format) is not None:
        document.format = entry.original_format
    return document


def _give_meshes(document: Document, meshes: dict[str, MeshData]) -> None:
    """Meshes held in memory go back to the mesh geometries naming them by URI (every
    part sharing a URI shares one mesh, as when it was read)."""
    for node in document.nodes():
        if not isinstance(node, (Visual, Collision)) or node.geometry is None or \
                node.geometry.shape != "mesh":
            continue
        params = node.geometry.params
        data = meshes.get(str(params.get("uri") or ""))
        if data is None:
            continue
        path = params.get("resolved_path")
        if path and os.path.isfile(str(path)):
            continue        # a file of that name exists after all: the file is the mesh
        params["data"] = data
        params["resolved_path"] = None
