"""Broken and Beautiful (Left Justified Studio, 2023): draft pottery, keep it or sell it for gold, watch it
break, mend it with gold. The game contract of sim/game.py, for the registry in sim/__init__.py."""

from __future__ import annotations

import dataclasses

import numpy as np

from sim.batch import seat_rows
from sim.bench import compare
from sim.broken_beautiful import engine, reference
from sim.broken_beautiful.rules import BROKEN, CONDITIONS, PLAYER_COUNTS, SCORED, Params, deal
from sim.broken_beautiful.rules import facts as facts
from sim.game import params_from
from strategies.broken_beautiful import BENCH_STRATEGY, STRATEGIES, check_strategy, make_player

NAME = "broken_beautiful"
LOWEST_WINS = False
TITLE = "Broken and Beautiful"
SUMMARY = ("snake-draft pottery, keep it or sell it for ingots, suffer breakage, pay to repair; most points "
           "wins. Strategies may add -no-TYPE, e.g. greedy-no-teapot")

__all__ = ["BENCH_STRATEGY", "NAME", "PLAYER_COUNTS", "STRATEGIES", "SUMMARY", "TITLE", "Params", "bench",
           "check_strategy", "make_params", "narrate", "simulate", "trace"]


def make_params(players: int, overrides: dict) -> Params:
    return params_from(Params, players, PLAYER_COUNTS, overrides)


def simulate(params: Params, lineups: np.ndarray, deal_index: np.ndarray,
             deal_seed: np.random.SeedSequence, play_seed: np.random.SeedSequence) -> dict[str, np.ndarray]:
    """Play len(lineups) games with the batched engine; one row per (game, seat). See sim/game.py."""
    order = deal(np.random.default_rng(deal_seed), int(deal_index.max()) + 1, params)[deal_index]
    record = engine.play(params, order, lineups, np.random.default_rng(play_seed), make_player)
    batch, players = lineups.shape
    state = record.state
    broken = ((state.owner[:, None, :] == np.arange(players)[:, None]) & (state.cond == BROKEN)[:, None, :]).sum(axis=2)
    columns = {
        **seat_rows(lineups, record.scores, record.rank, record.win),
        "rounds": np.full(batch * players, params.kit.rounds(players), np.int8),
        "ingots": state.ingots.ravel(),
        "repaired": record.repaired.ravel().astype(np.int8),
        "broken": broken.ravel().astype(np.int8),
        "items": record.items.ravel().astype(np.int8),
    }
    for t, kind in enumerate(SCORED):
        columns[f"points_{kind}"] = record.points[:, :, t].ravel().astype(np.int32)
    return columns


def play_reference(params: Params, order, strategies: list[str], rng: np.random.Generator):
    game = reference.new_game(params, order)
    result = reference.play(game, reference.StrategyDecider(game, strategies, rng, make_player))
    return game, result


def trace(params: Params, strategies: list[str], seed: int) -> dict:
    """One game, played by the reference engine, as an auditable JSON-ready dict (see README)."""
    rng = np.random.default_rng(seed)
    game, result = play_reference(params, deal(rng, 1, params)[0], strategies, rng)
    return {
        "game": NAME, "players": params.players, "seed": seed, "strategies": list(strategies),
        "params": dataclasses.asdict(params),
        "catalog": params.kit.catalog(),
        "rounds": game.log,
        "final": {
            "collections": [[{"card": c, "state": CONDITIONS[st]} for c, st in sorted(col.items())]
                            for col in game.collections],
            "ingots": game.ingots,
            "points_by_type": result.points,
            "scores": result.scores,
            "winners": result.winners,
        },
    }


def narrate(record: dict) -> str:
    """Tell a traced game round by round."""
    catalog = record["catalog"]

    def name(card: int | None) -> str:
        if card is None:
            return "nothing (the deck is empty)"
        c = catalog[card]
        return f"{c['type'].replace('_', ' ')}#{card}" + (f" (pattern {c['pattern']})" if c["pattern"] is not None
                                                            else "")

    names = record["strategies"]
    lines = [f"Broken and Beautiful, {record['players']} players, seed {record['seed']}"]
    lines += [f"  seat {s}: {n}" for s, n in enumerate(names)]
    for r, entry in enumerate(record["rounds"], start=1):
        lines += ["", f"Round {r}: seat {entry['first']} holds the first player marker",
                  "  dealt: " + ", ".join(name(c) for c in entry["dealt"])]
        for pick in entry["picks"]:
            verb = "keeps" if pick["action"] == "keep" else f"sells for {pick['ingots_gained']} ingot(s)"
            lines.append(f"  seat {pick['seat']} drafts {name(pick['card'])} and {verb}")
        lines.append(f"  left over: {name(entry['leftover'])}; on top of the deck: {name(entry['deck_top'])}")
        lines.append("  broken: " + (", ".join(name(c) for c in entry["broken"]) or "nothing"))
        if entry["free_repair"]:
            lines.append("  a gold card shows: each player's first repair this round is free")
        lines += [f"  seat {rep['seat']} repairs {name(rep['card'])} for {rep['cost']}" for rep in entry["repairs"]]
        lines.append(f"  ingots: {entry['ingots']}, supply {entry['supply']}")
    final = record["final"]
    lines += ["", "Final collections:"]
    for seat, collection in enumerate(final["collections"]):
        cards = ", ".join(name(c["card"]) + ("" if c["state"] == "intact" else f" [{c['state']}]") for c in collection)
        points = ", ".join(f"{k} {v}" for k, v in final["points_by_type"][seat].items() if v)
        lines.append(f"  seat {seat}: {cards or 'nothing'}; {final['ingots'][seat]} ingot(s)")
        lines.append(f"    points: {points or 'none'} = {final['scores'][seat]}")
    lines.append("Winner(s): " + ", ".join(f"seat {s}" for s in final["winners"]))
    return "\n".join(lines)


def bench(games: int = 2000, players: int = 3, strategy: str = BENCH_STRATEGY, repeats: int = 3) -> dict:
    """Games per second of the batched engine and of the reference (on the first hundredth of the deals, at
    least 10 of them, at most all)."""
    params = make_params(players, {})
    check_strategy(strategy)
    lineup = [strategy] * players
    ref_games = min(games, max(10, games // 100))

    def session(rng):
        order = deal(rng, games, params)
        return (lambda: engine.play(params, order, np.array([lineup] * games), rng, make_player),
                lambda: [play_reference(params, order[g], lineup, rng) for g in range(ref_games)])

    return compare(NAME, players, strategy, games, ref_games, repeats, session)
