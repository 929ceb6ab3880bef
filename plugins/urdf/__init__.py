"""URDF reader, used as a custom model parser for SDFormat ``//include``.

A URDF file becomes an *interface model* (SDFormat 1.8 composition proposal, section 1.5):
an ordinary :class:`snapframe.core.model.Model` whose links carry their poses in the model
frame, so its frames join the including file's frame graph.  URDF files can also be opened
directly; there is no URDF writer.
"""

from snapframe.core.formats import FormatDescriptor

FORMAT = FormatDescriptor(
    name="urdf",
    label="URDF",
    extensions=(".urdf",),
    implementation="snapframe.plugins.urdf.format",
    can_read=True,
    can_write=False,
    can_include=True,
)
