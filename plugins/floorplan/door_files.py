"""Door JSON-LD files for a floor plan read from the DSL (``.fpm``).

Door models (object, states, instance: see :mod:`.doors`) are JSON-LD; a door instance is
posed against a frame of the floor plan by its FloorPlan id, e.g. ``fpm:lab-wall-2-frame``
where ``fpm`` is the plan's base IRI.  A plan read from the DSL has no JSON-LD, so its
frames are given to the door files' pose graph under the ids FloorPlan-DSL's JSON-LD
generator gives them (:func:`plan_frames`), each at its ``X_WF`` in the plan's world frame:

=========================  ==========================================
``world-frame``            the plan's world frame
``<space>-frame``          a space (``lab-frame``)
``<wall>-frame``           a wall (``lab-wall-2-frame``)
``column-<name>-frame``    a column; ``divider-<name>-frame`` a divider
``entryway-<name>-frame``  an entryway; ``window-<name>-frame`` a window
=========================  ==========================================

all relative to the base ``https://secorolab.github.io/models/floorplan/<plan name>/``
(:func:`plan_base`), which is also the base of the plan's own id (an instance's ``world``).

Where the files are: :func:`doors_folder` names the folder next to a ``plan.fpm`` that is
read with it, ``plan.doors/`` (every ``*.json`` in it and in its direct subfolders); an
API caller may list files and folders instead (:func:`read_plan_doors`).  A folder named
after the plan without the suffix is left alone: that is where FloorPlan-DSL writes the
plan's own JSON-LD.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable

import numpy as np

from .errors import FloorPlanError
from .linked_data import FP, GEOM, REL, Graph
from .model import DoorInstance, FloorPlan

__all__ = ["DOORS_SUFFIX", "BASE_PREFIX", "WORLD_FRAME", "doors_folder", "plan_base",
           "plan_frames", "read_plan_doors"]

#: The folder next to ``plan.fpm`` whose door files are read with it: ``plan.doors``.
DOORS_SUFFIX = ".doors"
#: FloorPlan-DSL's base IRI for a plan's ids, before the plan's name.
BASE_PREFIX = "https://secorolab.github.io/models/floorplan/"
#: The id of the plan's world frame.
WORLD_FRAME = "world-frame"


def doors_folder(fpm: str | Path) -> Path:
    """The folder of door files read with the ``.fpm`` file ``fpm``: ``<stem>.doors``
    beside it (it need not exist)."""
    path = Path(fpm)
    return path.with_name(path.stem + DOORS_SUFFIX)


def plan_base(plan: FloorPlan) -> str:
    """The base IRI of the plan's ids, as FloorPlan-DSL's JSON-LD generator writes it."""
    return f"{BASE_PREFIX}{plan.name}/"


def plan_frames(plan: FloorPlan) -> dict[str, np.ndarray]:
    """FloorPlan id -> ``X_WF`` of every frame of the plan (see the module text)."""
    frames: dict[str, np.ndarray] = {WORLD_FRAME: np.eye(4)}
    for space in plan.spaces.values():
        frames[f"{space.name}-frame"] = space.X_WF
    for wall in plan.walls.values():
        frames[f"{wall.name}-frame"] = wall.X_WF
    for solid in (*plan.features.values(), *plan.openings.values()):
        # the element kinds are the generator's prefixes: column, divider, entryway, window
        frames[f"{solid.kind}-{solid.name}-frame"] = solid.X_WF
    return frames


def _check_references(graph: Graph, plan: FloorPlan, known: dict[str, np.ndarray]) -> None:
    """A pose naming a frame no file defines and the plan does not have is an error that
    says which frames the plan has (before the pose graph's plainer one)."""
    base = plan_base(plan)
    for pose in graph.of_type(REL + "Pose"):
        for prop in (REL + "with-respect-to", REL + "of"):
            iri = graph.ref(pose, prop, required=False)
            if iri is None or iri in graph.nodes or (iri.startswith(base) and
                                                     iri[len(base):] in known):
                continue
            tail = iri.rsplit("/", 1)[-1]
            if not iri.startswith(base) and tail in known:
                hint = (f"the floor plan {plan.name} names its frames {base}<id> (its "
                        f"{tail} is {base}{tail})")
            else:
                listed = ", ".join(list(known)[:8]) + (", ..." if len(known) > 8 else "")
                hint = f"the floor plan {plan.name} has the frames {listed}"
            raise FloorPlanError(f"pose {graph.name(pose.iri)} names the frame "
                                 f"{graph.name(iri)}, which no file defines: {hint}",
                                 file=pose.file, element=graph.name(pose.iri))


def read_plan_doors(plan: FloorPlan, paths: Path | Iterable[Path]) -> list[DoorInstance]:
    """The door instances of the JSON-LD files ``paths`` (files and folders, read as
    :func:`.jsonld.jsonld_files` does), posed against the frames of ``plan`` (a plan read
    from the DSL).  Raises :class:`FloorPlanError` naming the file and element."""
    from .doors import read_doors
    from .jsonld import read_graph
    from .poses import PoseGraph
    graph, files = read_graph(paths)
    plans = graph.of_type(FP + "FloorPlan")
    if plans:
        raise FloorPlanError("holds a floor plan (a FloorPlan node): next to a .fpm file "
                             "only door models are read", file=plans[0].file,
                             element=plans[0].iri)
    base = plan_base(plan)
    graph.base = base
    frames = {base + name: X for name, X in plan_frames(plan).items()}
    _check_references(graph, plan, plan_frames(plan))
    where = str(plan.source or "")
    graph.add_document([{"@id": iri, "@type": [GEOM + "Frame"]} for iri in frames
                        if iri not in graph.nodes], where)
    poses = PoseGraph(graph)
    world = base + WORLD_FRAME
    poses.anchor(world, frames, where)
    return read_doors(graph, poses, plan, world)
