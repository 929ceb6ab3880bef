"""Floor plans with doors: the FloorPlan DSL (``.fpm``) and its JSON-LD, as worlds.

A floor plan is read into :class:`.model.FloorPlan` (world coordinates) by either of two
independent paths: :func:`.dsl.load_fpm` for the DSL, :func:`.jsonld.load_jsonld` for the
JSON-LD folder FloorPlan-DSL writes.  Door models are JSON-LD (:mod:`.doors`): inside the
plan's JSON-LD folder, or, for a ``.fpm``, in the ``<stem>.doors/`` folder beside it, posed
against the DSL plan's frames under their FloorPlan ids (:mod:`.door_files`).
:func:`.world.build_document` makes it a world: the building as one static model (walls
with their openings cut out, floors, columns, dividers: :mod:`.geometry`; a frame per
opening) and each door as a model with its hinge joint and limits in the door's own
coordinates, its start state as a Gazebo position controller's initial position.  The
format (:mod:`.format`) opens ``.fpm`` files and JSON-LD folders (or their
``floorplan.json``) and lets an SDFormat ``//include`` name either.
"""

from snapframe.core.formats import FormatDescriptor

__all__ = ["FORMAT"]

FORMAT = FormatDescriptor(
    name="floorplan",
    label="FloorPlan (DSL or JSON-LD folder)",
    extensions=(".fpm",),
    implementation="snapframe.plugins.floorplan.format",
    can_read=True,
    can_write=False,
    can_include=True,
    folder_marker="floorplan.json",
)
