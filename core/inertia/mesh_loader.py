"""The mesh-loader contract and its entry-point discovery.

A *mesh loader* is ``loader(path: str) -> mesh`` where ``mesh.submeshes`` is a sequence
of objects with ``name``, ``vertices`` (n, 3) float, ``faces`` (m, 3) int and optionally
``aliases``.  It returns the file's raw axes, as simulators load collision meshes
(gz-common applies COLLADA ``<unit meter>`` but not ``<up_axis>``), and raises on a file it
cannot read, with a message that starts with the path.

Plugins provide one through the ``snapframe.mesh_loaders`` entry-point group::

    [project.entry-points."snapframe.mesh_loaders"]
    mymeshes = "mypackage.meshes:load_mesh"

Core names no loader: :func:`discover_mesh_loader` is called on the first mesh read, and
when several loaders are installed the first one (by entry-point name) that loads is used.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

    from ..commandline import PathEntryPoint

__all__ = ["MeshLoader", "NoMeshLoader", "discover_mesh_loader", "mesh_loader_entry_points",
           "ENTRY_POINT_GROUP"]

ENTRY_POINT_GROUP = "snapframe.mesh_loaders"

MeshLoader = Callable[[str], Any]
_log = logging.getLogger(__name__)


class NoMeshLoader(RuntimeError):
    """No mesh loader is installed, or none of those installed could be loaded."""


def mesh_loader_entry_points() -> "list[EntryPoint | PathEntryPoint]":
    """The installed ``snapframe.mesh_loaders`` entry points, sorted by name."""
    from ..commandline import installed_entry_points
    return sorted(installed_entry_points(ENTRY_POINT_GROUP), key=lambda ep: ep.name)


def discover_mesh_loader() -> MeshLoader:
    """The first installed mesh loader that loads; raises :class:`NoMeshLoader`."""
    failures: list[str] = []
    for ep in mesh_loader_entry_points():
        try:
            loader = ep.load()
            if not callable(loader):
                raise TypeError(f"not callable: {loader!r}")
        except Exception as exc:  # a broken plugin must not hide a working one
            failures.append(f"'{ep.name}' ({ep.value}): {exc}")
            _log.warning("mesh loader plugin '%s' (%s) could not be loaded: %s",
                         ep.name, ep.value, exc)
            continue
        return loader
    why = f"; could not load {', '.join(failures)}" if failures else ""
    raise NoMeshLoader(f"no mesh loader is installed (entry-point group "
                       f"'{ENTRY_POINT_GROUP}'){why}")
