"""The mesh loader comes from the `snapframe.mesh_loaders` entry points, found on first use."""

import sys
from importlib.metadata import EntryPoint
from types import ModuleType, SimpleNamespace

import pytest

from inertia_meshgen import auto_link, box_mesh
from snapframe.core.diagnostics import Code, Severity
from snapframe.core.inertia import mesh_loader
from snapframe.core.inertia.link import compute_link_inertia
from snapframe.core.inertia.mesh_calculator import get_mesh_loader, set_mesh_loader
from snapframe.core.pose import Pose

GROUP = mesh_loader.ENTRY_POINT_GROUP


@pytest.fixture(autouse=True)
def _default_loader(default_mesh_loader):
    yield


def mesh_link(path):
    return auto_link([("mesh", {"uri": path.name, "resolved_path": str(path), "scale": (1, 1, 1)},
                       1000.0, Pose())])


def errors(result):
    return [d for d in result.diagnostics if d.severity == Severity.ERROR]


def _unit_cube(path):
    V, F = box_mesh((1, 1, 1))
    return SimpleNamespace(submeshes=[SimpleNamespace(name="cube", vertices=V, faces=F)])


def _installed(monkeypatch, *eps: EntryPoint) -> None:
    monkeypatch.setattr(mesh_loader, "mesh_loader_entry_points", lambda: list(eps))
    set_mesh_loader(None)


def test_the_installed_loader_is_the_meshio_plugin_with_raw_axes():
    loader = get_mesh_loader()
    assert (loader.__module__, loader.__name__) == ("snapframe.plugins.meshio",
                                                    "load_collision_mesh")


def test_without_a_loader_mesh_inertia_is_a_file_read_error(monkeypatch, tmp_path):
    _installed(monkeypatch)
    f = tmp_path / "part.stl"
    f.write_bytes(b"")
    result = compute_link_inertia(mesh_link(f))
    (err,) = errors(result)
    assert result.mass_properties is None and err.code == Code.FILE_READ
    assert err.message == (f"Cannot read mesh {f}: no mesh loader is installed "
                           f"(entry-point group '{GROUP}')")
    # Not remembered: a loader set (or installed) later is used.
    set_mesh_loader(_unit_cube)
    assert compute_link_inertia(mesh_link(f)).mass_properties.mass == pytest.approx(1000.0)


def test_a_broken_loader_plugin_does_not_hide_a_working_one(monkeypatch, tmp_path):
    meshes = ModuleType("snapframe_test_meshes")
    meshes.load = _unit_cube
    monkeypatch.setitem(sys.modules, meshes.__name__, meshes)
    _installed(monkeypatch,
               EntryPoint("a_broken", "snapframe_test_no_such_module:load", GROUP),
               EntryPoint("b_works", "snapframe_test_meshes:load", GROUP))
    f = tmp_path / "cube.obj"
    f.write_text("not read by the fake loader\n")
    assert compute_link_inertia(mesh_link(f)).mass_properties.mass == pytest.approx(1000.0)


def test_when_every_loader_is_broken_the_message_says_which(monkeypatch, tmp_path):
    _installed(monkeypatch, EntryPoint("broken", "snapframe_test_no_such_module:load", GROUP))
    f = tmp_path / "part.stl"
    f.write_bytes(b"")
    (err,) = errors(compute_link_inertia(mesh_link(f)))
    assert err.code == Code.FILE_READ
    assert "no mesh loader is installed" in err.message
    assert "'broken' (snapframe_test_no_such_module:load)" in err.message
