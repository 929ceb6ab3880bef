"""The document model shared by every format, the frame graphs, the CLI and the editor."""

from .nodes import (MATE_TYPES, Collision, Frame, Geometry, Include, Inertial, Joint, JointAxis,
                    Link, Mate, MateConnector, Model, NestedInclude, Node, Plugin, PoseSpec, Visual,
                    World, walk)
from .document import Document

__all__ = ["MATE_TYPES", "Mate", "MateConnector", "Collision", "Document", "Frame", "Geometry", "Include", "Inertial", "Joint",
           "JointAxis", "Link", "Model", "NestedInclude", "Node", "Plugin", "PoseSpec", "Visual",
           "World", "walk"]
