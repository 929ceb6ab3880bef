"""Frame graphs (attached_to and relative_to), pose resolution and the graph checks."""

from .graph import FrameGraph, FrameInfo, check_document
from .scope import Scope, Unresolved, Vertex

__all__ = ["FrameGraph", "FrameInfo", "Scope", "Unresolved", "Vertex", "check_document"]
