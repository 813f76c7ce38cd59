"""Kintsugi (Button Shy): lay broken-pottery cards so your secret colour forms few pieces, then guess your
left neighbour's colour. The game contract of sim/game.py, for the registry in sim/__init__.py."""

from __future__ import annotations

import dataclasses

import numpy as np

from sim.batch import seat_rows
from sim.bench import compare
from sim.game import params_from
from sim.kintsugi import engine, reference
from sim.kintsugi.rules import COLORS, PLAYER_COUNTS, Params, deal
from sim.kintsugi.rules import facts as facts
from strategies.kintsugi import BENCH_STRATEGY, STRATEGIES, check_strategy, make_player

NAME = "kintsugi"
LOWEST_WINS = True
TITLE = "Kintsugi"
SUMMARY = ("place 2x2 fragment cards, keep your secret colour in few pieces, guess your left neighbour's colour; "
           "lowest score wins. A player is POLICY+GUESSER, e.g. camouflage+bayes")

__all__ = [
    "BENCH_STRATEGY",
    "NAME",
    "PLAYER_COUNTS",
    "STRATEGIES",
    "SUMMARY",
    "TITLE",
    "Params",
    "bench",
    "check_strategy",
    "make_params",
    "narrate",
    "simulate",
    "trace",
]


def make_params(players: int, overrides: dict) -> Params:
    return params_from(Params, players, PLAYER_COUNTS, overrides)


def simulate(params: Params, lineups: np.ndarray, deal_index: np.ndarray,
             deal_seed: np.random.SeedSequence, play_seed: np.random.SeedSequence) -> dict[str, np.ndarray]:
    """Play len(lineups) games with the batched engine; one row per (game, seat). See sim/game.py."""
    order, colors = deal(np.random.default_rng(deal_seed), int(deal_index.max()) + 1, params.players,
                         len(params.cards))
    record = engine.play(params, order[deal_index], colors[deal_index], lineups,
                         np.random.default_rng(play_seed), make_player)
    out = record.outcome
    own = np.take_along_axis(out.pieces, record.colors.astype(np.int64), axis=1)
    return {
        **seat_rows(lineups, out.scores, out.rank, out.win),
        "color": record.colors.ravel(),
        "pieces": own.ravel().astype(np.int16),
        "guess": out.guesses.ravel(),
        "guess_correct": out.correct.ravel(),
        "target_color": np.roll(record.colors, -1, axis=1).ravel(),
    }


def trace(params: Params, strategies: list[str], seed: int) -> dict:
    """One game, played by the reference engine, as an auditable JSON-ready dict (see README)."""
    rng = np.random.default_rng(seed)
    order, colors = deal(rng, 1, params.players, len(params.cards))
    game, result = reference.play(params, order[0], colors[0], strategies, rng, make_player)
    start, *placed = game.placements
    return {
        "game": NAME, "players": params.players, "seed": seed, "strategies": list(strategies),
        "params": dataclasses.asdict(params),
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
    lines.append("Scores (lowest wins): " + ", ".join(f"seat {s} {v}" for s, v in enumerate(record["scores"])))
    lines.append("Winner(s): " + ", ".join(f"seat {s}" for s in record["winners"]))
    return "\n".join(lines)


def bench(games: int = 2000, players: int = 3, strategy: str = BENCH_STRATEGY, repeats: int = 3) -> dict:
    """Games per second of the batched engine and of the reference (on the first hundredth of the deals, at
    least 10 of them, at most all)."""
    params = make_params(players, {})
    check_strategy(strategy)
    lineup = [strategy] * players
    ref_games = min(games, max(10, games // 100))

    def session(rng):
        order, colors = deal(rng, games, players, len(params.cards))
        batch = np.array([lineup] * games)
        return (lambda: engine.play(params, order, colors, batch, rng, make_player),
                lambda: [reference.play(params, order[g], colors[g], lineup, rng, make_player)
                         for g in range(ref_games)])

    return compare(NAME, players, strategy, games, ref_games, repeats, session)
