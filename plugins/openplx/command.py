"""``snapframe snap``: the command the OpenPLX plugin adds to the command line.

Registered through the ``snapframe.commands`` entry point (see
:mod:`snapframe.core.commandline`).  Listing the command imports only this descriptor;
:mod:`.cli`, which does the work, is imported when the command runs.
"""

from snapframe.core.commandline import CommandDescriptor

__all__ = ["COMMAND"]

COMMAND = CommandDescriptor(
    name="snap",
    help="Assemble an OpenPLX system with SNAP and print every frame.",
    module="snapframe.plugins.openplx.cli",
)
