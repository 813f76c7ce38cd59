"""Completed paintings by seat: every player takes the same number of turns, yet does the start player complete more
copies than the other seats of its game?"""

import polars as pl

from reports.analysis import GAME_KEY, Analysis, GameData
from reports.fmt import NOTICEABLE_RELATIVE, by_phrase, count, effect, num, seat_name, spread
from reports.render import Finding, est, table
from reports.spec import Measure, measure_records, measure_table, measured
from reports.stats import cluster_columns
from reports.witkacy.common import BASIC_ONLY, NO_BASIC, basic_rows, signed, signed_ci

COPIES = Measure("copies", "Copies", pl.col("paintings"))
GAP = Measure("gap", "Start player − others (copies)", pl.col("gap"), metric="start_player_copies_gap")


def seat_copies(data: GameData) -> dict | None:
    """Completed copies per player by seat, and per game the start player's copies minus the mean of the other
    seats', per player count (cluster-robust over deals)."""
    rows = basic_rows(data)
    if rows is None:
        return None
    seat, copies = pl.col("seat"), pl.col("paintings").cast(pl.Float64)
    games = rows.group_by(GAME_KEY).agg(pl.col(*cluster_columns(rows)).first(),
                                        gap=copies.filter(seat == 0).first() - copies.filter(seat > 0).mean())
    return {"by_seat": measured(rows, [COPIES], ("players", "seat"), everyone=False),
            "gap": measured(games, [GAP], ("players",), everyone=False).with_columns(seat=pl.lit(0))}


def copies_level(by_seat: pl.DataFrame) -> dict[int, float]:
    """Per player count: the completed copies per player over every seat, the size a gap is judged against."""
    level = by_seat.group_by("players").agg((pl.col("copies") * pl.col("n")).sum() / pl.col("n").sum())
    return dict(level.iter_rows())


def gap_phrase(gap: dict, level: float) -> str:
    """The start player's copies against the others', as the interval and the size of the gap say."""
    more = "more" if gap["gap"] > 0 else "fewer"
    return {"clear": f"the start player completes clearly {more} copies than the others",
            "tiny": f"the start player completes slightly {more} copies than the others (a clear but small gap, under "
                    f"{NOTICEABLE_RELATIVE:.0%} of the {num(level)} copies a player completes)",
            "unclear": "the start player completes about as many copies as the others"}[
        effect(gap["gap_lo"], gap["gap_hi"], gap["gap"], level)]


def seat_finding(result: dict, data: GameData) -> Finding:
    """Whether the start player completes more copies than the other seats of its game, per player count."""
    gap, level = result["gap"], copies_level(result["by_seat"])
    phrases = {r["players"]: gap_phrase(r, level[r["players"]]) for r in gap.iter_rows(named=True)}
    text = ("Who wins from which seat is in the seat advantage section above. In completed paintings, "
            f"{by_phrase(phrases, data.player_counts)} (start player's copies minus the mean of the other seats of "
            f"its game: {spread(gap['gap'], signed)}).")
    return Finding("Seats and completed paintings.", text, table(
        "", gap, ("Players", "players"), ("Games", "games", count), *est(GAP.label, "gap", signed, signed_ci)),
                   tuple(measure_records(data, gap, [GAP], seat="seat")))


def seat_tables(result: dict, _) -> list:
    return [measure_table("Completed copies per player by seat (Player 1 starts; 95% intervals: cluster-robust over "
                          "deals)", result["by_seat"], [COPIES], ("Players", "players"), ("Player", "seat", seat_name),
                          ("Player results", "n", count))]


SEAT_INTRO = ("Every player takes the same number of turns: the game ends after the turn of the player to the right "
              "of the start player. Here, the completed copies per player by seat, and in each game the start "
              "player's copies minus the mean of the other seats'; 95% intervals clustered by deal (every seating "
              "of one shuffle together). " + BASIC_ONLY)

SEATS = Analysis("Seats and completed paintings", seat_copies, intro=SEAT_INTRO, tables=seat_tables,
                 finding=seat_finding, absent=NO_BASIC)
