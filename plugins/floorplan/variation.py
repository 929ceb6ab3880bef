"""The Variation DSL (``.variation``): seeded variations of a FloorPlan DSL model.

A variation file imports one ``.fpm`` file and says which of its values to sample::

    import "hospital.fpm"
    hallway: { location.translation.x : normal(mean=0.0, std=5.0) }
    reception_hallway: { shape.width : uniform([2.0, 3.0, 4.0]) }
    reception.divider_left: { height : normal(mean=1.0, std=0.2) }
    doorway_width : discrete([(0.5, 0.9), (0.5, 1.2)])

Targets are a space, an opening, ``space.feature`` (or a feature's own name) with a block
of attribute paths, or a variable with one distribution.  The distributions mean what they
mean in the FloorPlan tools: ``uniform([a, b, …])`` picks one of the listed values with
equal chance, ``discrete([(p, v), …])`` picks ``v`` with probability ``p`` (the ``p`` sum to
1), ``normal(mean=…, std=…)`` draws a normal value rounded to two decimals.  A sampled
number replaces the number written in the slot and keeps that slot's unit (a slot not
written yet gets ``m`` for lengths, ``deg`` for angles; a slot holding a variable gets the
variable's unit).  Sizes (width, length, height, radius, wall thickness and height) must
be positive: a list that offers a non-positive size is an error, and a normal draw that is
not positive is drawn again.

Variation ``i`` of ``count`` uses seed ``seed + i`` (numpy's ``default_rng``), so the same
seed always gives the same texts and variation ``i`` of seed ``s`` is variation 0 of seed
``s + i``.  Each variation is the imported text with only the sampled numbers changed
(comments and layout kept), named ``<plan>_<seed>.fpm``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .dsl import load_fpm, read_text
from .dsl.syntax import ParsedText, parse_fpm_text, parse_variation_text
from .model import FloorPlan

__all__ = ["Variation", "VariationSample", "load_variation", "write_variations"]

_LENGTH, _ANGLE = "length", "angle"
_MAX_REDRAWS = 1000
_MAX_COUNT = 100_000


# ---- distributions ------------------------------------------------------------------
@dataclass
class Distribution:
    """One distribution as written: ``kind`` is uniform, normal or discrete."""

    kind: str
    values: list[float] = field(default_factory=list)        # uniform / discrete values
    probabilities: list[float] = field(default_factory=list)  # discrete
    mean: float = 0.0
    std: float = 0.0
    node: Any = None

    def draw(self, rng: np.random.Generator) -> float:
        if self.kind == "uniform":
            return self.values[int(rng.integers(len(self.values)))]
        if self.kind == "discrete":
            return self.values[int(rng.choice(len(self.values), p=self.probabilities))]
        return round(float(rng.normal(self.mean, self.std)), 2)

    def describe(self) -> str:
        if self.kind == "uniform":
            return f"uniform({[_fmt(v) for v in self.values]})".replace("'", "")
        if self.kind == "discrete":
            pairs = ", ".join(f"({_fmt(p)}, {_fmt(v)})" for p, v in zip(self.probabilities, self.values))
            return f"discrete([{pairs}])"
        return f"normal(mean={_fmt(self.mean)}, std={_fmt(self.std)})"


def _fmt(x: float) -> str:
    """Shortest text that reads back as ``x`` (never ``-0.0``)."""
    x = float(x)
    return repr(0.0 if x == 0.0 else x)


# ---- slots --------------------------------------------------------------------------
@dataclass
class _Slot:
    """A number of the ``.fpm`` text a variation sets."""

    label: str                   # "hallway location.translation.x"
    kind: str                    # length or angle
    positive: bool
    node: Any                    # the Quantity / VariableRef written there, or None
    unit: str | None             # unit to write the sampled number in
    insert: tuple[int, str] | None = None   # (offset, text with {value}) when absent


@dataclass
class _Rule:
    slot: _Slot
    distribution: Distribution
    where: Any                   # the variation node, to locate errors


@dataclass
class VariationSample:
    """One generated variation: its seed, file name, ``.fpm`` text and sampled values."""

    seed: int
    name: str
    text: str
    values: dict[str, float]     # slot label -> the number written (in the slot's unit)


class Variation:
    """A loaded ``.variation`` model, ready to sample (see :func:`load_variation`)."""

    def __init__(self, path: Path | None, plan_path: Path, plan_text: str, plan_name: str,
                 rules: list[_Rule], vparsed: ParsedText) -> None:
        self.path = path
        self.plan_path = plan_path
        self.plan_text = plan_text
        self.plan_name = plan_name
        self.rules = rules
        self._vparsed = vparsed

    def sample(self, seed: int) -> VariationSample:
        """The variation drawn with ``seed``."""
        rng = np.random.default_rng(seed)
        edits: list[tuple[int, int, str]] = []
        values: dict[str, float] = {}
        for rule in self.rules:
            value = self._draw(rule, rng)
            values[rule.slot.label] = value
            edits.append(_edit(rule.slot, value))
        text = self.plan_text
        # right to left, so earlier offsets stay valid; of two insertions at one offset
        # the later rule's goes in first, so that it ends up after the earlier one's
        order = sorted(range(len(edits)), key=lambda i: (edits[i][0], edits[i][1], i), reverse=True)
        for i in order:
            start, end, new = edits[i]
            text = text[:start] + new + text[end:]
        origin = self.path.name if self.path else "a variation model"
        header = f"// Variation of {self.plan_path.name} drawn from {origin} with seed {seed}\n"
        return VariationSample(seed, f"{self.plan_name}_{seed}.fpm", header + text, values)

    def _draw(self, rule: _Rule, rng: np.random.Generator) -> float:
        d = rule.distribution
        for _ in range(_MAX_REDRAWS):
            value = float(d.draw(rng))
            if not rule.slot.positive or value > 0:
                return value
        raise self._vparsed.error(f"{rule.slot.label} must be positive, but {d.describe()} "
                                  f"gave no positive value in {_MAX_REDRAWS} draws", rule.where)

    def samples(self, count: int, seed: int) -> list[VariationSample]:
        """``count`` variations with seeds ``seed``, ``seed + 1``, …"""
        if not 0 <= count <= _MAX_COUNT:
            raise ValueError(f"count must be between 0 and {_MAX_COUNT}, not {count}")
        return [self.sample(seed + i) for i in range(count)]

    def plans(self, count: int, seed: int, folder: Path | None = None) -> list[FloorPlan]:
        """The variations as floor plans (named after their files, in ``folder``)."""
        folder = folder or self.plan_path.parent
        return [load_fpm(folder / s.name, s.text) for s in self.samples(count, seed)]


def _edit(slot: _Slot, value: float) -> tuple[int, int, str]:
    number = _fmt(value)
    written = f"{number} {slot.unit}" if slot.unit else number
    if slot.insert is not None:
        offset, template = slot.insert
        return offset, offset, template.format(value=written)
    return slot.node._tx_position, slot.node._tx_position_end, written


# ---- resolving targets against the imported plan ------------------------------------
class _Resolver:
    def __init__(self, vparsed: ParsedText, fparsed: ParsedText) -> None:
        self.v = vparsed
        self.f = fparsed
        self.created: set[tuple[int, str]] = set()   # entries a previous rule inserts
        model = fparsed.model
        self.variables = {var.name: var for var in model.variables}
        self.spaces: dict[str, Any] = {}
        self.openings: dict[str, Any] = {}
        self.features: dict[str, Any] = {}          # "space.feature" and unique plain names
        plain: dict[str, list[Any]] = {}
        for item in model.items:
            cls = type(item).__name__
            if cls == "Space":
                self.spaces[item.name] = item
                for f in item.features:
                    self.features[f"{item.name}.{f.name}"] = f
                    plain.setdefault(f.name, []).append(f)
            elif cls == "Feature":
                plain.setdefault(item.name, []).append(item)
            else:
                self.openings[item.name] = item
        for name, found in plain.items():
            if len(found) == 1 and name not in self.spaces and name not in self.openings:
                self.features.setdefault(name, found[0])
        # variables standing for a size somewhere must stay positive when sampled
        from textx import get_children_of_type
        self.sizes = {ref.name for ref in get_children_of_type("VariableRef", model)
                      if not ref.negated and type(ref.parent).__name__ in _SIZE_HOLDERS}

    def element(self, block: Any) -> tuple[str, Any]:
        name = block.target
        for what, table in (("space", self.spaces), ("opening", self.openings),
                            ("feature", self.features)):
            if name in table:
                return what, table[name]
        if name in self.variables:
            raise self.v.error(f"'{name}' is a variable: write '{name} : <distribution>' "
                               "without braces", block)
        raise self.v.error(f"the floor plan has no space, opening or feature '{name}' "
                           "(features are named 'space.feature')", block)

    def variable_slot(self, block: Any) -> _Slot:
        var = self.variables.get(block.target)
        if var is None:
            if block.target in self.spaces or block.target in self.openings or block.target in self.features:
                raise self.v.error(f"'{block.target}' is an element: give its attributes in "
                                   "braces, like { shape.width : … }", block)
            raise self.v.error(f"the floor plan has no variable '{block.target}'", block)
        q = var.value
        kind = _LENGTH if q.unit in (None, "m") else _ANGLE
        return _Slot(block.target, kind, block.target in self.sizes, q, q.unit)

    def slot(self, what: str, element: Any, path: str, at: Any, label: str) -> _Slot:
        parts = path.split(".")
        if parts[0] == "shape" and len(parts) == 2:
            return self.shape_slot(what, element.shape, parts[1], at, label)
        if what == "feature" and path == "height":
            return self.value_slot(element.height, _LENGTH, True, label)
        if what == "space" and parts[0] in ("defaults", "walls"):
            key = parts[-1]
            if path in ("defaults.wall.thickness", "defaults.wall.height",
                        "walls.thickness", "walls.height"):
                return self.wall_slot(element, key, label)
        if parts[0] == "location" and len(parts) == 3 and parts[1] in ("translation", "rotation"):
            free = {"space": ("xy", "z"), "feature": ("xy", "z"), "opening": ("xz", "y")}[what]
            axes = free[0] if parts[1] == "translation" else free[1]
            if parts[2] not in axes:
                verb = "translated along" if parts[1] == "translation" else "rotated about"
                raise self.v.error(f"a {what} is only {verb} {' and '.join(axes)}: "
                                   f"{path} cannot vary", at)
            return self.location_slot(element, parts[1], parts[2], label)
        raise self.v.error(f"'{path}' is not a value of a {what} that can vary "
                           f"(try {_PATHS[what]})", at)

    def shape_slot(self, what: str, shape: Any, attr: str, at: Any, label: str) -> _Slot:
        cls = type(shape).__name__
        allowed = {"Rectangle": ("width", "height") if what == "opening" else ("width", "length"),
                   "Circle": ("radius",), "Polygon": ()}[cls]
        if attr not in allowed:
            has = f"has {' and '.join(allowed)}" if allowed else "has no single size to vary"
            raise self.v.error(f"the {what}'s shape is a {cls}, which {has}: shape.{attr} "
                               "cannot vary", at)
        return self.value_slot(getattr(shape, attr), _LENGTH, True, label)

    def value_slot(self, node: Any, kind: str, positive: bool, label: str) -> _Slot:
        if type(node).__name__ == "VariableRef":
            var = self.variables.get(node.name)
            unit = var.value.unit if var is not None else ("m" if kind == _LENGTH else "deg")
        else:
            unit = node.unit
        return _Slot(label, kind, positive, node, unit)

    def wall_slot(self, space: Any, key: str, label: str) -> _Slot:
        block = space.walls
        if block is not None:
            for entry in block.entries:
                if entry.key == key:
                    return self.value_slot(entry.value, _LENGTH, True, label)
            return _Slot(label, _LENGTH, True, None, "m",
                         (block._tx_position_end, f"\n            {key}: {{value}}"))
        # no `walls:` block yet: the first rule adds one right after the location
        end = space.location._tx_position_end
        first = (id(space), "walls") not in self.created
        self.created.add((id(space), "walls"))
        head = "\n        walls:" if first else ""
        return _Slot(label, _LENGTH, True, None, "m",
                     (end, head + f"\n            {key}: {{value}}"))

    def location_slot(self, element: Any, which: str, axis: str, label: str) -> _Slot:
        kind = _LENGTH if which == "translation" else _ANGLE
        entry_cls = "TranslationEntry" if which == "translation" else "RotationEntry"
        loc = element.location
        for entry in loc.entries:
            if type(entry).__name__ == entry_cls:
                for comp in entry.components:
                    if comp.axis == axis:
                        return self.value_slot(comp.value, kind, False, label)
                unit = "m" if kind == _LENGTH else "deg"
                return _Slot(label, kind, False, None, unit,
                             (entry._tx_position_end, f", {axis}: {{value}}"))
        unit = "m" if kind == _LENGTH else "deg"
        first = (id(loc), which) not in self.created
        self.created.add((id(loc), which))
        text = f"\n            {which}: {axis}: {{value}}" if first else f", {axis}: {{value}}"
        return _Slot(label, kind, False, None, unit, (loc._tx_position_end, text))


#: Where a value is a size (a rectangle side, a radius, a height, a wall value).
_SIZE_HOLDERS = ("Rectangle", "Circle", "Feature", "WallEntry")

_PATHS = {
    "space": "shape.width, shape.length, location.translation.x/y, location.rotation.z, "
             "defaults.wall.thickness, defaults.wall.height",
    "feature": "shape.width, shape.length, height, location.translation.x/y, location.rotation.z",
    "opening": "shape.width, shape.height, location.translation.x/z, location.rotation.y",
}


def _distribution(v: ParsedText, node: Any, slot: _Slot) -> Distribution:
    cls = type(node).__name__
    if cls == "Uniform":
        d = Distribution("uniform", [float(x) for x in node.values], node=node)
    elif cls == "Discrete":
        d = Distribution("discrete", [float(p.value) for p in node.pairs],
                         [float(p.probability) for p in node.pairs], node=node)
        if any(p < 0 for p in d.probabilities):
            raise v.error("a probability cannot be negative", node)
        total = math.fsum(d.probabilities)
        if abs(total - 1.0) > 1e-9:
            raise v.error(f"the probabilities of a discrete distribution sum to 1, these to "
                          f"{total:g}", node)
        d.probabilities = [p / total for p in d.probabilities]
    else:
        d = Distribution("normal", mean=float(node.mean), std=float(node.std), node=node)
        if d.std < 0:
            raise v.error("a normal distribution's std cannot be negative", node)
    numbers = d.values + d.probabilities + [d.mean, d.std]
    if not all(math.isfinite(x) for x in numbers):
        raise v.error("a number of this distribution is out of range", node)
    if slot.positive:
        offered = d.values if d.kind == "uniform" else \
            [x for x, p in zip(d.values, d.probabilities) if p > 0] if d.kind == "discrete" else []
        bad = [x for x in offered if x <= 0]
        if bad:
            raise v.error(f"{slot.label} must be positive, but {d.describe()} can give "
                          f"{_fmt(bad[0])}", node)
        if d.kind == "normal" and d.std == 0 and round(d.mean, 2) <= 0:
            raise v.error(f"{slot.label} must be positive, but {d.describe()} is not", node)
    return d


def load_variation(path: Path | str, text: str | None = None) -> Variation:
    """Read a ``.variation`` file and the floor plan it imports (raises
    :class:`FloorPlanError`, located in whichever file is at fault)."""
    path = Path(path)
    vparsed = parse_variation_text(read_text(path) if text is None else text, path)
    model = vparsed.model
    plan_path = (path.parent / model.path).resolve() if not Path(model.path).is_absolute() \
        else Path(model.path)
    if not plan_path.is_file():
        raise vparsed.error(f"the imported floor plan '{model.path}' does not exist "
                            f"(looked for {plan_path})", model)
    raw = read_text(plan_path).replace("\r\n", "\n").replace("\r", "\n")
    fparsed = parse_fpm_text(raw, plan_path)
    load_fpm(plan_path, raw)        # the plan itself must be valid before it is varied
    resolver = _Resolver(vparsed, fparsed)
    rules: list[_Rule] = []
    seen: dict[tuple, Any] = {}
    for block in model.blocks:
        if block.distribution is not None:
            slot = resolver.variable_slot(block)
            pairs = [((id(slot.node), "value"), slot, block.distribution, block)]
        else:
            what, element = resolver.element(block)
            pairs = []
            for attr in block.attributes:
                label = f"{block.target} {attr.path}"
                key = (id(element), attr.path.replace("walls.", "defaults.wall."))
                if key in seen:   # before resolving: an absent slot must be added once
                    line, _ = vparsed.linecol(seen[key])
                    raise vparsed.error(f"{label} is already varied on line {line}", attr)
                pairs.append((key, resolver.slot(what, element, attr.path, attr, label),
                              attr.distribution, attr))
        for key, slot, dnode, where in pairs:
            if key in seen:
                line, _ = vparsed.linecol(seen[key])
                raise vparsed.error(f"{slot.label} is already varied on line {line}", where)
            seen[key] = where
            rules.append(_Rule(slot, _distribution(vparsed, dnode, slot), where))
    return Variation(path, plan_path, raw, fparsed.model.name, rules, vparsed)


def write_variations(path: Path | str, out_dir: Path | str, count: int, seed: int) -> list[Path]:
    """Write ``count`` variations of ``path`` as ``.fpm`` files into ``out_dir``.

    Every text is checked by reading it as a floor plan before anything is written.
    Returns the written paths.
    """
    from snapframe.core.fileio import atomic_write
    variation = load_variation(path)
    out_dir = Path(out_dir)
    samples = variation.samples(count, seed)
    for s in samples:
        load_fpm(out_dir / s.name, s.text)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for s in samples:
        target = out_dir / s.name
        atomic_write(target, s.text)
        written.append(target)
    return written
