"""Kunst Stücke: polyomino pieces on a shared canvas, slides paid with chips, hidden target tiles. The rules side
of the game contract (sim/game.py).

The trace (`atelier play kunst_stuecke --json`) holds, besides the header every game has: `board` [N, N],
`chips`, `spaces` (the five bonuses), `pieces` (id, color, shape and the unrotated cells of all 60, the smallest
row and col 0), `supplies` (each seat's piece ids as dealt), `stacks` (the five stacks as shuffled, top first,
each tile [color, size], size 6 meaning 6+), `turns` (each turn's seat and its actions in the order they
happened) and `final` (every block as [color, pieces], single pieces included; scores; winners). Actions:
- {act: "slide", piece, cells}: the piece's squares [row, col] after the slide. Under the default contact rule
  (Params.contact "turn") a slide may leave a slid piece apart from its colour until a later action of the same
  turn brings it back (a slide, or the placement); by the turn's end every slid piece that started the turn
  against its colour is against it again;
- {act: "place", piece, rotation, mirror, cells}: rotation k is numpy.rot90 of the unrotated cell mask by k
  (counter-clockwise, row 0 at the top), after numpy.fliplr when mirror;
- {act: "discard", piece};
- {act: "target", stack, tile: [color, size], space}: space indexes `spaces`.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from sim.errors import IllegalMove
from sim.game import GameRules, standings_lines
from sim.kunst_stuecke import engine, reference
from sim.kunst_stuecke.rules import (
    COLORS,
    DISCARD,
    NO_LOOK,
    PIECES,
    PLAYER_COUNTS,
    SPACE_STRIDE,
    STOP,
    Deal,
    Params,
    colour_of,
    deal,
    facts,
    load_shapes,
    shape_of,
    tile_of,
    tile_parts,
)


def record(params: Params, one: Deal, game: reference.Game) -> dict:
    """The reference's finished game of the deal `one` as the trace's data (see the module docstring)."""
    scores = reference.scores(game)
    return {
        "board": [params.board, params.board], "chips": params.chips, "spaces": list(params.spaces),
        "pieces": [{"id": p, "color": colour_of(p), "shape": shape_of(p),
                    "cells": load_shapes(params.shapes)[shape_of(p)][1].tolist()} for p in range(PIECES)],
        "supplies": one.supply[0].tolist(),
        "stacks": [[list(tile_parts(int(t))) for t in stack] for stack in one.stacks[0]],
        "turns": game.turns,
        "final": {"blocks": [list(block) for block in reference.blocks(game)], "scores": scores,
                  "winners": [s for s, v in enumerate(scores) if v == max(scores)]},
    }


class Replayer:
    """A reference decider that plays the actions a trace records, turn by turn, in the order they happened."""

    def __init__(self, turns: list[dict]):
        self.turns, self.turn, self.actions = turns, -1, []

    def _peek(self, game, act: str) -> dict | None:
        """The turn's next action if it is of this kind."""
        if game.turn != self.turn:
            self.check_used_up()
            self.turn = game.turn
            self.actions = list(self.turns[game.turn]["actions"]) if game.turn < len(self.turns) else []
        return self.actions[0] if self.actions and self.actions[0]["act"] == act else None

    def _take(self, game, act: str) -> dict:
        if self._peek(game, act) is None:
            raise IllegalMove("replay", f"turn {game.turn}: the rules ask for a {act} the trace does not record")
        return self.actions.pop(0)

    def check_used_up(self) -> None:
        if self.actions:
            raise IllegalMove("replay", f"turn {self.turn}: actions the rules never asked for: {self.actions[:2]}")

    def __call__(self, game: reference.Game, phase: str, options: list[int]) -> int:
        """The answer from the trace, by the question's kind (look, keep, slide, slide_to, play, place)."""
        return getattr(self, reference.kind_of(phase))(game)

    def look(self, game):
        action = self._peek(game, "target")
        return NO_LOOK if action is None else action["stack"]

    def keep(self, game):
        action = self._take(game, "target")
        return SPACE_STRIDE * game.stacks[game.looking].index(tile_of(*action["tile"])) + action["space"]

    def slide(self, game):
        action = self._peek(game, "slide")
        return STOP if action is None else action["piece"]

    def slide_to(self, game):
        return _anchor(self._take(game, "slide")["cells"], game.params.board)

    def play(self, game):
        if self._peek(game, "discard") is not None:
            return DISCARD + self.actions.pop(0)["piece"]
        action = self._peek(game, "place")
        if action is None:
            raise IllegalMove("replay", f"turn {game.turn}: the trace records neither a placement nor a discard")
        return action["piece"]

    def place(self, game):
        action = self._take(game, "place")
        return (game.params.squares * (4 * action["mirror"] + action["rotation"])
                + _anchor(action["cells"], game.params.board))


def _corner(cells: list[list[int]]) -> tuple[int, int]:
    """The top-left corner of the cells' bounding box, as (row, col)."""
    return min(r for r, _ in cells), min(c for _, c in cells)


def _anchor(cells: list[list[int]], side: int) -> int:
    """The top-left corner of the cells' bounding box, as an anchor."""
    row, col = _corner(cells)
    return row * side + col


def replay(record: dict) -> list[int]:
    """A trace's actions replayed through the reference; the scores it gives."""
    params = Params(**{**record["params"], "spaces": tuple(record["params"]["spaces"])})
    stacks = np.array([[[tile_of(*t) for t in stack] for stack in record["stacks"]]], np.int8)
    one = Deal(np.array([record["supplies"]], np.int8), stacks)
    replayer = Replayer(record["turns"])
    game = reference.play(params, one, replayer)
    replayer.check_used_up()
    return reference.scores(game)


def narrate(record: dict) -> str:
    """Tell a traced game turn by turn."""
    names = record["strategies"]
    lines = [f"Kunst Stücke, {record['players']} players, seed {record['seed']}, {record['chips']} chips each, "
             f"score spaces {record['spaces']}"]
    for seat, pieces in enumerate(record["supplies"]):
        lines.append(f"  seat {seat} ({names[seat]}) holds {len(pieces)} pieces")
    for number, turn in enumerate(record["turns"]):
        lines.append(f"Turn {number + 1}: seat {turn['seat']} ({names[turn['seat']]})")
        for action in turn["actions"]:
            piece = action.get("piece")
            what = f"{COLORS[colour_of(piece)]} shape {shape_of(piece)}" if piece is not None else ""
            if action["act"] == "place":
                row, col = _corner(action["cells"])
                lines.append(f"  places {what} (piece {piece}), turned {action['rotation']}"
                             f"{' and mirrored' if action['mirror'] else ''}, at row {row}, col {col}")
            elif action["act"] == "discard":
                lines.append(f"  discards {what} (piece {piece})")
            elif action["act"] == "slide":
                row, col = _corner(action["cells"])
                lines.append(f"  slides {what} (piece {piece}) to row {row}, col {col}")
            else:
                c, n = action["tile"]
                size = "6+" if n == 6 else str(n)
                lines.append(f"  looks through stack {'ABCDE'[action['stack']]} and keeps {COLORS[c]} {size} on "
                             f"the {record['spaces'][action['space']]} space")
    blocks = sorted((COLORS[c], n) for c, n in record["final"]["blocks"] if n > 1)
    lines.append("Blocks of two or more: " + (", ".join(f"{c} {n}" for c, n in blocks) or "none"))
    lines += standings_lines(record["final"]["scores"], record["final"]["winners"])
    return "\n".join(lines)


def unseen(params: Params, dealt: Deal, seat: int, rng: np.random.Generator) -> Deal:
    """The target tiles shuffled anew into the five stacks: every supply lies open."""
    tiles = dealt.stacks.reshape(len(dealt.stacks), -1)
    return dealt._replace(stacks=rng.permuted(tiles, axis=1).reshape(dealt.stacks.shape))


RULES = GameRules(
    name="kunst_stuecke", title="Kunst Stücke", player_counts=PLAYER_COUNTS, lowest_wins=False, params=Params,
    summary=("lay polyomino pieces on a shared canvas, slide them with chips, and meet hidden target tiles: blocks "
             "of one colour and an exact number of pieces; most points wins"),
    columns={"targets_taken": pl.Int8, "targets_correct": pl.Int8, "target_points": pl.Int32,
             "chips_left": pl.Int16, "discards": pl.Int8, "first_look": pl.Int16, "aimed_sizes": pl.List(pl.Int8),
             "space_sizes": pl.List(pl.Int8), "space_correct": pl.List(pl.Boolean)},
    chunk=512,  # about 2 s of play on one core
    engine=engine, reference=reference, deal=deal, record=record, replay=replay, narrate=narrate, facts=facts,
    unseen=unseen, reveals=("tiles", "seen", "looking_at"), hidden=("stacks", "spaces"),
)
