"""The document model shared by every format, the frame graphs, the CLI and the editor."""

from .nodes import (Collision, Frame, Geometry, Include, Inertial, Joint, JointAxis, Link,
                    Model, NestedInclude, Node, Plugin, PoseSpec, Visual, World, walk)
from .document import Document

__all__ = ["Collision", "Document", "Frame", "Geometry", "Include", "Inertial", "Joint",
           "JointAxis", "Link", "Model", "NestedInclude", "Node", "Plugin", "PoseSpec", "Visual",
           "World", "walk"]
