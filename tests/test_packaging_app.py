"""The desktop packaging in ``packaging/``: the desktop entry, the MIME types, the AppStream
metadata, the icon set and the window icon; and the one-folder application PyInstaller
builds from ``packaging/pyinstaller/snapframe.spec`` (the ``slow`` tests: they build it,
then run the built ``snapframe``).

The freedesktop files are checked by the reference tools when they are installed
(``desktop-file-validate``, ``appstreamcli``, ``update-mime-database``; ``make test``
installs them), and against each other and ``pyproject.toml`` always.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import struct
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest
from lxml import etree

ROOT = Path(__file__).resolve().parents[1]
PACKAGING = ROOT / "packaging"
DESKTOP = PACKAGING / "snapframe.desktop"
METAINFO = PACKAGING / "io.github.snapframe.Snapframe.metainfo.xml"
MIME = PACKAGING / "mime" / "snapframe.xml"
HICOLOR = PACKAGING / "icons" / "hicolor"
SPEC = PACKAGING / "pyinstaller" / "snapframe.spec"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
# The sizes the icon set promises (the list), and those the window icon uses.
ICON_SIZES = (16, 32, 48, 64, 128, 256, 512)
WINDOW_ICON_SIZES = (16, 32, 48, 64, 128, 256)
MIME_NS = "{http://www.freedesktop.org/standards/shared-mime-info}"

slow = pytest.mark.slow


def _desktop_entry() -> dict[str, str]:
    """The ``[Desktop Entry]`` group's keys (the file has no other group)."""
    entry: dict[str, str] = {}
    group = None
    for line in DESKTOP.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith("["):
            group = line.strip()
            continue
        key, _, value = line.partition("=")
        assert group == "[Desktop Entry]", line
        entry[key.strip()] = value.strip()
    return entry


def _mime_types() -> set[str]:
    return {t.get("type") for t in etree.parse(str(MIME)).getroot().iter(f"{MIME_NS}mime-type")}


def _png_size(path: Path) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk (PNG specification, 11.2.2)."""
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR", path
    return struct.unpack(">II", head[16:24])


def _load_module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rgba(image) -> np.ndarray:
    """A QImage as an (h, w, 4) uint8 array, R G B A."""
    from PySide6 import QtGui
    image = image.convertToFormat(QtGui.QImage.Format.Format_RGBA8888)
    rows = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine())
    return rows[:, :image.width() * 4].reshape(image.height(), image.width(), 4).copy()


# -- the desktop entry and the MIME types ----------------------------------------------


def test_desktop_entry_names_the_program_its_icon_and_file_types():
    entry = _desktop_entry()
    assert entry["Type"] == "Application"
    assert entry["Name"] == "Snapframe"
    # Exec runs the console script the wheel installs (and the frozen application's name).
    assert entry["Exec"].split()[0] in PYPROJECT["project"]["scripts"]
    assert entry["Exec"].split()[1:] == ["%F"]  # opens any number of files
    # The icon is the icon set's name, in every size of the hicolor theme.
    assert (HICOLOR / "scalable" / "apps" / f"{entry['Icon']}.svg").is_file()
    for size in ICON_SIZES:
        assert (HICOLOR / f"{size}x{size}" / "apps" / f"{entry['Icon']}.png").is_file()
    # Every file type it claims is defined by the MIME package shipped with it.
    claimed = {m for m in entry["MimeType"].split(";") if m}
    assert claimed == _mime_types()


def test_desktop_entry_passes_desktop_file_validate():
    tool = shutil.which("desktop-file-validate")
    if tool is None:
        pytest.skip("desktop-file-validate is not installed (Debian: desktop-file-utils)")
    out = subprocess.run([tool, str(DESKTOP)], capture_output=True, text=True)
    # Errors fail it; warnings and hints (e.g. two main categories) are printed: none allowed.
    assert out.returncode == 0 and not out.stdout.strip() and not out.stderr.strip(), \
        out.stdout + out.stderr


def test_mime_database_reads_the_file_types(tmp_path):
    tool = shutil.which("update-mime-database")
    if tool is None:
        pytest.skip("update-mime-database is not installed (Debian: shared-mime-info)")
    packages = tmp_path / "mime" / "packages"
    packages.mkdir(parents=True)
    shutil.copy(MIME, packages / "snapframe.xml")
    out = subprocess.run([tool, str(tmp_path / "mime")], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    globs = {tuple(line.split(":")[1:3])
             for line in (tmp_path / "mime" / "globs2").read_text().splitlines()
             if not line.startswith("#")}
    assert {("application/x-sdformat", "*.sdf"), ("application/x-sdformat", "*.world"),
            ("application/x-urdf", "*.urdf"), ("text/x-openplx", "*.openplx"),
            ("application/x-mirabuf", "*.mira")} <= globs
    # SDFormat and URDF are also recognised by their root element (an .sdf may be MDL).
    roots = (tmp_path / "mime" / "XMLnamespaces").read_text().splitlines()
    assert " sdf application/x-sdformat" in roots
    assert " robot application/x-urdf" in roots


# -- AppStream -------------------------------------------------------------------------


def test_metainfo_agrees_with_the_project_and_the_desktop_entry():
    root = etree.parse(str(METAINFO)).getroot()
    entry = _desktop_entry()
    assert root.tag == "component" and root.get("type") == "desktop-application"
    assert root.findtext("id") == "io.github.snapframe.Snapframe"
    assert root.findtext("project_license") == PYPROJECT["project"]["license"]
    assert root.findtext("name") == entry["Name"]
    launchable = root.find("launchable")
    assert launchable.get("type") == "desktop-id" and launchable.text == DESKTOP.name
    assert root.findtext("icon") == entry["Icon"]
    assert PYPROJECT["project"]["version"] in [r.get("version") for r in root.iter("release")]
    assert root.find("content_rating").get("type") == "oars-1.1"
    assert [b.text for b in root.iter("binary")] == [entry["Exec"].split()[0]]
    assert {m.text for m in root.iter("mediatype")} == _mime_types()
    # Each screenshot is one committed in packaging/screenshots/, at its real size.
    images = list(root.iter("image"))
    assert images
    for image in images:
        local = PACKAGING / "screenshots" / image.text.rsplit("/", 1)[1]
        assert local.is_file(), image.text
        assert _png_size(local) == (int(image.get("width")), int(image.get("height")))


def test_metainfo_passes_appstreamcli_validate():
    tool = shutil.which("appstreamcli")
    if tool is None:
        pytest.skip("appstreamcli is not installed (Debian: appstream)")
    out = subprocess.run([tool, "validate", "--no-net", str(METAINFO)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


# -- the icon set and the window icon ----------------------------------------------------


def test_icon_pngs_are_the_svg_drawn_at_their_size(qapp):
    make_icons = _load_module(PACKAGING / "icons" / "make_icons.py", "make_icons")
    from PySide6 import QtGui
    assert make_icons.SIZES == ICON_SIZES
    for size in ICON_SIZES:
        path = HICOLOR / f"{size}x{size}" / "apps" / "snapframe.png"
        assert _png_size(path) == (size, size)
        png = _rgba(QtGui.QImage(str(path)))
        # A rounded square: transparent in the corners, opaque in the middle.
        assert png[0, 0, 3] == 0 and png[-1, -1, 3] == 0
        assert png[size // 2, size // 2, 3] == 255
        # Not stale: the SVG drawn now gives the same picture (make_icons.py was run).
        fresh = _rgba(make_icons.render(size))
        assert np.abs(png.astype(int) - fresh.astype(int)).mean() < 2.0, size


def test_window_icon_files_are_the_icon_set():
    from snapframe.resources import ICONS
    found = sorted(int(p.stem.rsplit("-", 1)[1]) for p in ICONS.glob("snapframe-*.png"))
    assert found == list(WINDOW_ICON_SIZES)
    for size in WINDOW_ICON_SIZES:
        assert (ICONS / f"snapframe-{size}.png").read_bytes() == \
            (HICOLOR / f"{size}x{size}" / "apps" / "snapframe.png").read_bytes()


def test_application_has_the_window_icon_and_the_desktop_file_name(tmp_path):
    # A fresh process: the test session's QApplication was not made by application().
    # (Its own home: whatever the application keeps per user stays out of the real one.)
    env = dict(os.environ, HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "config"),
               XDG_DATA_HOME=str(tmp_path / "data"), XDG_STATE_HOME=str(tmp_path / "state"),
               XDG_CACHE_HOME=str(tmp_path / "cache"))
    code = ("import json; from snapframe.editor.app import application; app = application(); "
            "print(json.dumps({'sizes': sorted(s.width() for s in app.windowIcon().availableSizes()),"
            " 'desktop': app.desktopFileName(), 'name': app.applicationName()}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["sizes"] == list(WINDOW_ICON_SIZES)
    entry = _desktop_entry()
    assert got["desktop"] == DESKTOP.stem
    # Qt on X11 puts the application name in WM_CLASS's class part.
    assert got["name"] == entry["StartupWMClass"]


# -- the one-folder application ------------------------------------------------------------


def _pyinstaller_available() -> None:
    """Install the pinned PyInstaller of the ``package`` extra when it is missing; skip the
    test only when that cannot be done."""
    if importlib.util.find_spec("PyInstaller") is not None:
        return
    pin = next(r for r in PYPROJECT["project"]["optional-dependencies"]["package"]
               if r.lower().startswith("pyinstaller"))
    out = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", pin],
                         capture_output=True, text=True, timeout=900)
    if out.returncode != 0:
        pytest.skip(f"PyInstaller is not installed and `pip install {pin}` failed: "
                    f"{out.stderr.strip()[-600:]}")
    importlib.invalidate_caches()


@pytest.fixture(scope="module")
def built_app(tmp_path_factory) -> Path:
    """``make package``'s PyInstaller call, into a temporary folder: the built executable."""
    _pyinstaller_available()
    work = tmp_path_factory.mktemp("pyinstaller")
    out = subprocess.run(
        [sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN",
         "--distpath", str(work / "dist"), "--workpath", str(work / "build"), str(SPEC)],
        cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-6000:]
    exe = work / "dist" / "snapframe" / "snapframe"
    assert exe.is_file() and os.access(exe, os.X_OK)
    return exe


def _run(exe: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=300,
                          cwd=cwd)


def _bundled(exe: Path, *parts: str) -> Path:
    """A file of ``snapframe.resources`` inside the built application."""
    return exe.parent.joinpath("_internal", "snapframe", "resources", *parts)


@slow
def test_built_app_help_lists_the_builtin_and_plugin_commands(built_app):
    out = _run(built_app, "--help")
    assert out.returncode == 0, out.stderr
    listed = {line.split()[0] for line in out.stdout.splitlines()
              if line.startswith("    ") and line.split()}
    # `snap` is the OpenPLX plugin's, found through the snapframe.commands entry point.
    assert {"check", "frames", "graph", "inertia", "convert", "render", "snap"} <= listed
    assert "warning" not in out.stderr


@slow
def test_built_app_holds_no_development_packages(built_app):
    internal = built_app.parent / "_internal"
    present = {p.name for p in internal.iterdir()}
    assert not present & {"matplotlib", "pyvista", "PyInstaller", "tkinter", "pytest", "PIL",
                          "grpc", "grpc_tools", "setuptools", "pip"}
    assert not (internal / "PySide6" / "Qt" / "translations").exists()


def _non_background_fraction(rgba: np.ndarray) -> float:
    """The share of pixels that differ clearly from their row's left-edge pixel (the
    background is a vertical gradient, the floor grid only a shade off it)."""
    rgb = rgba[:, :, :3].astype(int)
    return float((np.abs(rgb - rgb[:, :1, :]).max(axis=2) > 48).mean())


@slow
def test_built_app_renders_the_bundled_example(built_app, tmp_path):
    from PySide6 import QtGui
    example = _bundled(built_app, "examples", "flanges", "super_armio_bros.sdf")
    assert example.is_file()
    out = _run(built_app, "render", str(example), "-o", str(tmp_path / "model.png"),
               "--size", "320x240")
    assert out.returncode == 0, out.stderr
    model = _rgba(QtGui.QImage(str(tmp_path / "model.png")))
    assert model.shape == (240, 320, 4)
    # Two arms on flanges fill a good part of the picture; a world with nothing in it,
    # drawn the same way, leaves only the background and the grid.
    empty_sdf = tmp_path / "empty.sdf"
    empty_sdf.write_text('<sdf version="1.11"><world name="empty"/></sdf>\n')
    out = _run(built_app, "render", str(empty_sdf), "-o", str(tmp_path / "empty.png"),
               "--size", "320x240")
    assert out.returncode == 0, out.stderr
    empty = _rgba(QtGui.QImage(str(tmp_path / "empty.png")))
    assert _non_background_fraction(model) > 0.02
    assert _non_background_fraction(empty) < 0.002
    # The frozen application draws what Snapframe run from its sources draws.
    out = subprocess.run([sys.executable, "-m", "snapframe.editor.cli", "render", str(example),
                          "-o", str(tmp_path / "source.png"), "--size", "320x240"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    source = _rgba(QtGui.QImage(str(tmp_path / "source.png")))
    assert np.abs(model.astype(int) - source.astype(int)).mean() < 1.0


@slow
def test_built_app_checks_every_bundled_example(built_app):
    # Every format plugin with its data: OpenPLX with the standard bundles the application
    # carries, the floor plan DSL's grammars and JSON-LD contexts, SDFormat includes.
    examples = _bundled(built_app, "examples")
    documents = sorted(p for p in examples.rglob("*")
                       if p.suffix in {".sdf", ".urdf", ".openplx", ".fpm"}
                       or p.name == "floorplan.json")
    assert {p.suffix for p in documents} >= {".sdf", ".openplx"}
    for document in documents:
        out = _run(built_app, "check", str(document))
        assert out.returncode == 0 and out.stdout.strip().endswith(": valid"), \
            out.stdout + out.stderr


@slow
def test_built_app_reads_and_writes_with_every_format_plugin(built_app, tmp_path):
    # mirabuf (protobuf and the generated modules).
    mira = ROOT / "tests" / "data" / "mirabuf" / "HingeTestFission_v1.mira"
    out = _run(built_app, "check", str(mira))
    assert out.returncode == 0 and "valid" in out.stdout, out.stdout + out.stderr
    # SDFormat to URDF and back: both writers and readers.
    example = _bundled(built_app, "examples", "arm_gripper", "arm_and_gripper.sdf")
    out = _run(built_app, "convert", str(example), str(tmp_path / "robot.urdf"), "--flatten")
    assert out.returncode == 0, out.stderr
    links = {}
    for path in (example, tmp_path / "robot.urdf"):
        out = _run(built_app, "frames", str(path), "--json")
        assert out.returncode == 0, out.stderr
        frames = json.loads(out.stdout)["frames"]
        links[path.suffix] = {k: v["pose"] for k, v in frames.items() if v["kind"] == "link"}
    # URDF has no nesting: arm::forearm becomes arm_forearm, where it was (and frames
    # become links too: URDF has no frames).
    assert len(links[".sdf"]) == 6
    for key, pose in links[".sdf"].items():
        top, _, rest = key.partition("::")
        assert links[".urdf"][f"{top}::{rest.replace('::', '_')}"] == pytest.approx(pose, abs=1e-9)


@slow
def test_built_app_computes_mesh_inertia(built_app, tmp_path):
    # The wedge of tests/data/meshes (see make_meshes.py): 0.003 m^3, centroid
    # (0.125, 0.2/3 + 0.01, 0.05); at 1000 kg/m^3 it weighs 3 kg.  Read by the mesh loader
    # found through the snapframe.mesh_loaders entry point.
    wedge = ROOT / "tests" / "data" / "meshes" / "wedge.stl"
    sdf = tmp_path / "wedge.sdf"
    sdf.write_text(
        '<sdf version="1.11"><model name="m"><link name="l"><inertial auto="true"/>'
        f'<collision name="c"><density>1000</density><geometry><mesh><uri>{wedge}</uri>'
        '</mesh></geometry></collision></link></model></sdf>\n')
    out = _run(built_app, "inertia", str(sdf), "--json")
    assert out.returncode == 0, out.stdout + out.stderr
    result = json.loads(out.stdout)
    assert result["errors"] == []
    link = result["links"]["m::l"]
    # (STL stores float32 vertices: a relative 1e-7 off the exact solid.)
    assert link["mass"] == pytest.approx(3.0, rel=1e-6)
    assert link["pose"][:3] == pytest.approx([0.125, 0.2 / 3 + 0.01, 0.05], abs=1e-6)
