"""``snapframe [FILE...] --script SCRIPT.py``: a Python file run inside the started editor.

The script runs on the UI thread once the window is up (documents named on the command
line are open, a recovery offer is on screen), with ``ed`` (the
:class:`~snapframe.editor.api.Editor`) and ``window`` (its main window) in its namespace,
as the in-app console has them.  An error is printed with its traceback on stderr and the
editor goes on; ``ed.window.close()`` (or ``sys.exit()``) closes the window as the user
does.
"""

from __future__ import annotations

import sys
import traceback
from pathlib import Path

__all__ = ["run_script"]


def run_script(editor, path: str | Path) -> bool:
    """Run the Python file ``path`` with ``ed`` = ``editor``; False if it raised."""
    path = Path(path)
    try:
        source = path.read_text(encoding="utf-8")
        code = compile(source, str(path), "exec")
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError) as exc:
        print(f"snapframe: the script {path} cannot be run: {exc}", file=sys.stderr)
        return False
    namespace = {"__name__": "__main__", "__file__": str(path), "ed": editor,
                 "window": editor.window}
    try:
        exec(code, namespace)
    except SystemExit:
        editor.window.close()      # as the user closes it (unsaved changes are asked about)
    except Exception:
        kind, value, tb = sys.exc_info()
        # the script's own frames, not this runner's
        print("".join(traceback.format_exception(kind, value, tb.tb_next if tb else None)),
              file=sys.stderr, end="")
        return False
    return True
