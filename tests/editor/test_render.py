"""``snapframe render``: offscreen pictures, checked by their pixels and the scene state."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "resources" / "examples" / "arm_gripper" / "arm_and_gripper.sdf"


def pixels(path: Path) -> np.ndarray:
    from PySide6 import QtGui
    image = QtGui.QImage(str(path)).convertToFormat(QtGui.QImage.Format.Format_RGB888)
    assert not image.isNull()
    w, h = image.width(), image.height()
    data = np.frombuffer(image.constBits(), dtype=np.uint8, count=image.sizeInBytes())
    return data.reshape(h, image.bytesPerLine())[:, : w * 3].reshape(h, w, 3).astype(int)


def render(tmp_path: Path, *args: str) -> Path:
    out = tmp_path / f"shot{len(list(tmp_path.glob('*.png')))}.png"
    size = [] if "--size" in args else ["--size", "320x240"]
    p = subprocess.run([sys.executable, "-m", "snapframe.editor.cli", "render", str(EXAMPLE),
                        "-o", str(out), *size, *args],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return out


def test_render_draws_the_model_where_the_camera_looks(tmp_path):
    img = pixels(render(tmp_path, "--view", "top"))
    assert img.shape == (240, 320, 3)
    background = img[0, 0]
    differs = np.abs(img - background).sum(axis=2) > 40
    # looking down on the arm: its round base and the gripper fill the middle
    assert differs[110:130, 150:170].mean() > 0.9
    assert 0.03 < differs.mean() < 0.8


def test_frames_add_their_coloured_triads(tmp_path):
    plain = pixels(render(tmp_path, "--size", "640x480"))
    framed = pixels(render(tmp_path, "--frames", "--size", "640x480"))

    def saturated(img, channel):   # pixels where one channel clearly dominates
        others = [c for c in range(3) if c != channel]
        return int((img[:, :, channel] - img[:, :, others].max(axis=2) > 60).sum())
    # x (red) and y (green) axes stick out of the arm; z runs up inside it
    for channel in (0, 1):
        assert saturated(framed, channel) > saturated(plain, channel) + 10


def test_the_scene_mirrors_every_visual_at_its_pose():
    from snapframe.core.loading import LoadContext, load
    from snapframe.editor.viewport.canvas import Canvas
    from snapframe.editor.viewport.scene import SceneMirror
    from snapframe.editor.viewport.shapes import shape_mesh
    from snapframe.editor.viewport.vtkdata import points_of
    doc = load(EXAMPLE, LoadContext(use_environment=False))
    canvas = Canvas.offscreen((64, 64))
    try:
        mirror = SceneMirror(canvas, doc)
        for key, i in mirror.visuals.index.items():
            node = doc.element(key)
            shape = shape_mesh(node.geometry)
            inst = mirror.visuals.instances[i]
            drawn = points_of(mirror.visuals.mesh)[
                inst.point_start: inst.point_start + len(shape.points)]
            X = doc.live.poses.pose(key)
            expected = shape.points @ X[:3, :3].T + X[:3, 3]
            assert np.allclose(drawn, expected, atol=1e-9), key
        # one triad per link and frame, drawn from the frame's origin
        links = [k for k in doc.live.poses.keys if doc.live.poses.kind(k) == "link"]
        assert sorted(mirror.triads["link"].keys) == sorted(links)
    finally:
        canvas.close()
