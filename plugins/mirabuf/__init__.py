"""mirabuf (``.mira``): the protobuf assembly format of Autodesk Synthesis.

The schema is ours: the ``.proto`` files in ``proto/`` (package, message names and field
numbers as HiceS/mirabuf defines them) and the Python modules protoc makes from them in
:mod:`.generated` (``from snapframe.plugins.mirabuf.generated import assembly_pb2``; the
root message is ``assembly_pb2.Assembly``).  :mod:`.reader` turns an assembly into the core
model; :mod:`.writer` saves a document as an assembly (editing the one it was read from,
or building a new one with :mod:`.assembly_builder`).  An SDFormat ``//include`` may name a ``.mira`` file
(:func:`.format.parse_include`: the file's model, placed by the include).
"""

from snapframe.core.formats import FormatDescriptor

FORMAT = FormatDescriptor(
    name="mirabuf",
    label="mirabuf (Autodesk Synthesis)",
    extensions=(".mira",),
    implementation="snapframe.plugins.mirabuf.format",
    can_read=True,
    can_write=True,
    can_include=True,
)
