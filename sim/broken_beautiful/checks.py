"""Broken and Beautiful's test data (sim/checks.py): components files at the edges of what validation allows,
the rule switches the differential test also plays."""

from __future__ import annotations

from pathlib import Path

from sim.broken_beautiful import rules as bb
from sim.checks import Checks, Edge


def components_toml(supply: int, patterns: int, types: dict[str, tuple[int, int]], scoring: dict) -> str:
    """A Broken and Beautiful components file: types maps a type to (count, value)."""
    lines = [f"supply = {supply}", f"patterns = {patterns}", "[types]"]
    lines += [f"{name} = {{ count = {count}, value = {value} }}" for name, (count, value) in types.items()]
    lines += ["[scoring]", *(f"{key} = {list(value) if isinstance(value, tuple | list) else value}"
                             for key, value in scoring.items())]
    return "\n".join(lines) + "\n"


def _scoring(every: int, vase: list[int], saucer: int) -> dict:
    names = [f for f in bb.Scoring._fields if f not in bb.LISTS]
    return {"cup": [every, every], "saucer": [saucer, saucer], "vase": vase, **dict.fromkeys(names, every)}


def largest_components() -> dict:
    """The most cards, the largest values, patterns, supply and scoring numbers validation allows."""
    counts = dict(zip(bb.TYPES, (20, 20, 13, 13, 13, 12, 13, 8, 8, 7)))
    assert sum(counts.values()) == bb.MAX_CARDS
    return {"supply": bb.MAX_SUPPLY, "patterns": bb.MAX_CARDS,
            "types": {name: (count, bb.MAX_VALUE) for name, count in counts.items()},
            "scoring": _scoring(bb.MAX_POINTS, [bb.MAX_POINTS] * 20, bb.MAX_POINTS)}


def smallest_components() -> dict:
    """One card, no supply, every scoring number at its least: not even one round can be dealt."""
    return {"supply": 0, "patterns": 1, "types": {"cup": (1, 0)}, "scoring": _scoring(0, [0], 1)}


def edges(folder: Path) -> list[Edge]:
    big, one = folder / "largest.toml", folder / "one_card.toml"
    big.write_text(components_toml(**largest_components()))
    one.write_text(components_toml(**smallest_components()))
    return [(None, {"components": str(big), "new_player_ingots": 2500}),
            (None, {"components": str(big), "supply_shortfall": "unlimited", "tie_items_count_broken": False}),
            (None, {"components": str(one)})]


CHECKS = Checks(
    lineups=("random", "greedy", "collector", "banker", "hater", "hater@3", "greedy-no-teapot", "random-no-cup"),
    edges=edges,
    differential=((2, 40, 1, {}), (3, 40, 2, {}), (4, 40, 3, {}),
                  (3, 40, 7, {"supply_shortfall": "unlimited", "new_player_ingots": 1})),
)
