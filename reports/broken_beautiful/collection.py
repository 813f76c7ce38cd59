"""What is left in a collection at the end: breakage and repair, and ingots beside storage boxes.

Rows carry `ingots` (held at the end), `repaired` (repaired items), `broken` (broken items at the end), `items`
(items in the collection, broken ones counted) and `points_box`. Every measure is clustered by deal (spec.measured),
per player count and strategy ('all' = every player)."""

import polars as pl

from reports.analysis import GAME_KEY, GameData
from reports.fmt import at_counts, count, listing, num, spread
from reports.spec import EVERYONE, Measure, Metrics, leader

BROKEN, REPAIRED, ITEMS, INGOTS_HELD = pl.col("broken"), pl.col("repaired"), pl.col("items"), pl.col("ingots")
BOX = pl.col("points_box")
IDLE = pl.when(BOX > 0).then(0).otherwise(INGOTS_HELD)  # ingots no storage box scores
LEAD = (("Players", "players"), ("Strategy", "strategy"), ("Games", "games", count))

def pool_make_up(rows: pl.DataFrame) -> str:
    """How the strategies' games are made up, in words: the same deals or not, and whether a strategy ever faces
    itself."""
    per_deal = rows.group_by("players", "deal").agg(kinds=pl.col("strategy").n_unique())
    pools = rows.group_by("players").agg(pool=pl.col("strategy").n_unique())
    same = per_deal.join(pools, on="players").select((pl.col("kinds") == pl.col("pool")).all()).item()
    itself = rows.group_by(*GAME_KEY, "strategy").len()["len"].max() > 1
    return (f"every strategy plays {'the same deals' if same else 'partly different deals'}, against the others of "
            f"the pool{' and sometimes itself' if itself else ', never against itself'}")


def by_strategy(frame: pl.DataFrame, data: GameData, name: str, what: str) -> str:
    """' By strategy, banker keeps the most ingots at every player count; every strategy plays ...' where several
    strategies played, else ''."""
    if frame.filter(pl.col("strategy") != EVERYONE)["strategy"].n_unique() < 2:
        return ""
    return f" By strategy, {leader(frame, name, data.player_counts, what)}; {pool_make_up(data.rows)}."


def depending(counts: list[int]) -> str:
    """', depending on the player count' where there are several."""
    return ", depending on the player count" if len(counts) > 1 else ""


# ---------------------------------------------------------------- breakage and repair


def breakage_sentence(breakage: pl.DataFrame, data: GameData) -> str:
    """How much breaks and how much is mended, per player count; which strategy repairs most."""
    overall = breakage.filter(pl.col("strategy") == EVERYONE)
    counts = overall["players"].to_list()
    return (f"At {at_counts(counts)} {spread(overall['ended_broken'])} of kept items end the game broken and "
            f"{spread(overall['mended'])} of the items that broke are mended{depending(counts)}."
            + by_strategy(breakage, data, "repaired", "repairs the most per player"))


def items_caveat(_, data: GameData) -> list[str]:
    counted = {e: data.params(e, p).get("tie_items_count_broken") for e in data.rows["experiment"].unique().sort()
               for p in data.player_counts}
    off = sorted(e for e, on in counted.items() if on is False)
    items = ("`items` counts broken items too (tie_items_count_broken = true)" if not off else
             f"`items` counts broken items too, except in {listing(off)} (tie_items_count_broken = false), where the "
             "share is of unbroken items instead")
    return [f"{data.title}: for 'kept items that end broken', {items}."]


BREAKAGE = Metrics(
    "Breakage and repair", (
        Measure("broken", "Broken at end", BROKEN),
        Measure("repaired", "Repairs per player", REPAIRED, metric="repairs_per_player"),
        Measure("ended_broken", "Kept items ending broken", BROKEN, ITEMS, metric="kept_items_broken_share",
                share=True),
        Measure("mended", "Breakages mended", REPAIRED, REPAIRED + BROKEN, metric="breakages_mended_share",
                share=True)),
    breakage_sentence, overall=True, stated=("ended_broken", "mended", "repaired"), lead=LEAD,
    caption="Breakage and repair by player count and strategy ('all' = every player; 95% cluster-robust intervals "
            "over deals)",
    charted=("ended_broken", "mended"), file="breakage", leading_only=True,
    chart_title="breakage and repair (95% cluster-robust intervals)",
    chart_caption="Per strategy and player count: the share of kept items that are broken at the end of the game, "
                  "and the share of the items that broke which were repaired; 'all' is every player.",
    caveats=items_caveat,
    intro="Items are the cards kept in a collection (trays and boxes included; they never break). After each round's "
          "draft, the card left over and the top card of the deck each break every unbroken, never-repaired item of "
          "their type in every collection, so the items of one collection break together. An item 'ends broken' if "
          "it is broken and unrepaired at the end; of the items that broke, 'mended' is the share repaired (repaired "
          "items never break again). The intervals on these shares are clustered by deal, not by item.")


# ---------------------------------------------------------------- ingots


def with_box(data: GameData) -> pl.DataFrame:
    """The rows, with no box points where the results record none."""
    return data.rows if "points_box" in data.rows.columns else data.rows.with_columns(points_box=pl.lit(0))


def ingot_sentence(ingots: pl.DataFrame, data: GameData) -> str:
    """The ingots left at the end and how many of them no storage box scores, per player count; who keeps most."""
    overall = ingots.filter(pl.col("strategy") == EVERYONE)
    counts = overall["players"].to_list()
    return (f"A player ends the game holding {spread(overall['ingots'], num)} ingots on average at "
            f"{at_counts(counts)}{depending(counts)}; {spread(overall['idle_share'])} of those ingots are held by "
            "players with no scoring storage box, so they score nothing."
            + by_strategy(ingots, data, "ingots", "keeps the most ingots"))


INGOTS = Metrics(
    "Ingots", (
        Measure("ingots", "Ingots per player", INGOTS_HELD, metric="ingots_per_player"),
        Measure("idle", "Held with no scoring box", IDLE),
        Measure("idle_share", "Of them, held with no scoring box", IDLE, INGOTS_HELD,
                metric="ingots_without_box_share", share=True),
        Measure("box_share", "Players scoring a box", BOX > 0, metric="box_scoring_share", share=True),
        Measure("box_points", "Box points", BOX)),
    ingot_sentence, label="Ingots held at the end.", rows=with_box, overall=True,
    stated=("ingots", "idle_share", "box_share"), shown=("ingots", "idle", "box_share", "box_points"), lead=LEAD,
    caption="Ingots held at the end, and storage boxes ('all' = every player; 95% cluster-robust intervals over "
            "deals)",
    charted=("ingots", "idle"), file="ingots", leading_only=True, chart_title="ingots left at the end of the game",
    chart_caption="Mean ingots per player at the end of the game, and of them those held by a player who scores no "
                  "storage box (a box counts its owner's ingots, up to a cap), so they are worth nothing, with 95% "
                  "cluster-robust intervals; 'all' is every player.",
    intro="Ingots held at the end of the game are worth nothing, except through a storage box (each box scores its "
          "owner's ingots, up to a cap). A player 'scores a box' if the box points are above zero.")
