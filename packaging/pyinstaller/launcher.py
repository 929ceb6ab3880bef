"""The frozen application's entry script: ``snapframe`` as the console script runs it."""

import sys

from snapframe.editor.cli import main

if __name__ == "__main__":
    sys.exit(main())
