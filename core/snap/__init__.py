"""SNAP: automatic assembly of bodies and systems from mate connectors (OpenPLX Physics3D).

``solve(problem)`` takes a :class:`SnapProblem` (systems, bodies, connectors and mates of one
root System, in declaration order) and returns a :class:`SnapResult` with a local transform
for every system and body, world poses, diagnostics, a step-by-step trace and the free DOFs
each mate recorded.  Pure: stdlib + numpy, no OpenPLX syntax.

:class:`~.replay.SnapRun` keeps a run so that a change of mates' initial values is solved
again by replaying only the placements it moves (the same result as a full run).

On a core document: :mod:`.document` builds the problem from a :class:`Model` tree with
:class:`MateConnector` and :class:`Mate` nodes and applies the result back;
:mod:`.joints` derives the SDFormat joints that stand for the mates; :mod:`.paths` names
the parts and keeps their declaration order.

Rules (from the Physics3D documentation and the team's observations of the reference
runtime, ``/work/shared/reference/openplx.md`` section 3.4):

* **Alignment.**  ``X_W1 = X_W0 @ D`` where ``X_Wi`` is connector ``i``'s pose (owner pose
  times ``X_OC``) and ``D = Rz(initial_angle) @ Tz(initial_position)`` in connector 0's frame:
  Lock and Ball ``D = I``; Hinge ``Rz(a)``; Prismatic ``Tz(p)``; Cylindrical both; Distance
  ``Tz(initial_distance)`` (connector 1 that far along connector 0's main axis, same
  orientation).  Swapping the connectors therefore flips the sign of the initial values.
* **Frames.**  Every body and non-root system has one local transform.  A declared one is
  fixed and never moves; the others are free until SNAP defines them.  A mate only looks at
  the frames between each connector's owner and ``G``, the closest common ancestor system
  of its two connectors.  When exactly one of those frames is free, the mate solves it
  (``S = N^-1 A P^-1``), records its free DOFs at their initial values, and is done.  That
  frame may be a whole subsystem: with its inner bodies already defined, the subsystem's
  local transform is what moves.
* **Sweeps.**  Mates are visited in declaration order, sweep after sweep, until none can
  make progress (implemented with a work queue that reproduces exactly that visiting order).
* **Forcing.**  When a sweep makes no progress, the free DOFs recorded so far are frozen
  ("killed", they can no longer close loops) and one frame is forced to identity, in this
  order: the root system's reference body (if free and mated), else the first free frame of
  the first unresolved mate, looked for from ``connectors[1]`` (its owner first, then up the
  chain) and then from ``connectors[0]``; if that frame is a body of a subsystem whose
  reference body is still free and mated, that reference body is forced instead.  The
  reference body is ``SnapSystem.reference_body`` if it names one of the system's bodies,
  otherwise the body with the byte-wise smallest attribute name among the bodies with a
  declared transform, or among all bodies if none is declared.  Every forced frame gets an
  info diagnostic ("redundant transform ... forced to identity").
* **Checks and loops.**  A mate whose two sides are already defined is checked once against
  what it constrains (a hinge may turn about its axis, a prismatic may slide, a distance
  keeps ``initial_distance``, ...).  If violated, SNAP tries to close the loop with the
  hinge angles / prismatic slides recorded since the last forcing that move one side only
  (the 8 most recent), in pairs from two *different* earlier mates: two hinges = circle
  intersection, taking the *negative angle branch*, defined here as the solution in which
  the later-recorded hinge turns by a negative angle; hinge + slide = piston and two
  slides, taking the shorter slide.  Loops are planar: hinge axes must be parallel.  Every
  mate already satisfied must stay satisfied, else the next candidate is tried.  A later
  mate that only one earlier mate's DOFs could satisfy conflicts with it: the earlier mate
  keeps its initial values and the later one is left violated with a warning (the mates
  applied first win).
* **Redirected connectors** are positioned through their defining ``owner``;
  ``SnapResult.redirected`` gives their pose in ``redirected_parent`` afterwards.
* **Adaptive connectors** (``AdaptiveMateConnector``): a mate using one places nothing and
  is never violated; after SNAP the adaptive connector moves in its owner onto the other
  connector (composed with the mate offset ``D``), ``SnapResult.adapted`` gives its new
  frame.
* **Leftovers.**  Free frames no mate reached end at identity (``status "unconstrained"``);
  a body among them gets an "unmated body" warning.

The trace uses the runtime's vocabulary ("Constraining from A to B by F", "add dof",
"Forcing", "Satisfying ... by rotating ...") so it can be read next to a ``--loglevel trace``
log.
"""

from .model import (MATE_TYPES, SnapBody, SnapConnector, SnapDof, SnapMate, SnapProblem,
                    SnapResult, SnapSystem)
from .solver import solve

__all__ = ["solve", "SnapProblem", "SnapSystem", "SnapBody", "SnapConnector", "SnapMate",
           "SnapResult", "SnapDof", "MATE_TYPES"]
