"""Include resolution with hostile targets: model.config files that are FIFOs or devices,
and URIs no file can have.  Each ends at once with a diagnostic naming the file."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest

from hang_guard import deadline
from snapframe.core.diagnostics import Code
from snapframe.core.loading import LoadContext, load

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32" or not hasattr(os, "mkfifo"), reason="POSIX"),
    pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs SIGALRM"),
]




def world_including(folder: Path, uri: str) -> Path:
    path = folder / "world.sdf"
    path.write_text(f'<sdf version="1.9"><world name="w"><include><uri>{uri}</uri></include>'
                    "</world></sdf>")
    return path


def load_quickly(path: Path):
    with deadline():
        return load(path, LoadContext(use_environment=False))


@pytest.mark.parametrize("make", ["fifo", "dev_zero"])
def test_a_model_config_that_is_not_a_regular_file_is_refused(tmp_path, make):
    model = tmp_path / "robot"
    model.mkdir()
    if make == "fifo":
        os.mkfifo(model / "model.config")
    else:
        (model / "model.config").symlink_to("/dev/zero")
    doc = load_quickly(world_including(tmp_path, "model://robot"))
    errors = doc.diagnostics.errors
    assert errors and all(e.file == str(tmp_path / "world.sdf") for e in errors)
    read = [e for e in errors if e.code == Code.FILE_READ]
    assert read and "model.config" in read[0].message
    assert ("a FIFO" if make == "fifo" else "a device") in read[0].message


@pytest.mark.parametrize("uri", ["x" * 5000 + ".sdf", "dir/" + "y" * 300 + "/m.sdf",
                                 "model://" + "z" * 5000, "package://p/" + "q" * 300])
def test_uris_no_file_can_have_are_not_found_rather_than_crashing(tmp_path, uri):
    doc = load_quickly(world_including(tmp_path, uri))
    assert [str(e.code) for e in doc.diagnostics.errors] == ["URI_LOOKUP"]


@pytest.mark.parametrize("uri", ["/dev/zero", "file:///dev/zero"])
def test_an_include_of_a_device_is_refused(tmp_path, uri):
    doc = load_quickly(world_including(tmp_path, uri))
    assert doc.diagnostics.has_errors()
    assert all(e.file == str(tmp_path / "world.sdf") for e in doc.diagnostics.errors)


def test_an_include_of_a_fifo_is_refused(tmp_path):
    os.mkfifo(tmp_path / "pipe.sdf")
    doc = load_quickly(world_including(tmp_path, "pipe.sdf"))
    assert [str(e.code) for e in doc.diagnostics.errors] == ["FILE_READ"]
