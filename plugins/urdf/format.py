"""The implementation module the ``urdf`` descriptor names (loaded on first use).

Besides ``read`` and ``write``: ``read_string`` reads text as if it were a given file, and
``to_string`` gives the text ``write`` would save (see the SDFormat plugin's).
"""

from .reader import parse_include, read, read_string
from .writer import to_string, write

__all__ = ["read", "write", "parse_include", "read_string", "to_string"]
