"""Kaleido (Japon Brand, 2014): fill triangular holes on hexagonal boards, win board majorities, turn the
boards you score to set up end-game hexagons. The game contract of sim/game.py, for the registry in sim/__init__.py."""

from __future__ import annotations

import dataclasses

import numpy as np
import polars as pl

from sim.batch import seat_rows
from sim.bench import compare
from sim.game import params_from
from sim.kaleido import engine, reference
from sim.kaleido.rules import COLORS, PLAYER_COUNTS, WHITE, Params
from sim.kaleido.rules import facts as facts
from strategies.kaleido import BENCH_STRATEGY, STRATEGIES, check_strategy, make_player

NOT_PLACED = -128  # a marker for list slots of boards a seat did not place
NAME = "kaleido"
LOWEST_WINS = False
TITLE = "Kaleido"
SUMMARY = ("place coloured tiles in hexagonal boards, score majorities when a board fills, turn scored boards "
           "for end-game hexagons; most points wins (2 players: two colours each)")

__all__ = ["BENCH_STRATEGY", "NAME", "PLAYER_COUNTS", "STRATEGIES", "SUMMARY", "TITLE", "Params", "bench",
           "check_strategy", "make_params", "narrate", "simulate", "trace"]


def make_params(players: int, overrides: dict) -> Params:
    return params_from(Params, players, PLAYER_COUNTS, overrides)


def simulate(params: Params, lineups: np.ndarray, deal_index: np.ndarray,
             deal_seed: np.random.SeedSequence, play_seed: np.random.SeedSequence) -> dict[str, np.ndarray]:
    """Play len(lineups) games with the batched engine; one row per (game, seat). See sim/game.py.
    Kaleido deals nothing at random, so games differ only through the strategies' random choices."""
    batch, players = lineups.shape
    record = engine.play(params, batch, lineups, np.random.default_rng(play_seed), make_player)
    state = record.state
    owner = np.array([params.owner(c) for c in range(params.colours)])

    def by_seat(per_colour):
        return np.stack([per_colour[:, owner == s].sum(axis=1) for s in range(players)], axis=1).ravel()

    return {
        **seat_rows(lineups, record.scores, record.rank, record.win),
        "midgame_points": by_seat(state.midgame).astype(np.int32),
        "endgame_points": by_seat(state.endgame).astype(np.int32),
        "boards_placed": state.boards_placed.ravel().astype(np.int8),
        "whites_used": state.whites_used.ravel().astype(np.int8),
        "turns": state.turns_played.ravel().astype(np.int8),
        "stalled": np.repeat(state.stalled, players),
        **_board_positions(params, state),
    }


def _board_positions(params: Params, state) -> dict[str, pl.Series]:
    """`board_q`, `board_r`: list columns with the axial position of every board the seat placed."""
    geo = engine.geometry(params)
    batch, players = state.boards_placed.shape
    mine = state.placer[:, None, :] == np.arange(players)[None, :, None]  # (B, P, NB)
    order = np.argsort(~mine, axis=2, kind="stable")[..., : params.boards_each]  # the seat's boards first
    kept = np.take_along_axis(mine, order, axis=2)
    cells = np.take_along_axis(np.broadcast_to(state.cell[:, None, :], mine.shape), order, axis=2)
    columns = {}
    for axis, name in enumerate(("board_q", "board_r")):
        values = np.where(kept, geo.qr[np.maximum(cells, 0), axis], NOT_PLACED).reshape(batch * players, -1)
        packed = pl.lit(pl.Series(name, values.astype(np.int8))).arr.to_list()
        columns[name] = pl.select(packed.list.eval(pl.element().filter(pl.element() != NOT_PLACED))).to_series()
    return columns


def play_reference(params: Params, strategies: list[str], rng: np.random.Generator):
    game = reference.new_game(params)
    result = reference.play(game, reference.StrategyDecider(game, strategies, rng, make_player))
    return game, result


def _fill_name(fill) -> str | None:
    return None if fill is None else "white" if fill == WHITE else COLORS[fill]


def trace(params: Params, strategies: list[str], seed: int) -> dict:
    """One game, played by the reference engine, as an auditable JSON-ready dict (see README)."""
    game, result = play_reference(params, strategies, np.random.default_rng(seed))
    return {
        "game": NAME, "players": params.players, "seed": seed, "strategies": list(strategies),
        "params": dataclasses.asdict(params),
        "colors": [[COLORS[c] for c in range(params.colours) if params.owner(c) == s] for s in range(params.players)],
        "events": game.events,
        "boards": [{"id": b.id, "q": b.q, "r": b.r, "rot": b.rot, "slots": [_fill_name(f) for f in b.slots]}
                   for b in game.boards],
        "endgame": game.hexagons,
        "stalled": game.stalled,
        "scores": result.scores,
        "winners": result.winners,
    }


def narrate(record: dict) -> str:
    """Tell a traced game event by event."""
    names = record["strategies"]
    lines = [f"Kaleido, {record['players']} players, seed {record['seed']}"]
    lines += [f"  seat {s} ({names[s]}) plays {', '.join(c)}" for s, c in enumerate(record["colors"])]
    lines.append("  starting boards 0 at (0, 0) and 1 at (1, 0)")
    for event in record["events"]:
        kind = event["type"]
        if kind == "tile":
            what = "a white tile" if event["white"] else f"a {event['color']} tile"
            lines.append(f"seat {event['seat']} puts {what} in board {event['board']}, slot {event['slot']}")
        elif kind == "board":
            lines.append(f"seat {event['seat']} places board {event['board']} at ({event['q']}, {event['r']})")
        elif kind == "score":
            points = ", ".join(f"{c} {p}" for c, p in event["points"].items()) or "nobody"
            lines.append(f"  board {event['board']} is full and scores: {points}")
        else:
            lines.append(f"  board {event['board']} is turned {event['steps']} step(s)")
    if record["stalled"]:
        lines.append("The game stalls: every hole is full and nobody with tiles has a board left.")
    lines.append("End-game hexagons:")
    for hexagon in record["endgame"]:
        points = ", ".join(f"{c} {p}" for c, p in hexagon["points"].items()) or "nobody"
        lines.append(f"  boards {hexagon['boards']}: {points}")
    lines.append("Scores: " + ", ".join(f"seat {s} {v}" for s, v in enumerate(record["scores"])))
    lines.append("Winner(s): " + ", ".join(f"seat {s}" for s in record["winners"]))
    return "\n".join(lines)


def bench(games: int = 2000, players: int = 3, strategy: str = BENCH_STRATEGY, repeats: int = 3) -> dict:
    """Games per second of the batched engine and of the reference (on games // 200 games: at least 5, at most all)."""
    params = make_params(players, {})
    check_strategy(strategy)
    lineup = [strategy] * players
    ref_games = min(games, max(5, games // 200))

    def session(rng):
        return (lambda: engine.play(params, games, np.array([lineup] * games), rng, make_player),
                lambda: [play_reference(params, lineup, rng) for _ in range(ref_games)])

    return compare(NAME, players, strategy, games, ref_games, repeats, session)
