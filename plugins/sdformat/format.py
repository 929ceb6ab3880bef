"""The implementation module the ``sdformat`` descriptor names (loaded on first use).

Besides ``read`` and ``write``: ``read_string`` reads text as if it were a given file
(the editor reads a recovery copy back as the file it belongs to) and ``to_string`` gives
the text ``write`` would save (the editor takes an autosave copy without writing it on
the UI thread).
"""

from .reader import include_references, parse_include, read, read_string
from .writer import to_string, write

__all__ = ["read", "write", "parse_include", "include_references", "read_string", "to_string"]
