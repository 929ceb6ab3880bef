"""SDFormat (1.4 to 1.11) -> :mod:`snapframe.core.model`.

The reader builds nodes and reports what is wrong *with single elements* (syntax, names,
values).  Checks that need the frame graphs (references, cycles, canonical links) are in
:mod:`snapframe.core.frames`, which runs after reading.  Each node keeps its lxml element
(``node.xml``) so the writer can keep what the model does not understand.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Iterable

from lxml import etree

from snapframe.core.diagnostics import Code, Diagnostics, SourceLocation
from snapframe.core.loading import LoadContext
from snapframe.core.model import (Collision, Document, Frame, Geometry, Include, Inertial, Joint,
                                  JointAxis, Link, Model, NestedInclude, Node, Plugin, PoseSpec,
                                  Visual, World)
from snapframe.core.model.names import SEP, is_reserved
from snapframe.core.pose import IDENTITY, Pose
from snapframe.core.xmlsafe import XmlError, parse_xml_bytes

__all__ = ["read", "read_string", "parse_include", "parse_pose_text", "SHAPES"]

SHAPES = ("box", "cylinder", "sphere", "capsule", "ellipsoid", "cone", "plane", "mesh",
          "heightmap", "polyline", "image", "empty")
_NUMBER_PARAMS = {"box": {"size": 3}, "cylinder": {"radius": 1, "length": 1},
                  "sphere": {"radius": 1}, "capsule": {"radius": 1, "length": 1},
                  "ellipsoid": {"radii": 3}, "cone": {"radius": 1, "length": 1},
                  "plane": {"normal": 3, "size": 2}}


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

    def floats(self, el: etree._Element | None, count: int | None, what: str) -> list[float] | None:
        if el is None:
            return None
        parts = (el.text or "").split()
        try:
            values = [float(p) for p in parts]
        except ValueError:
            self.error(Code.ELEMENT_INVALID, f"Unable to read <{el.tag}> value '{(el.text or '').strip()}'"
                       f" as numbers ({what})", el)
            return None
        if count is not None and len(values) != count:
            self.error(Code.ELEMENT_INVALID, f"<{el.tag}> ({what}) needs {count} numbers, "
                       f"found {len(values)}: '{(el.text or '').strip()}'", el)
            return None
        if not all(math.isfinite(v) for v in values):
            self.error(Code.ELEMENT_INVALID, f"<{el.tag}> ({what}) has a non-finite value", el)
            return None
        return values

    def number(self, el: etree._Element, tag: str, default: float | None = None) -> float | None:
        c = self.child(el, tag)
        if c is None:
            return default
        values = self.floats(c, 1, tag)
        return values[0] if values else default

    def boolean(self, raw: str | None, el: etree._Element, what: str) -> bool | None:
        if raw is None:
            return None
        value = raw.strip().lower()
        if value in ("1", "true"):
            return True
        if value in ("0", "false"):
            return False
        self.error(Code.ELEMENT_INVALID, f"Invalid boolean '{raw}' for {what}", el)
        return None

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
            self.error(Code.ELEMENT_INVALID, f"Invalid <pose>: {exc}", el)
        return spec

    # -- document -----------------------------------------------------------------
    def read_root(self, tree: etree._ElementTree, doc: Document) -> None:
        root = tree.getroot()
        if root.tag != "sdf":
            self.error(Code.ELEMENT_INVALID, f"Root element is <{root.tag}>, expected <sdf>", root)
            return
        version = root.get("version")
        if not version:
            self.error(Code.ATTRIBUTE_MISSING, "Required attribute 'version' of <sdf> is missing.", root)
        else:
            self.version, self.vt = version.strip(), _version_tuple(version.strip())
            if self.vt > (1, 12):
                self.warning(Code.VERSION_DEPRECATED, f"SDFormat version {version} is newer than the "
                             "newest this program knows (1.12); reading it as 1.12", root)
        doc.version = self.version
        worlds = list(self.children(root, "world"))
        models = list(self.children(root, "model"))
        if worlds:
            doc.root = self.world(worlds[0])
            for extra in worlds[1:]:
                self.warning(Code.ELEMENT_INVALID, f"Only the first <world> is edited; world "
                             f"[{extra.get('name')}] is kept as written", extra)
            if models:
                self.error(Code.ELEMENT_INCORRECT_TYPE,
                           "A file must not have both <world> and <model> at the top level", models[0])
        elif models:
            if len(models) > 1:
                self.error(Code.ELEMENT_INCORRECT_TYPE, "A model file must have exactly one top-level "
                           f"<model>; found {len(models)}", models[1])
            model = self.model(models[0], top_level=True)
            doc.root = model
        else:
            if not any(c.tag in ("actor", "light") for c in self.children(root)):
                self.error(Code.ELEMENT_MISSING, "The file has no <world> and no <model>", root)

    def world(self, el: etree._Element) -> World:
        world = World(name=self.name_of(el, "world"), source=self.loc(el), xml=el)
        for c in self.children(el):
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
        for c in self.children(el):
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
        inertial.mass = self.number(el, "mass")
        tensor = self.child(el, "inertia")
        if tensor is not None:
            inertial.written_inertia = True
            for key, default in (("ixx", 1.0), ("iyy", 1.0), ("izz", 1.0),
                                 ("ixy", 0.0), ("ixz", 0.0), ("iyz", 0.0)):
                setattr(inertial, key, self.number(tensor, key, default))
        inertial.density = self.number(el, "density")
        inertial.auto_inertia_params = self.child(el, "auto_inertia_params")
        return inertial

    def geometry(self, parent: etree._Element) -> Geometry:
        el = self.child(parent, "geometry")
        if el is None:
            self.error(Code.ELEMENT_MISSING, f"<{parent.tag}> [{parent.get('name')}] has no <geometry>",
                       parent)
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
            limit = self.child(a, "limit")
            if limit is not None:
                axis.lower = self.number(limit, "lower")
                axis.upper = self.number(limit, "upper")
                axis.effort = self.number(limit, "effort")
                axis.velocity = self.number(limit, "velocity")
            joint.axes.append(axis)
        return joint

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
        self.context.load_include(inc, self.base_dir, scope, self.diag)
        if inc.model is not None and inc.name and SEP in inc.name:
            pass  # reported above
        return inc


def parse_pose_text(text: str, degrees: str | None = None, rotation_format: str | None = None) -> Pose:
    """Parse ``<pose>`` text: ``x y z roll pitch yaw`` (or ``x y z qx qy qz qw`` with
    ``rotation_format="quat_xyzw"``); ``degrees="true"`` reads the angles in degrees."""
    parts = text.split()
    if not parts:
        return IDENTITY
    try:
        values = [float(p) for p in parts]
    except ValueError:
        raise ValueError(f"'{text.strip()}' is not a list of numbers") from None
    if not all(math.isfinite(v) for v in values):
        raise ValueError(f"'{text.strip()}' has a non-finite value")
    fmt = (rotation_format or "euler_rpy").strip()
    in_degrees = (degrees or "false").strip().lower() in ("true", "1")
    if fmt == "quat_xyzw":
        if len(values) != 7:
            raise ValueError(f"quat_xyzw needs 7 numbers, found {len(values)}")
        if in_degrees:
            raise ValueError("degrees='true' cannot be used with rotation_format='quat_xyzw'")
        x, y, z, qx, qy, qz, qw = values
        if qx == qy == qz == qw == 0.0:
            raise ValueError("the quaternion is zero")
        return Pose.from_xyz_quat((x, y, z), (qw, qx, qy, qz))
    if fmt != "euler_rpy":
        raise ValueError(f"unknown rotation_format '{fmt}'")
    if len(values) != 6:
        raise ValueError(f"expected 6 numbers (x y z roll pitch yaw), found {len(values)}")
    x, y, z, r, p, w = values
    if in_degrees:
        r, p, w = math.radians(r), math.radians(p), math.radians(w)
    return Pose.from_xyz_rpy(x, y, z, r, p, w)


def _read_tree(path: Path, text: bytes | None, diagnostics: Diagnostics):
    file = str(path) if path else ""
    try:
        data = text if text is not None else path.read_bytes()
    except OSError as exc:
        diagnostics.error(Code.FILE_READ, f"Unable to read file: [{path}]: {exc.strerror or exc}",
                          SourceLocation(file))
        return None
    try:
        warnings: list[tuple[str, int]] = []
        tree = parse_xml_bytes(data, file or None, warnings)
        for message, line in warnings:
            diagnostics.warning(Code.XML_ERROR, f"{message}; the element is kept as written "
                                "(declare the prefix with xmlns to be portable)",
                                SourceLocation(file, line))
        return tree
    except XmlError as exc:
        diagnostics.error(Code.XML_ERROR, f"XML syntax error: {exc} (column {exc.column})",
                          SourceLocation(file, exc.line))
        return None


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
    reader.read_root(tree, doc)
    if doc.root is not None:
        from snapframe.core.frames import check_document
        check_document(doc)
    return doc


def parse_include(nested: NestedInclude, context: LoadContext) -> Model | None:
    """Custom-model-parser entry for SDFormat files: the file's single top-level model."""
    path = Path(nested.resolved_file_name)
    tree = _read_tree(path, None, context.diagnostics)
    if tree is None:
        return None
    root = tree.getroot()
    reader = _Reader(str(path), context, context.diagnostics, nested.absolute_model_name)
    if root.tag != "sdf":
        reader.error(Code.ELEMENT_INVALID, f"Root element is <{root.tag}>, expected <sdf>", root)
        return None
    version = (root.get("version") or "1.11").strip()
    reader.version, reader.vt = version, _version_tuple(version)
    models = list(reader.children(root, "model"))
    others = [c for c in reader.children(root) if c.tag in ("actor", "light")]
    if any(True for _ in reader.children(root, "world")):
        reader.error(Code.ELEMENT_INCORRECT_TYPE, "//include can only include models, but "
                     f"[{path.name}] holds a <world>", root)
        return None
    if len(models) + len(others) == 0:
        reader.error(Code.ELEMENT_MISSING, "Failed to find top level <model> / <actor> / <light> "
                     "for <include>", root)
        return None
    if len(models) + len(others) > 1:
        reader.error(Code.ELEMENT_INCORRECT_TYPE, "Found more than one of <model> / <actor> / "
                     "<light> for <include>", root)
        return None
    if not models:
        return None  # actors and lights are kept in the XML but are not part of the model tree
    # The included file's model is a top-level model of its own file: its pose may not
    # refer to anything (there is nothing above it in that file).
    model = reader.model(models[0], top_level=True, scope=nested.absolute_model_name)
    model.extras["sdf_version"] = version
    model.extras["xml_tree"] = tree
    # The graph checks of an included model run with the including document (once per
    # file and static setting), where //include/static and the include's name are known.
    return model
