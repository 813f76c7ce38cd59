"""Witkacy: collections of overlapping double-sided cards, five once-per-game actions. The trace, its replay and
its narration; the rest of the game contract (the batched engine, RULES) is still to come.

The trace (`atelier play witkacy --json`) holds, besides the header every game has: `cards` (id, front, back,
each [top row, bottom row] of fragments "A.UL"), `deck_before` (the shuffled deck before the set-up, top first,
with the side facing up), `dealt` (every card drawn at set-up, in order: seat, card, side up, and whether it
went to the collection, the hand or back into the deck), `deck` and `display` after the set-up, the starting
`collections` and `hands`, `turns` (seat, search, action, placements and the display after the turn) and
`final` (each collection bottom to top, copies per painting A-E, scores, winners).
"""

from __future__ import annotations

import numpy as np

from sim.errors import IllegalMove
from sim.witkacy import collection as col
from sim.witkacy import reference
from sim.witkacy.collection import Placed
from sim.witkacy.rules import ACTIONS, PAINTINGS, SIDES, Deal, Params, fragment_name

FATES = ("collection", "hand", "returned")


def _side_names(grid: np.ndarray) -> list[list[str]]:
    return [[fragment_name(int(f)) for f in row] for row in grid]


def _placed(placed: Placed) -> dict:
    return {"card": placed.card, "side": SIDES[placed.side], "row": placed.row, "col": placed.col}


def trace(params: Params, one: Deal, decider: reference.Decider) -> dict:
    """The one game of a deal, played by the reference, as auditable data (see the module docstring)."""
    cards = params.cards
    game = reference.play(params, one, decider)
    start = reference.new_game(params, one)
    shown = {c: int(one.up[0, c]) for c in range(len(cards))}
    before = [[int(c), SIDES[shown[int(c)] if int(c) not in one.display[0] else 1 - shown[int(c)]]]
              for c in one.shuffled[0]]
    points, paintings = col.scores(game.collections, cards)
    return {
        "cards": [{"id": c, "front": _side_names(cards[c, 0]), "back": _side_names(cards[c, 1])}
                  for c in range(len(cards))],
        "deck_before": before,
        "dealt": [[int(s), int(c), SIDES[shown[int(c)]], FATES[int(f)]] for s, c, f in one.dealt[0] if s >= 0],
        "deck": [[c, SIDES[shown[c]]] for c in start.deck],
        "display": [[c, SIDES[shown[c]]] for c in start.display],
        "collections": [[_placed(p) for p in stack] for stack in start.collections],
        "hands": [list(hand) for hand in start.hands],
        "turns": game.turns,
        "final": {"collections": [[_placed(p) for p in stack] for stack in game.collections],
                  "copies": [col.copies_by_painting(stack, cards) for stack in game.collections],
                  "scores": points, "winners": col.winners(points, paintings)},
    }


class Replayer:
    """A reference decider that plays the choices a trace records, turn by turn."""

    def __init__(self, turns: list[dict]):
        self.turns = turns

    def now(self, game) -> dict:
        if game.turn >= len(self.turns):
            raise IllegalMove("replay", f"turn {game.turn}: the rules ask for a turn the trace does not record")
        return self.turns[game.turn]

    @staticmethod
    def _source(drew: dict) -> int:
        return reference.DECK if drew["from"] == "deck" else drew["slot"]

    def search(self, game, options):
        return self._source(self.now(game)["search"])

    def action(self, game, options):
        action = self.now(game)["action"]
        return reference.NO_ACTION if action is None else 1 + ACTIONS.index(action["kind"])

    def stash_draw(self, game, options):
        return self._source(self.now(game)["action"]["drew"])

    def stash_discard(self, game, options):
        return self.now(game)["action"]["discarded"]

    def solvent(self, game, options):
        action = self.now(game)["action"]
        stack = game.collections[action["owner"]]
        return action["owner"], next(i for i, p in enumerate(stack) if p.card == action["card"])

    def gift(self, game, options):
        a = self.now(game)["action"]
        return a["slot"], a["owner"], Placed(a["card"], SIDES.index(a["side"]), a["row"], a["col"]), a["z"]

    def expand(self, game, options):
        placements = self.now(game)["placements"]
        done = sum(p.card in {q["card"] for q in placements} for p in game.collections[game.seat])
        made = placements[min(done, len(placements) - 1)] if placements else None
        if made is None:
            raise IllegalMove("replay", f"turn {game.turn}: the trace records no placement")
        return Placed(made["card"], SIDES.index(made["side"]), made["row"], made["col"]), made["z"]

    def rush_draw(self, game, options):
        return self._source(self.now(game)["action"]["drew"])


def replay(record: dict) -> list[int]:
    """A trace's choices replayed through the reference from its set-up; the scores it gives."""
    params = Params(**record["params"])
    game = _from_setup(params, record)
    replayer = Replayer(record["turns"])
    while not reference.over(game):
        reference.play_turn(game, replayer)
    return col.scores(game.collections, params.cards)[0]


def _from_setup(params: Params, record: dict) -> reference.Game:
    """The game as the trace's set-up leaves it."""
    up = {card: SIDES.index(side) for card, side in record["deck"]}
    up.update({card: SIDES.index(side) for card, side in record["display"]})
    collections = [[Placed(p["card"], SIDES.index(p["side"]), p["row"], p["col"]) for p in stack]
                   for stack in record["collections"]]
    return reference.Game(params, params.cards, [card for card, _ in record["deck"]], up,
                          [card for card, _ in record["display"]], collections, [list(h) for h in record["hands"]],
                          tokens=[list(ACTIONS) for _ in range(params.players)])


def narrate(record: dict) -> str:
    """Tell a traced game turn by turn."""
    names = record["strategies"]
    lines = [f"Witkacy, {record['players']} players, seed {record['seed']}"]
    for seat, stack in enumerate(record["collections"]):
        lines.append(f"  seat {seat} ({names[seat]}) starts with card {stack[0]['card']} ({stack[0]['side']}) and "
                     f"holds card {record['hands'][seat][0]}")
    for number, turn in enumerate(record["turns"]):
        lines.append(f"Turn {number + 1}: seat {turn['seat']} ({names[turn['seat']]})")
        if turn["search"]:
            where = "the deck" if turn["search"]["from"] == "deck" else f"display slot {turn['search']['slot']}"
            lines.append(f"  takes card {turn['search']['card']} from {where}")
        if turn["action"]:
            lines.append(f"  uses {turn['action']['kind']}")
        for placed in turn["placements"]:
            lines.append(f"  adds card {placed['card']} ({placed['side']}) at row {placed['row']}, col "
                         f"{placed['col']}, stack position {placed['z']}")
    final = record["final"]
    for seat, copies in enumerate(final["copies"]):
        done = ", ".join(f"{PAINTINGS[p]} x{n}" for p, n in enumerate(copies) if n) or "none"
        lines.append(f"Seat {seat} completed: {done}")
    lines.append("Scores: " + ", ".join(f"seat {s} {v}" for s, v in enumerate(final["scores"])))
    lines.append("Winner(s): " + ", ".join(f"seat {s}" for s in final["winners"]))
    return "\n".join(lines)
