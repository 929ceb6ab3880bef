"""Assembling panels: what a user needs to put a mechanism together and check it.

Each is a small Qt widget over a :class:`~snapframe.editor.session.DocumentSession`, built as
``Panel(session, parent)`` (``session`` may be None) and switched with
``set_session(session | None)`` like the panels of :mod:`snapframe.editor.panels`:

* :class:`JointSlidersPanel` -- sliders for the movable joints (``live.joints``; filtered,
  at most 60 rows, the selected model's first); reset; save
  the moved joints as the initial position (one undo step).
* :class:`MassTablePanel` -- every link's mass, centre of mass and inertia, the totals;
  bake computed inertia.
* :class:`SnapPanel` -- the mates with their initial values, declared transforms, SNAP's
  result, findings and trace.
* :class:`PlacementPanel` -- placing a dropped part file: placement frame, target, offset,
  joint, name; :func:`drop_targets` lists the frames a part can go on.
* :class:`AddJointPanel` -- a joint between two links or frames picked in the viewport or
  the tree: name, type, axis, limits; one undo step.
* :func:`confirm_remove` / :func:`rename_element` -- non-blocking dialogs for removing an
  element with its dependents and renaming it.
"""

from __future__ import annotations

from .add_joint import AddJointPanel
from .joint_sliders import JointSlidersPanel
from .mass_table import MassTablePanel
from .placement import DropTarget, Placement, PlacementPanel, drop_targets
from .removal import RemoveDialog, RenameDialog, confirm_remove, rename_element
from .snap_panel import SnapPanel

__all__ = ["AddJointPanel", "JointSlidersPanel", "MassTablePanel", "SnapPanel",
           "PlacementPanel", "Placement", "DropTarget", "drop_targets", "RemoveDialog", "RenameDialog", "confirm_remove",
           "rename_element"]
