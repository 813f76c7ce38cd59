"""Kunst Stücke: how winning goes with the timing of a player's first look at the target tiles (`first_look`, the
turn over every player's turns, players × the fact `pieces_each`; -1 if it never looked), players grouped by it."""

import polars as pl

from reports.analysis import GameData
from reports.kunst_stuecke.buckets import Buckets, labelled
from reports.spec import Measure

LOOK_STARTS = (0.1, 0.25, 0.5, 0.75)  # where the first-look buckets after the first begin, as a share of the game
LOOK_LABELS = ("never", "first 10%", "10–25%", "25–50%", "50–75%", "75–100%")
LOOK_PHRASES = ("never", "in the first 10% of the game", "10–25% of the way through", "25–50% of the way through",
                "50–75% of the way through", "75–100% of the way through")
LOOKED = pl.col("look_share").is_not_null()
NEVER = Measure("never", "Never looked", ~LOOKED, share=True)
WHEN = Measure("when", "First look (share of the game)", pl.col("look_share").fill_null(0.0), LOOKED, share=True)


def with_look_timing(data: GameData) -> pl.DataFrame:
    """rows plus `look_share` (the first look's turn over the game's turns, players × pieces_each; null if never)
    and its `bucket`."""
    turn = pl.col("first_look")
    look_share = turn / (pl.col("players").cast(pl.Float64) * pl.col("pieces_each"))
    index = pl.when(turn < 0).then(0).otherwise(1 + pl.sum_horizontal(*(look_share >= s for s in LOOK_STARTS)))
    return (data.with_facts(data.rows, "pieces_each")
            .with_columns(look_share=pl.when(turn >= 0).then(look_share), bucket_index=index.cast(pl.Int64))
            .with_columns(bucket=labelled(LOOK_LABELS)))


def timed(data: GameData) -> pl.DataFrame | None:
    """with_look_timing(), or None where no player ever looked."""
    rows = with_look_timing(data)
    return None if rows["look_share"].null_count() == rows.height else rows


def look_bounds(index: int) -> dict:
    """Where a first-look bucket begins and ends, as shares of the game ({} for 'never')."""
    starts, stops = (0.0, *LOOK_STARTS), (*LOOK_STARTS, 1.0)
    return {"look_from": starts[index - 1], "look_to": stops[index - 1]} if index else {}


def look_sentence(buckets: Buckets, result: dict, data: GameData) -> str:
    """How the win share runs over the timing of the first look at each player count, the timing groups being
    made of different strategies."""
    by_count = result["by_count"]
    looked = by_count.filter(pl.col("bucket_index") > 0)
    text = ("When a player first looks is up to its strategy, so the timing groups are made of different strategies "
            f"(the table gives each group's). {buckets.course(looked, data)}")
    if looked.height < by_count.height:
        text += " Players who never looked took no tile and are left out."
    return text


LOOK_TREND = {"rises": "rises with a later first look", "falls": "falls with a later first look",
              "up and down": "goes up and down with the timing of the first look",
              "uneven": "differs between the timing groups but does not rise or fall steadily with the timing",
              "flat": "does not differ clearly with the timing of the first look",
              "higher": "is higher for the later first look", "lower": "is lower for the later first look",
              "single": "cannot be followed over the timing (one group large enough)"}

LOOKS = Buckets(
    title="When to take the first look", label="First looks.", rows=timed, header="First look", key="first_look",
    bounds=look_bounds, sentence=look_sentence, trend=LOOK_TREND, verb="first look",
    phrase=lambda group: LOOK_PHRASES[group["bucket_index"]], short=lambda group: group["bucket"], tiles=True,
    profile=(NEVER, WHEN),
    profile_caption="When strategies first look, by player count ('all' = every player; the mean is over players who "
                    "looked, with a 95% cluster-robust interval)",
    caption="Target tiles correct and win share by the timing of the first look and player count (95% cluster-robust "
            "intervals)",
    intro="A look takes a target tile from a stack. An early look chooses among more tiles but knows little of the "
          "board; a late one sees the board take shape. Players are grouped by the turn of their first look as a "
          "share of the game (players × pieces each turns, every player's turns counted), at each player count. Tile "
          "success and win share carry cluster-robust intervals over deals; '× fair' is the win share over 1/P. "
          "Players who never look take no tile and score nothing.",
    file="first_looks", chart_title="the timing of the first look (95% cluster-robust intervals)",
    chart_caption="Per player count, by when a player first looked at the target tiles (as a share of the game's "
                  "turns): the share of their target tiles that came true and their win share; the dashed line is "
                  "the fair share 1/P.",
    absent="No player ever looked at the target tiles.")
