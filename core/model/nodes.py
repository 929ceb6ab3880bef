"""Document nodes: world, model, link, joint, frame, include and their parts.

The classes are format-neutral: SDFormat, URDF, OpenPLX and mirabuf readers all build
these.  Format-specific content a node does not model is kept so that load -> save loses
nothing:

* ``xml`` is the element the node was read from (SDFormat/URDF).  Writers start from a
  copy of it and overwrite only what the model owns, so unknown elements, custom
  namespaced elements and comments survive.
* ``extras`` holds anything else a format wants to carry (OpenPLX annotations, mirabuf
  GUIDs, ...).

Every node has a process-unique integer ``id``: views key actors and tree rows by it.
Mutate nodes only through :mod:`snapframe.core.model.edits` commands when the document is
open in a view, so that undo and change events stay correct.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, ClassVar, Iterator

import numpy as np

from ..diagnostics import SourceLocation
from ..pose import IDENTITY, Pose

__all__ = ["Node", "PoseSpec", "World", "Model", "Link", "Joint", "JointAxis", "Frame",
           "MateConnector", "Mate", "MATE_TYPES", "Include", "NestedInclude", "Collision",
           "Visual", "Geometry", "MeshData", "Inertial", "Plugin", "walk"]

_ids = itertools.count(1)


def _next_id() -> int:
    return next(_ids)


@dataclass(eq=False)
class PoseSpec:
    """A ``<pose>`` as written: the value and the frame it is expressed in.

    ``relative_to`` empty means the element's default frame (which depends on the element:
    the scope frame for links and models, the child frame for joints, ``attached_to`` for
    frames).  ``written`` says whether the source had a ``<pose>`` element at all.
    """

    value: Pose = IDENTITY
    relative_to: str = ""
    written: bool = False
    source: SourceLocation = field(default_factory=SourceLocation)

    def copy(self) -> "PoseSpec":
        return PoseSpec(self.value, self.relative_to, self.written, self.source)


@dataclass(eq=False)
class Node:
    """Base of every document node."""

    kind: ClassVar[str] = "node"

    name: str = ""
    source: SourceLocation = field(default_factory=SourceLocation, repr=False)
    xml: Any = field(default=None, repr=False)
    extras: dict = field(default_factory=dict, repr=False)
    parent: "Node | None" = field(default=None, repr=False, compare=False)
    id: int = field(default_factory=_next_id, repr=False)

    def children(self) -> list["Node"]:
        """Child nodes in document order (override in containers)."""
        return []

    def ancestors(self) -> Iterator["Node"]:
        node = self.parent
        while node is not None:
            yield node
            node = node.parent

    def element_path(self) -> str:
        """XPath-like path used in diagnostics (``/world[@name="w"]/model[@name="m"]``)."""
        parts = [f'{n.kind}[@name="{n.name}"]' if n.name else n.kind
                 for n in [self, *self.ancestors()]]
        return "/" + "/".join(reversed(parts))


class MeshData:
    """Triangles a reader holds in memory instead of in a mesh file: ``vertices`` (n, 3)
    float64 in the mesh's own units (the geometry's ``scale`` applies, as to a file) and
    ``faces`` (m, 3) int64 vertex indices; ``name`` suggests a file name to writers.

    A mesh geometry carries it as ``params["data"]``.  It is immutable (read-only arrays)
    and shared: every instance of a part refers to the same object, and copying params
    (``dict``, ``copy.copy``, ``copy.deepcopy``) keeps that object.  Two MeshData are
    equal only when they are the same object (so params compare without touching the
    arrays), and :meth:`to_json` gives a small summary for JSON output."""

    __slots__ = ("vertices", "faces", "name", "__weakref__")

    def __init__(self, vertices: Any, faces: Any, name: str = "") -> None:
        V = np.array(vertices, dtype=np.float64).reshape(-1, 3)
        F = np.array(faces, dtype=np.int64).reshape(-1, 3)
        V.setflags(write=False)
        F.setflags(write=False)
        object.__setattr__(self, "vertices", V)
        object.__setattr__(self, "faces", F)
        object.__setattr__(self, "name", str(name or ""))

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("MeshData is immutable")

    def __delattr__(self, key: str) -> None:
        raise AttributeError("MeshData is immutable")

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)

    def __copy__(self) -> "MeshData":
        return self

    def __deepcopy__(self, memo: dict) -> "MeshData":
        return self

    def __reduce__(self):
        return (MeshData, (self.vertices, self.faces, self.name))

    def __repr__(self) -> str:
        return (f"MeshData({self.name!r}, {len(self.vertices)} vertices, "
                f"{len(self.faces)} faces)")

    def to_json(self) -> dict:
        """A JSON-safe summary (no arrays)."""
        return {"mesh_data": self.name, "vertices": len(self.vertices),
                "faces": len(self.faces)}


@dataclass(eq=False)
class Geometry:
    """A shape: ``shape`` is the SDFormat element name (box, cylinder, sphere, capsule,
    ellipsoid, cone, plane, mesh, heightmap, polyline, empty) and ``params`` its values:

    ======== ==================================================================
    box      ``size`` (3 floats)
    cylinder ``radius``, ``length``
    sphere   ``radius``
    capsule  ``radius``, ``length`` (cylindrical part only)
    ellipsoid ``radii`` (3 floats)
    cone     ``radius``, ``length``
    plane    ``normal`` (3), ``size`` (2)
    mesh     ``uri``, ``scale`` (3), ``submesh`` (name or None), ``center_submesh`` (bool),
             ``resolved_path`` (absolute path or None), optionally ``data``: a
             :class:`MeshData` with the triangles when a reader holds them in memory
             (``uri`` then names them; writers save them to a file)
    ======== ==================================================================
    """

    shape: str = "empty"
    params: dict = field(default_factory=dict)
    source: SourceLocation = field(default_factory=SourceLocation, repr=False)


@dataclass(eq=False)
class Collision(Node):
    kind: ClassVar[str] = "collision"
    pose: PoseSpec = field(default_factory=PoseSpec)
    geometry: Geometry = field(default_factory=Geometry)
    #: ``//collision/density`` in kg/m^3, or None when not written.
    density: float | None = None
    #: ``//collision/auto_inertia_params`` element (opaque), or None.
    auto_inertia_params: Any = None


@dataclass(eq=False)
class Visual(Node):
    kind: ClassVar[str] = "visual"
    pose: PoseSpec = field(default_factory=PoseSpec)
    geometry: Geometry = field(default_factory=Geometry)
    #: RGBA diffuse colour if the material gives one.
    color: tuple[float, float, float, float] | None = None


@dataclass(eq=False)
class Inertial:
    """``//link/inertial``.  With ``auto`` the values come from collisions and density.

    ``pose`` is X_LC, the inertial (centre-of-mass) frame C in the link frame L.  The
    products of inertia follow SDFormat's sign convention (``ixy = -integral(x y dm)``).
    ``mass`` None means "not written" (the SDFormat default is 1).
    """

    auto: bool = False
    mass: float | None = None
    pose: PoseSpec = field(default_factory=PoseSpec)
    ixx: float = 1.0
    iyy: float = 1.0
    izz: float = 1.0
    ixy: float = 0.0
    ixz: float = 0.0
    iyz: float = 0.0
    #: Which of the tensor entries were written in the file.
    written_inertia: bool = False
    density: float | None = None
    auto_inertia_params: Any = None
    source: SourceLocation = field(default_factory=SourceLocation, repr=False)
    #: Set when the values were changed after reading (an edit, or computed values to save);
    #: the SDFormat writer then writes them into the element it keeps.
    dirty: bool = False
    #: With ``auto``: the mass properties computed from the collisions by the live document
    #: (derived data, never written; None until computed or when they cannot be).
    computed: Any = field(default=None, repr=False)


@dataclass(eq=False)
class Link(Node):
    kind: ClassVar[str] = "link"
    pose: PoseSpec = field(default_factory=PoseSpec)
    inertial: Inertial | None = None
    collisions: list[Collision] = field(default_factory=list)
    visuals: list[Visual] = field(default_factory=list)

    def children(self) -> list[Node]:
        return [*self.visuals, *self.collisions]


@dataclass(eq=False)
class JointAxis:
    """``//joint/axis`` or ``axis2``: unit direction ``xyz`` in ``expressed_in``."""

    xyz: tuple[float, float, float] = (0.0, 0.0, 1.0)
    expressed_in: str = ""
    lower: float | None = None
    upper: float | None = None
    effort: float | None = None
    velocity: float | None = None
    source: SourceLocation = field(default_factory=SourceLocation, repr=False)


#: All SDFormat joint types.
JOINT_TYPES = ("fixed", "revolute", "revolute2", "prismatic", "continuous", "ball", "universal",
               "screw", "gearbox")


@dataclass(eq=False)
class Joint(Node):
    kind: ClassVar[str] = "joint"
    type: str = "fixed"
    parent_name: str = ""
    child_name: str = ""
    pose: PoseSpec = field(default_factory=PoseSpec)
    axes: list[JointAxis] = field(default_factory=list)
    #: Where <parent> and <child> were written (diagnostics point there).
    parent_source: SourceLocation = field(default_factory=SourceLocation, repr=False)
    child_source: SourceLocation = field(default_factory=SourceLocation, repr=False)


@dataclass(eq=False)
class Frame(Node):
    kind: ClassVar[str] = "frame"
    attached_to: str = ""
    pose: PoseSpec = field(default_factory=PoseSpec)


@dataclass(eq=False)
class MateConnector(Frame):
    """An OpenPLX ``MateConnector``: a frame on a body (``attached_to`` names its link) or
    on a system (``attached_to`` empty: the model frame).

    The frame's z axis is the connector's main axis and its x axis the normal, so the pose
    (``X_OC``, relative to ``attached_to``) says everything SNAP needs.  A redirected
    connector is positioned through its owner but belongs to ``redirected_parent`` (a
    body's name); an adaptive one moves onto the other connector of its mate after SNAP.
    """

    kind: ClassVar[str] = "mate_connector"
    redirected_parent: str = ""
    adaptive: bool = False


#: Mate types SNAP knows (OpenPLX ``Physics3D.Interactions``), lower case.
MATE_TYPES = ("lock", "hinge", "prismatic", "cylindrical", "ball", "distance")


@dataclass(eq=False)
class Mate(Node):
    """An OpenPLX mate between two mate connectors.

    ``connectors`` name the two :class:`MateConnector` frames as seen from the model that
    holds the mate (``"hand.axle"`` or ``"sub::hand.axle"``); their order matters for the
    initial values (SNAP aligns connector 1 on connector 0 turned by ``initial_angle`` and
    moved by ``initial_position`` along its main axis).  A mate is not a frame; in SDFormat
    terms it stands for the joint(s) derived from it (see :mod:`snapframe.core.snap.joints`).
    """

    kind: ClassVar[str] = "mate"
    type: str = "lock"
    connectors: tuple[str, str] = ("", "")
    initial_angle: float = 0.0
    initial_position: float = 0.0
    initial_distance: float = 0.0
    enable_snap: bool = True


@dataclass(eq=False)
class Plugin(Node):
    kind: ClassVar[str] = "plugin"
    filename: str = ""


@dataclass(eq=False)
class Model(Node):
    """A model (possibly nested).  ``entities`` holds links, joints, frames, nested models,
    includes and plugins in document order."""

    kind: ClassVar[str] = "model"
    pose: PoseSpec = field(default_factory=PoseSpec)
    static: bool = False
    canonical_link: str = ""
    placement_frame: str = ""
    entities: list[Node] = field(default_factory=list)
    #: For interface models from custom parsers: X_LM, the model frame in the canonical link.
    #: None for ordinary models.
    interface_pose_in_canonical: Pose | None = None

    def children(self) -> list[Node]:
        return list(self.entities)

    def of(self, cls: type) -> list:
        return [e for e in self.entities if isinstance(e, cls)]

    @property
    def links(self) -> list[Link]:
        return self.of(Link)

    @property
    def joints(self) -> list[Joint]:
        return self.of(Joint)

    @property
    def frames(self) -> list[Frame]:
        return self.of(Frame)

    @property
    def models(self) -> list["Model"]:
        return self.of(Model)

    @property
    def includes(self) -> list["Include"]:
        return self.of(Include)

    @property
    def mates(self) -> list[Mate]:
        return self.of(Mate)

    def add(self, node: Node, index: int | None = None) -> Node:
        node.parent = self
        if index is None:
            self.entities.append(node)
        else:
            self.entities.insert(index, node)
        return node


@dataclass(eq=False)
class World(Node):
    """A world: models, includes, frames and (SDFormat 1.10) joints in document order."""

    kind: ClassVar[str] = "world"
    entities: list[Node] = field(default_factory=list)

    def children(self) -> list[Node]:
        return list(self.entities)

    of = Model.of
    add = Model.add
    models = Model.models
    frames = Model.frames
    joints = Model.joints
    includes = Model.includes


@dataclass(eq=False)
class Include(Node):
    """An ``//include`` as written, plus what it resolved to.

    ``name`` is ``//include/name`` (empty: the included model's own name).  ``model`` is the
    resolved model: a template shared by every include of the same file, which an include
    never mutates; the include's own overrides (name, pose, placement frame, static) live
    here.  ``entities`` are the frames, joints and plugins the include adds (SDFormat 1.8).
    """

    kind: ClassVar[str] = "include"
    uri: str = ""
    pose: PoseSpec | None = None
    placement_frame: str = ""
    static: bool | None = None
    merge: bool = False
    entities: list[Node] = field(default_factory=list)
    model: Model | None = None
    resolved_path: str = ""
    #: Name of the format that parsed the included file ("sdformat", "urdf", ...).
    format: str = ""
    #: What loading the file reported (a missing file, errors inside it).
    load_diagnostics: list = field(default_factory=list, repr=False)

    def children(self) -> list[Node]:
        return list(self.entities)

    @property
    def effective_name(self) -> str:
        if self.name:
            return self.name
        return self.model.name if self.model is not None else ""

    @property
    def effective_static(self) -> bool:
        if self.static is not None:
            return self.static
        return bool(self.model and self.model.static)


@dataclass
class NestedInclude:
    """What a custom model parser is told about an ``//include`` (the interface API)."""

    uri: str
    resolved_file_name: str
    absolute_model_name: str
    local_model_name: str
    is_static: bool
    include_raw_pose: Pose | None = None
    include_pose_relative_to: str = ""
    include_element: Any = None
    merge: bool = False


def walk(node: Node, *, into_includes: bool = False) -> Iterator[Node]:
    """Depth-first pre-order traversal of ``node`` and its descendants."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        kids = n.children()
        if into_includes and isinstance(n, Include) and n.model is not None:
            kids = [n.model, *kids]
        stack.extend(reversed(kids))
