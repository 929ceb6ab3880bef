"""The built-in ``snapframe`` subcommands, one module each.

Every module follows the contract of :mod:`snapframe.core.commandline` (``add_arguments``
and ``run``), exactly as a plugin's command does, and is imported only when its command
runs.
"""

from snapframe.core.commandline import CommandDescriptor

__all__ = ["BUILTIN_COMMANDS"]

_HERE = __name__

#: In the order ``snapframe --help`` lists them (plugins' commands follow).
BUILTIN_COMMANDS: tuple[CommandDescriptor, ...] = (
    CommandDescriptor("check", "Validate a file: print 'file:line: error CODE: message' lines.",
                      f"{_HERE}.check"),
    CommandDescriptor("frames", "Resolve every model, link, joint and frame (world files: in "
                                "the world frame; model files: in the top model's frame).",
                      f"{_HERE}.frames"),
    CommandDescriptor("graph", "Print the attached_to and relative_to graphs.", f"{_HERE}.graph"),
    CommandDescriptor("inertia", "Mass properties of every link (computed where "
                                 "//inertial/@auto is set).", f"{_HERE}.inertia"),
    CommandDescriptor("convert", "Convert between formats (by file extension).",
                      f"{_HERE}.convert"),
    CommandDescriptor("render", "Draw a model or world offscreen to a PNG (documentation, "
                                "tests, CI).", f"{_HERE}.render"),
)
