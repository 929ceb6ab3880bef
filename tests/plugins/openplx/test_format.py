"""The format descriptor: registry lookup, reading through the core loader, and
``//include`` of an ``.openplx`` file from SDFormat."""

from __future__ import annotations

import shutil

import pytest

from snapframe.core.formats import FormatRegistry
from snapframe.core.pose import Pose
from snapframe.plugins.openplx import FORMAT

from .conftest import EXAMPLES


@pytest.fixture
def registry() -> FormatRegistry:
    reg = FormatRegistry()
    reg.discover()
    reg.register(FORMAT)
    return reg


def test_descriptor() -> None:
    assert (FORMAT.name, FORMAT.extensions, FORMAT.implementation) == \
        ("openplx", (".openplx",), "snapframe.plugins.openplx.format")
    assert FORMAT.can_read and FORMAT.can_write and FORMAT.can_include
    assert FORMAT.matches("robots/Arm.OPENPLX")


def test_core_loader_reads_openplx(registry) -> None:
    from snapframe.core.loading import LoadContext, load
    doc = load(EXAMPLES / "clock.openplx", LoadContext(registry=registry))
    assert doc.format == "openplx" and not doc.diagnostics.has_errors()
    assert [l.name for l in doc.root.links] == ["face", "hour_hand"]
    assert registry.for_path("x.openplx", capability="write") is FORMAT


def test_sdformat_include_of_an_openplx_file(tmp_path, registry) -> None:
    pytest.importorskip("snapframe.plugins.sdformat.reader")
    from snapframe.core.loading import LoadContext, load
    shutil.copy(EXAMPLES / "clock.openplx", tmp_path / "clock.openplx")
    (tmp_path / "room.sdf").write_text("""<?xml version="1.0"?>
<sdf version="1.9">
  <world name="room">
    <include>
      <uri>clock.openplx</uri>
      <name>wall_clock</name>
      <pose>2 0 0 0 0 1.5707963267948966</pose>
    </include>
  </world>
</sdf>
""")
    doc = load(tmp_path / "room.sdf", LoadContext(registry=registry))
    assert not doc.diagnostics.has_errors(), [d.format() for d in doc.diagnostics]
    [inc] = doc.includes()
    assert inc.format == "openplx" and inc.model is not None
    poses = {f.name: f.pose for f in doc.frames.frames()}
    X_WM = Pose.from_xyz_rpy(2, 0, 0, 0, 0, 1.5707963267948966)
    assert poses["wall_clock::face"].almost_equal(X_WM @ Pose.translation(0, 0, 1.5), 1e-9)
    assert "wall_clock::hour_hand.pivot" in poses


def test_include_of_a_broken_openplx_file_fails_with_its_errors(tmp_path, registry) -> None:
    pytest.importorskip("snapframe.plugins.sdformat.reader")
    from snapframe.core.loading import LoadContext, load
    (tmp_path / "bad.openplx").write_text("Rig is Physics3D.System:\n    x is Real: 1 +\n")
    (tmp_path / "room.sdf").write_text(
        '<?xml version="1.0"?><sdf version="1.9"><world name="w">'
        "<include><uri>bad.openplx</uri></include></world></sdf>")
    doc = load(tmp_path / "room.sdf", LoadContext(registry=registry))
    errors = [d for d in doc.diagnostics.errors if d.file.endswith("bad.openplx")]
    assert errors and errors[0].line == 2 and "expected a value" in errors[0].message
    assert doc.includes()[0].model is None
