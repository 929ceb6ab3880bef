"""SDFormat (1.4 to 1.12) -> :mod:`snapframe.core.model`.

The reader builds nodes and reports what libsdformat's ``Root::Load`` reports outside
frame semantics:

* the XML itself (:mod:`snapframe.core.xmlsafe`; unreadable or malformed: ``FILE_READ``,
  as libsdformat says);
* every typed value against the spec's descriptions (:mod:`.spec_values`), material
  scripts and sensor types (:mod:`.element_checks`) -- checks that need the XML;
* names, the elements at the root (one model, light or actor; worlds with distinct
  names), includes (``experimental:params`` applied, :mod:`.include_params`);
* the values the core model holds (inertia), through
  :func:`snapframe.core.model_checks.check_values`, which a live document also calls
  after an edit.

SDFormat 1.7 flattened names (``M1::L1``) become the nested models libsdformat's 1.8
conversion makes of them (:mod:`.unflatten`).  Checks that need the frame graphs
(references, cycles, canonical links) are in :mod:`snapframe.core.frames`, which runs
after reading.  Each node keeps its lxml element (``node.xml``) so the writer can keep
what the model does not understand.

A file with several worlds: the first is ``document.root`` (the one an editor edits);
each further world is read and checked as well and is ``document.extras["other_worlds"]``
(a :class:`~snapframe.core.model.Document` per world, sharing the file).
"""

from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import Iterable, Iterator

from lxml import etree

from snapframe.core import limits
from snapframe.core.diagnostics import Code, Diagnostics, SourceLocation
from snapframe.core.fileio import read_xml_file
from snapframe.core.loading import LoadContext
from snapframe.core.model import (Collision, Document, Frame, Geometry, Include, Inertial, Joint,
                                  JointAxis, Link, Model, NestedInclude, Node, Plugin, PoseSpec,
                                  Visual, World)
from snapframe.core.model.names import MODEL_FRAME, SEP, is_reserved
from snapframe.core.model_checks import check_node_values, check_values
from snapframe.core.progress import checkpoint
from snapframe.core.xmlsafe import XmlError, parse_numbers, parse_xml_bytes, xml_strip

from .element_checks import element_problems
from .include_params import PARAMS_NAMESPACE, PARAMS_TAG, apply_params, is_params_element
from .spec_values import spec_value_problems
from .unflatten import unflatten_world_models
from .values import parse_bool, parse_pose_text

__all__ = ["read", "read_string", "parse_include", "include_references", "parse_pose_text",
           "SHAPES"]

SHAPES = ("box", "cylinder", "sphere", "capsule", "ellipsoid", "cone", "plane", "mesh",
          "heightmap", "polyline", "image", "empty")
_NUMBER_PARAMS = {"box": {"size": 3}, "cylinder": {"radius": 1, "length": 1},
                  "sphere": {"radius": 1}, "capsule": {"radius": 1, "length": 1},
                  "ellipsoid": {"radii": 3}, "cone": {"radius": 1, "length": 1},
                  "plane": {"normal": 3, "size": 2}}


# The elements of a file that become element instances (see snapframe.core.frames.budget).
_INSTANCE_ELEMENTS = (
    "count(/sdf/model | /sdf/include | //world/*[self::model or self::frame or self::joint or "
    "self::include] | //model/*[self::link or self::joint or self::frame or self::model or "
    "self::include] | //link/*[self::visual or self::collision])")


def _version_tuple(version: str) -> tuple[int, int]:
    try:
        major, minor = version.split(".")[:2]
        return int(major), int(minor)
    except ValueError:
        return (1, 11)


class _Reader:
    """Reads one SDFormat file.  Included files get their own reader (and file name)."""

    def __init__(self, file: str, context: LoadContext, diagnostics: Diagnostics,
                 scope_prefix: str = "") -> None:
        self.file = file
        self.context = context
        self.diag = diagnostics
        self.base_dir = Path(file).resolve().parent if file else Path.cwd()
        self.version = "1.11"
        self.vt = (1, 11)
        self.scope_prefix = scope_prefix
        #: Elements whose value the spec check reported already (not reported again).
        self.bad_values: set[etree._Element] = set()
        #: Models enclosing what is being read (the loader's nesting limit counts them).
        self.depth = 0
        #: The document's own file: its top world or model reports progress per child
        #: (see snapframe.core.progress; nothing outside a background job).
        self.reports_progress = False

    # -- helpers ------------------------------------------------------------------
    def loc(self, el: etree._Element | None) -> SourceLocation:
        line = el.sourceline if el is not None and el.sourceline else 0
        return SourceLocation(self.file, line)

    def error(self, code: Code, message: str, el: etree._Element | None, element: str = "") -> None:
        self.diag.error(code, message, self.loc(el), element)

    def warning(self, code: Code, message: str, el: etree._Element | None, element: str = "") -> None:
        self.diag.warning(code, message, self.loc(el), element)

    @staticmethod
    def children(el: etree._Element, tag: str | None = None) -> Iterable[etree._Element]:
        for child in el:
            if not isinstance(child.tag, str):
                continue  # comments, processing instructions
            if tag is None or child.tag == tag:
                yield child

    @staticmethod
    def child(el: etree._Element, tag: str) -> etree._Element | None:
        for child in el:
            if child.tag == tag:
                return child
        return None

    def text(self, el: etree._Element, tag: str, default: str = "") -> str:
        c = self.child(el, tag)
        return (c.text or "").strip() if c is not None else default

    def floats(self, el: etree._Element | None, count: int | None, what: str,
               finite: bool = True) -> list[float] | None:
        """The numbers of ``el``'s text (XML Schema syntax); None, reported, when they are
        not numbers, not ``count`` of them, or (with ``finite``) not finite.  A value the
        spec check reported already is not reported twice."""
        if el is None:
            return None
        text = xml_strip(el.text or "")
        quiet = el in self.bad_values
        try:
            values = parse_numbers(text)
        except ValueError as exc:
            if not quiet:
                self.error(Code.ELEMENT_INVALID, f"Error reading element <{el.tag}>: {exc} "
                           f"(numbers required for {what})", el)
            return None
        if count is not None and len(values) != count:
            if not quiet:
                self.error(Code.ELEMENT_INVALID, f"Error reading element <{el.tag}>: {what} "
                           f"needs {count} number{'s' if count != 1 else ''}, found "
                           f"{len(values)}: '{text}'", el)
            return None
        if finite and not all(math.isfinite(v) for v in values):
            if not quiet:
                self.error(Code.ELEMENT_INVALID, f"Error reading element <{el.tag}>: {what} "
                           f"must be finite, found '{text}'", el)
            return None
        return values

    def number(self, el: etree._Element, tag: str, default: float | None = None,
               finite: bool = True) -> float | None:
        c = self.child(el, tag)
        if c is None or not xml_strip(c.text or ""):
            return default  # an empty value is the default (libsdformat)
        values = self.floats(c, 1, tag, finite)
        return values[0] if values else default

    def boolean(self, raw: str | None, el: etree._Element, what: str) -> bool | None:
        if raw is None:
            return None
        value = parse_bool(raw)
        if value is None and el not in self.bad_values:
            self.error(Code.ELEMENT_INVALID, f"Invalid boolean '{raw}' for {what}", el)
        return value

    def name_of(self, el: etree._Element, kind: str) -> str:
        """Read ``@name`` and check it is present, not reserved and free of ``::``."""
        name = el.get("name")
        if name is None or name == "":
            self.error(Code.ATTRIBUTE_MISSING if name is None else Code.ATTRIBUTE_INVALID,
                       f"Required attribute 'name' of <{kind}> is "
                       f"{'missing' if name is None else 'empty'}.", el)
            return ""
        if is_reserved(name):
            self.error(Code.RESERVED_NAME, f"The supplied {kind} name [{name}] is reserved.", el)
        elif SEP in name and self.vt >= (1, 8):
            self.error(Code.RESERVED_NAME,
                       f"Detected delimiter '::' in element name in <{kind} name='{name}'/>", el)
        return name

    def reference(self, value: str, attribute: str, el: etree._Element) -> str:
        if value == "__root__":
            self.error(Code.ATTRIBUTE_INVALID,
                       f"'__root__' is reserved; it cannot be used as a value of {attribute}", el)
        return value

    # -- poses --------------------------------------------------------------------
    def pose(self, parent: etree._Element) -> PoseSpec:
        el = self.child(parent, "pose")
        if el is None:
            return PoseSpec(source=self.loc(parent))
        spec = PoseSpec(written=True, source=self.loc(el))
        rel = el.get("relative_to")
        if rel is None and el.get("frame") and self.vt < (1, 7):
            self.warning(Code.ATTRIBUTE_DEPRECATED,
                         f"//pose/@frame='{el.get('frame')}' of SDFormat {self.version} is "
                         "not supported and is ignored", el)
        spec.relative_to = self.reference(rel or "", "//pose/@relative_to", el)
        try:
            spec.value = parse_pose_text(el.text or "", el.get("degrees"), el.get("rotation_format"))
        except ValueError as exc:
            if el not in self.bad_values:
                self.error(Code.ELEMENT_INVALID, f"Error reading element <pose>: {exc}", el)
        return spec

    # -- document -----------------------------------------------------------------
    def read_header(self, root: etree._Element) -> bool:
        """Check ``<sdf version>`` and take the version; False (with ``FILE_READ``, as
        libsdformat reports a file it cannot read) if the file is not SDFormat."""
        if root.tag != "sdf":
            self.error(Code.FILE_READ, f"Unable to read file:{self.file}: the root element is "
                       f"<{root.tag}>, not <sdf>", root)
            return False
        version = (root.get("version") or "").strip()
        if not version:
            self.error(Code.FILE_READ, f"Unable to read file:{self.file}: <sdf> has no "
                       "version attribute", root)
            return False
        self.version, self.vt = version, _version_tuple(version)
        return True

    def within_budget(self, root: etree._Element) -> bool:
        """False (with ``RESOURCE_LIMIT``) if the file by itself holds more elements than
        a document may expand to: refused before a model of millions of nodes is built
        (61 MB of links took 109 s and 5.5 GB to be refused after building)."""
        count = int(root.xpath(_INSTANCE_ELEMENTS))
        if count <= limits.MAX_ELEMENT_INSTANCES:
            return True
        # Exact for the file's own elements; its includes would add to it.
        shown = f"at least {count:,}" if root.xpath("boolean(//include)") else f"{count:,}"
        self.error(Code.RESOURCE_LIMIT, limits.budget_message(f"[{self.file or '<string>'}]",
                                                              shown), root)
        return False

    def read_root(self, tree: etree._ElementTree, doc: Document) -> list[World]:
        """Read what ``<sdf>`` holds into ``doc``; returns every world (the first is
        ``doc.root``).  Mirrors ``sdf::Root::Load``: worlds must have distinct names; a
        file holds one model, light or actor (the first is used)."""
        root = tree.getroot()
        if self.vt > (1, 12):
            self.warning(Code.VERSION_DEPRECATED, f"SDFormat version {self.version} is newer "
                         "than the newest this program knows (1.12); reading it as 1.12", root)
        doc.version = self.version
        worlds: list[World] = []
        for el in self.children(root, "world"):
            world = self.world(el)
            if any(w.name == world.name for w in worlds):
                self.error(Code.DUPLICATE_NAME, f"World with name[{world.name}] already exists. "
                           "Each world must have a unique name. Skipping this world.", el)
            worlds.append(world)
        models = self.unique_root_elements(root, "model")
        lights = self.unique_root_elements(root, "light")
        actors = self.unique_root_elements(root, "actor")
        if len(models) > 1:
            self.error(Code.ELEMENT_INCORRECT_TYPE, "Root object can only contain one model. "
                       "Using the first one found", models[1])
        for kind, found, before in (("light", lights, models), ("actor", actors, models + lights)):
            if len(found) > 1:
                self.error(Code.ELEMENT_INCORRECT_TYPE, f"Root object can only contain one "
                           f"{kind}. Using the first one found.", found[1])
            if found and before:
                self.error(Code.ELEMENT_INCORRECT_TYPE, "Root object can only contain one of "
                           "model, light or actor, but found more than one type of element. "
                           f"Skipping this {kind}.", found[0])
        if worlds:
            doc.root = worlds[0]
            if models:
                # libsdformat loads both without a word; a document has one root.
                self.warning(Code.ELEMENT_INCORRECT_TYPE, "The top-level <model> next to a "
                             "<world> is kept as written but is not part of this document",
                             models[0])
        elif models:
            doc.root = self.model(models[0], top_level=True)
        for el in self.children(root, "include"):
            # libsdformat expands an <include> placed directly in <sdf>; Snapframe loads it
            # (so what is wrong with it is reported) but has no place to show it.
            self.include(el, "")
            self.warning(Code.WARNING, "An <include> directly in <sdf> is loaded and checked, "
                         "but its model is not part of this document (put the include in a "
                         "<world> or a <model>)", el)
        # An empty <sdf>, or one holding only a light or an actor, is valid (libsdformat).
        return worlds

    def unique_root_elements(self, root: etree._Element, tag: str) -> list[etree._Element]:
        """The ``<tag>`` children of ``<sdf>``, without those whose name was used already
        (reported: ``DUPLICATE_NAME``, libsdformat's ``loadUniqueRepeated``)."""
        out: list[etree._Element] = []
        names: set[str] = set()
        for el in self.children(root, tag):
            name = el.get("name", "")
            if name in names:
                self.error(Code.DUPLICATE_NAME, f"{tag} with name[{name}] already exists.", el)
                continue
            names.add(name)
            out.append(el)
        return out

    def world(self, el: etree._Element) -> World:
        world = World(name=self.name_of(el, "world"), source=self.loc(el), xml=el)
        count = len(el) if self.reports_progress else 0
        for i, c in enumerate(self.children(el)):
            if count:
                checkpoint(i / count)
            node: Node | None = None
            if c.tag == "model":
                node = self.model(c)
            elif c.tag == "include":
                node = self.include(c, world.name)
            elif c.tag == "frame":
                node = self.frame(c)
            elif c.tag == "joint":
                if self.vt < (1, 10):
                    self.warning(Code.ELEMENT_INVALID, f"//world/joint needs SDFormat 1.10; this file "
                                 f"is {self.version} (read anyway)", c)
                node = self.joint(c)
            elif c.tag == "plugin":
                # Kept as a node, as in a model: the writer keeps exactly the entities it has.
                node = self.plugin(c)
            if node is not None:
                world.add(node)
        if self.vt < (1, 7):
            self.rename_pre_1_7_collisions(world)
        return world

    def model(self, el: etree._Element, top_level: bool = False, scope: str = "") -> Model:
        model = Model(name=self.name_of(el, "model"), source=self.loc(el), xml=el)
        model.pose = self.pose(el)
        if top_level and model.pose.relative_to:
            self.error(Code.ATTRIBUTE_INVALID, "Attribute //pose[@relative_to] of top level model "
                       "must be left empty, found //pose[@relative_to='"
                       f"{model.pose.relative_to}'].", self.child(el, "pose"))
            model.pose.relative_to = ""
        model.canonical_link = self.reference(el.get("canonical_link", ""),
                                              "//model/@canonical_link", el)
        model.placement_frame = self.reference(el.get("placement_frame", ""),
                                               "//model/@placement_frame", el)
        static = self.boolean(self.text(el, "static") or None, el, "<static>")
        model.static = bool(static)
        inner_scope = SEP.join(p for p in (scope, model.name) if p)
        self.depth += 1
        count = len(el) if top_level and self.reports_progress else 0
        try:
            for i, c in enumerate(self.children(el)):
                if count:
                    checkpoint(i / count)
                node: Node | None = None
                if c.tag == "link":
                    node = self.link(c)
                elif c.tag == "joint":
                    node = self.joint(c)
                elif c.tag == "frame":
                    node = self.frame(c)
                elif c.tag == "model":
                    node = self.model(c, scope=inner_scope)
                elif c.tag == "include":
                    node = self.include(c, inner_scope)
                elif c.tag == "plugin":
                    node = self.plugin(c)
                if node is not None:
                    model.add(node)
        finally:
            self.depth -= 1
        if self.vt < (1, 7):
            self.rename_pre_1_7_collisions(model)
        return model

    def rename_pre_1_7_collisions(self, container: Model | World) -> None:
        """Before SDFormat 1.7 a link, joint, frame or model could share a name with an
        element of another kind.  libsdformat keeps links and models (and includes) and
        renames the implicit frames: a joint becomes ``<name>_joint``, a frame
        ``<name>_frame``."""
        rank = {"link": 0, "model": 0, "include": 0, "joint": 1, "frame": 2}
        owners: dict[str, Node] = {}
        for node in container.entities:
            name = node.effective_name if isinstance(node, Include) else node.name
            if isinstance(node, Plugin) or not name:
                continue
            other = owners.get(name)
            if other is None:
                owners[name] = node
                continue
            if other.kind == node.kind or (rank[other.kind] == rank[node.kind] == 0):
                continue  # same kind: a real duplicate, reported by the graph checks
            loser = node if rank[node.kind] >= rank[other.kind] else other
            winner = other if loser is node else node
            new = f"{name}_{loser.kind}"
            self.warning(Code.DUPLICATE_NAME, f"{loser.kind} name [{name}] is also the name of a "
                         f"{winner.kind} in [{container.name}]; the {loser.kind} is renamed to "
                         f"[{new}] (SDFormat {self.version} rule)", loser.xml)
            loser.name = new
            owners[name] = winner
            owners.setdefault(new, loser)

    def link(self, el: etree._Element) -> Link:
        link = Link(name=self.name_of(el, "link"), source=self.loc(el), xml=el)
        link.pose = self.pose(el)
        inertial = self.child(el, "inertial")
        if inertial is not None:
            link.inertial = self.inertial(inertial)
        seen: dict[tuple[str, str], etree._Element] = {}
        for c in self.children(el):
            if c.tag not in ("collision", "visual"):
                continue
            name = self.name_of(c, c.tag)
            if (c.tag, name) in seen and name:
                self.error(Code.DUPLICATE_NAME, f"{c.tag} with name[{name}] already exists.", c)
            seen[(c.tag, name)] = c
            if c.tag == "collision":
                col = Collision(name=name, source=self.loc(c), xml=c, pose=self.pose(c),
                                geometry=self.geometry(c))
                col.density = self.number(c, "density")
                if col.density is not None and col.density <= 0:
                    self.error(Code.ELEMENT_INVALID, f"<density> of collision [{name}] must be "
                               f"positive, found {col.density}", self.child(c, "density"))
                col.auto_inertia_params = self.child(c, "auto_inertia_params")
                col.parent = link
                link.collisions.append(col)
            else:
                vis = Visual(name=name, source=self.loc(c), xml=c, pose=self.pose(c),
                             geometry=self.geometry(c))
                material = self.child(c, "material")
                if material is not None:
                    rgba = self.floats(self.child(material, "diffuse"), None, "diffuse")
                    if rgba and len(rgba) in (3, 4):
                        vis.color = (*rgba[:3], rgba[3] if len(rgba) == 4 else 1.0)  # type: ignore
                vis.parent = link
                link.visuals.append(vis)
        return link

    def inertial(self, el: etree._Element) -> Inertial:
        auto = self.boolean(el.get("auto"), el, "//inertial/@auto")
        inertial = Inertial(auto=bool(auto), source=self.loc(el))
        inertial.pose = self.pose(el)
        # Not-finite values are numbers here: libsdformat 12 reads them and gz-math judges
        # the mass matrix (inf can pass, nan never does: LINK_INERTIA_INVALID, see
        # snapframe.core.model_checks).
        inertial.mass = self.number(el, "mass", finite=False)
        tensor = self.child(el, "inertia")
        if tensor is not None:
            inertial.written_inertia = True
            for key, default in (("ixx", 1.0), ("iyy", 1.0), ("izz", 1.0),
                                 ("ixy", 0.0), ("ixz", 0.0), ("iyz", 0.0)):
                setattr(inertial, key, self.number(tensor, key, default, finite=False))
        inertial.density = self.number(el, "density")
        inertial.auto_inertia_params = self.child(el, "auto_inertia_params")
        return inertial

    def geometry(self, parent: etree._Element) -> Geometry:
        el = self.child(parent, "geometry")
        if el is None:
            # libsdformat reads a missing geometry as an empty one and reports nothing.
            self.warning(Code.ELEMENT_MISSING, f"<{parent.tag}> [{parent.get('name')}] has no "
                         "<geometry>; it is read as an empty geometry", parent)
            return Geometry(source=self.loc(parent))
        shapes = [c for c in self.children(el) if c.tag in SHAPES]
        if not shapes:
            return Geometry("empty", source=self.loc(el))
        shape = shapes[0]
        geo = Geometry(shape.tag, {}, self.loc(shape))
        for key, count in _NUMBER_PARAMS.get(shape.tag, {}).items():
            values = self.floats(self.child(shape, key), count, f"{shape.tag} {key}")
            if values is not None:
                geo.params[key] = values[0] if count == 1 else tuple(values)
        if shape.tag == "mesh":
            uri = self.text(shape, "uri")
            geo.params["uri"] = uri
            scale = self.floats(self.child(shape, "scale"), 3, "mesh scale")
            geo.params["scale"] = tuple(scale) if scale else (1.0, 1.0, 1.0)
            sub = self.child(shape, "submesh")
            geo.params["submesh"] = self.text(sub, "name") or None if sub is not None else None
            geo.params["center_submesh"] = bool(
                self.boolean(self.text(sub, "center") or None, sub, "submesh center")
            ) if sub is not None else False
            resolved = self.context.resolve_uri(uri, self.base_dir) if uri else None
            geo.params["resolved_path"] = str(resolved) if resolved else None
        return geo

    def joint(self, el: etree._Element) -> Joint:
        joint = Joint(name=self.name_of(el, "joint"), source=self.loc(el), xml=el)
        joint.type = (el.get("type") or "").strip()
        if not joint.type:
            self.error(Code.ATTRIBUTE_MISSING, f"Joint [{joint.name}] is missing its 'type' attribute", el)
        elif joint.type not in ("fixed", "revolute", "revolute2", "prismatic", "continuous", "ball",
                                "universal", "screw", "gearbox"):
            self.error(Code.ATTRIBUTE_INVALID, f"Joint [{joint.name}] has unknown type "
                       f"[{joint.type}]", el)
        for tag in ("parent", "child"):
            c = self.child(el, tag)
            if c is None:
                self.error(Code.ELEMENT_MISSING, f"Joint [{joint.name}] has no <{tag}>", el)
                continue
            value = (c.text or "").strip()
            if value == "__root__":
                self.error(Code.RESERVED_NAME, f"The supplied joint {tag} name [__root__] is not valid.", c)
            setattr(joint, f"{tag}_name", value)
            setattr(joint, f"{tag}_source", self.loc(c))
        joint.pose = self.pose(el)
        for tag in ("axis", "axis2"):
            a = self.child(el, tag)
            if a is None:
                continue
            axis = JointAxis(source=self.loc(a))
            xyz_el = self.child(a, "xyz")
            xyz = self.floats(xyz_el, 3, "axis xyz")
            if xyz is not None:
                n = math.sqrt(sum(v * v for v in xyz))
                if n == 0.0:
                    self.error(Code.ELEMENT_INVALID, f"Joint [{joint.name}] {tag} xyz is the zero "
                               "vector", xyz_el)
                else:
                    axis.xyz = (xyz[0] / n, xyz[1] / n, xyz[2] / n)
                axis.expressed_in = xyz_el.get("expressed_in", "") if xyz_el is not None else ""
            if self.vt < (1, 7) and self.axis_in_model_frame(a):
                axis.expressed_in = MODEL_FRAME
            limit = self.child(a, "limit")
            if limit is not None:
                # Unlimited is written as inf (libsdformat reads it; so do we).
                axis.lower = self.number(limit, "lower", finite=False)
                axis.upper = self.number(limit, "upper", finite=False)
                axis.effort = self.number(limit, "effort", finite=False)
                axis.velocity = self.number(limit, "velocity", finite=False)
            joint.axes.append(axis)
        return joint

    def axis_in_model_frame(self, axis: etree._Element) -> bool:
        """Whether a joint axis of a file older than SDFormat 1.7 is written in the model
        frame: always in 1.4 (libsdformat's 1.4 -> 1.5 conversion adds
        ``<use_parent_model_frame>true``), with ``<use_parent_model_frame>true`` in 1.5 and
        1.6 (its 1.6 -> 1.7 conversion makes that ``expressed_in="__model__"``); otherwise
        the joint frame, as ``expressed_in`` left empty means."""
        if self.vt < (1, 5):
            return True
        flag = self.child(axis, "use_parent_model_frame")
        return flag is not None and bool(parse_bool(flag.text or ""))

    def frame(self, el: etree._Element) -> Frame:
        frame = Frame(name=self.name_of(el, "frame"), source=self.loc(el), xml=el)
        frame.attached_to = self.reference(el.get("attached_to", ""), "//frame/@attached_to", el)
        frame.pose = self.pose(el)
        return frame

    def plugin(self, el: etree._Element) -> Plugin:
        return Plugin(name=el.get("name", ""), filename=el.get("filename", ""),
                      source=self.loc(el), xml=el)

    def include(self, el: etree._Element, scope: str) -> Include:
        inc = Include(source=self.loc(el), xml=el)
        merge = self.boolean(el.get("merge"), el, "//include/@merge")
        inc.merge = bool(merge)
        inc.uri = self.text(el, "uri")
        name_el = self.child(el, "name")
        if name_el is not None:
            inc.name = (name_el.text or "").strip()
            if inc.name and is_reserved(inc.name):
                self.error(Code.RESERVED_NAME, f"The supplied model name [{inc.name}] is reserved.",
                           name_el)
            elif SEP in inc.name and self.vt >= (1, 8):
                self.error(Code.RESERVED_NAME, "Detected delimiter '::' in element name in "
                           f"<include><name>{inc.name}</name>", name_el)
        if self.child(el, "pose") is not None:
            inc.pose = self.pose(el)
        pf = self.child(el, "placement_frame")
        if pf is not None:
            inc.placement_frame = (pf.text or "").strip()
            if inc.placement_frame == "__root__":
                self.error(Code.RESERVED_NAME, "'__root__' is reserved; it cannot be used as a value "
                           "of element [placement_frame]", pf)
            if inc.pose is None:
                self.error(Code.MODEL_PLACEMENT_FRAME_INVALID, "<pose> is required when specifying "
                           "the placement_frame element", pf)
        static = self.child(el, "static")
        if static is not None:
            inc.static = self.boolean((static.text or "").strip(), static, "//include/static")
        for c in self.children(el):
            if c.tag == "plugin":
                inc.entities.append(self.plugin(c))
            elif c.tag == "frame":
                inc.entities.append(self.frame(c))
            elif c.tag == "joint":
                inc.entities.append(self.joint(c))
        for node in inc.entities:
            node.parent = inc
        self.context.load_include(inc, self.base_dir, scope, self.diag, self.depth)
        if inc.extras.get("included_element") in ("light", "actor"):
            # A light or an actor is not part of the model tree: the include is kept as
            # written (libsdformat loads it into the world; it is no frame).  The loader
            # read and checked the file like any included file (parse_include).
            if inc.merge:
                self.error(Code.MERGE_INCLUDE_UNSUPPORTED, "Merge-include is only supported for "
                           "included models", el)
            return inc
        params = next((c for c in el if is_params_element(c)), None)
        if params is not None:
            self.apply_include_params(inc, params, SEP.join(p for p in (scope, inc.name) if p))
        return inc

    def apply_include_params(self, inc: Include, params: etree._Element, scope: str) -> None:
        """``//include/experimental:params``: the include gets its own model, read from a
        changed copy of the included file (the file and its other includes are not
        touched)."""
        template = inc.model
        if template is None:
            return  # the include failed; that is reported
        tree = template.extras.get("xml_tree")
        if tree is None or inc.format != "sdformat":
            self.warning(Code.WARNING, "<experimental:params> applies to included SDFormat "
                         f"models only; it is ignored for [{inc.uri}]", params)
            return
        changed = copy.deepcopy(tree)
        top = next(iter(self.children(changed.getroot(), "model")), None)
        if top is None:
            return
        found = Diagnostics()
        # The names the template's own includes give their models, by their place in the
        # file (the copy has the same places): a change may reach through them.
        names = {tree.getpath(node.xml): node.effective_name
                 for node, _ in _includes_below(template, "") if node.xml is not None}
        deferred: list[tuple[etree._Element, etree._Element]] = []
        apply_params(params, top, lambda code, message, where: found.error(
            code, message, self.loc(where), inc.element_path()),
            lambda el: names.get(changed.getpath(el)), deferred)
        reader = _Reader(inc.resolved_path, self.context, found, scope)
        reader.version, reader.vt = template.extras.get("sdf_version", self.version), \
            _version_tuple(template.extras.get("sdf_version", self.version))
        reader.check_xml(changed.getroot())
        model = reader.model(top, top_level=True, scope=scope)
        model.extras.update(template.extras)
        model.extras["xml_tree"] = changed
        model.extras["document_extras"] = {"xml": changed}
        model.extras["include_params"] = True  # a changed copy, not the file as written
        found.extend(check_node_values(model))
        inc.model = model
        inc.load_diagnostics = [*inc.load_diagnostics, *found]
        self.diag.extend(found)
        if deferred:
            self.apply_nested_params(model, scope, deferred)

    def apply_nested_params(self, model: Model, scope: str,
                            deferred: list[tuple[etree._Element, etree._Element]]) -> None:
        """Changes of an ``experimental:params`` that reach into the includes of the
        included file (``inner::link``, as libsdformat names them in the expanded model):
        each nested include gets them as its own params, applied to its own copy."""
        targets: dict[int, tuple[etree._Element, list[etree._Element]]] = {}
        for include_el, change in deferred:
            targets.setdefault(id(include_el), (include_el, []))[1].append(change)
        for node, node_scope in _includes_below(model, SEP.join(p for p in (scope, model.name)
                                                                  if p)):
            target = targets.get(id(node.xml))
            if target is None:
                continue
            params = etree.Element(f"{{{PARAMS_NAMESPACE}}}{PARAMS_TAG}")
            params.sourceline = target[1][0].sourceline
            params.extend(target[1])
            self.apply_include_params(node, params, SEP.join(p for p in (node_scope, node.name)
                                                             if p))

    def check_xml(self, sdf: etree._Element) -> None:
        """The checks that need the XML: every typed value against the spec, material
        scripts and sensor types (see the module docstring)."""
        for el, is_attribute, _, message in spec_value_problems(sdf, self.version):
            if is_attribute:
                self.error(Code.ATTRIBUTE_INVALID, message, el)
            else:
                self.bad_values.add(el)
                self.error(Code.ELEMENT_INVALID, message, el)
        for code, message, el in element_problems(sdf, self.vt):
            self.error(code, message, el)


def _includes_below(model: Model, scope: str) -> Iterator[tuple[Include, str]]:
    """The includes of ``model`` and of its nested models (not of included files), each
    with the scope name of the model holding it; ``scope`` is ``model``'s own."""
    stack: list[tuple[Model, str]] = [(model, scope)]
    while stack:
        current, current_scope = stack.pop()
        for node in current.entities:
            if isinstance(node, Include):
                yield node, current_scope
            elif isinstance(node, Model):
                stack.append((node, SEP.join(p for p in (current_scope, node.name) if p)))


def _load_xml(path: Path, text: bytes | None) -> tuple[etree._ElementTree, list[tuple[str, int]]]:
    """The parsed file and what the XML policy tolerated in it; raises ``OSError`` or
    :class:`~snapframe.core.xmlsafe.XmlError`."""
    file = str(path) if str(path) not in ("", ".") else ""
    data = text if text is not None else read_xml_file(path)
    warnings: list[tuple[str, int]] = []
    return parse_xml_bytes(data, file or None, warnings), warnings


def _read_tree(path: Path, text: bytes | None, diagnostics: Diagnostics,
               context: LoadContext | None = None):
    """The parsed file (through the XML policy of :mod:`snapframe.core.xmlsafe`), or None
    with ``FILE_READ`` -- libsdformat's code for a file it cannot read or parse.  A file
    the loader had this plugin read already (``include_references``) is not read again."""
    file = str(path) if str(path) not in ("", ".") else ""
    try:
        held = context.prefetched.pop(str(path), None) if context is not None and \
            text is None else None
        if isinstance(held, Exception):
            raise held
        tree, warnings = held if held is not None else _load_xml(path, text)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        diagnostics.error(Code.FILE_READ, f"Unable to read file:{file}: {reason}",
                          SourceLocation(file))
        return None
    except XmlError as exc:
        where = f"line {exc.line}, column {exc.column}" if exc.column else f"line {exc.line}"
        name = file or "<string>"
        diagnostics.error(Code.FILE_READ, f"Unable to read file:{name}: XML error at {where}: "
                          f"{exc}", SourceLocation(file, exc.line))
        return None
    for message, line in warnings:
        diagnostics.warning(Code.WARNING, message, SourceLocation(file, line))
    return tree


def include_references(nested: NestedInclude, context: LoadContext
                       ) -> list[tuple[Include, str]]:
    """The includes :func:`parse_include` loads from the file ``nested`` names, in the
    order it loads them, each with the scope name it passes to the loader (which loads
    them first: see :mod:`snapframe.core.loading`).  The parsed file is left in
    ``context.prefetched`` for :func:`parse_include`, so the file is read once."""
    path = Path(nested.resolved_file_name)
    try:
        loaded = _load_xml(path, None)
    except (OSError, XmlError) as exc:
        context.prefetched[str(path)] = exc  # parse_include reports it
        return []
    context.prefetched[str(path)] = loaded
    root = loaded[0].getroot()
    model = next((c for c in root if c.tag == "model"), None) if root.tag == "sdf" else None
    if model is None:
        return []  # no model (or not SDFormat): parse_include loads nothing more
    file = str(path)
    found: list[tuple[Include, str]] = []
    # As _Reader.model walks it: nested models depth-first, children in document order.
    stack = [(iter(model), SEP.join(p for p in (nested.absolute_model_name,
                                                model.get("name") or "") if p))]
    while stack:
        children, scope = stack[-1]
        el = next(children, None)
        if el is None:
            stack.pop()
        elif el.tag == "model":
            stack.append((iter(el), SEP.join(p for p in (scope, el.get("name") or "") if p)))
        elif el.tag == "include":
            found.append((_include_reference(el, file), scope))
    return found


def _include_reference(el: etree._Element, file: str) -> Include:
    """The fields of ``<include>`` the loader needs, read as :meth:`_Reader.include` reads
    them (without its checks, which run when the including file is read)."""
    inc = Include(source=SourceLocation(file, el.sourceline or 0), xml=el)
    inc.merge = bool(parse_bool(el.get("merge") or ""))
    for c in el:
        if c.tag == "uri" and not inc.uri:
            inc.uri = (c.text or "").strip()
        elif c.tag == "name" and not inc.name:
            inc.name = (c.text or "").strip()
        elif c.tag == "static" and inc.static is None:
            inc.static = parse_bool((c.text or "").strip())
        elif c.tag == "pose" and inc.pose is None:
            inc.pose = PoseSpec(written=True, relative_to=c.get("relative_to") or "")
            try:
                inc.pose.value = parse_pose_text(c.text or "", c.get("degrees"),
                                                 c.get("rotation_format"))
            except ValueError:
                pass
    return inc


def read_string(text: str | bytes, context: LoadContext | None = None, path: str = "") -> Document:
    """Read SDFormat text.  ``path`` names the file for diagnostics and relative includes."""
    context = context or LoadContext()
    data = text.encode() if isinstance(text, str) else text
    return _read(Path(path) if path else Path(), data, context)


def read(path: str | Path, context: LoadContext | None = None) -> Document:
    """Read an SDFormat file and run the frame-graph checks."""
    return _read(Path(path), None, context or LoadContext())


def _read(path: Path, data: bytes | None, context: LoadContext) -> Document:
    file = str(path) if str(path) not in ("", ".") else ""
    doc = Document(path=file, format="sdformat")
    tree = _read_tree(path, data, doc.diagnostics)
    if tree is None:
        return doc
    doc.extras["xml"] = tree
    # Whether the file starts with <?xml ...?> (the writer keeps that choice).
    # (libxml2 reports "standalone" as unset, None, exactly when there was no declaration.)
    doc.extras["xml_declaration"] = tree.docinfo.standalone is not None
    reader = _Reader(file, context, doc.diagnostics)
    reader.reports_progress = True
    sdf = tree.getroot()
    if not reader.read_header(sdf) or not reader.within_budget(sdf):
        return doc
    if reader.vt < (1, 8):
        for model in unflatten_world_models(sdf):
            reader.warning(Code.WARNING, f"SDFormat {reader.version} flattened names "
                           f"[{model.get('name')}::...] are read as the nested model "
                           f"[{model.get('name')}] (libsdformat's conversion to SDFormat 1.8)",
                           next((c for c in model if isinstance(c.tag, str)), None))
    reader.check_xml(sdf)
    worlds = reader.read_root(tree, doc)
    if doc.root is None:
        return doc
    from snapframe.core.frames import check_document  # local: frames imports the model
    doc.diagnostics.extend(check_values(doc))
    check_document(doc)
    others = []
    for world in worlds[1:]:
        other = Document(root=world, path=file, format="sdformat", version=doc.version)
        other.diagnostics.extend(check_values(other))
        check_document(other)
        doc.diagnostics.extend(other.diagnostics)
        others.append(other)
    if others:
        doc.extras["other_worlds"] = others
    return doc


def parse_include(nested: NestedInclude, context: LoadContext) -> Model | None:
    """Custom-model-parser entry for SDFormat files: the file's top-level model.

    As libsdformat: a file with no model, actor or light gives ``ELEMENT_MISSING``; more
    than one of them gives ``ELEMENT_INCORRECT_TYPE`` and the first is used (a model
    before an actor before a light).  An actor or a light is not a model: None (the
    reader keeps such includes without asking the loader).
    """
    path = Path(nested.resolved_file_name)
    tree = _read_tree(path, None, context.diagnostics, context)
    if tree is None:
        return None
    root = tree.getroot()
    reader = _Reader(str(path), context, context.diagnostics, nested.absolute_model_name)
    if not reader.read_header(root) or not reader.within_budget(root):
        return None
    version = reader.version
    found = {kind: list(reader.children(root, kind)) for kind in ("model", "actor", "light")}
    first = next((kind for kind in found if found[kind]), None)
    if first is None:
        holds = " (the file holds a <world>)" if next(reader.children(root, "world"), None) \
            is not None else ""
        reader.error(Code.ELEMENT_MISSING, "Failed to find top level <model> / <actor> / <light> "
                     f"for <include>{holds}", root)
        return None
    for kind in found:
        if kind != first and found[kind]:
            reader.error(Code.ELEMENT_INCORRECT_TYPE, f"Found other top level element <{kind}> in "
                         f"addition to <{first}> in include file.", found[kind][0])
    if len(found[first]) > 1:
        reader.error(Code.ELEMENT_INCORRECT_TYPE, f"Found more than one {first} for <include>.",
                     found[first][1])
    reader.check_xml(root)
    if first != "model":
        # Actors and lights are kept in the XML but are not part of the model tree; their
        # values were checked above, as libsdformat loads them into the world.
        context.held_element = first
        return None
    # The included file's model is a top-level model of its own file: its pose may not
    # refer to anything (there is nothing above it in that file).
    model = reader.model(found["model"][0], top_level=True, scope=nested.absolute_model_name)
    context.diagnostics.extend(check_node_values(model))
    model.extras["sdf_version"] = version
    model.extras["xml_tree"] = tree
    # What a document of this file needs when it is opened for editing on its own.
    model.extras["format_version"] = version
    model.extras["document_extras"] = {"xml": tree}
    # The graph checks of an included model run with the including document (once per
    # file and static setting), where //include/static and the include's name are known.
    return model
