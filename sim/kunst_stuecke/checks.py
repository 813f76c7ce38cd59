"""Kunst Stücke's test data (sim/checks.py): shapes files at the edges of what the shapes check allows
(rules.load_shapes), and the rule switches the differential test also plays."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from sim.checks import Checks, Edge

Cells = list[list[int]]


def canonical(cells: frozenset[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """A key shared by every rotation and mirror image of a polyomino."""
    forms = []
    for flip in (1, -1):
        for turn in range(4):
            form = [(r, flip * c) for r, c in cells]
            for _ in range(turn):
                form = [(c, -r) for r, c in form]
            low_r, low_c = min(r for r, _ in form), min(c for _, c in form)
            forms.append(tuple(sorted((r - low_r, c - low_c) for r, c in form)))
    return min(forms)


@lru_cache(maxsize=1)
def free_polyominoes() -> dict[int, list[Cells]]:
    """Every polyomino of 5 to 8 squares up to rotation and mirroring (12, 35, 108 and 369 of them), grown square
    by square; each as cells from its bounding box's top-left corner."""
    grown = {canonical(frozenset({(0, 0)}))}
    out = {}
    for size in range(2, 9):
        grown = {canonical(frozenset(shape) | {(r + dr, c + dc)}) for shape in grown for r, c in shape
                 for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)) if (r + dr, c + dc) not in shape}
        if size >= 5:
            out[size] = [[list(cell) for cell in shape] for shape in sorted(grown)]
    return out


def straight(n: int) -> Cells:
    return [[0, c] for c in range(n)]


def write_shapes(path: Path, shapes: list) -> str:
    """A shapes file; cells as JSON, which TOML reads alike (true, 1.7, "3")."""
    path.write_text("".join(f"[[shape]]\nname = \"s{i}\"\ncells = {json.dumps(cells)}\n\n"
                            for i, cells in enumerate(shapes)))
    return str(path)


def bent(n: int) -> list[Cells]:
    """The polyominoes of n squares but the straight one."""
    return [shape for shape in free_polyominoes()[n] if shape != straight(n)]


def edge_shapes() -> dict[str, list[Cells]]:
    """Straight pieces of 5 to 8 squares, all twelve of 8 squares, all twelve pentominoes (the only twelve of 5)."""
    return {
        "straight 6, 7 and 8": [straight(8), straight(7), straight(6), *bent(7)[:9]],
        "twelve of 8 squares": [straight(8), *bent(8)[-11:]],
        "the twelve pentominoes": free_polyominoes()[5],
    }


def edges(folder: Path) -> list[Edge]:
    shapes = [write_shapes(folder / f"edge{i}.toml", edge) for i, edge in enumerate(edge_shapes().values())]
    return [(None, {}), *((3, {"shapes": path, "board": 8, "chips": 6, "mirror": True}) for path in shapes),
            *((3, {"shapes": path, "contact": "slide", "slide_again": True}) for path in shapes)]


CHECKS = Checks(
    lineups=("random", "planner", "planner@6", "slider", "spoiler"),
    edges=edges,
    differential=((2, 16, 1, {"chips": 5}), (3, 16, 2, {"chips": 5}), (4, 12, 3, {"chips": 5}),
                  (5, 12, 4, {"chips": 5}),
                  (3, 12, 5, {"chips": 5, "mirror": True, "slide_again": True, "contact_from_placement": False}),
                  (3, 12, 6, {"chips": 5, "contact": "slide"}), (4, 12, 8, {"rotate": False, "slide_placed": False})),
)
