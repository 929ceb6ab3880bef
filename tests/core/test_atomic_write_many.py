"""``atomic_write_many``: many files, each replaced atomically (its content synced before
its rename), the folder synced once after the last rename; a file that cannot be written
is reported and does not stop the others."""

from __future__ import annotations

import os
import stat
import sys

import pytest

from snapframe.core import fileio
from snapframe.core.fileio import TEMP_SUFFIX, atomic_write_many


@pytest.fixture(params=["unnamed", "named"])
def variant(request, monkeypatch):
    """With O_TMPFILE where the system has it, and the named-temporary fallback."""
    if request.param == "named":
        monkeypatch.setattr(fileio, "_open_unnamed", lambda folder, mode: None)
    return request.param


def _leftovers(folder) -> list[str]:
    return [n for n in os.listdir(folder) if n.endswith(TEMP_SUFFIX)]


def test_every_file_is_written_whole(tmp_path, variant):
    files = [(tmp_path / "a" / f"m{i}.stl", bytes([i]) * (1000 + i)) for i in range(20)]
    files.append((tmp_path / "b" / "text.sdf", "<sdf/>"))
    assert atomic_write_many(files) == {}
    for path, data in files:
        expected = data.encode() if isinstance(data, str) else data
        assert path.read_bytes() == expected
    assert _leftovers(tmp_path / "a") == [] and _leftovers(tmp_path / "b") == []


def test_each_folder_is_synced_once_after_its_renames(tmp_path, monkeypatch, variant):
    events: list[tuple[str, str]] = []
    real_replace, real_sync = os.replace, fileio._sync_folder

    def replace(src, dst, *args, **kwargs):
        events.append(("rename", os.fspath(dst).rsplit("/", 1)[-1]))
        return real_replace(src, dst, *args, **kwargs)

    def sync_folder(folder):
        events.append(("sync", folder.name))
        return real_sync(folder)

    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(fileio, "_sync_folder", sync_folder)
    files = [(tmp_path / "a" / f"m{i}.stl", b"x" * 10) for i in range(5)] + \
        [(tmp_path / "b" / "n.stl", b"y")]
    assert atomic_write_many(files) == {}
    syncs = [e for e in events if e[0] == "sync"]
    assert syncs == [("sync", "a"), ("sync", "b")]
    # folder a is synced after its five renames, before b's
    assert events.index(("sync", "a")) == 5 and events[-1] == ("sync", "b")


def test_a_file_is_synced_before_it_takes_its_name(tmp_path, monkeypatch, variant):
    order: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        if stat.S_ISREG(os.fstat(fd).st_mode):
            order.append("sync file")
        return real_fsync(fd)

    def replace(src, dst, *args, **kwargs):
        order.append("rename")
        return real_replace(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    files = [(tmp_path / f"m{i}.stl", b"z" * 100) for i in range(3)]
    assert atomic_write_many(files) == {}
    assert order == ["sync file", "rename"] * 3


def test_a_file_that_cannot_be_written_does_not_stop_the_others(tmp_path, variant):
    (tmp_path / "taken.stl").mkdir()              # a folder where a file should go
    files = [(tmp_path / "first.stl", b"1"), (tmp_path / "taken.stl", b"2"),
             (tmp_path / "last.stl", b"3")]
    failed = atomic_write_many(files)
    assert list(failed) == [tmp_path / "taken.stl"]
    assert isinstance(failed[tmp_path / "taken.stl"], OSError)
    assert (tmp_path / "first.stl").read_bytes() == b"1"
    assert (tmp_path / "last.stl").read_bytes() == b"3"
    assert (tmp_path / "taken.stl").is_dir() and _leftovers(tmp_path) == []


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
def test_modes_and_stale_temporaries(tmp_path, variant):
    old = tmp_path / "old.stl"
    old.write_bytes(b"old")
    old.chmod(0o600)
    stale = tmp_path / f".old.stl.0123456789ab{TEMP_SUFFIX}"   # a killed save's, unlocked
    stale.write_bytes(b"half")
    assert atomic_write_many([(old, b"new"), (tmp_path / "fresh.stl", b"f")]) == {}
    assert old.read_bytes() == b"new"
    assert stat.S_IMODE(old.stat().st_mode) == 0o600           # an existing file keeps it
    assert stat.S_IMODE((tmp_path / "fresh.stl").stat().st_mode) == 0o644
    assert not stale.exists()


def test_a_folder_that_cannot_be_made_fails_its_files_only(tmp_path, variant):
    (tmp_path / "file").write_bytes(b"")
    failed = atomic_write_many([(tmp_path / "file" / "sub" / "a.stl", b"a"),
                                (tmp_path / "ok" / "b.stl", b"b")])
    assert list(failed) == [tmp_path / "file" / "sub" / "a.stl"]
    assert (tmp_path / "ok" / "b.stl").read_bytes() == b"b"
