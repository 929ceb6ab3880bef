"""File input and output every reader and writer goes through.

* :func:`atomic_write`: the new content is written and synced before it takes the
  target's name in one ``rename``, so a crash, a ``SIGKILL`` or a full disk in the middle
  of a save leaves either the old file or the complete new one, and no stray file.  On
  Linux the content is written to an unnamed ``O_TMPFILE`` in the target folder, which
  vanishes with the process if it dies; it gets a name only for the instant between
  ``linkat`` and ``rename``.  Elsewhere (or on a filesystem without ``O_TMPFILE``) it is
  written to a named temporary file; either way a temporary that a killed save left
  behind is recognised by its name and removed by the next save to the same target.
* :func:`atomic_write_many`: many files, each atomic as above, with one sync of each
  folder at the end instead of one per file (a save writing a hundred mesh files).
* :func:`read_regular_file`: read a file, refusing FIFOs, devices and oversized files;
  :func:`read_xml_file` with the lower limit for model (XML) files;
  :func:`unreadable_reason` says why a path cannot be read, for a diagnostic.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import stat
import time
from pathlib import Path

try:  # POSIX: a live save holds a lock on its temporary, so others know it is not stale
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["atomic_write", "atomic_write_many", "read_regular_file", "read_xml_file", "unreadable_reason",
           "NotARegularFile", "FileTooLarge", "MAX_FILE_BYTES", "MAX_XML_BYTES", "TEMP_SUFFIX"]

#: Temporary files of a save are named ``.<target name>.<random>`` + this suffix.
TEMP_SUFFIX = ".snapframe-tmp"
#: Without file locks, a temporary this old is taken for one a killed save left behind.
_STALE_UNLOCKED_SECONDS = 3600.0
_CHUNK = 1 << 20


def atomic_write(path: str | os.PathLike, data: bytes | str, encoding: str = "utf-8") -> None:
    """Replace ``path`` with ``data`` atomically (the old file stays whole until the new
    one is complete and synced).  A new file gets mode 0644; an existing one keeps its
    mode.  Temporaries of earlier saves to ``path`` that were killed are removed."""
    target = Path(path)
    payload = data.encode(encoding) if isinstance(data, str) else bytes(data)
    folder = target.parent
    folder.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = 0o644
    _remove_stale_temporaries(target)
    _write_one(target, payload, mode, sync_folder=True)


def atomic_write_many(files: "list[tuple[str | os.PathLike, bytes | str]]",
                      encoding: str = "utf-8") -> dict[Path, OSError]:
    """Write each ``(path, data)`` of ``files`` as :func:`atomic_write` does (content
    synced before the rename, so each file is old or whole after a crash), but sync each
    folder once, after its last rename, and look for stale temporaries once per folder.
    A file that cannot be written does not stop the others: returns path -> error for
    those (empty when all were written)."""
    failed: dict[Path, OSError] = {}
    folders: dict[Path, list[tuple[Path, bytes]]] = {}
    for path, data in files:
        target = Path(path)
        payload = data.encode(encoding) if isinstance(data, str) else bytes(data)
        folders.setdefault(target.parent, []).append((target, payload))
    for folder, items in folders.items():
        try:
            folder.mkdir(parents=True, exist_ok=True)
            present = os.listdir(folder)
        except OSError as exc:
            failed.update((target, exc) for target, _ in items)
            continue
        written = False
        for target, payload in items:
            try:
                try:
                    mode = stat.S_IMODE(os.stat(target).st_mode)
                except FileNotFoundError:
                    mode = 0o644
                _remove_stale_temporaries(target, present)
                _write_one(target, payload, mode, sync_folder=False)
                written = True
            except OSError as exc:
                failed[target] = exc
        if written:
            _sync_folder(folder)     # every rename of the folder made durable at once
    return failed


def _write_one(target: Path, payload: bytes, mode: int, sync_folder: bool) -> None:
    fd = _open_unnamed(target.parent, mode)
    if fd is not None:
        named = _write_unnamed(fd, target, payload, mode, sync_folder)
        if named:
            return
    _write_named(target, payload, mode, sync_folder)


def _temp_name(target: Path) -> Path:
    return target.with_name(f".{target.name}.{secrets.token_hex(6)}{TEMP_SUFFIX}")


def _open_unnamed(folder: Path, mode: int) -> int | None:
    """An ``O_TMPFILE`` descriptor in ``folder``, or None where that is not available."""
    flag = getattr(os, "O_TMPFILE", 0)
    if not flag or not Path("/proc/self/fd").is_dir():
        return None  # linkat through /proc is how the file gets its name
    try:
        return os.open(folder, flag | os.O_WRONLY | getattr(os, "O_CLOEXEC", 0), mode)
    except OSError as exc:
        if exc.errno in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL, errno.ENOENT):
            return None  # the filesystem (or an old kernel) has no O_TMPFILE
        raise


def _write_unnamed(fd: int, target: Path, payload: bytes, mode: int,
                   sync_folder: bool = True) -> bool:
    """Write through the unnamed ``fd``, name it and rename it over ``target``.  False if
    the file could not be given a name (then nothing is left behind and the caller falls
    back to a named temporary)."""
    dfd = -1
    tmp: str | None = None
    try:
        _lock(fd)  # before it has a name: a named temporary is always locked while live
        _write_all(fd, payload)
        os.fchmod(fd, mode)  # O_TMPFILE's mode argument is filtered by the umask
        os.fsync(fd)
        dfd = os.open(target.parent, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
        tmp = _temp_name(target).name
        try:
            # With a dir fd, os.link is linkat(..., AT_SYMLINK_FOLLOW): the magic link
            # /proc/self/fd/N is followed to the unnamed file (plain link() would not).
            os.link(f"/proc/self/fd/{fd}", tmp, dst_dir_fd=dfd, follow_symlinks=True)
        except OSError as exc:
            if exc.errno in (errno.ENOENT, errno.EPERM, errno.EXDEV, errno.EOPNOTSUPP,
                             errno.EACCES):
                tmp = None
                return False
            raise
        # The only moment the new content has a temporary name: a kill right here leaves
        # it, and the next save to this target removes it (it is unlocked by then).
        os.replace(tmp, target.name, src_dir_fd=dfd, dst_dir_fd=dfd)
        tmp = None
        if sync_folder:
            try:
                os.fsync(dfd)  # make the rename itself durable
            except OSError:
                pass
        return True
    finally:
        os.close(fd)
        if tmp is not None:
            try:
                os.unlink(tmp, dir_fd=dfd)
            except OSError:
                pass
        if dfd >= 0:
            os.close(dfd)


def _write_named(target: Path, payload: bytes, mode: int, sync_folder: bool = True) -> None:
    tmp = _temp_name(target)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), mode)
    done = False
    try:
        _lock(fd)
        _write_all(fd, payload)
        if hasattr(os, "fchmod"):
            os.fchmod(fd, mode)
        os.fsync(fd)
        if fcntl is None:  # Windows cannot rename an open file (and has no flock anyway)
            os.close(fd)
            fd = -1
        os.replace(tmp, target)  # still locked while it has the temporary name
        done = True
        if sync_folder:
            _sync_folder(target.parent)
    finally:
        if fd >= 0:
            os.close(fd)
        if not done:
            _unlink_quietly(tmp)


def _write_all(fd: int, payload: bytes) -> None:
    view = memoryview(payload)
    while view:
        written = os.write(fd, view[:_CHUNK])
        view = view[written:]


def _lock(fd: int) -> None:
    if fcntl is not None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            pass  # no locks here (some network filesystems): the save itself still works


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable (POSIX; a no-op where folders cannot be opened)."""
    try:
        dfd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def _remove_stale_temporaries(target: Path, listed: list[str] | None = None) -> None:
    """Remove temporaries of ``target`` that a killed save left: those no live save holds
    a lock on (or, without locks, older than an hour).  Temporaries of the earlier
    implementation (``.<name>.XXXXXXXX.tmp``, never locked) go when older than an hour.
    ``listed``: the folder's names, when the caller has listed it already."""
    prefix = f".{target.name}."
    legacy = re.compile(re.escape(prefix) + r"[a-z0-9_]{8}\.tmp")
    try:
        names = [n for n in (os.listdir(target.parent) if listed is None else listed)
                 if n.startswith(prefix)]
    except OSError:
        return
    for name in names:
        tmp = target.parent / name
        if name.endswith(TEMP_SUFFIX) and _is_stale(tmp):
            _unlink_quietly(tmp)
        elif legacy.fullmatch(name) and _older_than(tmp, _STALE_UNLOCKED_SECONDS):
            _unlink_quietly(tmp)


def _older_than(path: Path, seconds: float) -> bool:
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and time.time() - st.st_mtime > seconds


def _is_stale(tmp: Path) -> bool:
    if fcntl is None:
        return _older_than(tmp, _STALE_UNLOCKED_SECONDS)
    try:
        fd = os.open(tmp, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
                     | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True  # nobody holds it: its writer is gone
    except OSError:
        return False  # a live save is writing it
    finally:
        os.close(fd)  # also releases our lock


def _unlink_quietly(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


class NotARegularFile(OSError):
    """A path names something that is not a regular file (a FIFO, a device, a folder);
    ``kind`` says which ("a FIFO", "a folder", "a device or special file")."""

    def __init__(self, path: str | os.PathLike, kind: str) -> None:
        super().__init__(f"[{path}] is {kind}, not a regular file; not read")
        self.path = str(path)
        self.kind = kind


class FileTooLarge(OSError):
    """A file is larger than a reader accepts (``size`` and ``limit`` in bytes)."""

    def __init__(self, path: str | os.PathLike, size: int, limit: int,
                 growing: bool = False) -> None:
        text = (f"[{path}] grew past {limit} bytes while being read; not read" if growing else
                f"[{path}] is {size} bytes, more than the {limit} a model file may have; "
                "not read")
        super().__init__(text)
        self.path = str(path)
        self.size = size
        self.limit = limit


#: Model, mesh and source files larger than this are refused (a real mesh is far smaller;
#: a larger "file" is a mistake or an attack, and reading it would exhaust memory).
MAX_FILE_BYTES = 1 << 30
#: SDFormat, URDF and model.config files larger than this are refused: the largest real
#: ones are a few megabytes (meshes and heightmaps live in files of their own), and a
#: parsed XML tree takes up to seventeen times its file's size in memory (61 MB of empty
#: links: 1 GB and 3 s in lxml alone).
MAX_XML_BYTES = 32 << 20


def read_regular_file(path: str | os.PathLike, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of ``path``, refusing anything but a regular file of at most ``max_bytes``.

    Every reader opens its input through here: a FIFO would block for ever and
    ``/dev/zero`` would never end.  The check is made on the opened descriptor (no race
    between checking and reading).  Raises ``OSError`` (:class:`NotARegularFile` for FIFOs,
    devices and folders, :class:`FileTooLarge` past ``max_bytes``) with a message fit for
    a diagnostic.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = ("a FIFO" if stat.S_ISFIFO(st.st_mode) else "a folder"
                    if stat.S_ISDIR(st.st_mode) else "a device or special file")
            raise NotARegularFile(path, kind)
        if st.st_size > max_bytes:
            raise FileTooLarge(path, st.st_size, max_bytes)
        # One read of the whole file (and one byte more, to see it grow): joining chunks
        # would hold the file twice at the end.
        first = os.read(fd, st.st_size + 1) if st.st_size else b""
        chunks, total = [first], len(first)
        while True:
            if total > max_bytes:
                raise FileTooLarge(path, total, max_bytes, growing=True)
            chunk = os.read(fd, _CHUNK)
            if not chunk:
                break
            total += len(chunk)
            chunks.append(chunk)
        return first if len(chunks) == 1 else b"".join(chunks)
    finally:
        os.close(fd)


def read_xml_file(path: str | os.PathLike) -> bytes:
    """:func:`read_regular_file` with the limit for model files (:data:`MAX_XML_BYTES`)."""
    return read_regular_file(path, MAX_XML_BYTES)


def unreadable_reason(path: str | os.PathLike) -> str:
    """Why ``path`` cannot be read as a model file, as a phrase for a diagnostic ("[p] is
    a FIFO, not a regular file; not read", "[p] does not exist"...); looked at without
    opening it (a FIFO would block)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return f"[{path}] does not exist"
    except OSError as exc:
        return f"[{path}]: {exc.strerror or exc}"
    except ValueError as exc:  # a NUL byte in the name
        return f"[{path}]: {exc}"
    if stat.S_ISREG(st.st_mode):
        if st.st_size > MAX_XML_BYTES:
            return str(FileTooLarge(path, st.st_size, MAX_XML_BYTES))
        return f"[{path}] cannot be read"
    kind = ("a FIFO" if stat.S_ISFIFO(st.st_mode) else "a folder" if stat.S_ISDIR(st.st_mode)
            else "a device or special file")
    return str(NotARegularFile(path, kind))
