"""Saves killed in the middle: the target is the old file or the complete new one, and no
temporary file stays next to it (after the next save at the latest)."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from snapframe.core import fileio

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX signals")

REPO = Path(__file__).resolve().parents[2]
OLD = b"<sdf version='1.9'><model name='old'/></sdf>\n"
NEW_SIZE = 8 << 20  # eight write chunks

# Saves NEW_SIZE bytes to argv[1]; stops for good at the step named by argv[2] after
# printing "holding", so the parent can SIGKILL it there.  argv[3] == "named" forces the
# fallback without O_TMPFILE.
_CHILD = textwrap.dedent("""
    import os, sys, time
    from snapframe.core import fileio
    target, hold, variant, size = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    if variant == "named":
        fileio._open_unnamed = lambda folder, mode: None

    def hang(*args, **kwargs):
        sys.stdout.write("holding\\n")
        sys.stdout.flush()
        time.sleep(3600)

    real_write = os.write
    calls = [0]
    def write(fd, data):
        calls[0] += 1
        if calls[0] == 3:
            hang()
        return real_write(fd, data)

    if hold == "write":
        os.write = write          # fileio calls os.write: in the middle of the data
    elif hold == "sync":
        os.fsync = hang           # all data written, not yet named
    elif hold == "rename":
        os.replace = hang         # named, not yet renamed over the target
    fileio.atomic_write(target, b"N" * size)
    sys.stdout.write("done\\n")
""")


def kill_save_at(target: Path, hold: str, variant: str = "unnamed") -> None:
    proc = subprocess.Popen([sys.executable, "-c", _CHILD, str(target), hold, variant,
                             str(NEW_SIZE)], stdout=subprocess.PIPE, cwd=REPO)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        assert ready, "the save did not reach the step to hold"
        assert proc.stdout.readline() == b"holding\n"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        assert proc.returncode == -signal.SIGKILL
    finally:
        proc.kill()
        proc.stdout.close()


def others(folder: Path, target: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p != target)


needs_o_tmpfile = pytest.mark.skipif(not hasattr(os, "O_TMPFILE"), reason="Linux O_TMPFILE")


@needs_o_tmpfile
@pytest.mark.parametrize("hold", ["write", "sync"])
def test_a_save_killed_before_naming_its_file_leaves_the_old_file_and_nothing_else(tmp_path,
                                                                                  hold):
    target = tmp_path / "robot.sdf"
    fileio.atomic_write(target, OLD)
    kill_save_at(target, hold)
    assert target.read_bytes() == OLD
    assert others(tmp_path, target) == []


@needs_o_tmpfile
def test_a_save_killed_between_naming_and_renaming_is_cleaned_up_by_the_next_save(tmp_path):
    target = tmp_path / "robot.sdf"
    fileio.atomic_write(target, OLD)
    kill_save_at(target, "rename")
    assert target.read_bytes() == OLD
    [stray] = others(tmp_path, target)
    # The stray is the complete new content under a recognisable name.
    assert stray.startswith(".robot.sdf.") and stray.endswith(fileio.TEMP_SUFFIX)
    assert (tmp_path / stray).stat().st_size == NEW_SIZE
    fileio.atomic_write(target, b"third")
    assert target.read_bytes() == b"third" and others(tmp_path, target) == []


@pytest.mark.parametrize("hold", ["write", "sync", "rename"])
def test_without_o_tmpfile_the_next_save_removes_what_a_killed_save_left(tmp_path, hold):
    target = tmp_path / "robot.sdf"
    fileio.atomic_write(target, OLD)
    kill_save_at(target, hold, variant="named")
    assert target.read_bytes() == OLD
    [stray] = others(tmp_path, target)     # a named temporary has a name all along
    assert stray.startswith(".robot.sdf.") and stray.endswith(fileio.TEMP_SUFFIX)
    fileio.atomic_write(target, b"third")
    assert target.read_bytes() == b"third" and others(tmp_path, target) == []


def test_a_save_that_completes_replaces_the_file_whole(tmp_path):
    target = tmp_path / "robot.sdf"
    fileio.atomic_write(target, OLD)
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(target), "none", "unnamed",
                           str(NEW_SIZE)], capture_output=True, cwd=REPO, timeout=60)
    assert proc.stdout == b"done\n"
    assert target.read_bytes() == b"N" * NEW_SIZE and others(tmp_path, target) == []


@needs_o_tmpfile
def test_the_unnamed_temporary_is_used_on_this_machine(tmp_path, monkeypatch):
    def no_named(*args):
        raise AssertionError("fell back to a named temporary")

    monkeypatch.setattr(fileio, "_write_named", no_named)
    target = tmp_path / "robot.sdf"
    fileio.atomic_write(target, "one")
    fileio.atomic_write(target, "two")
    assert target.read_text() == "two" and others(tmp_path, target) == []


@pytest.mark.skipif(fileio.fcntl is None, reason="needs file locks")
def test_a_temporary_of_a_live_save_is_not_removed(tmp_path):
    import fcntl
    target = tmp_path / "robot.sdf"
    live = tmp_path / f".robot.sdf.0123456789ab{fileio.TEMP_SUFFIX}"
    fd = os.open(live, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)      # what a save in progress holds
        fileio.atomic_write(target, "one")
        assert live.exists()
    finally:
        os.close(fd)                         # that save is gone now
    fileio.atomic_write(target, "two")
    assert not live.exists() and others(tmp_path, target) == []


def test_modes_are_kept_and_new_files_are_0644(tmp_path):
    old_umask = os.umask(0o077)              # O_TMPFILE's mode would be filtered by it
    try:
        target = tmp_path / "robot.sdf"
        fileio.atomic_write(target, "one")
        assert target.stat().st_mode & 0o777 == 0o644
        target.chmod(0o600)
        fileio.atomic_write(target, "two")
        assert target.stat().st_mode & 0o777 == 0o600
    finally:
        os.umask(old_umask)


def test_other_files_of_the_folder_are_left_alone(tmp_path):
    target = tmp_path / "robot.sdf"
    keep = [tmp_path / ".robot.sdf.swp", tmp_path / f".other.sdf.0123456789ab{fileio.TEMP_SUFFIX}",
            tmp_path / "robot.sdf.bak"]
    for p in keep:
        p.write_text("mine")
    fileio.atomic_write(target, "one")
    assert all(p.read_text() == "mine" for p in keep)


def test_temporaries_of_the_earlier_implementation_go_once_they_are_old(tmp_path):
    target = tmp_path / "robot.sdf"
    old, fresh = tmp_path / ".robot.sdf.k2j3h4g5.tmp", tmp_path / ".robot.sdf.a1b2c3d4.tmp"
    for p in (old, fresh):
        p.write_text("half a save")
    os.utime(old, (1, 1))
    fileio.atomic_write(target, "one")
    assert not old.exists() and fresh.exists()
