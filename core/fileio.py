"""File input and output every reader and writer goes through.

* :func:`atomic_write`: write a temporary file next to the target, fsync, then rename; a
  crash or a full disk in the middle of a save leaves the previous file untouched.
* :func:`read_regular_file`: read a file, refusing FIFOs, devices and oversized files.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

__all__ = ["atomic_write", "read_regular_file", "NotARegularFile", "MAX_FILE_BYTES"]


def atomic_write(path: str | os.PathLike, data: bytes | str, encoding: str = "utf-8") -> None:
    target = Path(path)
    payload = data.encode(encoding) if isinstance(data, str) else data
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        if target.exists():
            os.chmod(tmp, target.stat().st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


class NotARegularFile(OSError):
    """A path names something that is not a regular file (a FIFO, a device, a folder)."""


#: Model, mesh and source files larger than this are refused (a real mesh is far smaller;
#: a larger "file" is a mistake or an attack, and reading it would exhaust memory).
MAX_FILE_BYTES = 1 << 30


def read_regular_file(path: str | os.PathLike, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of ``path``, refusing anything but a regular file of at most ``max_bytes``.

    Every reader opens its input through here: a FIFO would block for ever and
    ``/dev/zero`` would never end.  The check is made on the opened descriptor (no race
    between checking and reading).  Raises ``OSError`` (``NotARegularFile`` for FIFOs,
    devices and folders) with a message fit for a diagnostic.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = ("a FIFO" if stat.S_ISFIFO(st.st_mode) else "a folder"
                    if stat.S_ISDIR(st.st_mode) else "a device or special file")
            raise NotARegularFile(f"[{path}] is {kind}, not a regular file; not read")
        if st.st_size > max_bytes:
            raise OSError(f"[{path}] is {st.st_size} bytes, more than the {max_bytes} a model "
                          "file may have; not read")
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            total += len(chunk)
            if total > max_bytes:
                raise OSError(f"[{path}] grew past {max_bytes} bytes while being read; not read")
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)
