"""Inputs that are not model files say why (review 8, items 11, 12 and 15).

* A FIFO or a device, as the file to read or as an include, is refused with the reason
  (not only "Unable to read file"), in every command, without blocking.
* An XML file is read once (no peek before the load), and larger than
  :data:`snapframe.core.fileio.MAX_XML_BYTES` is refused before it is read.
* ``graph`` on a valid file without a model or world prints the empty graphs, exit 0,
  as ``check`` calls it valid.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from snapframe.core import fileio
from snapframe.core.loading import LoadContext, load
from snapframe.editor.cli import main
from hang_guard import deadline

DATA = Path(__file__).resolve().parents[1] / "data"


def run(capsys, *argv) -> tuple[int, str]:
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out + out.err


@pytest.mark.parametrize("command", ["check", "frames", "graph", "inertia"])
@pytest.mark.parametrize("suffix", [".sdf", ".urdf"])
def test_a_fifo_as_the_file_is_named_as_a_fifo(tmp_path, capsys, command, suffix):
    fifo = tmp_path / f"p{suffix}"
    os.mkfifo(fifo)
    with deadline(5.0):
        code, text = run(capsys, command, fifo)
    assert code == 1 and "Traceback" not in text
    assert f"Unable to read file: [{fifo}] is a FIFO, not a regular file" in text


def test_a_fifo_and_a_device_as_includes_are_named(tmp_path, capsys):
    os.mkfifo(tmp_path / "p.sdf")
    (tmp_path / "zero.sdf").symlink_to("/dev/zero")
    (tmp_path / "w.sdf").write_text(
        '<sdf version="1.9"><world name="w"><include><uri>p.sdf</uri></include>'
        "<include><uri>zero.sdf</uri></include></world></sdf>")
    with deadline(5.0):
        code, text = run(capsys, "check", tmp_path / "w.sdf")
    assert code == 1
    assert f"[{tmp_path / 'p.sdf'}] is a FIFO, not a regular file" in text
    assert "[/dev/zero] is a device or special file, not a regular file" in text


def test_reasons_for_what_is_not_a_regular_file(tmp_path):
    assert fileio.unreadable_reason(tmp_path / "nothing.sdf").endswith("does not exist")
    assert "is a folder" in fileio.unreadable_reason(tmp_path)
    assert "is a device" in fileio.unreadable_reason("/dev/null")


def test_an_oversized_xml_file_is_refused_before_it_is_read(tmp_path, capsys, monkeypatch):
    big = tmp_path / "big.sdf"
    with open(big, "wb") as f:   # sparse: 1000 MB that take no room
        f.truncate(1000 << 20)
    (tmp_path / "w.sdf").write_text('<sdf version="1.9"><world name="w"><include><uri>big.sdf'
                                    "</uri></include></world></sdf>")
    reads: list[int] = []
    original = os.read
    monkeypatch.setattr(os, "read", lambda fd, n: reads.append(n) or original(fd, n))
    with deadline(5.0):
        code, text = run(capsys, "check", tmp_path / "w.sdf")
    assert code == 1
    assert f"is {1000 << 20} bytes, more than the {fileio.MAX_XML_BYTES}" in text
    assert all(n < (1 << 20) * 2 for n in reads)   # nothing of it was read


def test_a_file_that_fails_to_parse_is_decoded_only_as_far_as_its_prolog(tmp_path):
    from snapframe.core import xmlsafe
    decoded: list[int] = []
    original = xmlsafe._decode

    def counting(data):
        decoded.append(len(data))
        return original(data)

    xmlsafe._decode = counting
    try:
        with pytest.raises(xmlsafe.XmlError):
            xmlsafe.parse_xml_bytes(b"\0" * (8 << 20))
    finally:
        xmlsafe._decode = original
    assert all(n <= (1 << 20) for n in decoded)


def test_read_regular_file_holds_the_file_once(tmp_path):
    data = os.urandom(3 << 20)
    (tmp_path / "x.bin").write_bytes(data)
    assert fileio.read_regular_file(tmp_path / "x.bin") == data
    (tmp_path / "empty.bin").write_bytes(b"")
    assert fileio.read_regular_file(tmp_path / "empty.bin") == b""
    with pytest.raises(fileio.FileTooLarge):
        fileio.read_regular_file(tmp_path / "x.bin", max_bytes=1 << 20)


def test_an_included_light_file_is_read_once(tmp_path, monkeypatch):
    (tmp_path / "lamp.sdf").write_text('<sdf version="1.9"><light name="l" type="point"/></sdf>')
    (tmp_path / "w.sdf").write_text('<sdf version="1.9"><world name="w"><include><uri>lamp.sdf'
                                    "</uri></include></world></sdf>")
    reads: list[str] = []
    original = fileio.read_regular_file
    monkeypatch.setattr(fileio, "read_regular_file",
                        lambda p, *a, **k: reads.append(Path(p).name) or original(p, *a, **k))
    doc = load(tmp_path / "w.sdf", LoadContext(use_environment=False))
    assert doc.diagnostics.errors == [] and reads.count("lamp.sdf") == 1


# -- graph on a valid file without a model --------------------------------------------------
EMPTY = DATA / "sdformat_real/sdformat/test/integration/model/model_without_top_level/model.sdf"


@pytest.mark.parametrize("dot", [False, True])
def test_graph_of_an_empty_sdf_root_is_empty_and_valid(capsys, dot):
    assert main(["check", str(EMPTY)]) == 0
    capsys.readouterr()
    code = main(["graph", *(["--dot"] if dot else []), str(EMPTY)])
    out = capsys.readouterr()
    assert code == 0
    if dot:
        assert out.out.startswith('digraph "model" {') and "->" not in out.out
    else:
        assert out.out == "attached_to graph:\nrelative_to graph:\n"
    assert "no model or world: the graphs are empty" in out.err


def test_graph_of_an_openplx_library_is_empty_and_valid(tmp_path, capsys):
    path = tmp_path / "parts.openplx"
    path.write_text("Link is Physics3D.Bodies.RigidBody:\n    length is Real\n")
    assert main(["check", str(path)]) == 0
    capsys.readouterr()
    assert main(["graph", str(path)]) == 0
    assert capsys.readouterr().out == "attached_to graph:\nrelative_to graph:\n"


def test_graph_of_a_file_that_failed_to_load_exits_1(tmp_path, capsys):
    path = tmp_path / "bad.sdf"
    path.write_text("<sdf version='1.9'><model")
    code, text = run(capsys, "graph", path)
    assert code == 1 and "FILE_READ" in text and "graph:" not in text
