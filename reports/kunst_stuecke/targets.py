"""Kunst Stücke: which target tiles come true, by size and by the bonus of their score space.

The rows carry `targets_taken`, `targets_correct`, and for each of the five spaces of a player's score board
`space_sizes` (the size of the tile there, 6 meaning 6+, 0 if empty) and `space_correct`; the manifest's fact
`spaces` gives each space's bonus. The tiles of one deal share a board and plans: their shares are clustered by
deal (by match in match mode), so those tiles count together."""

import polars as pl
from matplotlib.ticker import PercentFormatter

from reports.analysis import Analysis, GameData, groups
from reports.charts import aligned, bars_with_ci, finished_chart, panels
from reports.fmt import by_phrase, count, listing, pct, pct_ci, spread
from reports.kunst_stuecke.common import CORRECT, SCORE, counts_phrase
from reports.render import Chart, Finding, Table, table
from reports.spec import Measure, measure_records, measure_table, measured

CLUSTERS = ("game_id", "deal", "match_id")  # the columns that name a cluster, where the rows have them
RATE = Measure("rate", "Correct", pl.col("correct"), metric="target_come_true_share", share=True)
PROFILE = (Measure("taken", "Tiles taken", pl.col("targets_taken")), CORRECT, SCORE)  # per player


def size_name(size: int) -> str:
    return "6+" if size == 6 else str(size)


def tiles(data: GameData) -> pl.DataFrame:
    """One row per target tile taken: experiment, players, strategy, the game and its cluster, `space` (0-based),
    its `bonus`, the tile's `size` (6 = 6+) and whether it came true (`correct`)."""
    keep = [c for c in CLUSTERS if c in data.rows.columns]
    rows = data.with_facts(data.rows.select("experiment", "players", "strategy", *keep, "space_sizes",
                                            "space_correct"), "spaces")
    return (rows.with_columns(space=pl.int_ranges(0, pl.col("space_sizes").list.len()))
            .explode("space", "space_sizes", "space_correct", "spaces")
            .rename({"space_sizes": "size", "space_correct": "correct", "spaces": "bonus"})
            .filter(pl.col("size") > 0))


def rates(taken: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Per group of `by` (players among them): the tiles taken (`n`) and the share that came true (`rate`) with its
    cluster-robust interval, the games and the method, in the groups' order."""
    return measured(taken, [RATE], by, everyone=False)


def targets(data: GameData) -> dict | None:
    taken = tiles(data)
    if taken.is_empty():
        return None
    return {"all": rates(taken, ["players"]), "size": rates(taken, ["players", "size"]),
            "bonus": rates(taken, ["players", "bonus"]), "profile": measured(data.rows, PROFILE)}


def target_intro(_, data: GameData) -> str:
    spaces = listing(str(b) for b in data.facts["spaces"][0])
    return ("Each player may take up to five target tiles, each onto its own space of the score board (bonuses "
            f"{spaces}). A tile comes true if at the end a block of exactly that many connected pieces of its colour "
            "lies on the board (6+: six or more), and then scores its number plus its space's bonus; otherwise it "
            "scores nothing. Rates are shares of tiles taken that came true, with cluster-robust intervals over "
            "deals; spaces with the same bonus are pooled.")


def size_leaders(by_size: pl.DataFrame, most: bool) -> str:
    """The size with the highest (most) or lowest rate, with every size whose interval reaches it: 'size 1' or
    'sizes 1 and 2 (not clearly apart)'."""
    top = by_size.sort("rate", "size", descending=[most, False]).row(0, named=True)
    near = (by_size.filter(pl.col("rate_hi") >= top["rate_lo"]) if most
            else by_size.filter(pl.col("rate_lo") <= top["rate_hi"]))
    names = [size_name(s) for s in near.sort("size")["size"]]
    return f"size {names[0]}" if len(names) == 1 else f"sizes {listing(names)} (not clearly apart)"


def space_verdict(top: dict, bottom: dict) -> str:
    if top["rate_lo"] > bottom["rate_hi"]:
        return "more often"
    if top["rate_hi"] < bottom["rate_lo"]:
        return "less often"
    return "not clearly more or less often"


def target_finding(result: dict, data: GameData) -> Finding:
    """Which sizes come true most and least often, and how tiles on the biggest bonus fare against the smallest,
    at each player count; the rates in a table with a column per player count."""
    counts = data.player_counts
    by_size = {key["players"]: group for key, group in groups(result["size"], ["players"])}
    text = (f"All strategies together, {spread(result['all']['rate'].to_list())} of target tiles come true"
            f"{counts_phrase(data)}. Most often true: "
            f"{by_phrase({p: size_leaders(g, True) for p, g in by_size.items()}, counts)}; least often: "
            f"{by_phrase({p: size_leaders(g, False) for p, g in by_size.items()}, counts)}.")
    bonus = result["bonus"]
    if bonus["bonus"].n_unique() > 1:
        high, low = bonus["bonus"].max(), bonus["bonus"].min()
        verdicts = {key["players"]: space_verdict(group.filter(pl.col("bonus") == high).row(0, named=True),
                                                  group.filter(pl.col("bonus") == low).row(0, named=True))
                    for key, group in groups(bonus, ["players"])}
        text += (f" Against tiles on a {low}-point space, tiles on the {high}-point space come true "
                 f"{by_phrase(verdicts, counts)}.")
    numbers = [n for name in ("all", "size", "bonus") for n in measure_records(
        data, result[name], [RATE], **({} if name == "all" else {name: name}), tiles="n")]
    return Finding("Target tiles.", text, target_table(result, counts), tuple(numbers))


def target_table(result: dict, counts: list[int]) -> Table:
    """Rows: every tile, each size, each bonus; a column per player count with the rate and its interval."""
    labelled_rows = [("all", result["all"]), *((f"size {size_name(s)}", g) for (s,), g in
                                               sorted(result["size"].partition_by("size", as_dict=True).items())),
                     *((f"bonus {b}", g) for (b,), g in
                       sorted(result["bonus"].partition_by("bonus", as_dict=True).items()))]
    rows = [{"target": label, **{r["players"]: r for r in group.iter_rows(named=True)}} for label, group in
            labelled_rows]

    def cell(r: dict | None) -> str:
        return "–" if r is None else f"{pct(r['rate'])} ({pct_ci(r['rate_lo'], r['rate_hi'])})"

    return table("", rows, ("Tiles", "target"), *((f"{p} players", lambda r, p=p: r.get(p), cell) for p in counts))


def target_tables(result: dict, _) -> list[Table]:
    taken = ("Tiles taken", "n", count)
    return [
        measure_table("Target tiles correct by size and player count", result["size"], [RATE],
                      ("Players", "players"), ("Size", "size", size_name), taken),
        measure_table("Target tiles correct by the bonus of their space and player count", result["bonus"], [RATE],
                      ("Players", "players"), ("Bonus", "bonus"), taken),
        measure_table("Target tiles per player by player count and strategy ('all' = every player; means and the "
                      "share correct with 95% cluster-robust intervals)", result["profile"], PROFILE,
                      ("Players", "players"), ("Strategy", "strategy"), ("Player results", "n", count)),
    ]


def target_chart(result: dict, data: GameData) -> Chart:
    """Two panels: the share of tiles correct by size and by bonus, one bar per player count."""
    fig, axes = panels(2, 11.0, 4.6, sharey=True)
    for ax, (column, frame, xlabel) in zip(axes, [("size", result["size"], "Size of the target (6+: six or more)"),
                                                  ("bonus", result["bonus"], "Bonus of the space")]):
        values = sorted(frame[column].unique().to_list(), reverse=column == "bonus")
        labels = [size_name(v) if column == "size" else f"+{v}" for v in values]
        bars = {}
        for players in data.player_counts:
            panel = aligned(frame.filter(pl.col("players") == players), column, values)
            bars[f"{players} players"] = (panel["rate"], panel["rate_lo"], panel["rate_hi"])
        bars_with_ci(ax, labels, bars)
        ax.set(xlabel=xlabel, ylim=(0, 1.02))
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    axes[0].set(ylabel="Target tiles that came true", title="By size")
    axes[1].set_title("By score space")
    return finished_chart(fig, axes[0], f"{data.title}: target tiles that come true (95% cluster-robust "
                                        "intervals)", data.out_dir, f"{data.slug}_targets.png",
                          "The share of target tiles taken that came true, by the tile's size (left) and by the bonus "
                          "of the space it was placed on (right; spaces with the same bonus pooled), one bar per "
                          "player count.")


TARGETS = Analysis("Target tiles by size and score space", targets, intro=target_intro, chart=target_chart,
                   tables=target_tables, finding=target_finding, absent="No player took a target tile.",
                   leading_only=True)
