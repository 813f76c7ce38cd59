"""Kintsugi (Button Shy): lay broken-pottery cards so your secret colour forms few pieces, then guess your
left neighbour's colour. The rules side of the game contract (sim/game.py)."""

from __future__ import annotations

import numpy as np
import polars as pl

from sim.game import Choose, GameRules, standings_lines
from sim.kintsugi import engine, reference
from sim.kintsugi.rules import COLORS, PLAYER_COUNTS, Deal, Params, deal, facts

# GameRules finds the functions of the contract here by name.
__all__ = ["RULES", "deal", "engine", "facts", "narrate", "play_reference", "replay", "secrets", "trace"]


def play_reference(params: Params, one: Deal, choose: Choose, rng: np.random.Generator) -> list[int]:
    """The one game of a deal, played by the reference; its scores."""
    _, result = reference.play(params, one.order[0], one.colors[0], choose, rng)
    return result.scores


def trace(params: Params, one: Deal, choose: Choose, rng: np.random.Generator) -> dict:
    """The one game of a deal, played by the reference, as auditable data (see README)."""
    game, result = reference.play(params, one.order[0], one.colors[0], choose, rng)
    start, *placed = game.placements
    return {
        "cards": params.cards.tolist(),
        "colors": game.colors,
        "start": {"card": game.order[0], **start._asdict()},
        "placements": [{"seat": t % params.players, "card": game.order[t + 1], **p._asdict()}
                       for t, p in enumerate(placed)],
        "guesses": result.guesses,
        "pieces": result.pieces,
        "scores": result.scores,
        "winners": result.winners,
    }


def replay(record: dict) -> list[int]:
    """A trace's placements and guesses replayed through the reference; the scores it gives."""
    params = Params(**record["params"])
    order = [record["start"]["card"]] + [p["card"] for p in record["placements"]]
    game = reference.new_game(params, order, record["colors"])
    for p in record["placements"]:
        reference.place(game, reference.Placement(p["row"], p["col"], p["rotation"]))
    return reference.final_result(game, record["guesses"]).scores


def narrate(record: dict) -> str:
    """Tell a traced game turn by turn, replaying it through the reference engine."""
    params = Params(**record["params"])
    order = [record["start"]["card"]] + [p["card"] for p in record["placements"]]
    game = reference.new_game(params, order, record["colors"])
    names = record["strategies"]
    lines = [f"Kintsugi, {params.players} players, seed {record['seed']}"]
    lines += [f"  seat {s} ({names[s]}) favours {COLORS[c]}" for s, c in enumerate(game.colors)]
    lines += ["", "Starting card:", reference.board_text(game), ""]
    for placement in record["placements"]:
        seat = placement["seat"]
        move = reference.Placement(placement["row"], placement["col"], placement["rotation"])
        reference.place(game, move, names[seat])
        pieces = reference.pieces(game)
        lines += [f"Turn {game.turn}: seat {seat} lays card {placement['card']} at row {move.row}, col {move.col}, "
                  f"turned {move.rotation} quarter(s); pieces " +
                  ", ".join(f"{COLORS[c]} {n}" for c, n in enumerate(pieces)),
                  reference.board_text(game), ""]
    lines.append("Guesses (each seat names its left neighbour's colour):")
    for seat, guess in enumerate(record["guesses"]):
        left = (seat + 1) % params.players
        verdict = "right" if guess == game.colors[left] else "wrong"
        lines.append(f"  seat {seat} says seat {left} favours {COLORS[guess]}: {verdict}")
    lines += standings_lines(record["scores"], record["winners"], " (lowest wins)")
    return "\n".join(lines)


def secrets(dealt: Deal) -> np.ndarray:
    """Each seat's secret colour, (B, P)."""
    return dealt.colors


RULES = GameRules(
    __name__, name="kintsugi", title="Kintsugi", player_counts=PLAYER_COUNTS, lowest_wins=True, params=Params,
    summary=("place 2x2 fragment cards, keep your secret colour in few pieces, guess your left neighbour's colour; "
             "lowest score wins. A player is POLICY+GUESSER, e.g. camouflage+bayes"),
    columns={"color": pl.Int8, "pieces": pl.Int16, "guess": pl.Int8, "guess_correct": pl.Boolean,
             "target_color": pl.Int8},
)
