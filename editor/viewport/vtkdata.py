"""VTK polydata from numpy arrays, sharing memory both ways.

The layers keep world points in numpy arrays that VTK draws from directly: a move writes
into the array and marks the points modified, nothing is copied.  (VTK's own numpy
bridge; no third-party wrapper: start-up time matters for a desktop editor.)
"""

from __future__ import annotations

import numpy as np
from vtkmodules.util.numpy_support import numpy_to_vtk, numpy_to_vtkIdTypeArray, vtk_to_numpy
from vtkmodules.vtkCommonCore import vtkPoints
from vtkmodules.vtkCommonDataModel import vtkCellArray, vtkPolyData

__all__ = ["polydata", "points_of", "set_rgb", "touched", "bounds_of", "hex_rgb"]


def _cells(counts: np.ndarray, connectivity: np.ndarray) -> vtkCellArray:
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    cells = vtkCellArray()
    cells.SetData(numpy_to_vtkIdTypeArray(offsets, deep=True),
                  numpy_to_vtkIdTypeArray(np.ascontiguousarray(connectivity, dtype=np.int64),
                                          deep=True))
    return cells


def polydata(points: np.ndarray, triangles: np.ndarray | None = None,
             segments: np.ndarray | None = None,
             polylines: np.ndarray | None = None) -> vtkPolyData:
    """Polydata over ``points`` (n, 3) float64, shared: later writes into the array are
    what VTK draws (after :func:`touched`).  ``triangles`` (m, 3) or ``segments`` (m, 2)
    hold point indices; ``polylines`` is ``[count, ids..., count, ids...]``."""
    points = np.ascontiguousarray(points, dtype=np.float64).reshape(-1, 3)
    vtk_points = vtkPoints()
    data = numpy_to_vtk(points, deep=False)   # keeps a reference to ``points``
    vtk_points.SetData(data)
    pd = vtkPolyData()
    pd.SetPoints(vtk_points)
    if triangles is not None and len(triangles):
        pd.SetPolys(_cells(np.full(len(triangles), 3), np.asarray(triangles).ravel()))
    if segments is not None and len(segments):
        pd.SetLines(_cells(np.full(len(segments), 2), np.asarray(segments).ravel()))
    if polylines is not None and len(polylines):
        lines = vtkCellArray()
        lines.ImportLegacyFormat(numpy_to_vtkIdTypeArray(
            np.ascontiguousarray(polylines, dtype=np.int64), deep=True))
        pd.SetLines(lines)
    return pd


def points_of(pd: vtkPolyData) -> np.ndarray:
    """The (n, 3) numpy view of a polydata's points (writable; see :func:`touched`)."""
    return vtk_to_numpy(pd.GetPoints().GetData())


def touched(pd: vtkPolyData) -> None:
    """The points were written in place.  Only the points are marked: the mapper then
    sends the vertices again, not the cells."""
    pd.GetPoints().Modified()


def set_rgb(pd: vtkPolyData, rgb: np.ndarray, on_points: bool) -> None:
    """Colours (n, 3) uint8 per point or per cell, drawn as they are."""
    array = numpy_to_vtk(np.ascontiguousarray(rgb, dtype=np.uint8).reshape(-1, 3), deep=True)
    array.SetName("rgb")
    data = pd.GetPointData() if on_points else pd.GetCellData()
    data.SetScalars(array)


def bounds_of(pd: vtkPolyData) -> tuple[float, float, float, float, float, float]:
    return tuple(pd.GetBounds())


def hex_rgb(color: str) -> tuple[float, float, float]:
    """``"#rrggbb"`` as floats in [0, 1]."""
    color = color.lstrip("#")
    return tuple(int(color[i:i + 2], 16) / 255.0 for i in (0, 2, 4))
