"""Kunst Stücke's own analyses: which target tiles come true (by size and by score space), what chips (slides) are
worth, when to take the first look at the target tiles, and discards.

Kunst Stücke rows carry `targets_taken`, `targets_correct`, `target_points` (the score), `chips_left`, `discards`,
`first_look` (the turn of the seat's first look, 0-based over every player's turns; -1 if it never looked),
`aimed_sizes` (its tiles' sizes in space order, 6 meaning 6+), and for each of the five spaces of its score board
`space_sizes` (the size of the tile there, 0 if empty) and `space_correct`. The manifest's facts give `pieces_each`
(a game lasts players × pieces_each turns), `chips` (each player's at the start) and `spaces` (each space's bonus).
A chips sweep is a set of experiments with the same strategies that differ in `chips`.
"""

import numpy as np
import polars as pl
from matplotlib.ticker import PercentFormatter

from reports.analysis import Analysis, GameData, groups, mean_ci, with_all
from reports.charts import aligned, bars_with_ci, finished_chart, palette, panels, save_chart
from reports.fmt import count, listing, num, pct, pct_ci, spread
from reports.render import Chart, Finding, est, share_ci, table
from reports.stats import ratio_ci, wilson, with_wilson

SECTION = "target tiles, chips, first looks and discards"
SPENT_LIMITS = (0, 1, 2, 4, 7, 10)  # the largest number of chips spent in each bucket but the last
SPENT_LABELS = ("0", "1", "2", "3–4", "5–7", "8–10", "11+")
LOOK_STARTS = (0.1, 0.25, 0.5, 0.75)  # where the first-look buckets after the first begin, as a share of the game
LOOK_LABELS = ("never", "first 10%", "10–25%", "25–50%", "50–75%", "last 25%")
LOOK_PHRASES = ("never", "in the first 10% of the game", "10–25% of the way through", "25–50% of the way through",
                "50–75% of the way through", "in the last 25% of the game")
FEW_PLAYERS = 100  # groups smaller than this are shown in tables but not compared in findings
SWEEP = "kunst_stuecke_chips0, kunst_stuecke_chips5, kunst_stuecke_chips10 and kunst_stuecke_chips15"


def size_name(size: int) -> str:
    return "6+" if size == 6 else str(size)


def times(x: float) -> str:
    """A multiple of the fair share: '1.23×'."""
    return f"{x:.2f}×"


def comparable(groups: pl.DataFrame) -> pl.DataFrame:
    """The groups (rows with `n` players) large enough to compare, or all of them if none is: a handful of
    players gives a bootstrap interval of no width, not a finding."""
    large = groups.filter(pl.col("n") >= FEW_PLAYERS)
    return large if large.height else groups


def share(name: str, successes: float, n: int) -> dict:
    """{name_n, name, name_lo, name_hi}: a proportion with its Wilson interval (None when n is 0)."""
    lo, hi = wilson(successes, n) if n else (None, None)
    return {f"{name}_n": n, name: successes / n if n else None, f"{name}_lo": lo, f"{name}_hi": hi}


def standing(group: pl.DataFrame) -> dict:
    """Player results' win share (Wilson), its ratio to the fair share 1/P (bootstrap over players, so player
    counts pool) and the share of their target tiles that came true (Wilson)."""
    wins, fair = group["win"].to_numpy().astype(float), 1 / group["players"].to_numpy().astype(float)
    lo, hi = ratio_ci(wins, fair)
    return {"n": group.height, **share("win", wins.sum(), group.height), "vs_fair": wins.sum() / fair.sum(),
            "vs_fair_lo": lo, "vs_fair_hi": hi,
            **share("correct", int(group["targets_correct"].sum()), int(group["targets_taken"].sum()))}


STANDING = [("Player results", "n", count), *share_ci("Win share", "win", "win_lo", "win_hi"),  # standing()'s columns
            *est("Win share × fair", "vs_fair", times),
            *share_ci("Tiles correct", "correct", "correct_lo", "correct_hi")]


def bucket_chart(frame: pl.DataFrame, labels: list[str], data: GameData, file: str, xlabel: str, title: str,
                 caption: str) -> Chart:
    """Per player count a panel of bars over buckets: win share and the share of tiles correct (Wilson), with
    the fair share 1/P dashed."""
    counts = data.player_counts
    fig, axes = panels(len(counts), max(7.0, 3.6 * len(counts) + 1.2), 4.4, sharey=True)
    for ax, players in zip(axes, counts):
        panel = aligned(frame.filter(pl.col("players") == players), "bucket", labels)
        bars_with_ci(ax, labels, {"win share": (panel["win"], panel["win_lo"], panel["win_hi"]),
                                  "target tiles correct": (panel["correct"], panel["correct_lo"],
                                                           panel["correct_hi"])})
        ax.axhline(1 / players, color="#555", linestyle="--", linewidth=1.2, label="fair share 1/P")
        ax.set(title=f"{players} players", xlabel=xlabel, ylim=(0, 1.02))
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    return finished_chart(fig, axes[0], f"{data.title}: {title} (95% Wilson intervals)",
                          data.out_dir, f"{data.slug}_{file}.png", caption)


# ---------------------------------------------------------------- target tiles


def tiles(data: GameData) -> pl.DataFrame:
    """One row per target tile taken: experiment, players, strategy, `space` (0-based), its `bonus`, the tile's
    `size` (6 = 6+) and whether it came true (`correct`)."""
    rows = data.with_facts(data.rows.select("experiment", "players", "strategy", "space_sizes", "space_correct"),
                           "spaces")
    return (rows.with_columns(space=pl.int_ranges(0, pl.col("space_sizes").list.len()))
            .explode("space", "space_sizes", "space_correct", "spaces")
            .rename({"space_sizes": "size", "space_correct": "correct", "spaces": "bonus"})
            .filter(pl.col("size") > 0))


def correct_rates(tiles: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Per group: tiles taken, tiles correct and the share correct (Wilson), in the groups' order."""
    rates = (tiles.group_by(by).agg(tiles=pl.len(), right=pl.col("correct").sum()).sort(by)
             .with_columns(rate=pl.col("right") / pl.col("tiles")))
    return with_wilson(rates, "right", "tiles")


def target_profile(rows: pl.DataFrame) -> pl.DataFrame:
    """Per player count and strategy ('all' = every player): tiles taken and score (bootstrap means), and the
    share of tiles correct (Wilson)."""
    out = []
    for key, group in with_all(rows):
        out.append({**key, "n": group.height, **mean_ci(group["targets_taken"].to_numpy(), "taken"),
                    **share("correct", int(group["targets_correct"].sum()), int(group["targets_taken"].sum())),
                    **mean_ci(group["score"].to_numpy(), "score")})
    return pl.DataFrame(out)


def targets(data: GameData) -> dict | None:
    taken = tiles(data)
    if taken.is_empty():
        return None
    return {"size": correct_rates(taken, ["players", "size"]), "size_all": correct_rates(taken, ["size"]),
            "bonus": correct_rates(taken, ["players", "bonus"]), "bonus_all": correct_rates(taken, ["bonus"]),
            "all": correct_rates(taken, []), "profile": target_profile(data.rows)}


def target_intro(_, data: GameData) -> str:
    spaces = listing(str(b) for b in data.facts["spaces"][0])
    return ("Each player may take up to five target tiles, each onto its own space of the score board (bonuses "
            f"{spaces}). A tile comes true if at the end a block of exactly that many connected pieces of its colour "
            "lies on the board (6+: six or more), and then scores its number plus its space's bonus; otherwise it "
            "scores nothing. Rates are shares of tiles taken that came true (Wilson intervals); spaces with the "
            "same bonus are pooled.")


def space_verdict(top: dict, bottom: dict) -> str:
    if top["lo"] > bottom["hi"]:
        return "players keep their surest targets for the biggest bonus"
    if top["hi"] < bottom["lo"]:
        return "the biggest bonus holds riskier targets than the smallest"
    return "where a tile goes makes no clear difference to whether it comes true"


def target_finding(result: dict, _) -> Finding:
    """Which sizes come true most and least often, and whether the biggest bonus holds the surest targets."""
    sizes, bonus, overall = result["size_all"], result["bonus_all"], result["all"].row(0, named=True)
    best, worst = (sizes.sort("rate", "size", descending=[d, False]).row(0, named=True) for d in (True, False))
    text = (f"{pct(overall['rate'])} of target tiles come true; the surest are size {size_name(best['size'])} "
            f"({pct(best['rate'])}) and the least sure size {size_name(worst['size'])} ({pct(worst['rate'])}).")
    if bonus.height > 1:
        top, bottom = bonus.row(-1, named=True), bonus.row(0, named=True)
        text += (f" Tiles with a {top['bonus']}-point bonus come true in {pct(top['rate'])} of cases, against "
                 f"{pct(bottom['rate'])} with a {bottom['bonus']}-point bonus: {space_verdict(top, bottom)}.")
    records = [{"target": f"size {size_name(r['size'])}", **r} for r in sizes.iter_rows(named=True)]
    records += [{"target": f"bonus {r['bonus']}", **r} for r in bonus.iter_rows(named=True)]
    return Finding("Target tiles.", text, table("", records, ("Tiles", "target"), ("Taken", "tiles", count),
                                                *share_ci("Correct", "rate")))


def target_tables(result: dict, _) -> list:
    return [
        table("Target tiles correct by size and player count", result["size"], ("Players", "players"),
              ("Size", "size", size_name), ("Tiles taken", "tiles", count), *share_ci("Correct", "rate")),
        table("Target tiles correct by the bonus of their space and player count", result["bonus"],
              ("Players", "players"), ("Bonus", "bonus"), ("Tiles taken", "tiles", count),
              *share_ci("Correct", "rate")),
        table("Target tiles per player by player count and strategy ('all' = every player; means with 95% bootstrap "
              "intervals)", result["profile"], ("Players", "players"), ("Strategy", "strategy"),
              ("Player results", "n", count), *est("Tiles taken", "taken"),
              *share_ci("Correct", "correct", "correct_lo", "correct_hi"), *est("Score", "score")),
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
            bars[f"{players} players"] = (panel["rate"], panel["lo"], panel["hi"])
        bars_with_ci(ax, labels, bars)
        ax.set(xlabel=xlabel, ylim=(0, 1.02))
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    axes[0].set(ylabel="Target tiles that came true", title="By size")
    axes[1].set_title("By score space")
    return finished_chart(fig, axes[0], f"{data.title}: target tiles that come true (95% Wilson intervals)",
                          data.out_dir, f"{data.slug}_targets.png",
                          "The share of target tiles taken that came true, by the tile's size (left) and by the bonus "
                          "of the space it was placed on (right; spaces with the same bonus pooled), one bar per "
                          "player count.")


# ---------------------------------------------------------------- chips spent


def with_spent(data: GameData) -> pl.DataFrame:
    """rows plus `spent` (chips at the start, as the manifest records them, minus chips left) and `bucket`."""
    spent = pl.col("chips").cast(pl.Int64) - pl.col("chips_left").cast(pl.Int64)
    index = pl.sum_horizontal(*(pl.col("spent") > limit for limit in SPENT_LIMITS))
    return (data.with_facts(data.rows, "chips").with_columns(spent=spent)
            .with_columns(bucket_index=index.cast(pl.Int64)).with_columns(bucket=labelled(SPENT_LABELS)))


def labelled(labels: tuple[str, ...]) -> pl.Expr:
    """The label of each row's `bucket_index`."""
    return pl.col("bucket_index").replace_strict(list(range(len(labels))), list(labels), return_dtype=pl.String)


def by_bucket(rows: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """standing() per group of `by` and bucket, in bucket order."""
    return pl.DataFrame([{**key, **standing(group)} for key, group in groups(rows, [*by, "bucket_index", "bucket"])])


def spending(data: GameData) -> dict:
    rows = with_spent(data)
    return {"by_count": by_bucket(rows, ["players"]), "pooled": by_bucket(rows, []),
            "by_strategy": pl.DataFrame([{**key, "chips": ", ".join(map(str, sorted(group["chips"].unique()))),
                                          **mean_ci(group["spent"].to_numpy(), "spent")}
                                         for key, group in with_all(rows)])}


def spending_finding(result: dict, _) -> Finding:
    """Win share of the players who spend fewest and most chips, pooled over player counts."""
    pooled = result["pooled"]
    compared = comparable(pooled)
    low, high = compared.row(0, named=True), compared.row(-1, named=True)
    if compared.height == 1:
        text = f"Every player spent {low['bucket']} chips, so spending cannot be set against winning here."
    else:
        verdict = ("spending more goes with winning more" if high["vs_fair_lo"] > low["vs_fair_hi"] else
                   "spending more goes with winning less" if high["vs_fair_hi"] < low["vs_fair_lo"] else
                   "the difference is within the noise")
        text = (f"Players who spend {low['bucket']} chips win {times(low['vs_fair'])} their fair share and those who "
                f"spend {high['bucket']} win {times(high['vs_fair'])}: {verdict}.")
    return Finding("Chips.", text, table("", pooled, ("Chips spent", "bucket"), ("Player results", "n", count),
                                         *est("Win share × fair", "vs_fair", times)))


def spending_tables(result: dict, _) -> list:
    return [
        table("Win share and target tiles correct by chips spent (player counts pooled; × fair is the win share "
              "over 1/P, bootstrap)", result["pooled"], ("Chips spent", "bucket"), *STANDING),
        table("Win share and target tiles correct by chips spent and player count", result["by_count"],
              ("Players", "players"), ("Chips spent", "bucket"), *STANDING),
        table("Chips spent per player by player count and strategy ('all' = every player; 95% bootstrap intervals)",
              result["by_strategy"], ("Players", "players"), ("Strategy", "strategy"),
              ("Chips at the start", "chips"), *est("Chips spent", "spent")),
    ]


def spending_chart(result: dict, data: GameData) -> Chart:
    return bucket_chart(result["by_count"], result["pooled"]["bucket"].to_list(), data, "chips_spent",
                        "Chips spent", "chips spent against winning",
                        "Per player count, by the chips a player spent (one per piece slid): the players' win share "
                        "and the share of their target tiles that came true; the dashed line is the fair share 1/P.")


SPENDING_INTRO = (
    "Sliding a piece costs a chip. Players are grouped by the chips they spent (the chips they started with, as the "
    "manifest records, minus those left). Win shares per player count carry Wilson intervals; '× fair' is the win "
    "share over the fair share 1/P, pooled over player counts (bootstrap). Who spends is up to the strategy, so this "
    "describes how spenders fare, not what a chip is worth: the chips sweep, where the experiments that differ only "
    "in chips are compared, measures that.")


# ---------------------------------------------------------------- the chips sweep


def sweep_experiments(data: GameData) -> list[str]:
    """The largest set of experiments with the same strategies that start with different chips, by chips ([] if
    none)."""
    if "chips" not in data.facts.columns:
        return []
    pools = data.rows.group_by("experiment").agg(pool=pl.col("strategy").unique().sort().str.join(", "))
    sets = (pools.join(data.facts.select("experiment", "chips").unique(), on="experiment").group_by("pool")
            .agg(experiments=pl.col("experiment").sort_by("chips", "experiment"), values=pl.col("chips").n_unique())
            .filter(pl.col("values") > 1)
            .sort(pl.col("experiments").list.len(), "pool", descending=[True, False]))
    return sets["experiments"][0].to_list() if sets.height else []


def by_chips(rows: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Per chips each, group of `by` and strategy ('all' = every player): standing(), chips spent and score
    (bootstrap means)."""
    everyone = rows.with_columns(strategy=pl.lit("all"))
    keyed = [*groups(everyone, ["chips", *by, "strategy"]), *groups(rows, ["chips", *by, "strategy"])]
    return pl.DataFrame([{**key, **standing(group), **mean_ci(group["spent"].to_numpy(), "spent"),
                          **mean_ci(group["score"].to_numpy(), "score")} for key, group in keyed])


def sweep(data: GameData) -> dict | None:
    experiments = sweep_experiments(data)
    if not experiments:
        return None
    rows = with_spent(data).filter(pl.col("experiment").is_in(experiments))
    return {"experiments": experiments, "by_count": by_chips(rows, ["players"]), "pooled": by_chips(rows, [])}


def sweep_intro(result: dict, _) -> str:
    return (f"The chips sweep ({listing(result['experiments'])}) plays the same strategies with different numbers of "
            "chips each, so the difference between its experiments is what chips are worth. Win shares per player "
            "count carry Wilson intervals; '× fair' pools player counts (bootstrap).")


def sweep_finding(result: dict, _) -> Finding:
    """How scores and tile success change from the fewest to the most chips, and which strategy gains most."""
    pooled = result["pooled"]
    everyone = pooled.filter(pl.col("strategy") == "all").sort("chips")
    few, many = everyone.row(0, named=True), everyone.row(-1, named=True)
    text = (f"With {few['chips']} chips each, players score {num(few['score'], 1)} points on average and "
            f"{pct(few['correct'])} of their tiles come true; with {many['chips']} chips, {num(many['score'], 1)} "
            f"points and {pct(many['correct'])}.")
    strategies = pooled.filter(pl.col("strategy") != "all")
    if strategies["strategy"].n_unique() > 1:
        ends = strategies.filter(pl.col("chips").is_in([few["chips"], many["chips"]])).sort("strategy", "chips")
        gains = (ends.group_by("strategy", maintain_order=True)
                 .agg(pl.col("vs_fair").first().alias("few"), pl.col("vs_fair").last().alias("many"))
                 .with_columns(gain=pl.col("many") - pl.col("few")).sort("gain", "strategy", descending=[True, False]))
        top, bottom = gains.row(0, named=True), gains.row(-1, named=True)
        text += (f" Of the strategies, {top['strategy']} gains most from more chips ({times(top['few'])} to "
                 f"{times(top['many'])} its fair share) and {bottom['strategy']} "
                 f"{'loses most' if bottom['gain'] < 0 else 'least'} ({times(bottom['few'])} to "
                 f"{times(bottom['many'])}).")
    return Finding("Chips sweep.", text, table("", strategies.sort("strategy", "chips"), ("Strategy", "strategy"),
                                               ("Chips", "chips"), *est("Win share × fair", "vs_fair", times)))


def sweep_tables(result: dict, _) -> list:
    return [table("The chips sweep by chips each, player count and strategy ('all' = every player)",
                  result["by_count"].sort("chips", "players", pl.col("strategy") != "all", "strategy"),
                  ("Chips each", "chips"), ("Players", "players"), ("Strategy", "strategy"), *STANDING,
                  *est("Chips spent", "spent"), *est("Score", "score"))]


def sweep_chart(result: dict, data: GameData) -> Chart:
    """Per player count, each strategy's win share against the chips each player starts with."""
    frame = result["by_count"].filter(pl.col("strategy") != "all")
    counts, order = frame["players"].unique().sort().to_list(), [s for s in data.order if s in frame["strategy"]]
    fig, axes = panels(len(counts), max(7.0, 3.6 * len(counts) + 1.2), 4.4, sharey=True)
    for ax, players in zip(axes, counts):
        for colour, strategy in zip(palette(len(order)), order):
            line = frame.filter((pl.col("players") == players) & (pl.col("strategy") == strategy)).sort("chips")
            win, lo, hi = (line[c].to_numpy().astype(float) for c in ("win", "win_lo", "win_hi"))
            ax.errorbar(line["chips"].to_numpy(), win, yerr=[win - lo, hi - win], color=colour, marker="o",
                        capsize=3, label=strategy)
        ax.axhline(1 / players, color="#555", linestyle="--", linewidth=1.2, label="fair share 1/P")
        ax.set(title=f"{players} players", xlabel="Chips each at the start", ylim=(0, 1.02),
               xticks=frame["chips"].unique().sort().to_list())
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    return finished_chart(fig, axes[0], f"{data.title}: win share against chips each (95% Wilson intervals)",
                          data.out_dir, f"{data.slug}_chips_sweep.png",
                          "The chips sweep: each strategy's win share against the chips every player starts with, one "
                          "panel per player count; the dashed line is the fair share 1/P.")


# ---------------------------------------------------------------- first looks


def with_look_timing(data: GameData) -> pl.DataFrame:
    """rows plus `look_share` (the first look's turn over the game's turns, players × pieces_each; null if never)
    and its `bucket`."""
    turn = pl.col("first_look")
    look_share = turn / (pl.col("players").cast(pl.Float64) * pl.col("pieces_each"))
    index = pl.when(turn < 0).then(0).otherwise(1 + pl.sum_horizontal(*(look_share >= s for s in LOOK_STARTS)))
    return (data.with_facts(data.rows, "pieces_each")
            .with_columns(look_share=pl.when(turn >= 0).then(look_share), bucket_index=index.cast(pl.Int64))
            .with_columns(bucket=labelled(LOOK_LABELS)))


def look_profile(rows: pl.DataFrame) -> pl.DataFrame:
    """Per player count and strategy ('all' = every player): the share that never looked (Wilson) and, of those
    that did, the first look's mean share of the game (bootstrap)."""
    out = []
    for key, group in with_all(rows):
        looked = group["look_share"].drop_nulls().to_numpy()
        out.append({**key, **share("never", group.height - looked.size, group.height), **mean_ci(looked, "when")})
    return pl.DataFrame(out)


def looks(data: GameData) -> dict | None:
    rows = with_look_timing(data)
    if rows["look_share"].null_count() == rows.height:
        return None
    return {"by_count": by_bucket(rows, ["players"]), "pooled": by_bucket(rows, []), "profile": look_profile(rows)}


LOOK_INTRO = (
    "A look takes a target tile from a stack. An early look chooses among more tiles but knows little of the board; a "
    "late one sees the board take shape. Players are grouped by the turn of their first look as a share of the game "
    "(players × pieces each turns, every player's turns counted). Tile success and win share carry Wilson intervals; "
    "'× fair' is the win share over 1/P, pooled over player counts (bootstrap). Players who never look take no tile "
    "and score nothing.")


def look_finding(result: dict, _) -> Finding:
    """Tile success and win share of the earliest against the latest first looks, pooled over player counts."""
    looked = comparable(result["pooled"].filter(pl.col("bucket_index") > 0))
    early, late = looked.row(0, named=True), looked.row(-1, named=True)
    text = (f"Players who first look {LOOK_PHRASES[early['bucket_index']]} get {pct(early['correct'])} of their tiles "
            f"right and win {times(early['vs_fair'])} their fair share")
    if looked.height > 1:
        verdict = ("an early look pays" if early["vs_fair_lo"] > late["vs_fair_hi"] else
                   "an early look costs" if early["vs_fair_hi"] < late["vs_fair_lo"] else
                   "the timing makes no clear difference to winning")
        text += (f"; those who first look {LOOK_PHRASES[late['bucket_index']]} get {pct(late['correct'])} right and "
                 f"win {times(late['vs_fair'])}: {verdict}")
    return Finding("First looks.", text + ".", table(
        "", result["pooled"], ("First look", "bucket"), ("Player results", "n", count),
        *share_ci("Tiles correct", "correct", "correct_lo", "correct_hi"), *est("Win share × fair", "vs_fair", times)))


def look_tables(result: dict, _) -> list:
    return [
        table("Target tiles correct and win share by the timing of the first look (player counts pooled)",
              result["pooled"], ("First look", "bucket"), *STANDING),
        table("Target tiles correct and win share by the timing of the first look and player count",
              result["by_count"], ("Players", "players"), ("First look", "bucket"), *STANDING),
        table("When strategies first look, by player count ('all' = every player; the mean is over players who "
              "looked, with a 95% bootstrap interval)", result["profile"], ("Players", "players"),
              ("Strategy", "strategy"), ("Player results", "never_n", count),
              *share_ci("Never looked", "never", "never_lo", "never_hi"),
              *est("First look (share of the game)", "when", pct, pct_ci)),
    ]


def look_chart(result: dict, data: GameData) -> Chart:
    return bucket_chart(result["by_count"], result["pooled"]["bucket"].to_list(), data, "first_looks",
                        "First look (share of the game)", "the timing of the first look",
                        "Per player count, by when a player first looked at the target tiles (as a share of the "
                        "game's turns): the share of their target tiles that came true and their win share; the "
                        "dashed line is the fair share 1/P.")


# ---------------------------------------------------------------- discards


def discards(data: GameData) -> pl.DataFrame:
    """Per player count and strategy ('all' = every player): mean pieces discarded (bootstrap) and their share of
    the pieces each player is dealt."""
    out = []
    for key, group in with_all(data.rows):
        each = data.fact("pieces_each", key["players"])
        mean = mean_ci(group["discards"].to_numpy(), "discards")
        out.append({**key, "n": group.height, "pieces_each": each, **mean, "share": mean["discards"] / each})
    return pl.DataFrame(out)


def discard_finding(result: pl.DataFrame, _) -> Finding:
    """How many pieces players discard, and which strategy discards most and fewest."""
    overall = result.filter(pl.col("strategy") == "all").sort("players")
    text = (f"Players discard {spread(overall['discards'], num)} pieces each on average, {spread(overall['share'])} "
            "of their pieces, by player count.")
    strategies = result.filter(pl.col("strategy") != "all")
    if strategies["strategy"].n_unique() > 1:
        most = strategies.sort("share", "strategy", descending=[True, False]).row(0, named=True)
        fewest = strategies.sort("share", "strategy").row(0, named=True)
        text += (f" The largest share: {most['strategy']}, {num(most['discards'])} of {most['pieces_each']} pieces at "
                 f"{most['players']} players; the smallest: {fewest['strategy']}, {num(fewest['discards'])} of "
                 f"{fewest['pieces_each']} at {fewest['players']} players.")
    return Finding("Discards.", text, table("", overall, ("Players", "players"), ("Pieces each", "pieces_each"),
                                            *est("Discarded", "discards")))


def discard_table(result: pl.DataFrame, _) -> list:
    return [table("Pieces discarded per player by player count and strategy ('all' = every player; 95% bootstrap "
                  "intervals)", result, ("Players", "players"), ("Strategy", "strategy"),
                  ("Player results", "n", count), ("Pieces each", "pieces_each"), *est("Discarded", "discards"),
                  ("Share of pieces", "share", pct))]


def discard_chart(result: pl.DataFrame, data: GameData) -> Chart:
    """Horizontal bars of mean discards per strategy with bootstrap intervals, one panel per player count."""
    labels, counts = ["all", *data.order], data.player_counts
    fig, axes = panels(len(counts), 3.4 * len(counts) + 1.8, 1.8 + 0.36 * len(labels), sharey=True)
    for ax, players in zip(axes, counts):
        panel = aligned(result.filter(pl.col("players") == players), "strategy", labels)
        bars_with_ci(ax, labels, {"discards": (panel["discards"], panel["discards_lo"], panel["discards_hi"])},
                     horizontal=True)
        ax.set(title=f"{players} players", xlabel="Pieces discarded per player")
        ax.set_xlim(0, max(1.0, 1.1 * float(np.nanmax(result["discards_hi"].to_numpy()))))
    fig.suptitle(f"{data.title}: pieces discarded per player (95% bootstrap intervals)")
    return save_chart(fig, data.out_dir, f"{data.slug}_discards.png",
                      "Mean pieces a player discards instead of placing, by strategy and player count; 'all' is every "
                      "player, strategies in order of win share.")


CAVEATS = (
    "Kunst Stücke: the target tiles of one player (and of one game) share a board and a plan, so they are not "
    "independent; the Wilson intervals over tiles are somewhat too narrow.",
    "Kunst Stücke: chips spent and the timing of the first look are choices the strategies make, so the win shares "
    "by spending and by timing describe the players who make those choices, not what the choices cause; the chips "
    "sweep compares the same strategies under different chips.",
)

ANALYSES = [
    Analysis("Target tiles by size and score space", targets, intro=target_intro, chart=target_chart,
             tables=target_tables, finding=target_finding, caveats=CAVEATS, absent="No player took a target tile."),
    Analysis("Chips spent and winning", spending, intro=SPENDING_INTRO, chart=spending_chart, tables=spending_tables,
             finding=spending_finding),
    Analysis("When to take the first look", looks, intro=LOOK_INTRO, chart=look_chart, tables=look_tables,
             finding=look_finding, absent="No player ever looked at the target tiles."),
    Analysis("Discards", discards, chart=discard_chart, tables=discard_table, finding=discard_finding,
             intro="A player may discard a piece instead of placing it (it leaves the game). Means per player with "
                   "95% bootstrap intervals; the share is of the pieces each player is dealt."),
]
COMPARED = [  # across the game's experiments, each number from its own experiment
    Analysis("The chips sweep", sweep, intro=sweep_intro, chart=sweep_chart, tables=sweep_tables,
             finding=sweep_finding,
             absent="No chips sweep in these data: no two experiments with the same strategies start with different "
                    f"chips. Run {SWEEP} to measure what chips are worth."),
]
