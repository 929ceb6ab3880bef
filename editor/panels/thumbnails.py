"""Thumbnails of model files: cached on disk, rendered off the UI thread in a child process.

:class:`Thumbnailer` answers :meth:`~Thumbnailer.request` at once from the disk cache
(one PNG per file path and modification time, under the user cache folder) or queues the
file for :mod:`.thumbnail_worker`, a child process fed through a :class:`QProcess`, so the
UI thread never waits and VTK never renders in two threads of one process.  Finished
images arrive on the UI thread through :attr:`~Thumbnailer.ready`.  A worker that dies
(a crash in a driver, a model that exhausts memory) fails the job it was on and a new
worker carries on with the rest.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import deque
from pathlib import Path

from PySide6 import QtCore, QtGui

__all__ = ["Thumbnailer", "ThumbnailCache", "default_cache_dir"]


def default_cache_dir() -> Path:
    """``<user cache folder>/thumbnails`` (QStandardPaths.CacheLocation)."""
    base = QtCore.QStandardPaths.writableLocation(
        QtCore.QStandardPaths.StandardLocation.CacheLocation)
    return Path(base or Path.home() / ".cache" / "snapframe") / "thumbnails"


class ThumbnailCache:
    """PNG files named after (path, mtime, size): an edited file gets a new thumbnail and
    stale ones are simply never asked for again."""

    def __init__(self, folder: Path | None = None, size: int = 128) -> None:
        self.folder = Path(folder) if folder is not None else default_cache_dir()
        self.size = size

    def file_for(self, path: Path, mtime_ns: int) -> Path:
        digest = hashlib.sha1(f"{Path(path).resolve()}\0{mtime_ns}\0{self.size}".encode())
        return self.folder / f"{digest.hexdigest()}.png"

    def load(self, path: Path, mtime_ns: int) -> QtGui.QImage | None:
        file = self.file_for(path, mtime_ns)
        if not file.is_file():
            return None
        image = QtGui.QImage(str(file))
        return None if image.isNull() else image

    # A file that could not be drawn (it does not load, has nothing to show) will not do
    # better next time at the same mtime: remember why instead of rendering it again.
    def failure(self, path: Path, mtime_ns: int) -> str | None:
        marker = self.file_for(path, mtime_ns).with_suffix(".failed")
        try:
            return marker.read_text(encoding="utf-8") or "could not be drawn"
        except OSError:
            return None

    def set_failure(self, out: Path, reason: str) -> None:
        try:
            out.with_suffix(".failed").write_text(reason, encoding="utf-8")
        except OSError:
            pass


class Thumbnailer(QtCore.QObject):
    """Thumbnails for model files (see the module docstring).

    Signals: ``ready(path: str, image: QImage)`` and ``failed(path: str, reason: str)``,
    ``path`` as given to :meth:`request` (``str(Path)``).
    """

    ready = QtCore.Signal(str, QtGui.QImage)
    failed = QtCore.Signal(str, str)

    #: Arguments of ``python`` that run the worker (the size is appended).
    worker_args: tuple[str, ...] = ("-m", "snapframe.editor.panels.thumbnail_worker")

    def __init__(self, cache_dir: Path | None = None, size: int = 128,
                 parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.cache = ThumbnailCache(cache_dir, size)
        self.size = size
        self._queue: deque[dict] = deque()     # not yet sent to a worker
        self._sent: deque[dict] = deque()      # sent, in the order the worker does them
        self._wanted: set[str] = set()         # every path queued or in progress
        self._retiring = False                 # the worker's input is closed
        self._buffer = b""
        # One QProcess, started again for each run of the worker: deleting a QProcess
        # from its own finished() handler crashes PySide (a use after free).
        self._process = QtCore.QProcess(self)
        self._process.readyReadStandardOutput.connect(self._on_output)
        self._process.finished.connect(self._on_finished)
        self._process.errorOccurred.connect(self._on_error)
        app = QtCore.QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.shutdown)

    # -- public API ---------------------------------------------------------------
    def request(self, path: Path, mtime_ns: int, search_paths: list[Path] | None = None
                ) -> QtGui.QImage | None:
        """The cached thumbnail of ``path``, or None and :attr:`ready` later."""
        image = self.cache.load(path, mtime_ns)
        if image is not None:
            return image
        key = str(path)
        reason = self.cache.failure(path, mtime_ns)
        if reason is not None:
            # reported from the event loop: callers may be inside a model's data()
            QtCore.QTimer.singleShot(0, self, lambda: self.failed.emit(key, reason))
            return None
        if key not in self._wanted:
            self._wanted.add(key)
            self._queue.append({"path": key, "out": str(self.cache.file_for(path, mtime_ns)),
                                "search_paths": [str(p) for p in (search_paths or [])]})
            self._pump()
        return None

    def cancel(self) -> None:
        """Forget queued jobs (the one in progress still finishes)."""
        for job in self._queue:
            self._wanted.discard(job["path"])
        self._queue.clear()
        self._close_input_if_idle()

    @property
    def busy(self) -> bool:
        return bool(self._queue or self._sent)

    def shutdown(self) -> None:
        """Stop the worker now (the panel or the application is closing)."""
        self._queue.clear()
        self._sent.clear()
        self._wanted.clear()
        if self._running():
            self._process.kill()
            self._process.waitForFinished(2000)

    # -- worker -------------------------------------------------------------------
    def _running(self) -> bool:
        return self._process.state() != QtCore.QProcess.ProcessState.NotRunning

    def _pump(self) -> None:
        if not self._queue:
            return
        if not self._running():
            self._retiring, self._buffer = False, b""
            # VTK may print warnings on stderr: discard them so the pipe never fills up
            self._process.setStandardErrorFile(QtCore.QProcess.nullDevice())
            self._process.start(sys.executable, [*self.worker_args, str(self.size)])
            if not self._running():
                return  # failed to start: _on_error has failed the jobs
        elif self._retiring:
            return  # its input is closed: _on_finished starts it again for the rest
        self.cache.folder.mkdir(parents=True, exist_ok=True)
        while self._queue:
            job = self._queue.popleft()
            self._sent.append(job)
            self._process.write((json.dumps(job) + "\n").encode())

    def _close_input_if_idle(self) -> None:
        # A worker with nothing to do exits when its input closes; the next request
        # starts it again (start-up costs a second or two; an idle worker, memory).
        if self._running() and not self._queue and not self._sent and not self._retiring:
            self._retiring = True
            self._process.closeWriteChannel()

    def _on_output(self) -> None:
        self._buffer += bytes(self._process.readAllStandardOutput())
        *lines, self._buffer = self._buffer.split(b"\n")
        for line in lines:
            try:
                reply = json.loads(line)
                path, out, ok = reply["path"], reply["out"], bool(reply["ok"])
            except (ValueError, KeyError, TypeError):
                continue  # something else printed to stdout; not a reply
            self._finish(path, out, ok, str(reply.get("error", "")))
        self._close_input_if_idle()

    def _finish(self, path: str, out: str, ok: bool, error: str) -> None:
        while self._sent and self._sent[0]["path"] != path:
            self._sent.popleft()  # not expected: the worker answers in order
        if self._sent:
            self._sent.popleft()
        self._wanted.discard(path)
        image = QtGui.QImage(out) if ok else QtGui.QImage()
        if not image.isNull():
            self.ready.emit(path, image)
            return
        if not ok:
            self.cache.set_failure(Path(out), error)
        self.failed.emit(path, error or "the thumbnail could not be read")

    def _on_error(self, error: QtCore.QProcess.ProcessError) -> None:
        if error == QtCore.QProcess.ProcessError.FailedToStart:
            # no finished() follows a failed start: give up on everything asked for
            jobs = [*self._sent, *self._queue]
            self._sent.clear()
            self._queue.clear()
            self._wanted.clear()
            for job in jobs:
                self.failed.emit(job["path"], "the thumbnail renderer could not start")

    def _on_finished(self, *_args) -> None:
        self._on_output()  # replies still in the pipe
        if self._sent:
            # it died on the first job it had not answered: fail that one (after putting
            # the others back, so a slot that asks for more sees a consistent queue)
            job = self._sent.popleft()
            self._wanted.discard(job["path"])
            self._queue.extendleft(reversed(self._sent))
            self._sent.clear()
            self.failed.emit(job["path"], "the thumbnail renderer stopped")
        self._pump()
