"""Witkacy's own analyses: completed paintings by seat, how often players complete paintings and which ones, how
often each strategy uses each action token and what the tokens are worth (restricted play), and the Advanced
Variant against the basic game.

Witkacy rows carry `paintings` (the seat's completed copies; most copies settle a tied score), `copies_by_painting`
(its copies of each painting, in the order of the manifest's `paintings`), `actions_used` (whether it used each
action token, in the order of the manifest's `actions`: stash, solvent, correction, gift, rush), `cards_played`
(cards it added to its own collection), and per game `turns` and `deck_left` (cards left in the deck at the end).
A completed painting scores the number of its copies in all collections together. The manifest's facts give the
`paintings`, the `actions`, the `cards` in the deck and whether the game is `advanced` (the Advanced Variant: a new
card must overlap at least 2 of its 4 cells). Strategies named BASE-no-ACTION never use that action token. Games
with the same `deal` are the same shuffle under different seatings, so every interval here is clustered by whole deals
(matches in match mode), as reports/stats.py does: cluster-robust intervals over the per-deal sums of what it counts.
"""

import numpy as np
import polars as pl
from matplotlib.ticker import PercentFormatter

from reports.analysis import GAME_KEY, Analysis, GameData, groups, opponent_share, record, with_all
from reports.charts import aligned, bars_with_ci, finished_chart, legend_below, new_figure, panels, save_chart
from reports.fmt import (
    NOTICEABLE_RELATIVE,
    at_counts,
    by_phrase,
    clear,
    count,
    effect,
    listing,
    num,
    num_ci,
    pct,
    pct_ci,
    pp,
    pp_ci,
    seat_name,
    spread,
    yes,
)
from reports.render import Chart, Finding, est, share_ci, table
from reports.spec import GameReport
from reports.stats import (
    CLUSTER_COLUMN,
    cluster_ratio_interval,
    cluster_unit,
    clustered_method,
    difference_interval,
    paired_difference,
    paired_mean_intervals,
    ratio_ci,
)

RESTRICTED = "-no-"  # "saboteur-no-gift" = saboteur that never uses the gift token
BASIC_ONLY = ("Experiments that play the Advanced Variant are left out here; it is compared with the basic game "
              "where the game's experiments are compared.")
NO_BASIC = "Every experiment here plays the Advanced Variant; this part describes the basic game."
# Advanced against basic: name -> (words, numerator, denominator, metric), summed over the games of a deal
MEASURES = {"copies": ("completed copies per player", "copies", "seats", "copies_per_player"),
            "completed": ("players completing a painting", "completed", "seats", "completion_share"),
            "score": ("score per player", "score", "seats", "score_per_player"),
            "turns": ("turns per game", "turns", "games", "turns_per_game")}


def signed(x: float, digits: int = 2) -> str:
    """A signed difference: '+1.25'."""
    return f"{x:+.{digits}f}"


def signed_ci(lo: float, hi: float) -> str:
    """An interval of signed differences: '-0.50 to +1.25'."""
    return f"{lo:+.2f} to {hi:+.2f}"


def names(data: GameData, fact: str) -> list[str]:
    """A list the manifests record (the paintings, the actions), as at the smallest player count."""
    return list(data.fact(fact, data.player_counts[0]))


def basic_rows(data: GameData) -> pl.DataFrame:
    """The rows of the experiments that play the basic rules, not the Advanced Variant."""
    return data.with_facts(data.rows, "advanced").filter(~pl.col("advanced"))


def everyone_and(rows: pl.DataFrame) -> pl.DataFrame:
    """rows twice: once as strategy 'all' (every player), once as they are."""
    return pl.concat([rows.with_columns(strategy=pl.lit("all")), rows])


def by_strength(frame: pl.DataFrame, data: GameData, *first: str) -> pl.DataFrame:
    """frame sorted by the columns `first`, then by strategy: 'all' first, then by win share as in the strategy
    section."""
    order = ["all", *data.order]
    return frame.sort(*first, pl.col("strategy").replace_strict(order, list(range(len(order))), default=len(order)))


def ratio(name: str, numerator, denominator) -> dict:
    """{name, name_lo, name_hi}: sum(numerator) / sum(denominator) with its cluster-robust interval, each pair of
    numerator and denominator one cluster's sums (None when the denominator sums to 0)."""
    numerator, denominator = np.asarray(numerator, float), np.asarray(denominator, float)
    if not denominator.sum():
        return dict.fromkeys((name, f"{name}_lo", f"{name}_hi"))
    lo, hi = ratio_ci(numerator, denominator)
    return {name: numerator.sum() / denominator.sum(), f"{name}_lo": lo, f"{name}_hi": hi}


def per_deal(rows: pl.DataFrame, by: list[str], **sums: pl.Expr) -> pl.DataFrame:
    """Per group of `by` and cluster (the deal at its player count; the match in match mode): the rows (`n`), the
    distinct games (`games`) and the sum of each expression of `sums`, as floats. Its rows are the units of a
    cluster-robust interval."""
    keys = list(dict.fromkeys([*by, "players", CLUSTER_COLUMN[cluster_unit(rows)]]))
    return rows.group_by(keys).agg(
        n=pl.len().cast(pl.Float64), games=pl.col("game_id").n_unique(),
        **{name: expr.cast(pl.Float64).sum() for name, expr in sums.items()}).sort(keys)  # sums in one order


def estimates(data: GameData, rows, metric: str, key: str, method: str, *fields: str, **about) -> list[dict]:
    """A record per row (a dict with players and games) whose `key` is known: `metric`, the estimate `key` with its
    interval (key_lo, key_hi), about the row's `fields` and `about`."""
    return [record(data, r["players"], metric, r[key], r[f"{key}_lo"], r[f"{key}_hi"], r["games"], method,
                   **{f: r[f] for f in fields}, **about) for r in rows if r[key] is not None]


def heatmap(fig, ax, grid: np.ndarray, rows: list[str], columns: list[str], label: str, top: float = 1.0) -> None:
    """Shares as a blue heat map from 0 to `top`, with their percentages written in."""
    image = ax.imshow(grid, cmap="Blues", vmin=0, vmax=top, aspect="auto")
    for (i, j), share in np.ndenumerate(grid):
        if not np.isnan(share):
            ax.text(j, i, f"{100 * share:.0f}", ha="center", va="center", fontsize="small",
                    color="white" if share > 0.6 * top else "black")
    ax.set_xticks(range(len(columns)), columns)
    ax.set_yticks(range(len(rows)), rows)
    ax.grid(False)
    fig.colorbar(image, ax=ax, shrink=0.8, format=PercentFormatter(1.0, decimals=0)).set_label(label)


# ---------------------------------------------------------------- seats


def seat_copies(data: GameData) -> dict | None:
    """Completed copies per player by seat, and per game the start player's copies minus the mean of the other
    seats', per player count (ratios of per-deal sums, cluster-robust over deals)."""
    rows = basic_rows(data)
    if rows.is_empty():
        return None
    seats = per_deal(rows, ["players", "seat"], copies=pl.col("paintings"))
    by_seat = [{**key, "n": int(group["n"].sum()), **ratio("copies", group["copies"], group["n"])}
               for key, group in groups(seats, ["players", "seat"])]
    seat, copies = pl.col("seat"), pl.col("paintings").cast(pl.Float64)
    games = rows.group_by(GAME_KEY).agg(pl.col("players", CLUSTER_COLUMN[cluster_unit(rows)]).first(),
                                        gap=copies.filter(seat == 0).first() - copies.filter(seat > 0).mean())
    gaps = [{**key, "games": int(group["n"].sum()), **ratio("gap", group["gap"], group["n"])}
            for key, group in groups(per_deal(games, ["players"], gap=pl.col("gap")), ["players"])]
    return {"by_seat": pl.DataFrame(by_seat), "gap": pl.DataFrame(gaps),
            "method": clustered_method(rows, "the mean gap a game")}


def seat_finding(result: dict, data: GameData) -> Finding:
    """Whether the start player completes more copies than the other seats of its game, per player count."""
    gap, level = result["gap"], copies_level(result["by_seat"])
    phrases = {r["players"]: gap_phrase(r, level[r["players"]]) for r in gap.iter_rows(named=True)}
    text = ("Who wins from which seat is in the seat advantage section above. In completed paintings, "
            f"{by_phrase(phrases, data.player_counts)} (start player's copies minus the mean of the other seats of "
            f"its game: {spread(gap['gap'], signed)}).")
    numbers = estimates(data, gap.iter_rows(named=True), "start_player_copies_gap", "gap", result["method"], seat=0)
    return Finding("Seats and completed paintings.", text, table(
        "", gap, ("Players", "players"), ("Games", "games", count),
        *est("Start player − others (copies)", "gap", signed, signed_ci)), tuple(numbers))


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


def seat_tables(result: dict, _) -> list:
    return [table("Completed copies per player by seat (Player 1 starts; 95% intervals: cluster-robust over "
                  "deals)", result["by_seat"], ("Players", "players"), ("Player", "seat", seat_name),
                  ("Player results", "n", count), *est("Copies", "copies"))]


SEAT_INTRO = ("Every player takes the same number of turns: the game ends after the turn of the player to the right "
              "of the start player. Here, the completed copies per player by seat, and in each game the start "
              "player's copies minus the mean of the other seats'; 95% intervals clustered by deal (every seating "
              "of one shuffle together). " + BASIC_ONLY)


# ---------------------------------------------------------------- completing paintings


def completion(data: GameData) -> pl.DataFrame | None:
    """Per player count and strategy ('all' = every player): the share completing at least one painting, completed
    copies per player and cards played per completed copy, each a ratio of per-deal sums (cluster-robust)."""
    rows = basic_rows(data)
    if rows.is_empty():
        return None
    out = []
    for key, group in with_all(rows):
        units = per_deal(group, [], completed=pl.col("paintings") > 0, copies=pl.col("paintings"),
                         cards=pl.col("cards_played"))
        out.append({**key, "n": group.height, "games": int(units["games"].sum()),
                    **ratio("completed", units["completed"], units["n"]),
                    **ratio("copies", units["copies"], units["n"]),
                    **ratio("cards_per_copy", units["cards"], units["copies"])})
    return pl.DataFrame(out)


def make_up(rows: pl.DataFrame, data: GameData) -> tuple[str, list[dict]]:
    """How the player counts compare in make-up, in words (the same strategies in equal numbers, or each count's
    shares of the seats), and the records of the shares it states."""
    seats = (rows.group_by("players", "strategy").agg(seats=pl.len(), games=pl.col("game_id").n_unique())
             .with_columns(share=pl.col("seats") / pl.col("seats").sum().over("players")).sort("players", "strategy"))
    pools = {p: tuple(g["strategy"]) for (p,), g in seats.partition_by("players", as_dict=True).items()}
    even = seats.group_by("players").agg(pl.col("seats").n_unique() == 1)["seats"].all()
    if even and len(set(pools.values())) == 1:
        return (f"Every player count seats the same strategies ({listing(next(iter(pools.values())))}) in equal "
                "numbers: the counts differ in the size of the table, not in who plays.", [])
    shares = [f"at {p} players " + listing(f"{r['strategy']} {pct(r['share'])}" for r in g.iter_rows(named=True))
              for (p,), g in sorted(seats.partition_by("players", as_dict=True).items())]
    numbers = [record(data, r["players"], "strategy_seat_share", r["share"], r["share"], r["share"], r["games"],
                      "count: the strategy's share of the seats played", strategy=r["strategy"])
               for r in seats.iter_rows(named=True)]
    return f"The player counts differ in make-up (shares of the seats): {'; '.join(shares)}.", numbers


def strategy_completion(strategies: pl.DataFrame) -> str:
    """The strategies that complete the most and the fewest copies, at each player count."""
    ends = []
    for _, group in groups(strategies, ["players"]):
        ranked = group.sort("copies", "strategy", descending=[True, False])
        ends.append((ranked.row(0, named=True), ranked.row(-1, named=True)))
    if len({(most["strategy"], fewest["strategy"]) for most, fewest in ends}) == 1:
        most, fewest = ends[0]
        return (f"{most['strategy']} completes the most copies per player, {listing(num(m['copies']) for m, _ in ends)}"
                f" at {at_counts([m['players'] for m, _ in ends])}, and {fewest['strategy']} the fewest, "
                f"{listing(num(f['copies']) for _, f in ends)}, {listing(pct(f['completed']) for _, f in ends)} of "
                "its players completing one or more")
    return "; ".join(f"at {most['players']} players {most['strategy']} completes the most copies per player, "
                     f"{num(most['copies'])}, and {fewest['strategy']} the fewest, {num(fewest['copies'])}"
                     for most, fewest in ends)


def completion_finding(result: pl.DataFrame, data: GameData) -> Finding:
    """How many players complete a painting and how many copies, by player count (with how the counts differ in
    make-up); at each count, which strategy completes most and fewest."""
    overall = result.filter(pl.col("strategy") == "all").sort("players")
    per_copy = overall["cards_per_copy"].drop_nulls()
    cards = f", playing {spread(per_copy, num)} cards per copy" if len(per_copy) else ""
    counts = overall["players"].to_list()
    text = (f"{spread(overall['completed']).capitalize()} of players complete at least one painting, and players "
            f"complete {spread(overall['copies'], num)} copies each on average{cards}, at {at_counts(counts)}"
            f"{' (each count in the table)' if len(counts) > 1 else ''}.")
    numbers = completion_numbers(result, data)
    if len(counts) > 1:
        words, shares = make_up(basic_rows(data), data)
        text, numbers = f"{text} {words}", numbers + shares
    strategies = result.filter(pl.col("strategy") != "all")
    if strategies["strategy"].n_unique() > 1:
        text += f" Of the strategies, {strategy_completion(strategies)}."
    return Finding("Completing paintings.", text, table(
        "", overall, ("Players", "players"), *share_ci("Complete one or more", "completed", "completed_lo",
                                                      "completed_hi"),
        *est("Copies per player", "copies"), *est("Cards per copy", "cards_per_copy")), tuple(numbers))


def completion_numbers(result: pl.DataFrame, data: GameData) -> list[dict]:
    """Every player count's and strategy's completion share, copies per player and cards per copy."""
    rows, method = list(result.iter_rows(named=True)), clustered_method(data.rows, "the ratio of the per-deal sums")
    return [n for metric, key in (("completion_share", "completed"), ("copies_per_player", "copies"),
                                  ("cards_per_copy", "cards_per_copy"))
            for n in estimates(data, rows, metric, key, method, "strategy")]


def completion_tables(result: pl.DataFrame, data: GameData) -> list:
    return [table("Completed paintings by player count and strategy ('all' = every player; 95% intervals: cluster "
                  "clustered by deal)", by_strength(result, data, "players"),
                  ("Players", "players"), ("Strategy", "strategy"), ("Player results", "n", count),
                  *share_ci("Complete one or more", "completed", "completed_lo", "completed_hi"),
                  *est("Copies per player", "copies"), *est("Cards per copy", "cards_per_copy"))]


def completion_chart(result: pl.DataFrame, data: GameData) -> Chart:
    """Two panels of horizontal bars per strategy, one bar per player count: the share completing a painting and
    completed copies per player."""
    labels = [s for s in ["all", *data.order] if s in result["strategy"]]
    counts = result["players"].unique().sort().to_list()
    fig, axes = panels(2, 11.0, 2.2 + 0.3 * len(labels) * max(2, len(counts)), sharey=True)
    for ax, (column, xlabel) in zip(axes, [("completed", "Players completing at least one painting"),
                                           ("copies", "Completed copies per player")]):
        bars = {}
        for players in counts:
            panel = aligned(result.filter(pl.col("players") == players), "strategy", labels)
            bars[f"{players} players"] = (panel[column], panel[f"{column}_lo"], panel[f"{column}_hi"])
        bars_with_ci(ax, labels, bars, horizontal=True)
        ax.set_xlabel(xlabel)
    axes[0].set_xlim(0, 1)
    axes[0].xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    return finished_chart(fig, axes[0], f"{data.title}: completing paintings (95% intervals)",
                          data.out_dir, f"{data.slug}_completion.png",
                          "Per strategy ('all' = every player, strategies in order of win share), one bar per player "
                          "count: the share of players who complete at least one painting (left) and the completed "
                          "copies per player (right), with 95% intervals clustered by deal.")


COMPLETION_INTRO = ("A painting is completed when four visible quarters of it form a 2×2 block in a collection; "
                    "a collection may hold several copies of one painting. Per player: whether they complete at least "
                    "one painting, how many copies, and the cards they added to their collection per completed copy "
                    "(the ratio of the totals); 95% intervals clustered by deal. " + BASIC_ONLY)


# ---------------------------------------------------------------- which paintings


def with_painting_columns(rows: pl.DataFrame, paintings: list[str]) -> pl.DataFrame:
    """rows plus a column `copies_P` per painting P."""
    return rows.with_columns(pl.col("copies_by_painting").list.get(i).cast(pl.Int64).alias(f"copies_{p}")
                             for i, p in enumerate(paintings))


def copy_shares(units: pl.DataFrame, paintings: list[str], by: list[str]) -> pl.DataFrame:
    """Per group of `by`: games, completed copies, and each painting's share of them (columns P, P_lo, P_hi) with a
    cluster-robust interval over the units (the per-deal sums of the copies of each painting, columns P)."""
    out = []
    for key, group in groups(units, by):
        copies = group.select(paintings).to_numpy().astype(float)
        total = copies.sum(axis=1)
        shares = {**key, "games": int(group["games"].sum()), "copies": int(total.sum())}
        for i, painting in enumerate(paintings):
            shares |= ratio(painting, copies[:, i], total)
        out.append(shares)
    return pl.DataFrame(out)


def painting_shares(data: GameData) -> dict | None:
    """Each painting's share of the completed copies per player count, and per player count and strategy (cluster
    cluster-robust over deals)."""
    rows = basic_rows(data)
    if rows.is_empty():
        return None
    paintings = names(data, "paintings")
    wide = with_painting_columns(rows, paintings)
    copies = {p: pl.col(f"copies_{p}") for p in paintings}
    by_strategy = copy_shares(per_deal(wide, ["players", "strategy"], **copies), paintings, ["players", "strategy"])
    return {"paintings": paintings, "by_count": copy_shares(per_deal(wide, ["players"], **copies), paintings,
                                                            ["players"]),
            "by_strategy": by_strength(by_strategy, data, "players"),
            "method": clustered_method(rows, "the painting's copies over all completed copies")}


def ranked_shares(row: dict, names: list[str]) -> list[dict]:
    """The shares (columns NAME, NAME_lo, NAME_hi) of one row as records, largest first; shares of nothing left out."""
    shares = [{"name": n, "share": row[n], "lo": row[f"{n}_lo"], "hi": row[f"{n}_hi"]} for n in names
              if row[n] is not None]
    return sorted(shares, key=lambda s: -s["share"])


def off_even(top: dict, bottom: dict) -> str:
    """Whether the most and least copied paintings' intervals exclude an even spread's share (field `fair`)."""
    above, below = top["lo"] > top["fair"], bottom["hi"] < bottom["fair"]
    if above and below:
        return "both intervals exclude the even share"
    if above or below:
        return f"only {(top if above else bottom)['name']}'s interval excludes the even share"
    return "neither interval excludes the even share"


def painting_clause(row: dict, paintings: list[str]) -> str:
    """At one player count: the most and least copied paintings with their intervals, against an even spread."""
    ranked = [{**s, "fair": 1 / len(paintings)} for s in ranked_shares(row, paintings)]
    top, bottom = ranked[0], ranked[-1]
    return (f"at {row['players']} players {top['name']} is copied most ({pct(top['share'])} of the completed "
            f"copies, 95% CI {pct_ci(top['lo'], top['hi'])}) and {bottom['name']} least ({pct(bottom['share'])}, "
            f"{pct_ci(bottom['lo'], bottom['hi'])}): {off_even(top, bottom)}")


def lean(by_strategy: pl.DataFrame, paintings: list[str]) -> str:
    """Where several strategies played: the one strategy's share of one painting whose interval lies highest (its
    lower end the largest), against an even spread."""
    shares = [{**s, "strategy": r["strategy"], "players": r["players"]} for r in by_strategy.iter_rows(named=True)
              for s in ranked_shares(r, paintings)]
    if len({s["strategy"] for s in shares}) < 2:
        return ""
    top = max(shares, key=lambda s: s["lo"])
    side = "above" if top["lo"] > 1 / len(paintings) else "not above"
    return (f" The highest share of one painting in one strategy's copies (by its interval's lower end): "
            f"{top['strategy']}'s {top['name']} at {top['players']} players, {pct(top['share'])} (95% CI "
            f"{pct_ci(top['lo'], top['hi'])}), {side} the even share.")


def painting_finding(result: dict, data: GameData) -> Finding:
    """The most and least copied paintings at each player count against an even spread, and the strategy whose
    copies lean most clearly towards one painting."""
    paintings, fair = result["paintings"], 1 / len(result["paintings"])
    counts = [r for r in result["by_count"].iter_rows(named=True) if r["copies"]]
    if not counts:
        return Finding("Which paintings get copied.", "No player completed a painting.")
    text = (f"An even spread gives each painting {pct(fair)} of the completed copies; "
            f"{'; '.join(painting_clause(r, paintings) for r in counts)}.")
    text += lean(result["by_strategy"], paintings)
    rows = [{"players": r["players"], **s} for r in counts for s in ranked_shares(r, paintings)]
    return Finding("Which paintings get copied.", text, table("", rows, ("Players", "players"), ("Painting", "name"),
                                                              *share_ci("Share of copies")),
                   tuple(painting_numbers(result, data)))


def painting_numbers(result: dict, data: GameData) -> list[dict]:
    """Every painting's share of the copies at each player count and in each strategy's copies, and the even
    share."""
    paintings, method = result["paintings"], result["method"]
    even = 1 / len(paintings)
    out = [record(data, r["players"], "even_copy_share", even, even, even, r["games"], "exact")  # 1 / paintings
           for r in result["by_count"].iter_rows(named=True)]
    for frame, fields in ((result["by_count"], ()), (result["by_strategy"], ("strategy",))):
        for r in frame.iter_rows(named=True):
            out += [record(data, r["players"], "copy_share", r[p], r[f"{p}_lo"], r[f"{p}_hi"], r["games"], method,
                           **{f: r[f] for f in fields}, painting=p) for p in paintings if r[p] is not None]
    return out


def share_columns(names: list[str]) -> list:
    """A column per name: its share (columns NAME, NAME_lo, NAME_hi) with the 95% interval in brackets."""
    def cell(r: dict, n: str) -> str:
        return "–" if r[n] is None else f"{pct(r[n])} ({pct_ci(r[f'{n}_lo'], r[f'{n}_hi'])})"

    return [(n, lambda r, n=n: cell(r, n)) for n in names]


def painting_tables(result: dict, _) -> list:
    paintings = result["paintings"]
    return [
        table("Each painting's share of the completed copies by player count (95% intervals in brackets clustered "
              "by deal)", result["by_count"], ("Players", "players"), ("Copies", "copies", count),
              *share_columns(paintings)),
        table("Each painting's share of a strategy's completed copies by player count (95% intervals in brackets "
              "clustered by deal)", result["by_strategy"], ("Players", "players"), ("Strategy", "strategy"),
              ("Copies", "copies", count), *share_columns(paintings)),
    ]


def painting_chart(result: dict, data: GameData) -> Chart:
    """Left: each painting's share of the copies, one bar per player count, with the even share dashed; right: a
    heat map of the shares by strategy (and player count)."""
    paintings, by_count, by_strategy = result["paintings"], result["by_count"], result["by_strategy"]
    fig, axes = panels(2, 12.0, max(4.4, 1.6 + 0.42 * by_strategy.height), width_ratios=[1, 1.1])
    bars = {f"{r['players']} players": ([r[p] for p in paintings], [r[f"{p}_lo"] for p in paintings],
                                        [r[f"{p}_hi"] for p in paintings]) for r in by_count.iter_rows(named=True)}
    bars_with_ci(axes[0], paintings, bars)
    axes[0].axhline(1 / len(paintings), color="#555", linestyle="--", linewidth=1.2, label="even spread")
    axes[0].set(xlabel="Painting", ylabel="Share of completed copies", title="By player count")
    axes[0].yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    legend_below(fig, axes[0])
    grid = by_strategy.select(paintings).to_numpy().astype(float)
    several = by_count.height > 1
    labels = [f"{s}, {p} players" if several else s for s, p in by_strategy.select("strategy", "players").rows()]
    heatmap(fig, axes[1], grid, labels, paintings, "Share of the strategy's copies",
            max(0.01, float(np.nan_to_num(grid).max())))
    axes[1].set(xlabel="Painting", title="By strategy")
    fig.suptitle(f"{data.title}: which paintings get copied")
    return save_chart(fig, data.out_dir, f"{data.slug}_paintings.png",
                      "Each painting's share of all completed copies: left, one bar per player count with 95% "
                      "intervals clustered by deal (dashed: an even spread); right, the percentage of each "
                      "strategy's copies (strategies in order of win share; intervals in the table).")


def painting_intro(result: dict, _) -> str:
    return ("A completed painting is worth as many points as there are copies of it in all collections together. "
            f"Shares of all completed copies by painting ({listing(result['paintings'])}); an even spread gives each "
            f"{pct(1 / len(result['paintings']))}. The copies of one deal are tied together (the same shuffle under "
            "every seating), so intervals clustered by deal (cluster-robust). " + BASIC_ONLY)


# ---------------------------------------------------------------- action tokens: use


def use_rates(rows: pl.DataFrame, actions: list[str], by: list[str]) -> pl.DataFrame:
    """Per group of `by`: player results, games, tokens used per game and, per action, the share of games in which
    it was used (columns ACTION, ACTION_lo, ACTION_hi), each a ratio of per-deal sums (cluster-robust)."""
    used = {action: pl.col("actions_used").list.get(i).cast(pl.Int64) for i, action in enumerate(actions)}
    out = []
    for key, group in groups(rows, by):
        units = per_deal(group, [], tokens=pl.sum_horizontal(used.values()), **used)
        rates = {**key, "n": group.height, "games": int(units["games"].sum()),
                 **ratio("tokens", units["tokens"], units["n"])}
        for action in actions:
            rates |= ratio(action, units[action], units["n"])
        out.append(rates)
    return pl.DataFrame(out)


def action_use(data: GameData) -> dict:
    """How often each strategy uses each action token, per player count and every player count together."""
    actions, rows = names(data, "actions"), everyone_and(data.rows)
    return {"actions": actions, "pooled": by_strength(use_rates(rows, actions, ["strategy"]), data),
            "by_count": by_strength(use_rates(rows, actions, ["players", "strategy"]), data, "players"),
            "method": clustered_method(data.rows, "the ratio of the per-deal sums")}


def use_sentence(group: pl.DataFrame, actions: list[str]) -> str:
    """At one player count: how often every player together uses each action, and which strategy uses most and
    fewest tokens."""
    everyone = group.filter(pl.col("strategy") == "all").row(0, named=True)
    uses = listing(f"{r['name']} in {pct(r['share'])}" for r in ranked_shares(everyone, actions))
    text = f"At {everyone['players']} players, all strategies together use {uses} of their games."
    strategies = group.filter(pl.col("strategy") != "all")
    if strategies.height > 1:
        most = strategies.sort("tokens", "strategy", descending=[True, False]).row(0, named=True)
        fewest = strategies.sort("tokens", "strategy").row(0, named=True)
        text += (f" {most['strategy'].capitalize()} uses the most tokens, {num(most['tokens'])} a game, and "
                 f"{fewest['strategy']} the fewest, {num(fewest['tokens'])}.")
    return text


def use_finding(result: dict, data: GameData) -> Finding:
    """At each player count, how often each action is used by every player together, and which strategy uses most
    and fewest tokens."""
    actions, by_count = result["actions"], result["by_count"]
    text = " ".join(use_sentence(group, actions) for _, group in groups(by_count, ["players"]))
    everyone = by_count.filter(pl.col("strategy") == "all")
    rows = [{"players": r["players"], **s} for r in everyone.iter_rows(named=True) for s in ranked_shares(r, actions)]
    return Finding("Action tokens used.", text, table("", rows, ("Players", "players"), ("Action", "name"),
                                                      *share_ci("Used in")), tuple(use_numbers(result, data)))


def use_numbers(result: dict, data: GameData) -> list[dict]:
    """At each player count, every strategy's ('all' = every player) share of games using each token, and tokens
    used per game."""
    rows, method = list(result["by_count"].iter_rows(named=True)), result["method"]
    out = estimates(data, rows, "tokens_per_game", "tokens", method, "strategy")
    return out + [n for action in result["actions"]
                  for n in estimates(data, rows, "token_use_share", action, method, "strategy", action=action)]


def use_tables(result: dict, _) -> list:
    actions = result["actions"]
    return [
        table("Share of games in which each strategy uses each action token by player count ('all' = every player; "
              "95% intervals in brackets clustered by deal), and tokens used per game", result["by_count"],
              ("Players", "players"), ("Strategy", "strategy"), ("Player results", "n", count),
              *est("Tokens", "tokens"), *share_columns(actions)),
        table("The same, every player count together", result["pooled"], ("Strategy", "strategy"),
              ("Player results", "n", count), *est("Tokens", "tokens"), *share_columns(actions)),
    ]


def use_chart(result: dict, data: GameData) -> Chart:
    """Heat map: the share of games in which each strategy (row) uses each action token (column)."""
    actions, pooled = result["actions"], result["pooled"]
    fig = new_figure(3.2 + 1.1 * len(actions), 1.8 + 0.42 * pooled.height)
    ax = fig.subplots()
    heatmap(fig, ax, pooled.select(actions).to_numpy().astype(float), pooled["strategy"].to_list(), actions,
            "Games in which the token is used")
    ax.set(xlabel="Action token", ylabel="Strategy")
    ax.set_title(f"{data.title}: how often each strategy uses each action token")
    return save_chart(fig, data.out_dir, f"{data.slug}_action_use.png",
                      "The percentage of its games in which each strategy uses each action token (each may be used "
                      "once a game), every player count of the experiment together; 'all' is every player, strategies "
                      "in order of win share. Intervals, and the shares at each player count, are in the tables.")


def use_intro(result: dict, _) -> str:
    return (f"Each player holds one token of each action ({listing(result['actions'])}) and may use each once per "
            "game. The share of a strategy's games in which it used each token, with 95% intervals clustered "
            "by deal; every experiment counts here, the Advanced Variant's too.")


# ---------------------------------------------------------------- action tokens: worth


def restricted_variants(rows: pl.DataFrame) -> list[tuple[str, str, str]]:
    """(variant, base, action it never uses) for each BASE-no-ACTION strategy in rows whose BASE played too."""
    present = set(rows["strategy"].unique().to_list())
    split = [(s, *s.split(RESTRICTED, 1)) for s in sorted(present) if RESTRICTED in s]
    return [(variant, base, action) for variant, base, action in split if base in present]


def with_margin(rows: pl.DataFrame) -> pl.DataFrame:
    """rows with `margin`: the seat's score minus the mean score of the other seats of its game. What happens to
    everyone at a table (a Stash, a Gift or a Rush takes one card more from the deck or the display, and the game
    may end sooner for all) cancels."""
    others = (pl.col("score").sum().over(GAME_KEY) - pl.col("score")) / (pl.col("players") - 1)
    return rows.with_columns(margin=pl.col("score") - others)


def paired_means(rows: pl.DataFrame, value: pl.Expr, a: pl.Expr, b: pl.Expr, keys: tuple[str, str, str]) -> dict:
    """The mean of `value` over the rows where mask a holds, over those where b holds, and a − b (named by `keys`),
    each with its cluster-robust interval over the same deals (matches in match mode;
    stats.paired_mean_intervals)."""
    means, lo, hi = paired_mean_intervals(rows, value, a, b)
    return {k: float(x) for key, m, low, high in zip(keys, means, lo, hi)
            for k, x in ((key, m), (f"{key}_lo", low), (f"{key}_hi", high))}


def token_worth(stratum: pl.DataFrame, variant: str, base: str) -> dict:
    """One experiment and player count: the variant's and the base's win shares and mean points over the table, and
    what the token is worth, base − variant, in win share (stats.paired_difference, with its unpaired Newcombe
    interval) and in points (over the same clusters); and whom the two sides met."""
    is_base, is_variant = pl.col("strategy") == base, pl.col("strategy") == variant
    variants = pl.col("strategy").str.starts_with(base + RESTRICTED)
    wins = paired_difference(stratum, is_base, is_variant)
    unpaired = ("lo_unpaired", "hi_unpaired", "width_ratio", "games_factor")
    return {"seats": int(stratum["strategy"].eq(variant).sum()), "games": wins["games"], "deals": wins["clusters"],
            "games_variant": wins["games_b"], "games_base": wins["games_a"], "share": wins["share_b"],
            "base_share": wins["share_a"], "win_worth": wins["estimate"], "win_worth_lo": wins["lo"],
            "win_worth_hi": wins["hi"], **{f"win_worth_{k}": wins[k] for k in unpaired},
            "win_method": wins["method"], "win_method_unpaired": wins["method_unpaired"],
            **paired_means(stratum, pl.col("margin"), is_base, is_variant, ("base_points", "points", "point_worth")),
            "point_method": "paired_" + clustered_method(stratum, "the mean points over the table"),
            "base_met": opponent_share(stratum, variant, is_base),
            "others_met": opponent_share(stratum, variant, variants & ~is_variant),
            "variants_met": opponent_share(stratum, base, variants)}


def token_values(data: GameData) -> pl.DataFrame | None:
    """What each action token is worth to its BASE, per experiment and player count where both BASE and
    BASE-no-ACTION played."""
    out, rows = [], with_margin(data.rows)
    for variant, base, action in restricted_variants(rows):
        for key, stratum in groups(rows, ["experiment", "players"]):
            if {variant, base} <= set(stratum["strategy"].unique()):
                out.append({**key, "strategy": variant, "base": base, "action": action,
                            **token_worth(stratum, variant, base)})
    return pl.DataFrame(out) if out else None


def worth_sentence(base: str, ranked: pl.DataFrame) -> str:
    """One base strategy's tokens, by points worth: their worth, the verdicts, the most valuable in wins, and whom
    the base and its variants met."""
    where = listing(f"{e} at {p} players" for e, p in ranked.select("experiment", "players").unique().sort(
        "experiment", "players").iter_rows())
    rows = ranked.to_dicts()
    worths = listing(f"{r['action']} {signed(r['point_worth'], 1)}" for r in rows)
    text = f"What each token is worth to {base} ({where}), in points over its table a game: {worths}."
    gains = [r["action"] for r in rows if r["point_worth_lo"] > 0]
    losses = [r["action"] for r in rows if r["point_worth_hi"] < 0]
    unclear = [r["action"] for r in rows if not clear(r["point_worth_lo"], r["point_worth_hi"])]
    if gains:
        text += f" Clearly worth points: {listing(gains)}."
    if losses:
        one = len(losses) == 1
        text += (f" {listing(losses).capitalize()} clearly cost{'s' if one else ''} {base} points, as this bot plays "
                 f"{'it' if one else 'them'}.")
    if unclear:
        text += f" No clear worth in points: {listing(unclear)}."
    best = max(rows, key=lambda r: r["win_worth"])
    return text + (f" In win share, {best['action']} is worth the most: {pp(best['win_worth'])} (95% CI "
                   f"{pp_ci(best['win_worth_lo'], best['win_worth_hi'])} paired over deals; unpaired "
                   f"{pp_ci(best['win_worth_lo_unpaired'], best['win_worth_hi_unpaired'])}). The two sides met "
                   f"different opponents: {pct(rows[0]['variants_met'])} of {base}'s opponent seats held its "
                   f"variants, while each variant's held {base} in {spread([r['base_met'] for r in rows])} and other "
                   f"variants in {spread([r['others_met'] for r in rows])}.")


def largest_strata(result: pl.DataFrame) -> pl.DataFrame:
    """Each variant's row from the experiment and player count where it played most, most valuable token first."""
    return (result.sort("seats", descending=True).unique("strategy", keep="first")
            .sort("point_worth", "strategy", descending=[True, False]))


def worth_finding(result: pl.DataFrame, data: GameData) -> Finding:
    """Per base strategy, what each token is worth (each variant's largest stratum)."""
    main = largest_strata(result).sort("base", maintain_order=True)
    sentences = [worth_sentence(base, group) for (base,), group in main.partition_by("base", as_dict=True,
                                                                                     maintain_order=True).items()]
    return Finding("Action tokens (what each is worth).", " ".join(sentences), table(
        "", main, ("Base", "base"), ("Token", "action"), *est("Worth in points over the table", "point_worth", signed,
                                                               signed_ci),
        *est("Worth in win share", "win_worth", pp, pp_ci),
        ("Unpaired 95% CI", ("win_worth_lo_unpaired", "win_worth_hi_unpaired"), pp_ci),
        ("Unpaired needs × the games", "win_worth_games_factor", lambda f: num(f, 1))),
        tuple(worth_numbers(main, data)))


def worth_numbers(result: pl.DataFrame, data: GameData) -> list[dict]:
    """Each token's worth in win share (with both sides' shares and the unpaired interval) and in points over the
    table, and the make-up of each side's opponents."""
    out = []
    for r in result.iter_rows(named=True):
        about = {"experiment": r["experiment"], "strategy": r["strategy"], "base": r["base"], "action": r["action"]}
        unpaired = {"low_unpaired": r["win_worth_lo_unpaired"], "high_unpaired": r["win_worth_hi_unpaired"],
                    "width_ratio": r["win_worth_width_ratio"], "games_factor": r["win_worth_games_factor"],
                    "method_unpaired": r["win_method_unpaired"]}
        out += [record(data, r["players"], "token_worth_win_share", r["win_worth"], r["win_worth_lo"],
                       r["win_worth_hi"], r["games"], r["win_method"], **about, share_base=r["base_share"],
                       share_variant=r["share"], **unpaired),
                record(data, r["players"], "token_worth_points", r["point_worth"], r["point_worth_lo"],
                       r["point_worth_hi"], r["games"], r["point_method"], **about, points_base=r["base_points"],
                       points_variant=r["points"])]
        met = (("base_met", r["strategy"], r["base"], r["games_variant"]),
               ("others_met", r["strategy"], f"other {r['base']}{RESTRICTED}TOKEN", r["games_variant"]),
               ("variants_met", r["base"], f"{r['base']}{RESTRICTED}TOKEN", r["games_base"]))
        out += [record(data, r["players"], "opponent_share", r[key], r[key], r[key], games,
                       "count: the share of the strategy's opponent seats that the opponent held",
                       experiment=r["experiment"], strategy=player, opponent=opponent)
                for key, player, opponent, games in met]
    return out


def worth_tables(result: pl.DataFrame, _) -> list:
    return [table("What each action token is worth: BASE against BASE-no-TOKEN (worth = base − variant; 95% "
                  "intervals: paired, cluster-robust over deals; unpaired: Newcombe), and whom the variant met",
                  result.sort("base", "experiment", "players", "point_worth", descending=[False, False, False, True]),
                  ("Players", "players"), ("Base", "base"), ("Token", "action"), ("Variant seats", "seats", count),
                  ("Variant wins", "share", pct), ("Base wins", "base_share", pct),
                  *est("Worth (win share)", "win_worth", pp, pp_ci),
                  ("Unpaired 95% CI", ("win_worth_lo_unpaired", "win_worth_hi_unpaired"), pp_ci),
                  ("Variant points over table", "points", signed), ("Base points over table", "base_points", signed),
                  *est("Worth (points over table)", "point_worth", signed, signed_ci),
                  ("Variant's opponents: base", "base_met", pct),
                  ("Variant's opponents: other variants", "others_met", pct))]


def worth_chart(result: pl.DataFrame, data: GameData) -> Chart:
    """Two panels of horizontal bars per token: its worth in points and in win share, one bar per stratum."""
    main = largest_strata(result)
    order = main["strategy"].to_list()
    labels = [f"{a} ({b})" for a, b in main.select("action", "base").iter_rows()]
    strata = result.select("experiment", "players").unique().sort("experiment", "players").rows()
    fig, axes = panels(2, 11.0, 2.2 + 0.36 * len(order) * len(strata), sharey=True)
    for ax, (column, xlabel) in zip(axes, [("point_worth", "Points over the table a game: base − variant"),
                                           ("win_worth", "Win share: base − variant (pp)")]):
        bars = {}
        for experiment, players in strata:
            stratum = result.filter((pl.col("experiment") == experiment) & (pl.col("players") == players))
            panel = aligned(stratum, "strategy", order)
            bars[f"{experiment}, {players} players"] = (panel[column], panel[f"{column}_lo"], panel[f"{column}_hi"])
        bars_with_ci(ax, labels, bars, horizontal=True)
        ax.axvline(0, color="#555", linewidth=1.0)
        ax.set_xlabel(xlabel)
    axes[1].xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0, symbol=""))
    axes[0].set_title("In points over the table")
    axes[1].set_title("In win share")
    return finished_chart(fig, axes[0],
                          f"{data.title}: what each action token is worth "
                          "(BASE − BASE-no-TOKEN, 95% paired intervals over deals)",
                          data.out_dir, f"{data.slug}_action_worth.png",
                          "What each action token is worth to the strategy in brackets: its points over the table "
                          "(its score minus the mean of the other players' in the same game; left) and its win share "
                          "(right) minus those of the same strategy never using that token, over the same deals. Bars "
                          "right of zero: the strategy does better with the token; most valuable first.")


WORTH_INTRO = (
    "A BASE-no-TOKEN strategy plays like BASE but never uses that action token. What the token is worth to BASE is "
    "BASE's win share and its mean points over its table (its score minus the mean score of the other players in "
    "the same game), minus the variant's, in each experiment and player count where both played, on the same deals. "
    "Both face the rest of the pool, which is not the same field for both: BASE never meets itself, and a variant "
    "meets BASE in only some of its opponent seats (the finding gives the make-up). "
    "Points over the table, not raw points: a Stash, a Gift and a Rush each take one card more from the deck or the "
    "display (Solvent and Correction take none), so the game may end sooner for everyone at the table; subtracting "
    "the table's mean cancels what falls on all its players. Both differences carry a paired cluster-robust interval: "
    "intervals are clustered by deal (every seating of one deal together; matches in match mode), the same deals for "
    "both sides, and a k-way tie's 1/k of a win is summed as it is. Beside the win share's interval stands the "
    "unpaired one (Newcombe), as if every game were independent.")

CAVEATS = (
    "Witkacy: a token's worth compares a strategy with its BASE-no-TOKEN variant on the same deals of one pool, each "
    "facing the rest of that pool, so not the same opponents; it measures what the token is worth to that bot's way "
    "of playing it in that field, not to a person.",
)


# ---------------------------------------------------------------- the Advanced Variant


def rules_pair(data: GameData) -> tuple[str, str] | None:
    """(basic, advanced): the first experiment under the Advanced Variant, by name, and a basic-rules experiment
    with the same strategies."""
    rows = data.with_facts(data.rows.select("experiment", "players", "strategy"), "advanced")
    kinds = rows.group_by("experiment").agg(pool=pl.col("strategy").unique().sort().str.join(", "),
                                            advanced=pl.col("advanced").any())
    pairs = (kinds.filter(~pl.col("advanced")).join(kinds.filter(pl.col("advanced")), on="pool", suffix="_advanced")
             .sort("experiment_advanced", "experiment"))
    return None if pairs.is_empty() else (pairs["experiment"][0], pairs["experiment_advanced"][0])


def deal_sums(rows: pl.DataFrame) -> pl.DataFrame:
    """Per player count and deal (every seating of one deal together): games, player results (seats), completed
    copies, players completing a painting, points and turns."""
    games = rows.group_by(GAME_KEY).agg(
        pl.col("players", "deal").first(), seats=pl.len(), copies=pl.col("paintings").cast(pl.Int64).sum(),
        completed=(pl.col("paintings") > 0).sum(), score=pl.col("score").cast(pl.Int64).sum(),
        turns=pl.col("turns").cast(pl.Int64).first())
    return games.group_by("players", "deal").agg(
        pl.len().alias("games"), *(pl.col(c).sum() for c in ("seats", "copies", "completed", "score", "turns")))


def rules_effect(units: pl.DataFrame) -> list[dict]:
    """Each measure under the basic rules and the Advanced Variant, and the difference advanced − basic, with
    cluster-robust intervals over the paired deals (cluster_t for each rule's measure, paired_cluster_t for the
    difference)."""
    values = {c: units[c].cast(pl.Float64).to_numpy() for c in units.columns if c not in ("players", "deal")}
    out = []
    for measure, (_, numerator, denominator, _) in MEASURES.items():
        sums = [values[numerator + "_advanced"], values[denominator + "_advanced"], values[numerator],
                values[denominator]]
        paired = difference_interval(np.column_stack(sums))
        lo, hi = cluster_ratio_interval(np.column_stack(sums[0::2]), np.column_stack(sums[1::2]))
        out.append({"measure": measure, "deals": units.height, "games": int(values["games"].sum()),
                    "games_advanced": int(values["games_advanced"].sum()),
                    "advanced": paired["share_a"], "advanced_lo": float(lo[0]), "advanced_hi": float(hi[0]),
                    "basic": paired["share_b"], "basic_lo": float(lo[1]), "basic_hi": float(hi[1]),
                    "diff": paired["estimate"], "diff_lo": paired["lo"], "diff_hi": paired["hi"]})
    return out


def advanced_variant(data: GameData) -> dict | None:
    """The measures of the rules pair per player count, on the deals played in both."""
    pair = rules_pair(data)
    if pair is None:
        return None
    basic, advanced = pair
    units = (deal_sums(data.rows.filter(pl.col("experiment") == basic))
             .join(deal_sums(data.rows.filter(pl.col("experiment") == advanced)), on=["players", "deal"],
                   suffix="_advanced"))
    effects = [{**key, **effect} for key, group in groups(units, ["players"]) for effect in rules_effect(group)]
    seeds = {m["experiment"]: m.get("seed") for m in data.manifests}
    return {"basic": basic, "advanced": advanced, "effects": pl.DataFrame(effects),
            "same_deals": seeds[basic] is not None and seeds[basic] == seeds[advanced]}


def measure_columns(header: str, key: str, difference: bool = False) -> list:
    """Two columns, an estimate and its 95% interval, written as the row's measure asks: a share in per cent (a
    difference in percentage points), anything else as a number (a difference signed)."""
    def formats(r: dict) -> tuple:
        share = r["measure"] == "completed"
        if difference:
            return (pp, pp_ci) if share else (signed, signed_ci)
        return (pct, pct_ci) if share else (num, num_ci)

    return [(header, lambda r: formats(r)[0](r[key])),
            ("95% CI", lambda r: formats(r)[1](r[f"{key}_lo"], r[f"{key}_hi"]))]


def rules_clause(players: int, effects: dict[str, dict]) -> str:
    """Copies, score and turns at one player count under both rules, in words."""
    copies, score, turns = effects["copies"], effects["score"], effects["turns"]
    return (f"at {players} players, players complete {num(copies['advanced'])} copies each instead of "
            f"{num(copies['basic'])} ({signed(copies['diff'])}, 95% CI "
            f"{signed_ci(copies['diff_lo'], copies['diff_hi'])}), "
            f"score {num(score['advanced'], 1)} points instead of {num(score['basic'], 1)} and play "
            f"{num(turns['advanced'], 1)} turns a game instead of {num(turns['basic'], 1)}")


def direction(diffs: pl.DataFrame, lower: str, higher: str, neither: str, tiny: str) -> str:
    """`lower` if every difference (advanced − basic) is clearly below zero, `higher` if every one is clearly above,
    `tiny` where every one is clear in one direction but some is too small to notice (fmt.effect, against the basic
    level), else `neither`."""
    effects = [effect(r["diff_lo"], r["diff_hi"], r["diff"], r["basic"]) for r in diffs.iter_rows(named=True)]
    signs = {r["diff"] > 0 for r in diffs.iter_rows(named=True)}
    if "unclear" in effects or len(signs) != 1:
        return neither
    if "tiny" in effects:
        return tiny
    return higher if signs == {True} else lower


def advanced_finding(result: dict, data: GameData) -> Finding:
    """Whether the Advanced Variant makes completing paintings harder, and how scores and game length change."""
    effects = result["effects"]
    by_count = {p: {r["measure"]: r for r in g.iter_rows(named=True)}
                for (p,), g in sorted(effects.partition_by("players", as_dict=True).items())}
    verdict = direction(effects.filter(pl.col("measure") == "copies"),
                        "makes completing paintings harder, as the rulebook intends",
                        "makes completing paintings easier, against the rulebook's intent",
                        "does not clearly change how many paintings players complete",
                        "changes how many paintings players complete only slightly")
    length = direction(effects.filter(pl.col("measure") == "turns"), "games get shorter", "games get longer",
                       "game length does not change clearly",
                       f"game length barely changes (by less than {NOTICEABLE_RELATIVE:.0%})")
    turns = effects.filter(pl.col("measure") == "turns")["diff"]
    deals = "on the same deals" if result["same_deals"] else "on deals of the same numbers from different seeds"
    text = (f"The Advanced Variant {verdict} ({result['advanced']} against {result['basic']}: the same strategies "
            f"{deals}): {'; '.join(rules_clause(p, e) for p, e in by_count.items())}. {length.capitalize()} "
            f"({listing(signed(d) for d in turns)} turns a game).")
    return Finding("The Advanced Variant.", text, table(
        "", effects, ("Players", "players"), ("Measure", lambda r: MEASURES[r["measure"]][0]),
        measure_columns("Basic", "basic")[0], measure_columns("Advanced", "advanced")[0],
        *measure_columns("Difference", "diff", difference=True)), tuple(advanced_numbers(result, data)))


def advanced_numbers(result: dict, data: GameData) -> list[dict]:
    """At each player count, each measure under both rules (each from its own experiment) and the difference
    advanced − basic (comparing both)."""
    basic, advanced = result["basic"], result["advanced"]
    method = "cluster_t"  # over the deals played in both experiments
    out = []
    for r in result["effects"].iter_rows(named=True):
        metric, players = MEASURES[r["measure"]][3], r["players"]
        out += [record(data, players, metric, r["basic"], r["basic_lo"], r["basic_hi"], r["games"], method,
                       experiment=basic, rules="basic"),
                record(data, players, metric, r["advanced"], r["advanced_lo"], r["advanced_hi"], r["games_advanced"],
                       method, experiment=advanced, rules="advanced"),
                record(data, players, f"{metric}_difference", r["diff"], r["diff_lo"], r["diff_hi"],
                       r["games"] + r["games_advanced"], "paired_cluster_t", experiment=advanced, against=basic,
                       rules="advanced − basic")]
    return out


def advanced_tables(result: dict, _) -> list:
    return [table(f"{result['basic']} (basic rules) against {result['advanced']} (Advanced Variant) on the same deals "
                  "(difference = advanced − basic; 95% cluster-robust intervals over deals)", result["effects"],
                  ("Players", "players"), ("Measure", lambda r: MEASURES[r["measure"]][0]), ("Deals", "deals", count),
                  *measure_columns("Basic", "basic"), *measure_columns("Advanced", "advanced"),
                  *measure_columns("Difference", "diff", difference=True),
                  ("Clear?", ("diff_lo", "diff_hi"), lambda lo, hi: yes(clear(lo, hi))))]


def advanced_chart(result: dict, data: GameData) -> Chart:
    """One panel per measure: the basic rules and the Advanced Variant side by side, per player count."""
    effects = result["effects"]
    counts = effects["players"].unique().sort().to_list()
    fig, axes = panels(len(MEASURES), 3.0 * len(MEASURES) + 0.8, 4.2)
    for ax, (measure, (words, *_)) in zip(axes, MEASURES.items()):
        panel = aligned(effects.filter(pl.col("measure") == measure), "players", counts)
        bars_with_ci(ax, [str(p) for p in counts], {
            f"basic ({result['basic']})": (panel["basic"], panel["basic_lo"], panel["basic_hi"]),
            f"advanced ({result['advanced']})": (panel["advanced"], panel["advanced_lo"], panel["advanced_hi"])})
        ax.set(title=words[0].upper() + words[1:], xlabel="Players")
        if measure == "completed":
            ax.set_ylim(0, 1)
            ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    return finished_chart(fig, axes[0],
                          f"{data.title}: the Advanced Variant against the basic rules (95% cluster-robust intervals)",
                          data.out_dir, f"{data.slug}_advanced.png",
                          f"{result['basic']} (basic rules) and {result['advanced']} (Advanced Variant: a new card "
                          "must overlap at least 2 of its 4 cells) on the same deals, per player count: completed "
                          "copies per player, the share of players completing a painting, score per player and turns "
                          "per game.")


def advanced_intro(result: dict, _) -> str:
    return (f"{result['advanced']} plays the Advanced Variant (a new card must overlap at least 2 of its 4 cells with "
            f"the collection), {result['basic']} the basic rules, with the same strategies. Deals with the same number "
            "are paired (the same shuffle when the experiments share a seed), and only deals played in both count; "
            "intervals are clustered by deal, every seating of a deal together (cluster-robust).")


ANALYSES = [
    Analysis("Seats and completed paintings", seat_copies, intro=SEAT_INTRO, tables=seat_tables, finding=seat_finding,
             absent=NO_BASIC),
    Analysis("Completing paintings", completion, intro=COMPLETION_INTRO, chart=completion_chart,
             tables=completion_tables, finding=completion_finding, absent=NO_BASIC, leading_only=True),
    Analysis("Which paintings get copied", painting_shares, intro=painting_intro, chart=painting_chart,
             tables=painting_tables, finding=painting_finding, absent=NO_BASIC, leading_only=True),
    Analysis("Action tokens: how often they are used", action_use, intro=use_intro, chart=use_chart,
             tables=use_tables, finding=use_finding, leading_only=True),
    Analysis("Action tokens: what each is worth", token_values, intro=WORTH_INTRO, chart=worth_chart,
             tables=worth_tables, finding=worth_finding, caveats=CAVEATS,
             absent="No restricted strategies (BASE-no-TOKEN, e.g. saboteur-no-gift) played beside their BASE in "
                    "these experiments. Run experiments/witkacy_restricted.toml to measure what each action token is "
                    "worth."),
]
COMPARED = [  # across the game's experiments, each number from its own experiment
    Analysis("The Advanced Variant against the basic rules", advanced_variant, intro=advanced_intro,
             chart=advanced_chart, tables=advanced_tables, finding=advanced_finding,
             absent="No pair of experiments with the same strategies under the basic rules and the Advanced Variant. "
                    "Run witkacy_basic and witkacy_advanced to compare them."),
]


REPORT = GameReport(analyses=tuple(ANALYSES), compared=tuple(COMPARED))
