"""Evaluate every attribute of a file's models, so that each mistake is found where it
is written (``snapframe check``), without unbounded work.

Two things keep a hostile file from making this exponential:

* an instance whose type is already being walked further up (a model that contains
  itself: ``T: a is T``) is reported and not entered;
* an instance is walked only once per kind: the same type, traits and modifiers (the
  same statements) produce the same problems at the same places, and problems are
  reported once per place anyway.  A model with 8 members of a type with 8 members ...
  costs one walk per type instead of 8^depth.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from snapframe.core.diagnostics import Severity

from .evaluator import UNSET, ModelType, Obj
from .physics import decl_of, recursion_message

__all__ = ["Forcer", "MAX_FORCE_DEPTH"]

#: Contained instances followed below a top-level model (a backstop; the file's own
#: nesting is far shallower).
MAX_FORCE_DEPTH = 16


class Forcer:
    """Walks instances of one file; ``warn_unset`` reports attributes declared in the file
    and left without a value (not for a library: there they are parameters)."""


    def __init__(self, user_files: set[str], warn_unset: bool,
                 checked: Iterable[ModelType] = ()) -> None:
        self.user_files = user_files
        self.warn_unset = warn_unset
        #: Models checked on their own (the file's top-level models).
        self.checked = set(checked)
        self._walked: set[Any] = set()

    def force(self, root: Obj, own_only: bool = False) -> None:
        """Evaluate every attribute of ``root`` and, depth first, of the instances it
        contains that the file declares or modifies (bundle internals only as far as a
        statement of the file reaches).  Attributes are evaluated in the order a recursive
        walk would (problems are listed in that order), with an explicit stack.

        ``own_only`` (a top-level model that is not the one assembled, i.e. a template):
        only the attributes its own statements declare or change; what it inherits is
        checked in the model that writes it.  A chain of n models that each add one
        attribute then costs n evaluations, not n^2/2."""
        if not self._enter(root):
            return
        names = self._own_names(root) if own_only else root.names()
        stack: list[tuple[Obj, Iterator[str], int, tuple]] = [
            (root, iter(names), 0, (root.type,))]
        while stack:
            obj, names, depth, types = stack[-1]
            name = next(names, None)
            if name is None:
                stack.pop()
                continue
            value = obj.try_get(name)
            decl = obj.specs[name].decl
            if (self.warn_unset and value is UNSET and decl is not None
                    and decl.file in self.user_files):
                obj.ev.report(f"'{obj.child_path(name)}' is declared without a value", decl,
                              severity=Severity.WARNING)
            if not isinstance(value, Obj) or value.path != obj.child_path(name):
                continue  # a value or a reference: its own place is walked elsewhere
            if depth >= MAX_FORCE_DEPTH or not self._touched(obj, name):
                continue
            if value.type in types:
                obj.ev.report(recursion_message(value), decl_of(obj, name))
            elif self._enter(value):
                stack.append((value, iter(value.names()), depth + 1, types + (value.type,)))

    def _own_names(self, root: Obj) -> list[str]:
        """The attributes the statements of ``root``'s model set, and of its bases up to
        the first that is checked on its own (a model of the file being checked) or is not
        the user's (a bundle's)."""
        ev = root.ev
        parts: list[tuple[str, ...]] = []
        key: tuple | None = (root.type, ())
        while key is not None:
            parent, changed = ev.template_delta(*key)
            if parent is None:
                return root.names()  # built from nothing: its names are all its own
            parts.append(changed)
            base = parent[0]
            if base in self.checked or base.decl.file not in self.user_files:
                break
            key = parent
        names: dict[str, None] = {}
        for changed in reversed(parts):
            names.update(dict.fromkeys(changed))
        return list(names)

    def _enter(self, obj: Obj) -> bool:
        """First visit of an instance of this kind?"""
        key = self._key(obj)
        if key in self._walked:
            return False
        self._walked.add(key)
        return True

    def _touched(self, obj: Obj, name: str) -> bool:
        spec = obj.specs[name]
        if spec.decl is not None and spec.decl.file in self.user_files:
            return True
        return any(m.stmt is not None and m.stmt.file in self.user_files for m in spec.mods)

    @staticmethod
    def _key(obj: Obj) -> Any:
        """What decides the problems walking ``obj`` can find: its type, traits and the
        statements of its modifiers, and whether problems of missing values count."""
        mods = tuple(id(m.stmt) for spec in obj.specs.values() if spec.owner is obj
                     for m in spec.mods)
        return (obj.ev.lenient, obj.type, *obj.extra_traits, mods)
