"""Kunst Stücke's own analyses: which target tiles come true (by size and by score space), how winning goes with
the chips spent and with the timing of the first look, what the chips sweep shows, and discards. Each finding
speaks of one player count at a time (each plays its own Params) and carries the records of its numbers.

Kunst Stücke rows carry `targets_taken`, `targets_correct`, `target_points` (the score), `chips_left`, `discards`,
`first_look` (the turn of the seat's first look, 0-based over every player's turns; -1 if it never looked),
`aimed_sizes` (its tiles' sizes in space order, 6 meaning 6+), and for each of the five spaces of its score board
`space_sizes` (the size of the tile there, 0 if empty) and `space_correct`. The manifest's facts give `pieces_each`
(a game lasts players × pieces_each turns), `chips` (each player's at the start) and `spaces` (each space's bonus).
A chips sweep is a set of experiments that play the same pool in the same seatings with the same resolved Params
but for `chips`. Shares of wins and of tiles carry cluster-robust intervals over deals (matches in match mode):
the players and the tiles of one deal are not independent.
"""

import json

import numpy as np
import polars as pl
from matplotlib.ticker import PercentFormatter

from reports.analysis import Analysis, GameData, groups, record
from reports.charts import aligned, bars_with_ci, finished_chart, palette, panels, save_chart
from reports.fmt import UNKNOWN, at_counts, by_phrase, count, listing, num, pct, pct_ci, spread
from reports.render import Chart, Finding, est, share_ci, table
from reports.spec import GameReport
from reports.stats import cluster_unit, clustered_method, paired_ratio

SPENT_LIMITS = (0, 1, 2, 4, 7, 10)  # the largest number of chips spent in each bucket but the last
SPENT_LABELS = ("0", "1", "2", "3–4", "5–7", "8–10", "11+")
LOOK_STARTS = (0.1, 0.25, 0.5, 0.75)  # where the first-look buckets after the first begin, as a share of the game
LOOK_LABELS = ("never", "first 10%", "10–25%", "25–50%", "50–75%", "75–100%")
LOOK_PHRASES = ("never", "in the first 10% of the game", "10–25% of the way through", "25–50% of the way through",
                "50–75% of the way through", "75–100% of the way through")
FEW_PLAYERS = 100  # groups smaller than this are shown in tables but not compared in findings
FEW_WORDS = "a hundred"  # FEW_PLAYERS as the summary writes it (a constant, not a finding)
SWEEP = "kunst_stuecke_chips0, kunst_stuecke_chips5, kunst_stuecke_chips10 and kunst_stuecke_chips15"
CLUSTERS = ("game_id", "deal", "match_id")  # the columns that name a cluster, where the rows have them
ONE = pl.lit(1.0)  # the weight of a mean per player result


def size_name(size: int) -> str:
    return "6+" if size == 6 else str(size)


def times(x: float) -> str:
    """A multiple of the fair share: '1.23×'."""
    return UNKNOWN if np.isnan(x) else f"{x:.2f}×"


def profile(rows: pl.DataFrame, **measures: tuple[pl.Expr, pl.Expr]) -> pl.DataFrame:
    """Per player count and strategy ('all' = every player, first): the player results (`n`) and each measure NAME:
    (value, weight), sum(value) / sum(weight), as NAME with its cluster-robust interval NAME_lo, NAME_hi
    (stats.paired_ratio)."""
    by = ["players", "strategy"]
    everyone = pl.concat([rows.with_columns(strategy=pl.lit("all")), rows])
    found = everyone.group_by(by).agg(n=pl.len())
    for name, (value, weight) in measures.items():
        found = found.join(paired_ratio(everyone, value, weight, by).select(
            *by, **{name: pl.col("estimate"), f"{name}_lo": pl.col("lo"), f"{name}_hi": pl.col("hi")}), on=by)
    return found.sort("players", pl.col("strategy") != "all", "strategy")


def counts_phrase(data: GameData) -> str:
    """', by player count' where the data play several player counts, else ''."""
    return ", by player count" if len(data.player_counts) > 1 else ""


# ---------------------------------------------------------------- groups of players: standing, make-up, pattern


def tile_method(rows: pl.DataFrame) -> str:
    return clustered_method(rows, f"the tiles of one {cluster_unit(rows)} counted together")


def standing(rows: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Per group of `by` (players among them): its player results (`n`) and games, their win share (`win`) and
    its ratio to the fair share 1/P (`vs_fair`), and the share of their target tiles that came true (`correct`),
    each with a cluster-robust interval (`_lo`, `_hi`); `method` and `tile_method` say how."""
    wins = paired_ratio(rows, pl.col("win"), 1 / pl.col("players"), by).select(
        *by, "games", "method", vs_fair=pl.col("estimate"), vs_fair_lo=pl.col("lo"), vs_fair_hi=pl.col("hi"))
    tiles = paired_ratio(rows, pl.col("targets_correct"), pl.col("targets_taken"), by).select(
        *by, correct=pl.col("estimate"), correct_lo=pl.col("lo"), correct_hi=pl.col("hi"))
    fair = 1 / pl.col("players").cast(pl.Float64)
    return (rows.group_by(by).agg(n=pl.len()).join(wins, on=by).join(tiles, on=by).sort(by)
            .with_columns(tile_method=pl.lit(tile_method(rows)),
                          **{f"win{s}": pl.col(f"vs_fair{s}") * fair for s in ("", "_lo", "_hi")}))


def make_up(rows: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Per group of `by`: `who`, its strategies with the share of the group's player results each holds, largest
    first (a list of {strategy, share})."""
    shares = (rows.group_by([*by, "strategy"]).agg(k=pl.len())
              .with_columns(share=pl.col("k") / pl.col("k").sum().over(by))
              .sort([*by, "share", "strategy"], descending=[*(False for _ in by), True, False]))
    return shares.group_by(by, maintain_order=True).agg(who=pl.struct("strategy", "share"))


def who(members: list[dict]) -> str:
    """'planner 50.0%, random 50.0%': a group's strategies and their shares of it."""
    return ", ".join(f"{m['strategy']} {pct(m['share'])}" for m in members)


def pattern(ordered: pl.DataFrame, key: str) -> str:
    """How a measure runs over ordered groups, by their estimates and intervals (two groups differ clearly where
    their intervals do not overlap): 'rises' or 'falls' where every step goes that way and the last group differs
    clearly from the first ('higher' or 'lower' for two groups); 'up and down' where some group lies clearly above
    an earlier one and some clearly below one; 'uneven' where groups differ clearly in one direction only, yet the
    estimates do not rise or fall steadily; 'flat' where no two differ clearly (or an interval is unknown);
    'single' for one group."""
    if ordered.height < 2:
        return "single"
    value, lo, hi = (ordered[c].to_numpy().astype(float) for c in (key, f"{key}_lo", f"{key}_hi"))
    if np.isnan(lo).any() or np.isnan(hi).any():
        return "flat"
    later = np.triu(np.ones((len(value), len(value)), bool), 1)  # [i, j]: group j comes after group i
    above, below = later & (lo[None, :] > hi[:, None]), later & (hi[None, :] < lo[:, None])
    steps = np.diff(value)
    if (steps >= 0).all() and above[0, -1]:
        return "rises" if len(value) > 2 else "higher"
    if (steps <= 0).all() and below[0, -1]:
        return "falls" if len(value) > 2 else "lower"
    if above.any() and below.any():
        return "up and down"
    return "uneven" if above.any() or below.any() else "flat"


def comparable(frame: pl.DataFrame) -> pl.DataFrame:
    """Per player count, the groups (rows with `n` players) large enough to compare, or all of that count's if
    none is: a handful of players gives an interval of little meaning, not a finding."""
    parts = []
    for _, group in groups(frame, ["players"]):
        large = group.filter(pl.col("n") >= FEW_PLAYERS)
        parts.append(large if large.height else group)
    return pl.concat(parts)


def few_note(frame: pl.DataFrame, compared: pl.DataFrame, name, data: GameData) -> str:
    """' Groups of fewer than a hundred ...: (which, where).' for the groups shown but not compared, `name` naming a
    group; else ''."""
    left = frame.join(compared.select("players", "bucket_index"), on=["players", "bucket_index"], how="anti")
    if left.is_empty():
        return ""
    where = {key["players"]: listing(name(r) for r in group.sort("bucket_index").iter_rows(named=True))
             for key, group in groups(left, ["players"])}
    return (f" Groups of fewer than {FEW_WORDS} player results are shown but not compared: "
            f"{by_phrase(where, data.player_counts)}.")


def trend(compared: pl.DataFrame, phrases: dict[str, str], data: GameData) -> str:
    """How the win share over the fair share runs over the groups compared at each player count, in the words of
    `phrases` by pattern(): 'goes up and down with ... at every player count'."""
    return by_phrase({key["players"]: phrases[pattern(group.sort("bucket_index"), "vs_fair")]
                      for key, group in groups(compared, ["players"])}, data.player_counts)


def ends(compared: pl.DataFrame, verb: str, name, data: GameData) -> str:
    """'those who {verb} X win a× their fair share, those who {verb} Y b× and those in between c× to d×': the
    first and the last group compared at each player count, and the groups between them, `name` naming a group."""
    first, last, between = [], [], []
    for _, group in groups(compared, ["players"]):
        ordered = list(group.sort("bucket_index").iter_rows(named=True))
        first.append(ordered[0])
        last += ordered[1:][-1:]
        between += ordered[1:-1]

    def side(rows: list[dict]) -> tuple[str, str]:
        names = list(dict.fromkeys(name(r) for r in rows))
        either = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
        return either, spread([r["vs_fair"] for r in rows], times)

    first_name, first_share = side(first)
    text = f"those who {verb} {first_name} win {first_share} their fair share"
    if last:
        last_name, last_share = side(last)
        text += f", those who {verb} {last_name} {last_share}"
    if between:
        text += f" and those in between {side(between)[1]}"
    return text + counts_phrase(data)


def group_numbers(frame: pl.DataFrame, data: GameData, about, tiles: bool = False) -> list[dict]:
    """The records of a table of groups: each group's win share over the fair share (and, with `tiles`, the share
    of its tiles that came true), and the share of its player results each strategy holds. `about(row)` says
    which group a row is."""
    out = []
    for r in frame.iter_rows(named=True):
        where = about(r)
        out.append(record(data, r["players"], "win_share_vs_fair", r["vs_fair"], r["vs_fair_lo"], r["vs_fair_hi"],
                          r["games"], r["method"], **where, player_results=r["n"], fair=1 / r["players"]))
        if tiles:
            out.append(record(data, r["players"], "target_come_true_share", r["correct"], r["correct_lo"],
                              r["correct_hi"], r["games"], r["tile_method"], **where))
        out += [record(data, r["players"], "strategy_share_of_group", m["share"], m["share"], m["share"], r["games"],
                       "count of the group's player results", **where, strategy=m["strategy"]) for m in r["who"]]
    return out


def means(rows: pl.DataFrame, column: str, extra: tuple[pl.Expr, ...] = ()) -> pl.DataFrame:
    """Per player count and strategy ('all' = every player, first): player results (`n`), games, the mean of
    `column` with its cluster-robust interval (`column`, `column_lo`, `column_hi`), its `method`, and the
    `extra` aggregates."""
    by = ["players", "strategy"]
    everyone = rows.with_columns(strategy=pl.lit("all"))
    frames = [paired_ratio(r, pl.col(column), pl.lit(1.0), by).join(r.group_by(by).agg(pl.len().alias("n"),
                                                                                                 *extra), on=by)
              for r in (everyone, rows)]
    return (pl.concat(frames).select(*by, "n", "games", *(e.meta.output_name() for e in extra),
                                     **{column: pl.col("estimate"), f"{column}_lo": pl.col("lo"),
                                        f"{column}_hi": pl.col("hi")})
            .with_columns(method=pl.lit(clustered_method(rows, "mean over player results")))
            .sort("players", pl.col("strategy") != "all", "strategy"))


def by_bucket(rows: pl.DataFrame) -> pl.DataFrame:
    """standing() and make_up() per player count and bucket, in bucket order."""
    by = ["players", "bucket_index", "bucket"]
    return standing(rows, by).join(make_up(rows, by), on=by).sort(by)


def bucket_chart(frame: pl.DataFrame, data: GameData, file: str, xlabel: str, title: str, caption: str) -> Chart:
    """Per player count a panel of bars over buckets: win share and the share of tiles correct (cluster
    cluster-robust), with the fair share 1/P dashed."""
    counts = data.player_counts
    labels = frame.sort("bucket_index")["bucket"].unique(maintain_order=True).to_list()
    fig, axes = panels(len(counts), max(7.0, 3.6 * len(counts) + 1.2), 4.4, sharey=True)
    for ax, players in zip(axes, counts):
        panel = aligned(frame.filter(pl.col("players") == players), "bucket", labels)
        bars_with_ci(ax, labels, {"win share": (panel["win"], panel["win_lo"], panel["win_hi"]),
                                  "target tiles correct": (panel["correct"], panel["correct_lo"],
                                                           panel["correct_hi"])})
        ax.axhline(1 / players, color="#555", linestyle="--", linewidth=1.2, label="fair share 1/P")
        ax.set(title=f"{players} players", xlabel=xlabel, ylim=(0, 1.02))
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    return finished_chart(fig, axes[0], f"{data.title}: {title} (95% cluster-robust intervals)",
                          data.out_dir, f"{data.slug}_{file}.png", caption)


STANDING = [("Player results", "n", count), *share_ci("Win share", "win", "win_lo", "win_hi"),  # standing()'s columns
            *est("Win share × fair", "vs_fair", times),
            *share_ci("Tiles correct", "correct", "correct_lo", "correct_hi")]


def labelled(labels: tuple[str, ...]) -> pl.Expr:
    """The label of each row's `bucket_index`."""
    return pl.col("bucket_index").replace_strict(list(range(len(labels))), list(labels), return_dtype=pl.String)


# ---------------------------------------------------------------- target tiles


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


def correct_rates(tiles: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Per group of `by` (players among them): tiles taken, the share that came true (`rate`) with its cluster
    cluster-robust interval (lo, hi), the games and the `method`, in the groups' order."""
    rates = paired_ratio(tiles, pl.col("correct"), pl.lit(1.0), by).select(
        *by, "games", rate=pl.col("estimate"), lo=pl.col("lo"), hi=pl.col("hi"))
    taken = tiles.group_by(by).agg(tiles=pl.len())
    return rates.join(taken, on=by).sort(by).with_columns(method=pl.lit(tile_method(tiles)))


def target_profile(rows: pl.DataFrame) -> pl.DataFrame:
    """Per player count and strategy ('all' = every player): tiles taken and score per player, and the share of
    tiles correct, with cluster-robust intervals (profile)."""
    return profile(rows, taken=(pl.col("targets_taken"), ONE), correct=(pl.col("targets_correct"),
                                                                         pl.col("targets_taken")),
                   score=(pl.col("score"), ONE))


def targets(data: GameData) -> dict | None:
    taken = tiles(data)
    if taken.is_empty():
        return None
    return {"all": correct_rates(taken, ["players"]), "size": correct_rates(taken, ["players", "size"]),
            "bonus": correct_rates(taken, ["players", "bonus"]), "profile": target_profile(data.rows)}


def target_intro(_, data: GameData) -> str:
    spaces = listing(str(b) for b in data.facts["spaces"][0])
    return ("Each player may take up to five target tiles, each onto its own space of the score board (bonuses "
            f"{spaces}). A tile comes true if at the end a block of exactly that many connected pieces of its colour "
            "lies on the board (6+: six or more), and then scores its number plus its space's bonus; otherwise it "
            "scores nothing. Rates are shares of tiles taken that came true, with cluster-robust intervals over "
            "deals; spaces with the same bonus are pooled.")


def leaders(rates: pl.DataFrame, most: bool) -> str:
    """The size with the highest (most) or lowest rate, with every size whose interval reaches it: 'size 1' or
    'sizes 1 and 2 (not clearly apart)'."""
    top = rates.sort("rate", "size", descending=[most, False]).row(0, named=True)
    near = rates.filter(pl.col("hi") >= top["lo"]) if most else rates.filter(pl.col("lo") <= top["hi"])
    names = [size_name(s) for s in near.sort("size")["size"]]
    return f"size {names[0]}" if len(names) == 1 else f"sizes {listing(names)} (not clearly apart)"


def space_verdict(top: dict, bottom: dict) -> str:
    if top["lo"] > bottom["hi"]:
        return "more often"
    if top["hi"] < bottom["lo"]:
        return "less often"
    return "not clearly more or less often"


def target_finding(result: dict, data: GameData) -> Finding:
    """Which sizes come true most and least often, and how tiles on the biggest bonus fare against the smallest,
    at each player count; the rates in a table with a column per player count."""
    counts = data.player_counts
    by_size = {key["players"]: group for key, group in groups(result["size"], ["players"])}
    text = (f"All strategies together, {spread(result['all']['rate'].to_list())} of target tiles come true"
            f"{counts_phrase(data)}. Most often true: "
            f"{by_phrase({p: leaders(g, True) for p, g in by_size.items()}, counts)}; least often: "
            f"{by_phrase({p: leaders(g, False) for p, g in by_size.items()}, counts)}.")
    bonus = result["bonus"]
    if bonus["bonus"].n_unique() > 1:
        high, low = bonus["bonus"].max(), bonus["bonus"].min()
        verdicts = {key["players"]: space_verdict(group.filter(pl.col("bonus") == high).row(0, named=True),
                                                  group.filter(pl.col("bonus") == low).row(0, named=True))
                    for key, group in groups(bonus, ["players"])}
        text += (f" Against tiles on a {low}-point space, tiles on the {high}-point space come true "
                 f"{by_phrase(verdicts, counts)}.")
    return Finding("Target tiles.", text, target_table(result, counts), tuple(target_numbers(result, data)))


def target_table(result: dict, counts: list[int]):
    """Rows: every tile, each size, each bonus; a column per player count with the rate and its interval."""
    labelled_rows = [("all", result["all"]), *((f"size {size_name(s)}", g) for (s,), g in
                                               sorted(result["size"].partition_by("size", as_dict=True).items())),
                     *((f"bonus {b}", g) for (b,), g in
                       sorted(result["bonus"].partition_by("bonus", as_dict=True).items()))]
    rows = [{"target": label, **{r["players"]: r for r in group.iter_rows(named=True)}} for label, group in
            labelled_rows]

    def cell(r: dict | None) -> str:
        return "–" if r is None else f"{pct(r['rate'])} ({pct_ci(r['lo'], r['hi'])})"

    return table("", rows, ("Tiles", "target"), *((f"{p} players", lambda r, p=p: r.get(p), cell) for p in counts))


def target_numbers(result: dict, data: GameData) -> list[dict]:
    """Each rate of the target finding: every tile, by size and by bonus, at each player count."""
    out = []
    for name, frame in (("all", result["all"]), ("size", result["size"]), ("bonus", result["bonus"])):
        for r in frame.iter_rows(named=True):
            about = {} if name == "all" else {name: r[name]}
            out.append(record(data, r["players"], "target_come_true_share", r["rate"], r["lo"], r["hi"], r["games"],
                              r["method"], **about, tiles=r["tiles"]))
    return out


def target_tables(result: dict, _) -> list:
    return [
        table("Target tiles correct by size and player count", result["size"], ("Players", "players"),
              ("Size", "size", size_name), ("Tiles taken", "tiles", count), *share_ci("Correct", "rate")),
        table("Target tiles correct by the bonus of their space and player count", result["bonus"],
              ("Players", "players"), ("Bonus", "bonus"), ("Tiles taken", "tiles", count),
              *share_ci("Correct", "rate")),
        table("Target tiles per player by player count and strategy ('all' = every player; means and the share "
              "correct with 95% cluster-robust intervals)", result["profile"], ("Players", "players"),
              ("Strategy", "strategy"), ("Player results", "n", count), *est("Tiles taken", "taken"),
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
    return finished_chart(fig, axes[0], f"{data.title}: target tiles that come true (95% cluster-robust "
                                        "intervals)", data.out_dir, f"{data.slug}_targets.png",
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


def spent_bounds(index: int) -> dict:
    """The fewest and most chips spent in a bucket (None: no most)."""
    lows, highs = (0, *(limit + 1 for limit in SPENT_LIMITS)), (*SPENT_LIMITS, None)
    return {"spent_min": lows[index], "spent_max": highs[index]}


def spending(data: GameData) -> dict:
    rows = with_spent(data)
    most = (pl.col("chips").first(), pl.col("spent").max().alias("most"))
    return {"by_count": by_bucket(rows), "by_strategy": means(rows, "spent", most)}


def spenders(by_strategy: pl.DataFrame, data: GameData) -> str:
    """'planner and spoiler spent no chip, random 2.36 to 5.74 chips on average and slider 9.92 to 9.99'."""
    own = {s: by_strategy.filter(pl.col("strategy") == s) for s in data.order}
    never = [s for s, spent in own.items() if spent["most"].max() == 0]
    spending_ = [f"{s} {spread(spent['spent'].to_list(), num)}" for s, spent in own.items() if s not in never]
    if spending_:
        spending_[0] += " chips on average"
    return listing(([f"{listing(never)} spent no chip"] if never else []) + spending_)


def spent_label(group: dict) -> str:
    return "1 chip" if group["bucket"] == "1" else f"{group['bucket']} chips"


SPENDING_TREND = {"rises": "rises with the chips spent", "falls": "falls with the chips spent",
                  "up and down": "goes up and down with the chips spent",
                  "uneven": "differs between the groups by chips spent but does not rise or fall steadily with them",
                  "flat": "does not differ clearly with the chips spent",
                  "higher": "is higher for those who spent more", "lower": "is lower for those who spent more",
                  "single": "cannot be followed over the chips spent (one group large enough)"}


def spending_finding(result: dict, data: GameData) -> Finding:
    """Who spends how many chips, and how the win share runs over the chips spent at each player count."""
    by_count = result["by_count"]
    if by_count["bucket"].n_unique() == 1:
        spent = by_count["bucket"][0]
        text = (("No player spent a chip" if spent == "0" else f"Every player spent {spent} chips")
                + ", so spending cannot be set against winning here.")
    else:
        compared = comparable(by_count)
        text = (f"Who spends is the strategies' choice: {spenders(result['by_strategy'], data)}{counts_phrase(data)}; "
                "so the groups by chips spent are made of different strategies (the table gives each group's). "
                f"Win share {trend(compared, SPENDING_TREND, data)}: "
                f"{ends(compared, 'spent', spent_label, data)}.{few_note(by_count, compared, spent_label, data)}")
    return Finding("Chips.", text, table("", by_count, ("Players", "players"), ("Chips spent", "bucket"),
                                         ("Strategies in the group", "who", who), ("Player results", "n", count),
                                         *est("Win share × fair", "vs_fair", times)),
                   tuple(spending_numbers(result, data)))


def spending_numbers(result: dict, data: GameData) -> list[dict]:
    """Each group's numbers (group_numbers) and each strategy's mean chips spent, at each player count."""
    out = group_numbers(result["by_count"], data,
                        lambda r: {"chips_spent": r["bucket"], **spent_bounds(r["bucket_index"])})
    return out + [record(data, r["players"], "chips_spent", r["spent"], r["spent_lo"], r["spent_hi"], r["games"],
                         r["method"], strategy=r["strategy"], most=r["most"])
                  for r in result["by_strategy"].filter(pl.col("strategy") != "all").iter_rows(named=True)]


def spending_tables(result: dict, _) -> list:
    return [
        table("Win share and target tiles correct by chips spent and player count (× fair is the win share over "
              "1/P; 95% cluster-robust intervals)", result["by_count"], ("Players", "players"),
              ("Chips spent", "bucket"), ("Strategies in the group", "who", who), *STANDING),
        table("Chips spent per player by player count and strategy ('all' = every player; 95% cluster-robust "
              "intervals)",
              result["by_strategy"], ("Players", "players"), ("Strategy", "strategy"),
              ("Chips at the start", "chips"), *est("Chips spent", "spent"), ("Most spent", "most")),
    ]


def spending_chart(result: dict, data: GameData) -> Chart:
    return bucket_chart(result["by_count"], data, "chips_spent", "Chips spent", "chips spent against winning",
                        "Per player count, by the chips a player spent (one per piece slid): the players' win share "
                        "and the share of their target tiles that came true; the dashed line is the fair share 1/P.")


SPENDING_INTRO = (
    "Sliding a piece costs a chip. Players are grouped by the chips they spent (the chips they started with, as the "
    "manifest records, minus those left), at each player count. '× fair' is the win share over the fair share 1/P; "
    "intervals are cluster-robust intervals over deals. Who spends is up to the strategy, so this describes how "
    "spenders fare, not what a chip is worth: the chips sweep, where the experiments that differ only in chips are "
    "compared, measures that.")


# ---------------------------------------------------------------- the chips sweep


def design(manifest: dict) -> str:
    """What an experiment plays besides its chips, as JSON: its resolved Params but `chips`, and its seatings."""
    resolved = manifest.get("resolved") or {}
    params = {p: {k: v for k, v in each.items() if k != "chips"} for p, each in (resolved.get("params") or {}).items()}
    return json.dumps({"params": params, "lineups": resolved.get("lineups")}, sort_keys=True)


def sweep_experiments(data: GameData) -> list[str]:
    """The largest set of experiments that play the same pool with the same design() but start with different
    chips, by chips ([] if none)."""
    if "chips" not in data.facts.columns:
        return []
    pools = data.rows.group_by("experiment").agg(pool=pl.col("strategy").unique().sort().str.join(", "))
    designs = pl.DataFrame({"experiment": [str(m["experiment"]) for m in data.manifests],
                            "design": [design(m) for m in data.manifests]})
    sets = (pools.join(designs, on="experiment").join(data.facts.select("experiment", "chips").unique(),
                                                      on="experiment")
            .group_by("pool", "design")
            .agg(experiments=pl.col("experiment").sort_by("chips", "experiment"), values=pl.col("chips").n_unique())
            .filter(pl.col("values") > 1)
            .sort(pl.col("experiments").list.len(), "pool", descending=[True, False]))
    return sets["experiments"][0].to_list() if sets.height else []


def chips_standing(rows: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """standing() per group of `by`, with the mean score and chips spent (cluster-robust intervals)."""
    means = [paired_ratio(rows, pl.col(c), pl.lit(1.0), by).select(
        *by, **{c: pl.col("estimate"), f"{c}_lo": pl.col("lo"), f"{c}_hi": pl.col("hi")}) for c in ("score", "spent")]
    return standing(rows, by).join(means[0], on=by).join(means[1], on=by)


def by_chips(rows: pl.DataFrame) -> pl.DataFrame:
    """chips_standing() per experiment (chips each), player count and strategy ('all' = every player)."""
    by = ["experiment", "chips", "players", "strategy"]
    everyone = rows.with_columns(strategy=pl.lit("all"))
    return (pl.concat([chips_standing(everyone, by), chips_standing(rows, by)])
            .sort("chips", "players", pl.col("strategy") != "all", "strategy"))


def sweep(data: GameData) -> dict | None:
    experiments = sweep_experiments(data)
    if not experiments:
        return None
    rows = with_spent(data).filter(pl.col("experiment").is_in(experiments))
    seeds = {m.get("seed") for m in data.manifests if m["experiment"] in experiments}
    return {"experiments": experiments, "by_count": by_chips(rows), "same_seed": len(seeds) == 1,
            "pool": data.pools()[experiments[0]], "score_method": clustered_method(rows, "mean over player results")}


def sweep_intro(result: dict, _) -> str:
    return (f"The chips sweep ({listing(result['experiments'])}) plays the same strategies in the same seatings "
            "with the same Params but for the chips each player starts with, so the difference between its "
            "experiments is what chips are worth. Win shares carry cluster-robust intervals over deals; '× fair' "
            "is the win share over 1/P.")


CHIPS_TREND = {"rises": "rises with the chips", "falls": "falls with the chips",
               "up and down": "goes up and down with the chips",
               "uneven": "differs between the chips counts but does not rise or fall steadily with them",
               "flat": "does not differ clearly between the chips counts tried",
               "higher": "is higher with more chips", "lower": "is lower with more chips",
               "single": "was measured at one chips count only"}


def sweep_strategies(group: pl.DataFrame, data: GameData) -> str:
    """How each strategy's win share over its fair share runs with the chips, strategies of one pattern together:
    'for planner and random the win share does not differ clearly ... (planner 1.12× to 1.20× its fair share, ...)'."""
    own = {s: group.filter(pl.col("strategy") == s).sort("chips") for s in data.order if s in group["strategy"]}
    verdicts = {s: pattern(frame, "vs_fair") for s, frame in own.items()}
    parts = []
    for verdict in dict.fromkeys(verdicts.values()):
        names = [s for s in own if verdicts[s] == verdict]
        ranges = [f"{s} {spread(own[s]['vs_fair'].to_list(), times)}" for s in names]
        ranges[0] += " its fair share"
        parts.append(f"for {listing(names)} the win share {CHIPS_TREND[verdict]} ({', '.join(ranges)})")
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + "."


def sweep_everyone(group: pl.DataFrame) -> str:
    """How every player's mean score and the share of their tiles that come true run with the chips."""
    everyone = group.filter(pl.col("strategy") == "all").sort("chips")
    score, tiles = pattern(everyone, "score"), pattern(everyone, "correct")
    scores = f"the players' mean score ({spread(everyone['score'].to_list(), lambda x: num(x, 1))} points)"
    shares = f"the share of their tiles that come true ({spread(everyone['correct'].to_list())})"
    if score == tiles == "flat":
        return f"Neither {scores} nor {shares} differs clearly between the chips counts tried."
    return f"{scores[0].upper()}{scores[1:]} {CHIPS_TREND[score]} and {shares} {CHIPS_TREND[tiles]}."


def sweep_finding(result: dict, data: GameData) -> Finding:
    """How the experiments differ (only in chips), then at each player count how each strategy's win share and
    the players' score and tile success run with the chips."""
    frame = result["by_count"]
    counts = frame["players"].unique().sort().to_list()
    chips = listing(str(c) for c in frame["chips"].unique().sort())
    seed = "the same seed" if result["same_seed"] else "different seeds"
    text = (f"These experiments differ only in the chips each player starts with ({chips}): they play the same pool "
            f"({result['pool']}) in the same seatings with the same other Params at {at_counts(counts)}, with {seed}.")
    for key, group in groups(frame, ["players"]):
        at = f" At {key['players']} players:" if len(counts) > 1 else ""
        text += f"{at} {sweep_strategies(group, data)} {sweep_everyone(group)}"
    strategies = frame.filter(pl.col("strategy") != "all").sort("players", "strategy", "chips")
    return Finding("Chips sweep.", text, table("", strategies, ("Players", "players"), ("Strategy", "strategy"),
                                               ("Chips", "chips"), *est("Win share × fair", "vs_fair", times)),
                   tuple(sweep_numbers(result, data)))


def sweep_numbers(result: dict, data: GameData) -> list[dict]:
    """Each strategy's win share over its fair share, and every player's mean score and tile success, in each
    experiment of the sweep (each number from its own experiment)."""
    out = []
    for r in result["by_count"].iter_rows(named=True):
        about = {"experiment": r["experiment"], "chips": r["chips"]}
        if r["strategy"] != "all":
            out.append(record(data, r["players"], "win_share_vs_fair", r["vs_fair"], r["vs_fair_lo"], r["vs_fair_hi"],
                              r["games"], r["method"], **about, strategy=r["strategy"], fair=1 / r["players"]))
            continue
        out += [record(data, r["players"], "mean_score", r["score"], r["score_lo"], r["score_hi"], r["games"],
                       result["score_method"], **about),
                record(data, r["players"], "target_come_true_share", r["correct"], r["correct_lo"], r["correct_hi"],
                       r["games"], r["tile_method"], **about)]
    return out


def sweep_tables(result: dict, _) -> list:
    return [table("The chips sweep by chips each, player count and strategy ('all' = every player; 95% cluster-"
                  "robust intervals)", result["by_count"], ("Chips each", "chips"), ("Players", "players"),
                  ("Strategy", "strategy"), *STANDING, *est("Chips spent", "spent"), *est("Score", "score"))]


def sweep_chart(result: dict, data: GameData) -> Chart:
    """Per player count, each strategy's win share against the chips each player starts with."""
    frame = result["by_count"].filter(pl.col("strategy") != "all")
    counts, order = frame["players"].unique().sort().to_list(), [s for s in data.order if s in frame["strategy"]]
    fig, axes = panels(len(counts), max(7.0, 3.6 * len(counts) + 1.2), 4.4, sharey=True)
    for ax, players in zip(axes, counts):
        for colour, strategy in zip(palette(len(order)), order):
            line = frame.filter((pl.col("players") == players) & (pl.col("strategy") == strategy)).sort("chips")
            win, lo, hi = (line[c].to_numpy().astype(float) for c in ("win", "win_lo", "win_hi"))
            ax.errorbar(line["chips"].to_numpy(), win, yerr=np.nan_to_num([win - lo, hi - win]), color=colour,
                        marker="o", capsize=3, label=strategy)
        ax.axhline(1 / players, color="#555", linestyle="--", linewidth=1.2, label="fair share 1/P")
        ax.set(title=f"{players} players", xlabel="Chips each at the start", ylim=(0, 1.02),
               xticks=frame["chips"].unique().sort().to_list())
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    return finished_chart(fig, axes[0], f"{data.title}: win share against chips each\n(95% cluster-robust "
                                        "intervals over deals)", data.out_dir, f"{data.slug}_chips_sweep.png",
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


def look_bounds(index: int) -> dict:
    """Where a first-look bucket begins and ends, as shares of the game ({} for 'never')."""
    starts, stops = (0.0, *LOOK_STARTS), (*LOOK_STARTS, 1.0)
    return {"look_from": starts[index - 1], "look_to": stops[index - 1]} if index else {}


def look_profile(rows: pl.DataFrame) -> pl.DataFrame:
    """Per player count and strategy ('all' = every player): the share that never looked and, of those that did,
    the first look's mean share of the game, with cluster-robust intervals (profile)."""
    looked = pl.col("look_share").is_not_null()
    return profile(rows, never=(~looked, ONE), when=(pl.col("look_share").fill_null(0.0), looked))


def looks(data: GameData) -> dict | None:
    rows = with_look_timing(data)
    if rows["look_share"].null_count() == rows.height:
        return None
    return {"by_count": by_bucket(rows), "profile": look_profile(rows)}


LOOK_INTRO = (
    "A look takes a target tile from a stack. An early look chooses among more tiles but knows little of the board; a "
    "late one sees the board take shape. Players are grouped by the turn of their first look as a share of the game "
    "(players × pieces each turns, every player's turns counted), at each player count. Tile success and win share "
    "carry cluster-robust intervals over deals; '× fair' is the win share over 1/P. Players who never look take "
    "no tile and score nothing.")


def look_name(group: dict) -> str:
    return LOOK_PHRASES[group["bucket_index"]]


LOOK_TREND = {"rises": "rises with a later first look", "falls": "falls with a later first look",
              "up and down": "goes up and down with the timing of the first look",
              "uneven": "differs between the timing groups but does not rise or fall steadily with the timing",
              "flat": "does not differ clearly with the timing of the first look",
              "higher": "is higher for the later first look", "lower": "is lower for the later first look",
              "single": "cannot be followed over the timing (one group large enough)"}


def look_finding(result: dict, data: GameData) -> Finding:
    """How the win share runs over the timing of the first look at each player count, the timing groups being
    made of different strategies; groups of a handful of players are shown, not compared."""
    by_count = result["by_count"]
    looked = by_count.filter(pl.col("bucket_index") > 0)
    compared = comparable(looked)
    text = ("When a player first looks is up to its strategy, so the timing groups are made of different strategies "
            f"(the table gives each group's). Win share {trend(compared, LOOK_TREND, data)}: "
            f"{ends(compared, 'first look', look_name, data)}."
            f"{few_note(looked, compared, lambda r: r['bucket'], data)}")
    if looked.height < by_count.height:
        text += " Players who never looked took no tile and are left out."
    return Finding("First looks.", text, table(
        "", by_count, ("Players", "players"), ("First look", "bucket"), ("Strategies in the group", "who", who),
        ("Player results", "n", count), *share_ci("Tiles correct", "correct", "correct_lo", "correct_hi"),
        *est("Win share × fair", "vs_fair", times)),
        tuple(group_numbers(by_count, data, lambda r: {"first_look": r["bucket"], **look_bounds(r["bucket_index"])},
                            tiles=True)))


def look_tables(result: dict, _) -> list:
    return [
        table("Target tiles correct and win share by the timing of the first look and player count (95% cluster-"
              "robust intervals)", result["by_count"], ("Players", "players"), ("First look", "bucket"),
              ("Strategies in the group", "who", who), *STANDING),
        table("When strategies first look, by player count ('all' = every player; the mean is over players who "
              "looked, with a 95% cluster-robust interval)", result["profile"], ("Players", "players"),
              ("Strategy", "strategy"), ("Player results", "n", count),
              *share_ci("Never looked", "never", "never_lo", "never_hi"),
              *est("First look (share of the game)", "when", pct, pct_ci)),
    ]


def look_chart(result: dict, data: GameData) -> Chart:
    return bucket_chart(result["by_count"], data, "first_looks", "First look (share of the game)",
                        "the timing of the first look",
                        "Per player count, by when a player first looked at the target tiles (as a share of the "
                        "game's turns): the share of their target tiles that came true and their win share; the "
                        "dashed line is the fair share 1/P.")


# ---------------------------------------------------------------- discards


def discards(data: GameData) -> pl.DataFrame:
    """means() of the pieces discarded, with the pieces each player is dealt and the share discarded."""
    each = pl.DataFrame({"players": data.player_counts,
                         "pieces_each": [data.fact("pieces_each", p) for p in data.player_counts]},
                        schema_overrides={"players": data.rows.schema["players"]})
    return (means(data.rows, "discards").join(each, on="players", maintain_order="left")
            .with_columns(share=pl.col("discards") / pl.col("pieces_each")))


def discard_extremes(strategies: pl.DataFrame, data: GameData) -> tuple[str, list[dict]]:
    """' By strategy, the most and the fewest: ... The two are clearly apart at ...' and the rows it names."""
    parts, apart, named = [], {}, []
    for key, group in groups(strategies, ["players"]):
        most = group.sort("discards", "strategy", descending=[True, False]).row(0, named=True)
        fewest = group.sort("discards", "strategy").row(0, named=True)
        parts.append(f"{most['strategy']} {num(most['discards'])} and {fewest['strategy']} "
                     f"{num(fewest['discards'])} at {key['players']} players")
        apart[key["players"]] = "clearly apart" if most["discards_lo"] > fewest["discards_hi"] else "not clearly apart"
        named += [most, fewest]
    return (f" By strategy, the most and the fewest: {'; '.join(parts)}. The two are "
            f"{by_phrase(apart, data.player_counts)}."), named


def discard_finding(result: pl.DataFrame, data: GameData) -> Finding:
    """How many pieces players discard, and which strategy discards most and fewest at each player count."""
    overall = result.filter(pl.col("strategy") == "all")
    text = (f"Players discard {spread(overall['discards'].to_list(), num)} pieces each on average, "
            f"{spread(overall['share'].to_list())} of their pieces{counts_phrase(data)}.")
    named = list(overall.iter_rows(named=True))
    strategies = result.filter(pl.col("strategy") != "all")
    if strategies["strategy"].n_unique() > 1:
        extremes, shown = discard_extremes(strategies, data)
        text += extremes
        named += shown
    numbers = [record(data, r["players"], "pieces_discarded", r["discards"], r["discards_lo"], r["discards_hi"],
                      r["games"], r["method"], **({} if r["strategy"] == "all" else {"strategy": r["strategy"]}),
                      pieces_each=r["pieces_each"], share=r["share"]) for r in named]
    return Finding("Discards.", text, table("", overall, ("Players", "players"), ("Pieces each", "pieces_each"),
                                            *est("Discarded", "discards")), tuple(numbers))


def discard_table(result: pl.DataFrame, _) -> list:
    return [table("Pieces discarded per player by player count and strategy ('all' = every player; 95% cluster-"
                  "robust intervals)", result, ("Players", "players"), ("Strategy", "strategy"),
                  ("Player results", "n", count), ("Pieces each", "pieces_each"), *est("Discarded", "discards"),
                  ("Share of pieces", "share", pct))]


def discard_chart(result: pl.DataFrame, data: GameData) -> Chart:
    """Horizontal bars of mean discards per strategy with cluster-robust intervals, one panel per player count."""
    labels, counts = ["all", *data.order], data.player_counts
    fig, axes = panels(len(counts), 3.4 * len(counts) + 1.8, 1.8 + 0.36 * len(labels), sharey=True)
    for ax, players in zip(axes, counts):
        panel = aligned(result.filter(pl.col("players") == players), "strategy", labels)
        bars_with_ci(ax, labels, {"discards": (panel["discards"], panel["discards_lo"], panel["discards_hi"])},
                     horizontal=True)
        ax.set(title=f"{players} players", xlabel="Pieces discarded per player")
        ax.set_xlim(0, max(1.0, 1.1 * float(np.nanmax(result["discards_hi"].to_numpy()))))
    fig.suptitle(f"{data.title}: pieces discarded per player (95% cluster-robust intervals)")
    return save_chart(fig, data.out_dir, f"{data.slug}_discards.png",
                      "Mean pieces a player discards instead of placing, by strategy and player count; 'all' is every "
                      "player, strategies in order of win share.")


CAVEATS = (
    "Kunst Stücke: the target tiles of one game share a board and plans; the shares of tiles that come true are "
    "clustered by deal, so those tiles count together.",
    "Kunst Stücke: the chips spent, the timing of the first look and which tile goes on which space are choices the "
    "strategies make, so the win shares by spending and by timing, and the tile shares by space, describe the "
    "players who make those choices, not what the choices cause; the chips sweep compares the same strategies "
    "under different chips.",
)

ANALYSES = [
    Analysis("Target tiles by size and score space", targets, intro=target_intro, chart=target_chart,
             tables=target_tables, finding=target_finding, caveats=CAVEATS, absent="No player took a target tile.",
             leading_only=True),
    Analysis("Chips spent and winning", spending, intro=SPENDING_INTRO, chart=spending_chart, tables=spending_tables,
             finding=spending_finding, leading_only=True),
    Analysis("When to take the first look", looks, intro=LOOK_INTRO, chart=look_chart, tables=look_tables,
             finding=look_finding, absent="No player ever looked at the target tiles.", leading_only=True),
    Analysis("Discards", discards, chart=discard_chart, tables=discard_table, finding=discard_finding,
             intro="A player may discard a piece instead of placing it (it leaves the game). Means per player with "
                   "95% cluster-robust intervals over deals; the share is of the pieces each player is dealt.",
             leading_only=True),
]
COMPARED = [  # across the game's experiments, each number from its own experiment
    Analysis("The chips sweep", sweep, intro=sweep_intro, chart=sweep_chart, tables=sweep_tables,
             finding=sweep_finding,
             absent="No chips sweep in these data: no two experiments that play the same pool with the same Params "
                    f"start with different chips. Run {SWEEP} to measure what chips are worth."),
]


REPORT = GameReport(analyses=tuple(ANALYSES), compared=tuple(COMPARED))
