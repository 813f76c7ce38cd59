"""Handful's rules side of the contract (sim/game.py)."""

from __future__ import annotations

import polars as pl

from sim.game import GameRules, standings_lines

from . import engine, reference
from .rules import PLAYER_COUNTS, Deal, Params, deal, secrets, unseen


def record(params: Params, one: Deal, game: reference.Game) -> dict:
    return {"hands": one.hands[0].tolist(), "plays": game.plays, "scores": game.tricks,
            "winners": [s for s, v in enumerate(game.tricks) if v == max(game.tricks)]}


def replay(record: dict) -> list[int]:
    """The tricks each seat took, from the cards played alone."""
    players = len(record["hands"])
    tricks = [0] * players
    for first in range(0, len(record["plays"]), players):
        trick = record["plays"][first: first + players]
        tricks[max(trick, key=lambda play: play["card"])["seat"]] += 1
    return tricks


def narrate(record: dict) -> str:
    lines = [f"seat {s} holds {hand}" for s, hand in enumerate(record["hands"])]
    lines += [f"trick {p['trick'] + 1}: seat {p['seat']} plays {p['card']}" for p in record["plays"]]
    return "\n".join([*lines, *standings_lines(record["scores"], record["winners"])])


def facts(params: Params) -> dict:
    return {"cards": params.cards, "hand": params.hand}


RULES = GameRules(
    name="handful", title="Handful", summary="A hidden hand, tricks won by the highest card; most wins.",
    player_counts=PLAYER_COUNTS, lowest_wins=False, params=Params, columns={"high_card": pl.Int64},
    engine=engine, reference=reference, deal=deal, record=record, replay=replay, narrate=narrate, facts=facts,
    unseen=unseen, reveals=("played",), private=secrets, hidden=("dealt", "held"),
)
