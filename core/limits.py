"""Resource budgets every reader and command shares.

A small file can describe an enormous assembly: eight 500-byte files that include each
other eight times expand to two million model instances, and an OpenPLX system can fan
out the same way.  Work that expands a description is counted against these budgets and
stops with a clear error (``Code.RESOURCE_LIMIT``) instead of exhausting memory or time.

The element budget follows from what one element instance costs the command that
expands it most.  Measured on the worst case under the budget (seven 800-byte files,
each including the next seven times; a link with a visual and a collision per model),
per instance: ``convert --flatten`` 170 us, ``convert`` to URDF 120 us (and 3.5 kB of
memory), ``frames`` 45 us (22 us with ``--json``), ``inertia`` 16 us, ``graph`` 14 us; a
real world of 1000 six-link robots (27,000 instances) costs the same per instance.  At
50,000 instances every listing command ends in about two seconds; the writers take what
they take for the real world of 27,000 instances.  The scoped names of the instances
have a budget of their own: they grow with the nesting, not with the instance count.
"""

from __future__ import annotations

from typing import Iterable

__all__ = ["MAX_ELEMENT_INSTANCES", "MAX_NAME_CHARACTERS", "MAX_MODEL_NESTING",
           "MAX_XML_DEPTH", "LIBSDFORMAT_MAX_XML_DEPTH", "budget_message", "names_message",
           "nesting_message", "listed", "ResourceLimitError"]

#: Elements (models, links, joints, frames, visuals, collisions, mate connectors, bodies)
#: one document may expand to, counting every instance of every include or OpenPLX model.
MAX_ELEMENT_INSTANCES = 50_000

#: Characters of the scoped names (``robot_7::arm::link``) of those instances together:
#: what a listing of them holds besides their numbers.  The world of 1000 robots has
#: 0.65 million; a chain of models nested 990 deep (two per level), 4.8 million: the
#: names of a model nested that deep take kilobytes each.
MAX_NAME_CHARACTERS = 8_000_000

#: Levels of models one document may nest, nested models and includes together (a real
#: assembly nests a handful).  One file nests at most what its XML depth allows; a chain
#: of includes (at most ``MAX_INCLUDE_DEPTH`` files, see ``snapframe.core.loading``) could
#: nest thousands, and the scoped names of such a document grow with the square of its
#: depth.  libsdformat 12 has no such limit but slows down with depth (450 levels: 15 s;
#: 990: 21 s and 2.3 GB).  The loader refuses an include that would nest deeper
#: (``RESOURCE_LIMIT``); the writers refuse a document built deeper in memory.
MAX_MODEL_NESTING = 1000

#: Deepest XML element nesting Snapframe reads (libxml2's limit without XML_PARSE_HUGE;
#: the root element is depth 1).
MAX_XML_DEPTH = 256
#: libsdformat 12 (TinyXML2 9, XML_ELEMENT_DEPTH_EXCEEDED) refuses a file in which an
#: element with content is nested this deep (or any element one deeper): Snapframe reads
#: such files with a warning, and its SDFormat writer warns when it writes one.
LIBSDFORMAT_MAX_XML_DEPTH = 99


def budget_message(what: str, count: int | str, limit: int | None = None) -> str:
    """The sentence every command prints when the element budget is exceeded."""
    limit = MAX_ELEMENT_INSTANCES if limit is None else limit
    return (f"{what} expands to {count} element instances, more than the {limit:,} Snapframe "
            "handles (snapframe.core.limits.MAX_ELEMENT_INSTANCES); not expanded")


def names_message(what: str, chars: int | str, limit: int | None = None) -> str:
    """The sentence every command prints when the name budget is exceeded."""
    limit = MAX_NAME_CHARACTERS if limit is None else limit
    return (f"{what} expands to element instances whose scoped names take {chars} "
            f"characters, more than the {limit:,} Snapframe handles "
            "(snapframe.core.limits.MAX_NAME_CHARACTERS); not expanded")


def listed(items: Iterable[object], most: int = 10, separator: str = ", ") -> str:
    """``items`` as text for a diagnostic, the first ``most`` of them and "and N more":
    a message names what it is about, but never grows with the input."""
    shown: list[str] = []
    more = 0
    for item in items:
        if len(shown) < most:
            shown.append(str(item))
        else:
            more += 1
    return separator.join(shown) + (f" and {more:,} more" if more else "")


def nesting_message(what: str, levels: int, limit: int | None = None) -> str:
    """The sentence every command prints when a document would nest models too deep."""
    limit = MAX_MODEL_NESTING if limit is None else limit
    return (f"{what} nests models {levels:,} levels deep, more than the {limit:,} Snapframe "
            "handles (snapframe.core.limits.MAX_MODEL_NESTING); not expanded")


class ResourceLimitError(RuntimeError):
    """Work that would expand past a budget was asked for anyway.

    Loading never raises it (it reports ``Code.RESOURCE_LIMIT`` diagnostics instead); an
    API that would expand a refused document (list every frame instance, say) raises it so
    the command line can print the message and exit 1 rather than exhaust memory.
    """
