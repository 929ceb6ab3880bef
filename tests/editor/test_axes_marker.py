"""The orientation marker turns with the camera and its letters face the viewer."""

from __future__ import annotations

import numpy as np
import pytest

from snapframe.editor.viewport.canvas import Canvas
from snapframe.editor.viewport.vtkdata import points_of


@pytest.fixture
def canvas():
    c = Canvas.offscreen((400, 300))
    c.set_background("#ffffff")
    c.add_axes()
    yield c
    c.close()


def coloured(img: np.ndarray, channel: int) -> np.ndarray:
    """(row, col) of the pixels where one channel clearly dominates."""
    others = [c for c in range(3) if c != channel]
    return np.argwhere(img[:, :, channel].astype(int) - img[:, :, others].max(axis=2) > 60)


def test_looking_down_z_x_points_right_and_y_up(canvas):
    # camera above the origin, y up on screen: x must be drawn to the right, y upward
    canvas.set_camera((0, 0, 10), (0, 0, 0), (0, 1, 0))
    img = canvas.image()
    red, green = coloured(img, 0), coloured(img, 1)
    assert len(red) > 20 and len(green) > 20
    # the marker sits in the lower left corner (16 % x 20 % of the window)
    h, w = img.shape[:2]
    for pixels in (red, green):
        assert pixels[:, 0].min() >= h * 0.8 - 2 and pixels[:, 1].max() <= w * 0.16 + 2
    assert np.ptp(red[:, 1]) > 3 * np.ptp(red[:, 0])        # a horizontal red arrow
    assert np.ptp(green[:, 0]) > 3 * np.ptp(green[:, 1])    # a vertical green one
    # rows grow downward: green above the marker's centre, red right of it
    assert green[:, 0].mean() < red[:, 0].mean()
    assert red[:, 1].mean() > green[:, 1].mean()


def test_letters_face_the_viewer_from_any_direction(canvas):
    marker = canvas._axes
    for position in [(3, -4, 2), (-1, 0.5, -6), (0.1, 7, 0.2)]:
        canvas.set_camera(position, (0, 0, 0), (0, 0, 1))
        canvas.render()
        d = np.array(canvas.camera.GetDirectionOfProjection())
        P = points_of(marker.mesh)[marker._letters:]
        assert len(P) == 16                  # X: 2 strokes, Y and Z: 3 each
        start = 0
        for axis, count in enumerate((4, 6, 6)):
            letter = P[start:start + count]
            start += count
            centre = np.eye(3)[axis] * 1.32
            # every stroke point lies in the plane through the letter's centre
            # perpendicular to the view direction, and the letter is not a dot
            assert np.allclose((letter - centre) @ d, 0.0, atol=1e-9)
            assert np.ptp(letter, axis=0).max() > 0.1
        # the marker's camera looks the same way as the scene's
        own = np.array(marker.renderer.GetActiveCamera().GetDirectionOfProjection())
        assert np.allclose(own, d, atol=1e-9)
