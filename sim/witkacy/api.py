"""Witkacy: collections of overlapping double-sided cards, five once-per-game actions. The rules side of the game
contract (sim/game.py).

The trace (`atelier play witkacy --json`) holds, besides the header every game has: `cards` (id, front, back,
each [top row, bottom row] of fragments "A.UL"), `deck_before` (the shuffled deck before the set-up, top first,
with the side facing up), `dealt` (every card drawn at set-up, in order: seat, card, the side up as it was drawn,
and whether it went to the collection, the hand or back into the deck), `deck` and `display` after the set-up,
the starting `collections` and `hands`, `turns` (seat, search, action, placements and the display after the turn)
and `final` (each collection bottom to top, copies per painting A-E, scores, winners). A Gift from the deck's top
(gift_from = 'display_and_deck') records "from": "deck" instead of a display "slot"; a Rush that keeps its second
card (rush_both = 'optional') has one placement.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from sim.errors import IllegalMove
from sim.game import GameRules, standings_lines
from sim.witkacy import collection as col
from sim.witkacy import engine, reference
from sim.witkacy.collection import Placed
from sim.witkacy.rules import (
    ACTIONS,
    DECK,
    KEEP,
    MAX_STACK,
    NO_ACTION,
    PAINTINGS,
    PHASES,
    PLAYER_COUNTS,
    RETURNS,
    SIDES,
    Deal,
    Params,
    deal,
    facts,
    fragment_name,
    spot_code,
)

FATES = ("collection", "hand", "returned")


def _side_names(grid: np.ndarray) -> list[list[str]]:
    return [[fragment_name(int(f)) for f in row] for row in grid]


def _placed(placed: Placed) -> dict:
    return {"card": placed.card, "side": SIDES[placed.side], "row": placed.row, "col": placed.col}


def record(params: Params, one: Deal, game: reference.Game) -> dict:
    """The reference's finished game and its set-up as the trace's data (see the module docstring)."""
    cards = params.cards
    start = reference.new_game(params, one)
    shown = {c: int(one.up[0, c]) for c in range(len(cards))}
    drawn = {c: side ^ (c in one.display[0]) for c, side in shown.items()}  # up in the deck, before the display
    # cards were turned over (the only cards turned at set-up)
    before = [[int(c), SIDES[drawn[int(c)]]] for c in one.shuffled[0]]
    points, paintings = col.scores(game.collections, cards)
    return {
        "cards": [{"id": c, "front": _side_names(cards[c, 0]), "back": _side_names(cards[c, 1])}
                  for c in range(len(cards))],
        "deck_before": before,
        "dealt": [[int(s), int(c), SIDES[drawn[int(c)]], FATES[int(f)]] for s, c, f in one.dealt[0] if s >= 0],
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
    """A reference decider that answers each question with the choice a trace records."""

    def __init__(self, turns: list[dict]):
        self.turns = turns

    def __call__(self, game: reference.Game, phase: str, options: list[int]) -> int:
        if game.turn >= len(self.turns):
            raise IllegalMove("replay", f"turn {game.turn}: the rules ask for a turn the trace does not record")
        turn = self.turns[game.turn]
        try:
            return self.answer(game, phase, turn, turn["action"] or {})
        except (KeyError, IndexError, TypeError, ValueError) as err:
            raise IllegalMove("replay", f"turn {game.turn}: the trace does not answer {phase} ({err!r})") from None

    @staticmethod
    def answer(game: reference.Game, phase: str, turn: dict, action: dict) -> int:
        kind = PHASES[phase]
        if kind in ("search", "stash_draw", "rush_draw"):
            drew = turn["search"] if kind == "search" else action["drew"]
            return DECK if drew["from"] == "deck" else drew["slot"]
        if kind == "action":
            return NO_ACTION if not action else 1 + ACTIONS.index(action["kind"])
        if kind == "stash_discard":
            return game.hands[game.seat].index(action["discarded"])
        if kind == "solvent":
            stack = game.collections[action["owner"]]
            return MAX_STACK * action["owner"] + [p.card for p in stack].index(action["card"])
        if kind == "gift":
            source = DECK if action.get("from") == "deck" else action["slot"]
            return 6 * action["owner"] + 2 * source + SIDES.index(action["side"])
        if phase == "expand_again" and len(turn["placements"]) < 2:
            return KEEP
        placed = action if phase.startswith("gift") else turn["placements"][phase.endswith("_again")]
        if kind == "expand":
            return 2 * game.hands[game.seat].index(placed["card"]) + SIDES.index(placed["side"])
        if kind == "where":
            return spot_code(*col.corner(game.collections[game.pending.owner]), placed["row"], placed["col"])
        return placed["z"]


def replay(record: dict) -> list[int]:
    """A trace's choices replayed through the reference from its set-up; the scores it gives."""
    params = Params(**record["params"])
    game = reference.play(params, deal_of(params, record), Replayer(record["turns"]))
    if game.turn != len(record["turns"]):
        raise IllegalMove("replay", f"the game ends after {game.turn} turns; the trace records {len(record['turns'])}")
    return reference.scores(game)


def deal_of(params: Params, record: dict) -> Deal:
    """The deal of a trace (a batch of one), read back from its set-up: the deck, display, starting collections
    and hands it records, each card's side up as they show it (else as drawn, in `deck_before`)."""
    cards, rows = len(params.cards), 2 * params.players + RETURNS
    up = np.zeros((1, cards), np.int8)
    display = [card for card, _ in record["display"]]
    for card, side in record["deck_before"]:  # up as drawn; a display card was turned over
        up[0, card] = SIDES.index(side) ^ (card in display)
    starts = [[stack[0]["card"], stack[0]["side"]] for stack in record["collections"]]
    for card, side in record["deck"] + record["display"] + starts:
        up[0, card] = SIDES.index(side)
    deck = np.full((1, cards), -1, np.int8)
    deck[0, : len(record["deck"])] = [card for card, _ in record["deck"]]
    dealt = np.full((1, rows, 3), -1, np.int8)
    dealt[0, : len(record["dealt"])] = [[seat, card, FATES.index(fate)] for seat, card, _, fate in record["dealt"]]
    return Deal(deck, up, np.array([[card for card, _ in starts]], np.int8),
                np.array([[hand[0] for hand in record["hands"]]], np.int8), np.array([display], np.int8),
                np.array([[card for card, _ in record["deck_before"]]], np.int8), dealt)


def _drawn(drew: dict | None) -> str:
    if drew is None:
        return "nothing: no card is left"
    return f"card {drew['card']} from " + ("the deck" if drew["from"] == "deck" else f"display slot {drew['slot']}")


def _action(action: dict) -> str:
    kind = action["kind"]
    if kind == "stash":
        return f"Stash: takes {_drawn(action['drew'])} and discards card {action['discarded']}"
    if kind == "solvent":
        return f"Solvent: removes card {action['card']} from seat {action['owner']}'s collection"
    if kind == "gift":
        source = "the deck" if action.get("from") == "deck" else f"display slot {action['slot']}"
        return (f"Gift: gives card {action['card']} ({action['side']}) from {source} to seat {action['owner']}, at "
                f"row {action['row']}, col {action['col']}, stack position {action['z']}")
    if kind == "rush":
        return "Rush: adds the hand cards below, then draws"
    return "Correction: this card may lie entirely on or under the collection"


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
            lines.append(f"  takes {_drawn(turn['search'])}")
        if turn["action"]:
            lines.append(f"  uses {_action(turn['action'])}")
        for placed in turn["placements"]:
            lines.append(f"  adds card {placed['card']} ({placed['side']}) at row {placed['row']}, col "
                         f"{placed['col']}, stack position {placed['z']}")
        if turn["action"] and turn["action"]["kind"] == "rush":  # a Rush draws after its two placements
            lines.append(f"  ends the Rush taking {_drawn(turn['action']['drew'])}")
    final = record["final"]
    for seat, copies in enumerate(final["copies"]):
        done = ", ".join(f"{PAINTINGS[p]} x{n}" for p, n in enumerate(copies) if n) or "none"
        lines.append(f"Seat {seat} completed: {done}")
    lines += standings_lines(final["scores"], final["winners"])
    return "\n".join(lines)


def unseen(params: Params, dealt: Deal, seat: int, rng: np.random.Generator) -> Deal:
    """The other seats' cards in hand and the deck below its top 2 * P cards (a round's draws, the first of them
    showing its side up) dealt anew among themselves; each card keeps its side up."""
    others, kept = np.arange(params.players) != seat, 2 * params.players
    pool = np.concatenate([dealt.hand[:, others], dealt.deck[:, kept:]], axis=1)
    pool = np.take_along_axis(pool, np.argsort(np.where(pool >= 0, rng.random(pool.shape), 2.0), axis=1), axis=1)
    hand, deck = dealt.hand.copy(), dealt.deck.copy()
    hand[:, others], deck[:, kept:] = pool[:, : others.sum()], pool[:, others.sum():]
    return dealt._replace(hand=hand, deck=deck)


RULES = GameRules(
    name="witkacy", title="Witkacy", player_counts=PLAYER_COUNTS, lowest_wins=False, params=Params,
    summary=("overlap double-sided cards into a collection to complete paintings from their quarters, with five "
             "once-per-game actions; a painting is worth its copies on the whole table; most points wins"),
    columns={"paintings": pl.Int8, "copies_by_painting": pl.List(pl.Int8), "actions_used": pl.List(pl.Boolean),
             "cards_played": pl.Int8, "turns": pl.Int16, "deck_left": pl.Int8},
    tie_breakers=("paintings",),
    chunk=2048,  # about 3 s of play on one core
    engine=engine, reference=reference, deal=deal, record=record, replay=replay, narrate=narrate, facts=facts,
    unseen=unseen, reveals=("hand", "top_face", "display", "shown", "stack", "pending"),
    hidden=("deck", "hand", "up", "secret"),
)
