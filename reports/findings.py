"""The report's numbers as data: every number the overview and the summaries state, one record each, written to
findings.json and printed by `atelier report RESULTS --json`. Each finding of the report carries the records of
the numbers it states (render.Finding.numbers, made with analysis.record); a game's `numbers` adds those its
overview row states.

A record names where it comes from and what it measures: `game`, `experiment` (one experiment: numbers never pool
unlike experiments), `players`, `seat` or `strategy` where it is about one (a comparison names the other side in
`against`), `metric`, `unit` (UNITS), `estimate`, `low` and `high` (the 95% interval), `games` (the games it rests
on) and `method` (how the interval was made), plus what a metric needs (a handicap's `points`). findings_file
wraps the records with the schema version and each experiment's seed, config hash and atelier version.
"""

from __future__ import annotations

import json
import math
from typing import Any

from reports.render import Section
from reports.stats import LEVEL, holm_min

SCHEMA = 1  # findings.json's layout: raised when a field changes meaning
UNITS = {  # what a metric's estimate, low and high are in: the README's table of findings.json explains each unit
    "share": ("seat_win_share", "strategy_win_share", "colour_win_share", "compensated_win_share", "handicap",
              "guess_accuracy",
              "stall_rate", "lineup_stall_rate", "ladder_stall_rate", "ladder_seat_win_share",
              "stronger_seat_win_share", "weaker_seat_win_share", "hidden_information_win_share",
              "stalled_win_share", "strategy_seat_share", "winner_changed_share",
              "match_win_share", "match_win_share_by_first_seat", "token_use_share", "copy_share",
              "strategy_share_of_group",
              "target_come_true_share", "completion_share", "board_unplaced_share", "opponent_share",
              "endgame_points_share", "comeback_share", "midgame_tie_broken_share", "even_copy_share",
              "kept_items_broken_share", "breakages_mended_share", "ingots_without_box_share", "box_scoring_share"),
    "pp": ("start_advantage", "ladder_start_advantage", "ladder_edge_change", "strategy_gap", "compensation",
           "restricted_win_share_difference",
           "rotation_win_share_difference", "completion_share_difference", "token_worth_win_share"),
    "ratio": ("win_share_vs_fair",),
    "points": ("points_per_player", "winner_points_lead", "mean_score", "score_per_player", "token_worth_points",
               "rotation_endgame_points_difference", "rotation_midgame_points_difference",
               "score_per_player_difference"),
    "Elo": ("rating",),
    "brier": ("belief_brier",),
    "bits": ("belief_entropy",),
    "count": ("games", "games_for_tighter_edge", "rounds", "chips_spent", "tokens_per_game", "pieces_discarded",
              "boards_placed",
              "white_tiles_used", "copies_per_player", "cards_per_copy", "repairs_per_player", "ingots_per_player",
              "rounds_as_first_player", "turns_per_game", "start_player_copies_gap", "copies_per_player_difference",
              "turns_per_game_difference"),
}
UNIT = {metric: unit for unit, metrics in UNITS.items() for metric in metrics}


def unit_of(metric: str) -> str:
    """The unit of a metric's numbers; a metric without one is a fault of the report code, caught by the tests."""
    if metric not in UNIT:
        raise KeyError(f"metric {metric!r} has no unit in reports/findings.py UNITS")
    return UNIT[metric]


def findings_file(numbers: list[dict], manifests: list[dict]) -> dict[str, Any]:
    """findings.json: the schema version, every experiment the records come from (its game, seed, config hash and
    the atelier version that ran it), then the records."""
    experiments = [{"experiment": str(m["experiment"]), "game": str(m["game"]), "seed": m.get("seed"),
                    "config_hash": m.get("config_hash"), "atelier": (m.get("versions") or {}).get("atelier"),
                    "complete": bool(m.get("complete"))}
                   for m in sorted(manifests, key=lambda m: str(m["experiment"]))]
    records = [n if "unit" in n else {**n, "unit": unit_of(n["metric"])} for n in numbers]
    return {"schema": SCHEMA, "experiments": experiments, "records": json_ready(records)}


def seat_verdict(seats: list[dict]) -> str:
    """'fair' where every seat's 95% interval holds its fair share 1/P; 'unfair' where some seat's share differs
    from 1/P after Holm's correction for testing the P seats (its `p`); 'unclear' between the two (an interval
    misses 1/P, but not once the P seats tested are counted); '–' where some seat has no interval (too few deals)
    and none differs."""
    if holm_min([r["p"] if r["p"] is not None else math.nan for r in seats]) < 1 - LEVEL:
        return "unfair"
    bounds = [(r["low"], r["high"], r["fair"]) for r in seats]
    if any((low is not None and low > fair) or (high is not None and high < fair) for low, high, fair in bounds):
        return "unclear"  # a NaN bound compares false: it misses nothing
    known = all(bound is not None and math.isfinite(bound) for low, high, _ in bounds for bound in (low, high))
    return "fair" if known else "–"


def section_numbers(sections: list[Section]) -> list[dict[str, Any]]:
    """The records of every finding of the sections, in order, each once."""
    seen, out = set(), []
    for finding in (f for section in sections for f in section.findings):
        for number in finding.numbers:
            key = json.dumps(number, sort_keys=True, default=str)
            if key not in seen:
                seen.add(key)
                out.append(number)
    return out


DIGITS = 10  # significant digits a number keeps in findings.json: finer than any estimate's precision, and coarser
# than the float noise of a sum that polars adds in an order that varies from run to run (1e-13 of a mean of 10^5)


def rounded(value: Any) -> Any:
    """value with every float kept to DIGITS significant digits (in lists and dicts too), so that the last bits of a
    sum, which depend on the order polars adds in parallel, never change the file."""
    if isinstance(value, float) and math.isfinite(value):
        return float(f"{value:.{DIGITS}g}")
    if isinstance(value, list | tuple):
        return [rounded(v) for v in value]
    return {k: rounded(v) for k, v in value.items()} if isinstance(value, dict) else value


def json_ready(numbers: list[dict]) -> list[dict]:
    """The records with every number JSON can write, rounded: NaN (an interval from too few deals) becomes null."""
    def clean(value: Any) -> Any:
        if isinstance(value, float) and math.isnan(value):
            return None
        return [clean(v) for v in value] if isinstance(value, list) else value

    return [{key: clean(rounded(value)) for key, value in n.items()} for n in numbers]


def select(numbers: list[dict], **where: Any) -> list[dict]:
    """The records whose fields equal `where`."""
    return [n for n in numbers if all(n.get(k) == v for k, v in where.items())]
