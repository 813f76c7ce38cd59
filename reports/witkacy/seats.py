"""Completed paintings by seat: every player takes the same number of turns, yet does the start player complete more
copies than the other seats of its game?"""

import polars as pl

from reports.analysis import GAME_KEY, GameData
from reports.fmt import NOTICEABLE_RELATIVE, by_phrase, count, effect, num, seat_name, spread
from reports.spec import Measure, Metrics
from reports.witkacy.common import BASIC_ONLY, NO_BASIC, basic_rows, defined, signed

START = pl.col("seat") == 0


def with_gap(data: GameData) -> pl.DataFrame | None:
    """The rows of the basic game; the start player's carry its copies minus the mean of the other seats' of its
    game (`gap`)."""
    rows = basic_rows(data)
    if rows is None:
        return None
    copies = pl.col("paintings").cast(pl.Float64)
    others = (copies.sum().over(GAME_KEY) - copies) / (pl.col("players") - 1)
    return rows.with_columns(gap=pl.when(START).then(copies - others).otherwise(0.0))


def gap_phrase(gap: dict, level: float) -> str:
    """The start player's copies against the others', as the interval and the size of the gap say."""
    more = "more" if gap["gap"] > 0 else "fewer"
    return {"clear": f"the start player completes clearly {more} copies than the others",
            "tiny": f"the start player completes slightly {more} copies than the others (a clear but small gap, under "
                    f"{NOTICEABLE_RELATIVE:.0%} of the {num(level)} copies a player completes)",
            "unclear": "the start player completes about as many copies as the others"}[
        effect(gap["gap_lo"], gap["gap_hi"], gap["gap"], level)]


def seat_sentence(by_seat: pl.DataFrame, data: GameData) -> str:
    """Whether the start player completes more copies than the other seats of its game, per player count."""
    level = dict(by_seat.group_by("players").agg((pl.col("copies") * pl.col("n")).sum() / pl.col("n").sum())
                 .iter_rows())  # the copies per player over every seat, the size a gap is judged against
    gap = by_seat.filter(START).sort("players")
    phrases = {r["players"]: gap_phrase(r, level[r["players"]]) for r in gap.iter_rows(named=True)}
    return ("Who wins from which seat is in the seat advantage section above. In completed paintings, "
            f"{by_phrase(phrases, data.player_counts)} (start player's copies minus the mean of the other seats of "
            f"its game: {spread(gap['gap'], signed)}).")


SEATS = Metrics(
    "Seats and completed paintings", (
        Measure("copies", "Copies", pl.col("paintings")),
        Measure("gap", "Start player − others (copies)", pl.col("gap"), START.cast(pl.Float64),
                metric="start_player_copies_gap")),
    seat_sentence, rows=with_gap, by=("players", "seat"), everyone=False, about={"seat": "seat"}, recorded=defined,
    lead=(("Players", "players"), ("Player", "seat", seat_name), ("Player results", "n", count)),
    caption="Completed copies per player by seat, and the start player's copies minus the mean of the other seats' "
            "of its game (Player 1 starts; 95% intervals: cluster-robust over deals)",
    intro="Every player takes the same number of turns: the game ends after the turn of the player to the right of "
          "the start player. Here, the completed copies per player by seat, and in each game the start player's "
          "copies minus the mean of the other seats'; 95% intervals clustered by deal (every seating of one shuffle "
          "together). " + BASIC_ONLY,
    absent=NO_BASIC).analysis()
