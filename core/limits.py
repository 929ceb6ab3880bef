"""Resource budgets every reader and command shares.

A small file can describe an enormous assembly: eight 500-byte files that include each
other eight times expand to two million model instances, and an OpenPLX system can fan
out the same way.  Work that expands a description is counted against these budgets and
stops with a clear error (``Code.RESOURCE_LIMIT``) instead of exhausting memory.  The
numbers leave a wide margin over real assemblies: a world of 1000 six-link robots has
27,000 elements.
"""

from __future__ import annotations

__all__ = ["MAX_ELEMENT_INSTANCES", "budget_message", "ResourceLimitError"]

#: Elements (models, links, joints, frames, visuals, collisions, mate connectors, bodies)
#: one document may expand to, counting every instance of every include or OpenPLX model.
MAX_ELEMENT_INSTANCES = 500_000


def budget_message(what: str, count: int | str, limit: int = MAX_ELEMENT_INSTANCES) -> str:
    """The sentence every command prints when a budget is exceeded."""
    return (f"{what} expands to {count} element instances, more than the {limit:,} Snapframe "
            "handles (snapframe.core.limits.MAX_ELEMENT_INSTANCES); not expanded")


class ResourceLimitError(RuntimeError):
    """Work that would expand past a budget was asked for anyway.

    Loading never raises it (it reports ``Code.RESOURCE_LIMIT`` diagnostics instead); an
    API that would expand a refused document (list every frame instance, say) raises it so
    the command line can print the message and exit 1 rather than exhaust memory.
    """
