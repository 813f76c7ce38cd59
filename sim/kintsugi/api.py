"""Kintsugi (Button Shy): lay broken-pottery cards so your secret colour forms few pieces, then guess your
left neighbour's colour. The rules side of the game contract (sim/game.py)."""

from __future__ import annotations

import numpy as np
import polars as pl

from sim.errors import IllegalMove
from sim.game import GameRules, standings_lines
from sim.kintsugi import engine, reference
from sim.kintsugi.rules import COLORS, PLAYER_COUNTS, Deal, Params, deal, facts


def record(params: Params, one: Deal, game: reference.Game) -> dict:
    """The reference's finished game of a deal as auditable data (see README)."""
    result = reference.final_result(game)
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


def _deal_of(record: dict) -> Deal:
    """The traced game's deal, as a batch of one: the deck in the order its cards were laid, the seats' colours."""
    order = [record["start"]["card"]] + [p["card"] for p in record["placements"]]
    return Deal(np.array([order], np.int8), np.array([record["colors"]], np.int8))


def replay(record: dict) -> list[int]:
    """A trace's placements and guesses replayed through the reference; the scores it gives."""
    params = Params(**record["params"])
    placements = [reference.Placement(p["row"], p["col"], p["rotation"]) for p in record["placements"]]
    guesses = list(record["guesses"])

    def decider(game: reference.Game, phase: str, options: list[int]) -> int:
        if phase == "guess":
            return guesses[game.guessing]
        candidates, placement = reference.candidates(game), placements[game.turn]
        action = candidates.index(placement) if placement in candidates else None
        if action not in options:
            raise IllegalMove("trace", f"{placement} does not cover exactly one fragment of the previous card")
        return action

    return reference.scores(reference.play(params, _deal_of(record), decider))


def narrate(record: dict) -> str:
    """Tell a traced game turn by turn, replaying it through the reference engine."""
    params = Params(**record["params"])
    game = reference.new_game(params, _deal_of(record))
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


def secrets(state: engine.State) -> np.ndarray:
    """Each seat's secret colour, (B, P)."""
    return state.colors


def unseen(params: Params, dealt: Deal, seat: int, rng: np.random.Generator) -> Deal:
    """The other seats' colours redealt from the colours but the seat's own (the deck is laid card by card, face
    up, for every seat to see)."""
    return dealt._replace(colors=engine.other_colors_redrawn(dealt.colors, seat, rng))


RULES = GameRules(
    name="kintsugi", title="Kintsugi", player_counts=PLAYER_COUNTS, lowest_wins=True, params=Params,
    summary=("place 2x2 fragment cards, keep your secret colour in few pieces, guess your left neighbour's colour; "
             "lowest score wins. A player is POLICY+GUESSER, e.g. camouflage+bayes"),
    columns={"color": pl.Int8, "pieces": pl.Int16, "guess": pl.Int8, "guess_correct": pl.Boolean,
             "target_color": pl.Int8, "belief": pl.List(pl.Float32), "belief_entropy": pl.List(pl.Float32)},
    engine=engine, reference=reference, deal=deal, record=record, replay=replay, narrate=narrate, facts=facts,
    unseen=unseen, private=secrets, hidden=("order", "colors"),
)
