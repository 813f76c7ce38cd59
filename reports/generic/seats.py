"""Win share by seat: every seat's share against the fair 1/P, the start player's advantage, whether any seat
differs from fair (Holm over the P seats' tests) and whether seats matter within each strategy."""

import numpy as np
import polars as pl
from scipy.stats import chi2

from reports.analysis import GameData, groups, record
from reports.charts import bars_with_ci, finished_chart, panels
from reports.findings import seat_verdict
from reports.fmt import (
    NOTICEABLE_PP,
    at_counts,
    by_phrase,
    clear,
    count,
    effect,
    listing,
    p_value,
    pct,
    pct_ci,
    pp,
    pp_ci,
    seat_name,
    yes,
)
from reports.render import Chart, Finding, est, share_ci, table
from reports.stats import cluster_columns, holm_min, paired_ratio, ratio_p_values

SIGNIFICANCE = 0.05  # of the seat tests


def seat_win_shares(rows: pl.DataFrame, by: tuple[str, ...] = ()) -> pl.DataFrame:
    """Win share by (*by, players, seat) and the fair share 1/players; lo, hi: the 95% cluster-robust interval
    over deals (matches in match mode), each (*by, players) group on its own; lo_unpaired, hi_unpaired: Wilson's,
    as if the rows were independent."""
    return paired_shares(rows, [*by, "players"], "seat")


def paired_shares(rows: pl.DataFrame, within: list[str], of: str) -> pl.DataFrame:
    """The win share of each value of `of` (seat, strategy) inside every group of `within`, with the intervals of
    stats.paired_ratio, each group on its own (its clusters are matches where its games were played in matches)."""
    needed = rows.select(*dict.fromkeys([*within, of, "win", "game_id", *cluster_columns(rows)]))
    parts = [paired_ratio(group, pl.col("win"), pl.lit(1.0), [of]).with_columns(
             **{k: pl.lit(v, rows.schema[k]) for k, v in key.items()}) for key, group in groups(needed, within)]
    shares = pl.concat(parts, how="diagonal_relaxed").rename({"estimate": "share"})
    return (shares.with_columns(fair=1 / pl.col("players"), wins=pl.col("share") * pl.col("games"))
            .select(*within, of, "games", "wins", "share", "fair", "lo", "hi", "lo_unpaired", "hi_unpaired",
                    "se", "n_eff", "clusters", "method").sort(*within, of))


def first_player_advantage(seat_shares: pl.DataFrame) -> pl.DataFrame:
    """Seat 0's win share minus 1/players, with the interval shifted the same way, per player count."""
    return seat_shares.filter(pl.col("seat") == 0).with_columns(
        advantage=pl.col("share") - pl.col("fair"), advantage_lo=pl.col("lo") - pl.col("fair"),
        advantage_hi=pl.col("hi") - pl.col("fair"))


def seat_test(wins: np.ndarray, games: np.ndarray) -> float:
    """p-value of a chi-squared test that every seat wins the same share, over independent samples."""
    pooled = wins.sum() / games.sum()
    if pooled <= 0 or pooled >= 1:
        return 1.0
    stat = float(((wins - games * pooled) ** 2 / (games * pooled * (1 - pooled))).sum())
    return float(chi2.sf(stat, len(wins) - 1))


def seat_extremes(shares: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Per group of seat shares: the best and worst seat, their shares, and the seat test's p-value: without `by`,
    whether any seat's share differs from 1/P, Holm over the P seats' tests (stats.ratio_p_values); by strategy,
    a chi-squared test of equal shares."""
    out = []
    for (*key, players), group in sorted(shares.partition_by(*by, "players", as_dict=True).items()):
        if group.height < 2:
            continue
        ranked = group.sort("share", "seat", descending=[True, False])
        wins, games = ranked["wins"].to_numpy().astype(float), ranked["games"].to_numpy().astype(float)
        p = seat_test(wins, games) if by else holm_min(ratio_p_values(*ranked.select("share", "se", "n_eff",
                                                                              "clusters"), 1 / players))
        best, worst = ranked.row(0, named=True), ranked.row(-1, named=True)
        out.append({**dict(zip(by, key)), "players": players, "best": best["seat"], "best_share": best["share"],
                    "worst": worst["seat"], "worst_share": worst["share"], "p": p, "clear": p < SIGNIFICANCE,
                    "games": int(games.sum())})
    return pl.DataFrame(out)


def seat_analysis(data: GameData) -> dict:
    shares = seat_win_shares(data.rows)
    advantage = first_player_advantage(shares).join(seat_extremes(shares, []).drop("games"), on="players")
    return {"shares": shares, "advantage": advantage,
            "by_strategy": seat_extremes(seat_win_shares(data.rows, ("strategy",)), ["strategy"])}


def seat_intro(_, data: GameData) -> str:
    favours = "negative" if data.lowest_wins else "positive"
    return ("Players are numbered in turn order: Player 1 starts. With P players a player's fair share of "
            "victories is 1/P. The first-player advantage is Player 1's win share minus 1/P, in percentage points "
            "(pp: hundredths of all games). In this game "
            f"{data.direction} scores win, so a {favours} score gap favours the start player.")


def seat_finding(result: dict, data: GameData) -> Finding:
    """Which seats do well, from the numbers: the start player's verdict, the best and worst seats, and whether
    seats matter for each strategy."""
    adv, every, numbers = result["advantage"], data.player_counts, seat_numbers(result["shares"], data)
    seats = [n for n in numbers if n["metric"] == "seat_win_share"]
    fairness = {p: seat_verdict([n for n in seats if n["players"] == p]).replace("–", "not judged (too few deals)")
                for p in every}
    verdict = {r["players"]: start_phrase(r) for r in adv.iter_rows(named=True)}
    text = f"The start player wins {by_phrase(verdict, every)}"
    differ = adv.filter(pl.col("clear"))
    if differ.is_empty():
        text += "; no player's share differs clearly from 1/P at any player count."
    else:
        best = {r["players"]: seat_name(r["best"]) for r in differ.iter_rows(named=True)}
        worst = {r["players"]: seat_name(r["worst"]) for r in differ.iter_rows(named=True)}
        text += f"; the best placed is {by_phrase(best, every)}, and the worst placed {by_phrase(worst, every)}."
        same = adv.filter(~pl.col("clear"))["players"].to_list()
        if same:
            text = text[:-1] + f" (at {at_counts(same)} no seat differs clearly)."
    text += (f" The game is {by_phrase(fairness, every)} (fair: every player's 95% interval holds 1/P; unfair: some "
             "player's share differs from 1/P after Holm's correction for the P players). "
             + strategy_seat_sentence(result["by_strategy"]))
    columns = [("Players", "players"), *share_ci("Start player wins"), ("Fair share", "fair", pct),
               *est("Advantage", "advantage", pp, pp_ci),
               ("Best seat", lambda r: f"{seat_name(r['best'])} ({pct(r['best_share'])})" if r["clear"] else "–"),
               ("Worst seat", lambda r: f"{seat_name(r['worst'])} ({pct(r['worst_share'])})" if r["clear"] else "–")]
    return Finding("Seat advantage.", text, table("", adv, *columns), tuple(numbers))


def start_phrase(advantage: dict) -> str:
    """The start player's share against a fair one, as its interval and the size of its gap say (fmt.effect)."""
    size = effect(advantage["advantage_lo"], advantage["advantage_hi"], advantage["advantage"])
    side = "more" if advantage["advantage"] > 0 else "less"
    return {"clear": f"clearly {side} than a fair share",
            "tiny": f"slightly {side} than a fair share (a clear gap under {100 * NOTICEABLE_PP:.0f} pp)",
            "unclear": "a share not distinguishable from fair"}[size]


def seat_numbers(shares: pl.DataFrame, data: GameData) -> list[dict]:
    """Every seat's win share, with `p`, the p-value of its test against 1/P (the overview's verdict corrects them
    for the P seats), and the start player's advantage (its share minus 1/P), at each player count; with the
    unpaired (Wilson) interval beside the clustered one."""
    out = []
    for r in shares.iter_rows(named=True):
        unpaired = {"low_unpaired": r["lo_unpaired"], "high_unpaired": r["hi_unpaired"]}
        p = ratio_p_values(r["share"], r["se"], r["n_eff"], r["clusters"], r["fair"]).item()
        out.append(record(data, r["players"], "seat_win_share", r["share"], r["lo"], r["hi"], r["games"], r["method"],
                          seat=r["seat"], fair=r["fair"], p=p, **unpaired))
        if r["seat"] == 0:
            fair = r["fair"]
            out.append(record(data, r["players"], "start_advantage", r["share"] - fair, r["lo"] - fair,
                              r["hi"] - fair, r["games"], r["method"], seat=0,
                              **{k: v - fair for k, v in unpaired.items()}))
    return out


def strategy_seat_sentence(by_strategy: pl.DataFrame) -> str:
    """Whether seats matter for each strategy (chi-squared test across its seats), in one sentence."""
    if by_strategy.is_empty():
        return "No strategy sat in more than one seat, so seat effects within a strategy are not measured."
    kinds: dict[str, list[str]] = {}
    for (strategy,), group in sorted(by_strategy.partition_by("strategy", as_dict=True).items()):
        clear_at, counts = group.filter(pl.col("clear"))["players"].to_list(), group["players"].to_list()
        phrase = "always" if len(clear_at) == len(counts) else "never" if not clear_at else \
            f"only at {at_counts(clear_at)}"
        kinds.setdefault(phrase, []).append(strategy)
    test = "(χ² test across the strategy's seats, 5% level)"
    every = "every strategy" if by_strategy["strategy"].n_unique() > 1 else by_strategy["strategy"][0]
    if list(kinds) == ["always"]:
        return f"Seats matter clearly for {every} at every player count it played {test}."
    if list(kinds) == ["never"]:
        within = "Within each strategy" if by_strategy["strategy"].n_unique() > 1 else f"For {every}"
        return f"{within} no seat does clearly better than another {test}."
    parts = [f"for {listing(names)} {'at every player count' if phrase == 'always' else phrase}"
             for phrase, names in kinds.items() if phrase != "never"]
    never = f"; for {listing(kinds['never'])} no seat does clearly better than another" if "never" in kinds else ""
    return f"Seats matter clearly {test} {listing(parts)}{never}."


def seat_tables(result: dict, _) -> list:
    adv, shares = result["advantage"], result["shares"]
    return [
        table("First-player advantage (start player's win share − 1/P)", adv, ("Players", "players"),
              ("Games", "games", count), ("Start player wins", "share", pct), ("95% CI", ("lo", "hi"), pct_ci),
              ("Fair share", "fair", pct), *est("Advantage", "advantage", pp, pp_ci),
              ("Clear?", ("advantage_lo", "advantage_hi"), lambda lo, hi: yes(clear(lo, hi)))),
        table("Win share by seat (95% cluster-robust intervals over deals; ties count 1/k)", shares,
              ("Players", "players"),
              ("Seat", "seat", seat_name), ("Games", "games", count), *share_ci("Win share"),
              ("Fair share", "fair", pct),
              ("Difference", lambda r: pp(r["share"] - r["fair"]))),
        table("Best and worst seat for each strategy (χ² test that all its seats win the same share)",
              result["by_strategy"], ("Players", "players"), ("Strategy", "strategy"),
              ("Player results", "games", count), ("Best seat", "best", seat_name),
              ("Best seat's win share", "best_share", pct), ("Worst seat", "worst", seat_name),
              ("Worst seat's win share", "worst_share", pct), ("p-value", "p", p_value),
              ("Seats differ?", "clear", yes)),
    ]


def seat_win_share_chart(result: dict, data: GameData) -> Chart:
    """Each seat's gap from its fair share 1/P in percentage points around a zero line, one panel per player
    count, with 95% cluster-robust error bars."""
    shares = result["shares"]
    fig, axes = panels(len(data.player_counts), 3.2 * len(data.player_counts) + 0.6, 3.8, sharey=True)
    for ax, players in zip(axes, data.player_counts):
        panel = shares.filter(pl.col("players") == players)
        gap = {"win share − 1/P": [100 * (panel[c] - 1 / players) for c in ("share", "lo", "hi")]}
        bars_with_ci(ax, [str(s + 1) for s in panel["seat"]], gap)
        around_zero(ax, players, "Player (1 starts)")
    axes[0].set_ylabel("Win share − fair share (pp)")
    return finished_chart(fig, axes[0], f"{data.title}: each seat's gap from a fair share",
                          data.out_dir, f"{data.slug}_seat_win_share.png",
                          "Each seat's win share minus its fair share 1/P, in percentage points, at each player count; "
                          "error bars are 95% cluster-robust intervals over deals. Bars above zero win more than "
                          "fair.")


def around_zero(ax, players: int, xlabel: str) -> None:
    """A panel of gaps from a fair share: its zero line, its player count, its x label."""
    ax.axhline(0, color="#333", linewidth=1)
    ax.set(title=f"{players} players", xlabel=xlabel)


def rotation_caveats(_, data: GameData) -> list[str]:
    """A caveat for each player count at which strategies did not sit in every seat equally often."""
    per_seat = data.rows.group_by("players", "strategy", "seat").agg(n=pl.len())
    balance = per_seat.group_by("players", "strategy").agg(seats=pl.len(), low=pl.col("n").min(),
                                                           high=pl.col("n").max())
    unbalanced = balance.filter((pl.col("seats") < pl.col("players")) | (pl.col("high") > 1.1 * pl.col("low")))
    return [f"{data.title} at {players} players: the strategies did not sit in every seat equally often, so seat "
            "effects and strategy effects are partly mixed in the seat and strategy numbers."
            for players in unbalanced["players"].unique().sort().to_list()]
