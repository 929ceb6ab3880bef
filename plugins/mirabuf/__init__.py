"""mirabuf (``.mira``): the protobuf assembly format of Autodesk Synthesis.

For now this package holds only the schema: our own ``.proto`` files in ``proto/`` (package,
message names and field numbers as HiceS/mirabuf defines them) and the Python modules
protoc makes from them in :mod:`.generated` (``from snapframe.plugins.mirabuf.generated
import assembly_pb2``; the root message is ``assembly_pb2.Assembly``).  No file format is
registered yet.
"""
