"""URDF: reader (also a custom model parser for SDFormat ``//include``) and writer.

A URDF file becomes an *interface model* (SDFormat 1.8 composition proposal, section 1.5):
an ordinary :class:`snapframe.core.model.Model` whose links carry their poses in the model
frame, so its frames join the including file's frame graph.  Any document can be saved
as URDF: it is written flattened, as one tree of links (see :mod:`.writer`).
"""

from snapframe.core.formats import FormatDescriptor

FORMAT = FormatDescriptor(
    name="urdf",
    label="URDF",
    extensions=(".urdf",),
    implementation="snapframe.plugins.urdf.format",
    can_read=True,
    can_write=True,
    can_include=True,
)
