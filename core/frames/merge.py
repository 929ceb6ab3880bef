"""Merge-includes (``//include[@merge='true']``): the included model's children join the
including scope through a proxy frame ``_merged__<name>__model__``.

The proxy stands for the included model frame: it carries the include pose (corrected
for the placement frame) and is attached to the included model's canonical link.  Links
and nested models with an empty ``relative_to`` become relative to the proxy; frames with
an empty ``attached_to`` attach to it; ``__model__`` in joints and axes becomes the proxy.
"""

from __future__ import annotations

import copy

from ..model import Frame, Include, Joint, Link, Model, Node, Plugin, PoseSpec
from ..model.names import MODEL_FRAME, SEP
from ..pose import IDENTITY

__all__ = ["merged_entities", "proxy_name"]


def proxy_name(model_name: str) -> str:
    return f"_merged__{model_name}__model__"


def _clone(node: Node) -> Node:
    # Fresh ids and no shared mutable state with the cached template.
    twin = copy.copy(node)
    twin.__dict__.update({k: copy.copy(v) for k, v in node.__dict__.items()
                          if k not in ("xml", "parent", "id", "model")})
    from ..model.nodes import _next_id
    twin.id = _next_id()
    return twin


def merged_entities(inc: Include, model: Model, scope_frame: str) -> list[Node]:
    name = inc.effective_name
    proxy = proxy_name(name)
    pose = inc.pose if inc.pose is not None else model.pose
    canonical = model.canonical_link or next((l.name for l in model.links), "")
    out: list[Node] = []
    proxy_frame = Frame(name=proxy, attached_to=canonical, source=inc.source,
                        pose=PoseSpec(pose.value, pose.relative_to or scope_frame, True, pose.source))
    if inc.placement_frame or model.placement_frame:
        # Resolve the placement frame inside the merged model as if standalone, then put
        # the proxy where the written pose says the placement frame goes.
        from .scope import Scope
        standalone = Scope.for_model(model, name, inc.effective_static, {})
        X_MPf = standalone.pose_of(inc.placement_frame or model.placement_frame)
        proxy_frame.pose = PoseSpec(pose.value @ X_MPf.inverse(), pose.relative_to or scope_frame,
                                    True, pose.source)
    out.append(proxy_frame)

    def fix(ref: str) -> str:
        if ref == MODEL_FRAME:
            return proxy
        return ref

    for node in model.entities:
        if not isinstance(node, (Link, Model, Joint, Frame, Plugin, Include)):
            continue
        twin = _clone(node)
        if isinstance(twin, (Link, Model, Include)) and getattr(twin, "pose", None) is not None:
            if not twin.pose.relative_to:
                twin.pose = PoseSpec(twin.pose.value, proxy, twin.pose.written, twin.pose.source)
        if isinstance(twin, Frame):
            twin.attached_to = fix(twin.attached_to) or proxy
            twin.pose = PoseSpec(twin.pose.value, fix(twin.pose.relative_to), twin.pose.written,
                                 twin.pose.source)
        if isinstance(twin, Joint):
            twin.parent_name = fix(twin.parent_name)
            twin.child_name = fix(twin.child_name)
            twin.pose = PoseSpec(twin.pose.value, fix(twin.pose.relative_to), twin.pose.written,
                                 twin.pose.source)
        if isinstance(twin, Link):
            twin.pose = PoseSpec(twin.pose.value, fix(twin.pose.relative_to), twin.pose.written,
                                 twin.pose.source)
        twin.extras = {**twin.extras, "merged_from": inc.id}
        out.append(twin)
    for n in out:
        n.parent = inc
    return out
