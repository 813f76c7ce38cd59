"""What is left in a collection at the end: breakage and repair, and ingots beside storage boxes.

Rows carry `ingots` (held at the end), `repaired` (repaired items), `broken` (broken items at the end), `items`
(items in the collection, broken ones counted) and `points_box`. Every measure is clustered by deal (spec.measured),
per player count and strategy ('all' = every player)."""

import polars as pl

from reports.analysis import GAME_KEY, Analysis, GameData
from reports.fmt import at_counts, count, listing, num, spread
from reports.render import Chart, Finding
from reports.spec import EVERYONE, Measure, leader, measure_chart, measure_records, measure_table, measured

BROKEN, REPAIRED, ITEMS, INGOTS = pl.col("broken"), pl.col("repaired"), pl.col("items"), pl.col("ingots")
BOX = pl.col("points_box")
IDLE = pl.when(BOX > 0).then(0).otherwise(INGOTS)  # ingots no storage box scores

BREAKAGE = {m.name: m for m in (
    Measure("broken", "Broken at end", BROKEN),
    Measure("repaired", "Repairs per player", REPAIRED, metric="repairs_per_player"),
    Measure("ended_broken", "Kept items ending broken", BROKEN, ITEMS, metric="kept_items_broken_share", share=True),
    Measure("mended", "Breakages mended", REPAIRED, REPAIRED + BROKEN, metric="breakages_mended_share",
            share=True))}
INGOT_MEASURES = {m.name: m for m in (
    Measure("ingots", "Ingots per player", INGOTS, metric="ingots_per_player"),
    Measure("idle", "Held with no scoring box", IDLE),
    Measure("idle_share", "Of them, held with no scoring box", IDLE, INGOTS, metric="ingots_without_box_share",
            share=True),
    Measure("box_share", "Players scoring a box", BOX > 0, metric="box_scoring_share", share=True),
    Measure("box_points", "Box points", BOX))}
LEAD = (("Players", "players"), ("Strategy", "strategy"), ("Games", "games", count))


def pick(measures: dict[str, Measure], *names: str) -> list[Measure]:
    return [measures[name] for name in names]


def per_strategy(rows: pl.DataFrame, measures: dict[str, Measure]) -> pl.DataFrame:
    """spec.measured, every player ('all') first at each player count, then the strategies by name."""
    return measured(rows, list(measures.values()))


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


def overall_finding(label: str, text: str, frame: pl.DataFrame, data: GameData, shown: list[Measure]) -> Finding:
    """A finding on every player together at each player count: its table and the records of its measures."""
    overall = frame.filter(pl.col("strategy") == EVERYONE)
    numbers = [r for m in shown for r in measure_records(data, overall, [m])]
    return Finding(label, text, measure_table("", overall, shown, ("Players", "players")), tuple(numbers))


def depending(counts: list[int]) -> str:
    """', depending on the player count' where there are several."""
    return ", depending on the player count" if len(counts) > 1 else ""


# ---------------------------------------------------------------- breakage and repair


def breakage_finding(breakage: pl.DataFrame, data: GameData) -> Finding:
    """How much breaks and how much is mended, per player count; which strategy repairs most."""
    overall = breakage.filter(pl.col("strategy") == EVERYONE)
    counts = overall["players"].to_list()
    text = (f"At {at_counts(counts)} {spread(overall['ended_broken'])} of kept items end the game broken and "
            f"{spread(overall['mended'])} of the items that broke are mended{depending(counts)}."
            + by_strategy(breakage, data, "repaired", "repairs the most per player"))
    return overall_finding("Breakage and repair.", text, breakage, data,
                           pick(BREAKAGE, "ended_broken", "mended", "repaired"))


def breakage_chart(breakage: pl.DataFrame, data: GameData) -> Chart:
    return measure_chart(data, breakage, pick(BREAKAGE, "ended_broken", "mended"), "breakage",
                         "breakage and repair (95% cluster-robust intervals)",
                         "Per strategy and player count: the share of kept items that are broken at the end of the "
                         "game, and the share of the items that broke which were repaired; 'all' is every player.")


def items_caveat(_, data: GameData) -> list[str]:
    counted = {e: data.params(e, p).get("tie_items_count_broken") for e in data.rows["experiment"].unique().sort()
               for p in data.player_counts}
    off = sorted(e for e, on in counted.items() if on is False)
    items = ("`items` counts broken items too (tie_items_count_broken = true)" if not off else
             f"`items` counts broken items too, except in {listing(off)} (tie_items_count_broken = false), where the "
             "share is of unbroken items instead")
    return [f"{data.title}: for 'kept items that end broken', {items}."]


BREAKAGE_ANALYSIS = Analysis(
    "Breakage and repair", lambda data: per_strategy(data.rows, BREAKAGE), chart=breakage_chart,
    tables=lambda breakage, _: [measure_table(
        "Breakage and repair by player count and strategy ('all' = every player; 95% cluster-robust intervals over "
        "deals)", breakage, list(BREAKAGE.values()), *LEAD)],
    finding=breakage_finding, caveats=items_caveat, leading_only=True,
    intro="Items are the cards kept in a collection (trays and boxes included; they never break). After each round's "
          "draft, the card left over and the top card of the deck each break every unbroken, never-repaired item of "
          "their type in every collection, so the items of one collection break together. An item 'ends broken' if "
          "it is broken and unrepaired at the end; of the items that broke, 'mended' is the share repaired (repaired "
          "items never break again). The intervals on these shares are clustered by deal, not by item.")


# ---------------------------------------------------------------- ingots


def ingot_flow(data: GameData) -> pl.DataFrame:
    """Per player count and strategy: ingots held at the end, those held with no scoring storage box (per player,
    and as a share of the ingots), the share of players scoring a box and their box points."""
    rows = data.rows if "points_box" in data.rows.columns else data.rows.with_columns(points_box=pl.lit(0))
    return per_strategy(rows, INGOT_MEASURES)


def ingot_finding(ingots: pl.DataFrame, data: GameData) -> Finding:
    """The ingots left at the end and how many of them no storage box scores, per player count; who keeps most."""
    overall = ingots.filter(pl.col("strategy") == EVERYONE)
    counts = overall["players"].to_list()
    text = (f"A player ends the game holding {spread(overall['ingots'], num)} ingots on average at "
            f"{at_counts(counts)}{depending(counts)}; {spread(overall['idle_share'])} of those ingots are held by "
            "players with no scoring storage box, so they score nothing."
            + by_strategy(ingots, data, "ingots", "keeps the most ingots"))
    return overall_finding("Ingots held at the end.", text, ingots, data,
                           pick(INGOT_MEASURES, "ingots", "idle_share", "box_share"))


def ingot_chart(ingots: pl.DataFrame, data: GameData) -> Chart:
    return measure_chart(data, ingots, pick(INGOT_MEASURES, "ingots", "idle"), "ingots",
                         "ingots left at the end of the game",
                         "Mean ingots per player at the end of the game, and of them those held by a player who "
                         "scores no storage box (a box counts its owner's ingots, up to a cap), so they are worth "
                         "nothing, with 95% cluster-robust intervals; 'all' is every player.")


INGOTS_ANALYSIS = Analysis(
    "Ingots", ingot_flow, chart=ingot_chart, finding=ingot_finding, leading_only=True,
    tables=lambda ingots, _: [measure_table(
        "Ingots held at the end, and storage boxes ('all' = every player; 95% cluster-robust intervals over deals)",
        ingots, pick(INGOT_MEASURES, "ingots", "idle", "box_share", "box_points"), *LEAD)],
    intro="Ingots held at the end of the game are worth nothing, except through a storage box (each box scores its "
          "owner's ingots, up to a cap). A player 'scores a box' if the box points are above zero.")
