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
from ..model.names import MODEL_FRAME
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


def merged_entities(inc: Include, model: Model, scope_frame: str,
                    cache: dict | None = None) -> list[Node]:
    """The merged model's children as members of the including scope (see the module
    docstring); ``cache`` is the frame graph's scope cache, which keeps each merged
    file's standalone scope so nested merges stay linear."""
    name = inc.effective_name
    proxy = proxy_name(name)
    pose = inc.pose if inc.pose is not None else model.pose
    from .scope import Scope, Unresolved
    # The merged model resolved as if standalone: its canonical link (possibly nested,
    # "A::a") carries the proxy, and its placement frame says where the proxy goes.
    key = ("merge-standalone", model.id, inc.effective_static)
    standalone = cache.get(key) if cache is not None else None
    if standalone is None:
        standalone = Scope.for_model(model, name, inc.effective_static,
                                     cache if cache is not None else {})
        if cache is not None:
            cache[key] = standalone
    try:
        canonical = standalone.body_of(MODEL_FRAME)
    except Unresolved:
        canonical = ""
    if canonical == MODEL_FRAME:
        canonical = ""  # a static merged model: its frames hang on the including scope
    out: list[Node] = []
    proxy_frame = Frame(name=proxy, attached_to=canonical, source=inc.source,
                        pose=PoseSpec(pose.value, pose.relative_to or scope_frame, True, pose.source))
    placement = inc.placement_frame or model.placement_frame
    if placement:
        try:
            X_MPf = standalone.pose_of(placement)
        except Unresolved:
            X_MPf = None  # reported by the checks (POSE_RELATIVE_TO_INVALID)
        if X_MPf is not None:
            proxy_frame.pose = PoseSpec(pose.value @ X_MPf.inverse(),
                                        pose.relative_to or scope_frame, True, pose.source)
    out.append(proxy_frame)

    def fix(ref: str) -> str:
        if ref == MODEL_FRAME:
            return proxy
        return ref

    for node in model.entities:
        if not isinstance(node, (Link, Model, Joint, Frame, Plugin, Include)):
            continue
        twin = _clone(node)
        if isinstance(twin, Include) and twin.pose is None:
            # An include without <pose> sits where its model's own pose says, in the merged
            # model's frame, which is now the proxy.
            value = twin.model.pose.value if twin.model is not None else IDENTITY
            twin.pose = PoseSpec(value, proxy, True, twin.source)
        if isinstance(twin, (Link, Model, Include)) and twin.pose is not None:
            if twin.pose.relative_to in ("", MODEL_FRAME):
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
        twin.extras = {**twin.extras, "merged_from": inc.id}
        out.append(twin)
    for n in out:
        n.parent = inc
    return out
