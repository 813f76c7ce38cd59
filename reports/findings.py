"""The report's numbers as data: every number the overview and the summaries state, one record each, written to
findings.json and printed by `atelier report RESULTS --json`.

A record names where it comes from and what it measures: `game`, `experiment` (one experiment: numbers never pool
unlike experiments), `players`, `seat` or `strategy` where it is about one, `metric`, `estimate`, `low` and `high`
(the 95% interval), `games` (the games it rests on) and `method` (how the interval was made), plus what a metric
needs (a handicap's `points`). Metrics: `seat_win_share`, `start_advantage`, `strategy_win_share`, `strategy_gap`
(the strongest strategy's lead over the weakest, `strategy` naming both), `rating` (Bradley–Terry, Elo scale),
`handicap`, `compensated_win_share`, and a game's own (reports/<game>.py, `numbers`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import polars as pl

from reports.analysis import GameData
from reports.generic import handicaps, rating_analysis, seat_win_shares, strategy_analysis
from reports.handicap import handicap_findings

Numbers = Callable[[GameData], list[dict[str, Any]]]  # a game's own numbers, from one experiment


def record(data: GameData, players: int, metric: str, estimate: float, low: float, high: float, games: int,
           method: str, **about: Any) -> dict[str, Any]:
    """One number, in the order findings.json writes its keys."""
    return {"game": data.name, "experiment": data.experiment, "players": int(players), **about, "metric": metric,
            "estimate": float(estimate), "low": float(low), "high": float(high), "games": int(games),
            "method": method}


def seat_numbers(data: GameData) -> list[dict[str, Any]]:
    """Every seat's win share, and the start player's advantage (its share minus 1/P), at each player count; with
    the unpaired (Wilson) interval beside the clustered one."""
    out = []
    for r in seat_win_shares(data.rows).iter_rows(named=True):
        unpaired = {"low_unpaired": r["lo_unpaired"], "high_unpaired": r["hi_unpaired"]}
        out.append(record(data, r["players"], "seat_win_share", r["share"], r["lo"], r["hi"], r["games"], r["method"],
                          seat=r["seat"], **unpaired))
        if r["seat"] == 0:
            fair = r["fair"]
            out.append(record(data, r["players"], "start_advantage", r["share"] - fair, r["lo"] - fair,
                              r["hi"] - fair, r["games"], r["method"], seat=0,
                              **{k: v - fair for k, v in unpaired.items()}))
    return out


def strategy_numbers(data: GameData) -> list[dict[str, Any]]:
    """Every strategy's win share at each player count (games where two strategies or more met), the strongest's
    lead over the weakest with its paired and unpaired intervals, and every strategy's rating."""
    found = strategy_analysis(data)
    out = [record(data, r["players"], "strategy_win_share", r["share"], r["lo"], r["hi"], r["games"], r["method"],
                  strategy=r["strategy"], fair=r["fair"])
           for r in found["per_count"].sort("players", "strategy").iter_rows(named=True)]
    out += [record(data, r["players"], "strategy_gap", r["estimate"], r["lo"], r["hi"], r["games"], r["method"],
                   strategy=[r["best"], r["worst"]], low_unpaired=r["lo_unpaired"], high_unpaired=r["hi_unpaired"],
                   width_ratio=r["width_ratio"], games_factor=r["games_factor"])
            for r in found["gaps"].iter_rows(named=True)]
    for players, rated in (rating_analysis(data) or {}).items():
        out += [record(data, players, "rating", r["rating"], r["lo"], r["hi"], r["games"], r["method"],
                       strategy=r["strategy"]) for r in rated["ratings"].iter_rows(named=True)]
    return out


def handicap_numbers(data: GameData) -> list[dict[str, Any]]:
    """Every seat's win share under each handicap of its grid (metric `handicap`, with `points` and the seat's
    `fair_point`), and every seat's share under the recommended compensation (`recommended`) and under each tie
    rule tried (metric `compensated_win_share`)."""
    out = []
    for found in handicaps(data).values():
        best = found["recommended"]
        out += [{"game": data.name, "experiment": data.experiment, **r} for r in handicap_findings(found["grid"])]
        out += [{"game": data.name, "experiment": data.experiment, **r, "recommended": True} for r in best["shares"]]
        out += [{"game": data.name, "experiment": data.experiment, **r} for r in best["tie_rules"]]
    return out


def experiment_numbers(data: GameData, own: Numbers | None = None) -> list[dict[str, Any]]:
    """Every number of one experiment: the generic ones, then the game's own."""
    return [*seat_numbers(data), *strategy_numbers(data), *handicap_numbers(data), *(own(data) if own else [])]


def json_ready(numbers: list[dict]) -> list[dict]:
    """The records with every number JSON can write: NaN (an interval from too few deals) becomes null."""
    def clean(value: Any) -> Any:
        if isinstance(value, float) and math.isnan(value):
            return None
        return [clean(v) for v in value] if isinstance(value, list) else value

    return [{key: clean(value) for key, value in n.items()} for n in numbers]


def select(numbers: list[dict], **where: Any) -> list[dict]:
    """The records whose fields equal `where`."""
    return [n for n in numbers if all(n.get(k) == v for k, v in where.items())]


def as_frame(numbers: list[dict]) -> pl.DataFrame:
    return pl.DataFrame(numbers, infer_schema_length=None)
