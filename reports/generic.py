"""The analyses every game gets, from its rows and its manifest alone: win share by seat, first-player advantage,
start-player compensation, score distributions, seat advantage by experiment, strategy strength and head-to-head.

The manifest's `tie_breakers` (columns that settle equal scores, the most wins) shape the handicaps: re-scoring
honours them.
"""

import math

import matplotlib
import numpy as np
import polars as pl
from matplotlib.ticker import MaxNLocator, PercentFormatter
from scipy.stats import chi2

from reports.analysis import GAME_KEY, Analysis, GameData, groups, record
from reports.charts import aligned, bars_with_ci, finished_chart, new_figure, palette, panels, save_chart
from reports.compensation import amount, changes, compensate, compensation_records, phrase
from reports.findings import seat_verdict
from reports.fmt import (
    NOTICEABLE_PP,
    at_counts,
    by_phrase,
    clear,
    count,
    effect,
    listing,
    num,
    num_ci,
    p_value,
    pct,
    pct_ci,
    pp,
    pp_ci,
    seat_name,
    yes,
)
from reports.handicap import fair_handicaps, handicap_findings, seat_handicaps
from reports.ratings import cycles, ratings
from reports.render import Chart, Finding, Table, est, share_ci, table
from reports.stats import (
    cluster_columns,
    clustered,
    clusters,
    holm_min,
    mean_interval,
    paired_difference,
    paired_ratio,
    ratio_p_values,
)

ONE = pl.lit(1.0)  # the weight of a mean per game
BOX_KEYS = ["med", "q1", "q3", "whislo", "whishi", "mean"]
SIGNIFICANCE = 0.05  # of the seat tests


# ---------------------------------------------------------------- seat advantage


def seat_win_shares(rows: pl.DataFrame, by: tuple[str, ...] = ()) -> pl.DataFrame:
    """Win share by (*by, players, seat) and the fair share 1/players; lo, hi: the 95% cluster-robust interval
    over deals (matches in match mode), each (*by, players) group on its own; lo_unpaired, hi_unpaired: Wilson's,
    as if the rows were independent."""
    return paired_shares(rows, [*by, "players"], "seat")


def paired_shares(rows: pl.DataFrame, within: list[str], of: str) -> pl.DataFrame:
    """The win share of each value of `of` (seat, strategy) inside every group of `within`, with the intervals of
    stats.paired_ratio, each group on its own."""
    parts = [paired_ratio(group, pl.col("win"), pl.lit(1.0), [of]).with_columns(
             **{k: pl.lit(v, rows.schema[k]) for k, v in key.items()}) for key, group in groups(rows, within)]
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
    adv, every, numbers = result["advantage"], data.player_counts, seat_numbers(data)
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


def seat_numbers(data: GameData) -> list[dict]:
    """Every seat's win share, with `p`, the p-value of its test against 1/P (the overview's verdict corrects them
    for the P seats), and the start player's advantage (its share minus 1/P), at each player count; with the
    unpaired (Wilson) interval beside the clustered one."""
    out = []
    for r in seat_win_shares(data.rows).iter_rows(named=True):
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


def ties_and_gaps(data: GameData) -> pl.DataFrame:
    """Per player count: the share of games whose victory was shared, and the mean over games of the start player's
    score minus the mean score of the other seats, each with its cluster-robust interval over deals (matches in
    match mode; stats.clustered)."""
    games = data.rows.group_by(GAME_KEY).agg(
        pl.col(cluster_columns(data.rows)).first(), shared=pl.col("win").max() < 1 - 1e-9,
        gap=pl.col("score").filter(pl.col("seat") == 0).first() - pl.col("score").filter(pl.col("seat") > 0).mean())
    found = clustered(games, {"rate": (pl.col("shared"), ONE), "gap": (pl.col("gap"), ONE)}, ["players"])
    return found.rename({"rate_lo": "lo", "rate_hi": "hi"}).drop("method").sort("players")


def ties_table(ties: pl.DataFrame, data: GameData) -> list:
    favours = "negative" if data.lowest_wins else "positive"
    return [table("Shared victories, and the start player's score minus the mean of the other seats (same game; "
                  f"{data.direction} scores win, so a {favours} gap favours the start player)", ties,
                  ("Players", "players"), ("Games", "games", count), *share_ci("Shared victory", "rate"),
                  ("Score gap (start − others)", "gap", num), ("95% CI (clustered)", ("gap_lo", "gap_hi"), num_ci))]


def score_bin_width(rows: pl.DataFrame, max_bins: int = 40) -> int:
    """1 for scores with a small range; otherwise a width giving at most about max_bins bins."""
    return max(1, math.ceil((rows["score"].max() - rows["score"].min()) / max_bins))


def score_by_seat_chart(width: int, data: GameData) -> Chart:
    """Score distribution (share of games at each score) by seat, one panel per player count."""
    dist = (data.rows.with_columns(bin=(pl.col("score") // width) * width).group_by("players", "seat", "bin")
            .agg(n=pl.len()).with_columns(share=pl.col("n") / pl.col("n").sum().over("players", "seat"))
            .sort("players", "seat", "bin"))
    colours = palette(len(dist["seat"].unique()))
    fig, axes = panels(len(data.player_counts), 3.6 * len(data.player_counts) + 0.6, 3.8, sharey=True)
    for ax, players in zip(axes, data.player_counts):
        for seat in range(players):
            line = dist.filter((pl.col("players") == players) & (pl.col("seat") == seat))
            ax.plot(line["bin"], line["share"], marker="o", markersize=3.5, color=colours[seat], label=seat_name(seat))
        ax.set(title=f"{players} players", xlabel="Score" if width == 1 else f"Score (bins of {width})")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    # after all panels are drawn: set_ylim freezes the shared top, which must fit every panel's peak
    axes[0].set_ylim(bottom=0)
    axes[0].set_ylabel("Share of the seat's games")
    return finished_chart(fig, axes[-1], f"{data.title}: score distribution by seat",
                          data.out_dir, f"{data.slug}_score_by_seat.png",
                          "Share of games ending at each score, by player (Player 1 starts), one panel per player "
                          "count.")


def rotation_caveats(_, data: GameData) -> list[str]:
    """A caveat for each player count at which strategies did not sit in every seat equally often."""
    per_seat = data.rows.group_by("players", "strategy", "seat").agg(n=pl.len())
    balance = per_seat.group_by("players", "strategy").agg(seats=pl.len(), low=pl.col("n").min(),
                                                           high=pl.col("n").max())
    unbalanced = balance.filter((pl.col("seats") < pl.col("players")) | (pl.col("high") > 1.1 * pl.col("low")))
    return [f"{data.title} at {players} players: the strategies did not sit in every seat equally often, so seat "
            "effects and strategy effects are partly mixed in the seat and strategy numbers."
            for players in unbalanced["players"].unique().sort().to_list()]


# ---------------------------------------------------------------- handicaps


def handicaps(data: GameData) -> dict[int, dict]:
    """Per player count: every seat's win share on a half-point grid of handicaps (`grid`, reports/handicap.py),
    and the compensation that evens every seat or the closest (`compensation`, reports/compensation.py), both
    re-scored from the recorded games."""
    return data.computed("handicaps", lambda: handicaps_of(data))


def handicaps_of(data: GameData) -> dict[int, dict]:
    out = {}
    for (players,), rows in sorted(data.rows.partition_by("players", as_dict=True).items()):
        out[players] = {"grid": seat_handicaps(rows, data.lowest_wins, data.tie_breakers),
                        "compensation": compensate(rows, data.lowest_wins, data.tie_breakers)}
    return out


def handicap_intro(_, data: GameData) -> str:
    breakers = data.tie_breakers
    ties = (f"ties on score still go to the most {listing(f'`{c}`' for c in breakers)}" if breakers
            else "tied players share the win")
    return ("Each seat's win share if its final score had points in its favour, all other scores unchanged, "
            f"re-scored from the recorded games; {ties}. A half point (as Go's komi of 6.5) is the whole point below "
            "plus every tie at it. The fair point is the handicap that brings the seat closest to 1/P; the range is "
            "every handicap whose 95% interval holds 1/P. The compensation shown gives every player points at once "
            "and may settle the ties left on score (to the later or the earlier player); it evens the game when "
            "every player's 95% interval holds 1/P under it, and is the one with the fewest points in all that does "
            "(else the closest to fair). Players are numbered from 1, Player 1 starts.")


def points_words(points: float, lowest_wins: bool) -> str:
    """Points in a player's favour as the player applies them: 'adds 1.5' (to their score), 'subtracts 1'
    ('adds' where the highest score wins and the points are positive, or the lowest wins and they are negative),
    'nothing'."""
    if points == 0:
        return "nothing"
    raised = (points > 0) != lowest_wins
    return f"{'adds' if raised else 'subtracts'} {amount(abs(points))}"


def handicap_finding(result: dict[int, dict], data: GameData) -> Finding:
    """Per player count: the compensation that evens every seat (or the closest) and the shares it gives; every
    seat's fair point."""
    numbers = handicap_numbers(result, data)
    sentences, rows = [], []
    for players, found in result.items():
        [chosen] = [r for r in numbers if r["metric"] == "compensation" and r["players"] == players]
        shares = ", ".join(pct(r["estimate"]) for r in numbers if r["players"] == players and r.get("recommended"))
        before = ", ".join(pct(s) for s in found["compensation"].without.shares)
        if chosen["evens"] is None:
            sentences.append(f"At {players} players {phrase(chosen)}.")
        elif found["compensation"].chosen is found["compensation"].without:
            sentences.append(f"At {players} players {phrase(chosen)} (the players win {before}).")
        else:
            evens = "this evens every player: " if chosen["evens"] else ""
            sentences.append(f"At {players} players {evens}{phrase(chosen)}; the players would win {shares} "
                             f"instead of {before}.")
        for r in fair_handicaps(found["grid"]).iter_rows(named=True):
            rows.append({**r, "players": players})
    return Finding("Handicaps.", " ".join(sentences), table(
        "", rows, ("Players", "players"), ("Player", "seat", seat_name),
        ("Fair point (to or from their score)", "points", lambda p: points_words(p, data.lowest_wins)),
        ("Win share there", "estimate", pct), ("95% CI", ("low", "high"), pct_ci),
        ("Handicaps that could be fair", ("points_low", "points_high"),
         lambda lo, hi: f"{points_words(lo, data.lowest_wins)} to {points_words(hi, data.lowest_wins)}")),
        tuple(numbers))


def handicap_numbers(result: dict[int, dict], data: GameData) -> list[dict]:
    """Every seat's win share under each handicap of its grid (metric `handicap`, with `points` and the seat's
    `fair_point`); the chosen compensation (metric `compensation`) and every seat's share under each compensation
    shown (metric `compensated_win_share`, the chosen one's `recommended`)."""
    out = []
    for found in result.values():
        out += handicap_findings(found["grid"], data)
        out += compensation_records(found["compensation"], data)
    return out


def handicap_table(result: dict[int, dict], data: GameData) -> list[Table]:
    """Every seat's win share under every handicap of its grid, and every player's share under each compensation
    shown."""
    grid = pl.concat([found["grid"] for found in result.values()], how="diagonal_relaxed")
    shown = [{**r, "player": r["seat"] + 1, "compensation": changes(r)} for r in handicap_numbers(result, data)
             if r["metric"] == "compensated_win_share"]
    return [table("Win share with points to or from the player's score (95% cluster-robust intervals)", grid.sort(
                  "players", "seat", "points"), ("Players", "players"), ("Player", "seat", seat_name),
                  ("Points", "points", lambda p: points_words(p, data.lowest_wins)),
                  *share_ci("Win share", "estimate", "low", "high")),
            table("Win share of every player under the compensation chosen (first) and the others shown: none, "
                  "and the closest to fair with each tie order", shown, ("Players", "players"),
                  ("Compensation", "compensation"), ("Evens every player", "evens", yes), ("Player", "player"),
                  *share_ci("Win share", "estimate", "low", "high"))]


def handicap_chart(result: dict[int, dict], data: GameData) -> Chart:
    """Per player count: each seat's win share minus 1/P (pp) against the points in its favour, around zero."""
    counts = list(result)
    fig, axes = panels(len(counts), 4.2 * len(counts) + 0.8, 4.0)
    colours = palette(max(counts))
    for ax, players in zip(axes, counts):
        grid = result[players]["grid"]
        for seat in range(players):
            line = grid.filter(pl.col("seat") == seat).sort("points")
            gap = [100 * (v - 1 / players) for v in line["estimate"]]
            ax.fill_between(line["points"], 100 * (line["low"] - 1 / players), 100 * (line["high"] - 1 / players),
                            color=colours[seat], alpha=0.18, linewidth=0)
            ax.plot(line["points"], gap, color=colours[seat], marker="o", markersize=2.5, label=seat_name(seat))
        around_zero(ax, players, "Points in the seat's favour")
    axes[0].set_ylabel("Win share − 1/P (pp)")
    return finished_chart(fig, axes[-1], f"{data.title}: the handicap that makes each seat fair",
                          data.out_dir, f"{data.slug}_handicaps.png",
                          "Each seat's win share minus its fair share (percentage points) with points in its favour, "
                          "re-scored from the recorded games; bands are 95% cluster-robust intervals. Where a line "
                          "crosses zero, that handicap makes the seat fair.")


# ---------------------------------------------------------------- seat advantage by experiment


def seat_by_experiment(data: GameData) -> pl.DataFrame | None:
    """Win share by (experiment, players, seat), when there is more than one experiment."""
    return seat_win_shares(data.rows, ("experiment",)) if data.rows["experiment"].n_unique() > 1 else None


def seat_experiment_finding(seats: pl.DataFrame, data: GameData) -> Finding:
    """Whether the start player's advantage differs between experiments (intervals apart) at each player count."""
    start = seats.filter(pl.col("seat") == 0).with_columns(adv=pl.col("share") - pl.col("fair"),
                                                           adv_lo=pl.col("lo") - pl.col("fair"),
                                                           adv_hi=pl.col("hi") - pl.col("fair"))
    apart, pairs = apart_pairs(start)
    shared = start.group_by("players").agg(n=pl.len()).filter(pl.col("n") > 1)["players"].sort().to_list()
    if not shared:
        text = "No player count was played in more than one experiment, so experiments cannot be compared."
    elif apart:
        overlap = "" if len(apart) == pairs else "; every other pair of experiments overlaps"
        text = ("It depends on who plays: the start player's advantage differs clearly (intervals apart) between "
                + listing(f"{a} and {b} at {players} players" for players, a, b in apart) + overlap + ".")
    else:
        text = f"The start player's advantage does not differ clearly between experiments at {at_counts(shared)}."
    names = data.pools()
    return Finding("Seat advantage by experiment.", text, table(  # its numbers: each experiment's start_advantage
        "", start.sort("players", "experiment"), ("Players", "players"),
        ("Experiment", lambda r: f"{r['experiment']} ({names[r['experiment']]})"),
        *est("Start player's advantage", "adv", pp, pp_ci)))


def apart_pairs(start: pl.DataFrame) -> tuple[list[tuple[int, str, str]], int]:
    """The pairs of experiments whose start-player advantage intervals lie apart, as (players, a, b), and how many
    pairs there are in all (pairs of experiments that played the same player count)."""
    apart, pairs = [], 0
    for (players,), group in sorted(start.partition_by("players", as_dict=True).items()):
        rows = group.sort("experiment").to_dicts()
        for i, a in enumerate(rows):
            for b in rows[i + 1:]:
                pairs += 1
                if a["adv_lo"] > b["adv_hi"] or b["adv_lo"] > a["adv_hi"]:
                    apart.append((players, a["experiment"], b["experiment"]))
    return apart, pairs


def seat_experiment_table(seats: pl.DataFrame, data: GameData) -> list:
    names = data.pools()
    return [table("First-player advantage by experiment (start player's win share − 1/P)",
                  seats.filter(pl.col("seat") == 0), ("Experiment", "experiment"),
                  ("Strategies", lambda r: names[r["experiment"]]), ("Players", "players"), ("Games", "games", count),
                  *share_ci("Start player wins"), ("Advantage", lambda r: pp(r["share"] - r["fair"])),
                  ("95% CI", lambda r: pp_ci(r["lo"] - r["fair"], r["hi"] - r["fair"])),
                  ("Clear?", lambda r: yes(clear(r["lo"] - r["fair"], r["hi"] - r["fair"]))))]


def seat_experiment_chart(seats: pl.DataFrame, data: GameData) -> Chart:
    """Each seat's gap from 1/P (pp), bars per experiment, one panel per player count, around a zero line."""
    counts, names = seats["players"].unique().sort().to_list(), data.pools()
    widths = [max(2, p) + 0.8 for p in counts]
    fig, axes = panels(len(counts), 0.95 * sum(widths) + 1.2, 4.2, sharey=True, width_ratios=widths)
    for ax, players in zip(axes, counts):
        bars = {}
        for experiment in seats["experiment"].unique().sort().to_list():
            panel = aligned(seats.filter((pl.col("experiment") == experiment) & (pl.col("players") == players)),
                            "seat", list(range(players)))
            bars[experiment] = [100 * (panel[c] - 1 / players) for c in ("share", "lo", "hi")]
        bars_with_ci(ax, [str(s + 1) for s in range(players)], bars)
        around_zero(ax, players, "Player (1 starts)")
    axes[0].set_ylabel("Win share − fair share (pp)")
    return finished_chart(fig, axes[-1], f"{data.title}: each seat's gap from a fair share, experiment by experiment",
                          data.out_dir, f"{data.slug}_seat_by_experiment.png",
                          "Each seat's win share minus 1/P (percentage points), one bar per experiment, each from its "
                          "own games, one panel per player count; error bars are 95% cluster-robust intervals. "
                          "Strategy pools: " + "; ".join(f"{e}: {pool}" for e, pool in names.items()) + ".")


# ---------------------------------------------------------------- strategy strength


def mixed_games(rows: pl.DataFrame) -> pl.DataFrame:
    """The rows of the games where at least two strategies meet: a table of one strategy says nothing of strength.
    All rows when no game mixes strategies (the strategy finding then says there is nothing to compare)."""
    kinds = rows.group_by(GAME_KEY).agg(pl.col("strategy").n_unique().alias("kinds"))
    mixed = rows.join(kinds.filter(pl.col("kinds") > 1).select(GAME_KEY), on=GAME_KEY, how="semi")
    return rows if mixed.is_empty() else mixed


def strategy_win_shares(rows: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Win share of each strategy (per group of `by`, one player count and experiment at a time) against its fair
    share 1/P, with cluster-robust intervals; strongest first within each group."""
    within = ["experiment", "players", *(b for b in by if b not in ("experiment", "players"))]
    shares = paired_shares(rows, within, "strategy").with_columns(ratio=pl.col("share") / pl.col("fair"))
    keep = [*by, "strategy"]
    return shares.select(*keep, *(c for c in shares.columns if c not in keep and c not in within)).sort(
        *by, "ratio", descending=[False] * len(by) + [True])


def mean_scores(rows: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Mean score per group with its interval clustered by deal (match in match mode; stats.mean_interval)."""
    out = []
    for key, group in groups(rows, by):
        lo, hi = mean_interval(group["score"].to_numpy(), clusters(group))
        out.append({**key, "mean_score": group["score"].mean(), "score_lo": lo, "score_hi": hi})
    return pl.DataFrame(out)


def head_to_head(rows: pl.DataFrame) -> pl.DataFrame:
    """For each ordered pair (A, B) of different strategies that met in a game: the share of meetings in
    which A finished ahead of B (better rank; equal rank counts 1/2), with its cluster-robust interval over deals
    (matches in match mode): the meetings of one deal, in one game or several, count together.

    Uses rank, so it works whether a game counts high or low scores as better."""
    players = rows.select(*dict.fromkeys([*GAME_KEY, *cluster_columns(rows)]), "strategy", "rank")
    pairs = (players.join(players.select(*GAME_KEY, "strategy", "rank"), on=GAME_KEY, suffix="_b")
             .filter(pl.col("strategy") != pl.col("strategy_b"))
             .with_columns(ahead=(pl.col("rank") < pl.col("rank_b")).cast(pl.Float64)
                           + 0.5 * (pl.col("rank") == pl.col("rank_b"))))
    by = ["strategy", "strategy_b"]
    shares = paired_ratio(pairs, pl.col("ahead"), ONE, by).select(*by, "lo", "hi", share="estimate")
    return pairs.group_by(by).agg(meetings=pl.len(), ahead=pl.col("ahead").sum()).join(shares, on=by).sort(by)


def strategy_analysis(data: GameData) -> dict:
    return data.computed("strategies", lambda: strategies_of(data))


def strategies_of(data: GameData) -> dict:
    rows = mixed_games(data.rows)
    per_count = strategy_win_shares(rows, ["players"]).join(mean_scores(rows, ["players", "strategy"]),
                                                            on=["players", "strategy"])
    return {"per_count": per_count, "matchups": head_to_head(rows) if len(data.order) > 1 else None,
            "gaps": strongest_against_weakest(rows, per_count)}


def strongest_against_weakest(rows: pl.DataFrame, per_count: pl.DataFrame) -> pl.DataFrame:
    """Per player count: the strongest strategy's win share minus the weakest's, with the paired interval (the same
    deals for both) and the unpaired one, to show what the paired design is worth."""
    out = []
    for (players,), shares in sorted(per_count.partition_by("players", as_dict=True).items()):
        if shares.height < 2:
            continue
        ranked = shares.sort("ratio", "strategy", descending=[True, False])
        best, worst = ranked["strategy"][0], ranked["strategy"][-1]
        gap = paired_difference(rows.filter(pl.col("players") == players), pl.col("strategy") == best,
                                pl.col("strategy") == worst)
        out.append({"players": players, "best": best, "worst": worst, **gap})
    return pl.DataFrame(out)


def strategy_finding(result: dict, data: GameData) -> Finding:
    """The strongest and weakest strategy at each player count, the gap between them with its paired interval
    and how much narrower than an unpaired one it is, and how the strongest fares head-to-head."""
    if result["matchups"] is None:
        return Finding("Strategy strength.", f"Only one strategy took part ({data.order[0]}), so there is nothing "
                                             "to compare.", numbers=tuple(strategy_numbers(result, data)))
    sentences = []
    for r in result["gaps"].iter_rows(named=True):
        sentences.append(
            f"At {r['players']} players {r['best']} wins {pct(r['share_a'])} of its games and {r['worst']} "
            f"{pct(r['share_b'])}: a gap of {pp(r['estimate'])} ({pp_ci(r['lo'], r['hi'])}, paired over deals; "
            f"unpaired: {pp_ci(r['lo_unpaired'], r['hi_unpaired'])}).")
    columns = [("Players", "players"), ("Strongest", "best"), ("Weakest", "worst"),
               *est("Gap", "estimate", pp, pp_ci, "lo", "hi"),
               ("Unpaired 95% CI", ("lo_unpaired", "hi_unpaired"), pp_ci),
               ("Unpaired needs × the games", "games_factor", lambda f: num(f, 1))]
    return Finding("Strategy strength.", " ".join(sentences), table("", result["gaps"], *columns),
                   tuple(strategy_numbers(result, data)))


def strategy_numbers(result: dict, data: GameData) -> list[dict]:
    """Every strategy's win share at each player count (games where two strategies or more met), and the
    strongest's lead over the weakest with its paired and unpaired intervals and each side's share."""
    out = [record(data, r["players"], "strategy_win_share", r["share"], r["lo"], r["hi"], r["games"], r["method"],
                  strategy=r["strategy"], fair=r["fair"])
           for r in result["per_count"].sort("players", "strategy").iter_rows(named=True)]
    out += [record(data, r["players"], "strategy_gap", r["estimate"], r["lo"], r["hi"], r["games"], r["method"],
                   strategy=r["best"], against=r["worst"], share_a=r["share_a"], share_b=r["share_b"],
                   low_unpaired=r["lo_unpaired"], high_unpaired=r["hi_unpaired"], width_ratio=r["width_ratio"],
                   games_factor=r["games_factor"])
            for r in result["gaps"].iter_rows(named=True)]
    return out


def strategy_tables(result: dict, _) -> list:
    per_count = result["per_count"].sort("players", "ratio", descending=[False, True])
    return [table("Win share and mean score by strategy and player count (95% cluster-robust intervals)",
                  per_count, ("Players", "players"), ("Strategy", "strategy"), ("Games", "games", count),
                  *share_ci("Win share"), ("× fair", "ratio", num), ("Mean score", "mean_score", num),
                  ("95% CI (clustered)", ("score_lo", "score_hi"), num_ci))]


def rating_analysis(data: GameData) -> dict[int, dict] | None:
    """Per player count: every strategy's Bradley–Terry rating and the intransitive cycles among them."""
    return data.computed("ratings", lambda: ratings_of(data))


def ratings_of(data: GameData) -> dict[int, dict] | None:
    rows = mixed_games(data.rows)
    if rows["strategy"].n_unique() < 2:
        return None
    return {players: {"ratings": ratings(group), "cycles": cycles(group)}
            for (players,), group in sorted(rows.partition_by("players", as_dict=True).items())}


def rating_finding(result: dict[int, dict], data: GameData) -> Finding:
    sentences = []
    for players, found in result.items():
        top = found["ratings"].row(0, named=True)
        text = (f"At {players} players {top['strategy']} rates highest ({top['rating']:+.0f} Elo, "
                f"{top['lo']:+.0f} to {top['hi']:+.0f})")
        text += cycle_clause(found["cycles"], found["ratings"].height) + "."
        sentences.append(text)
    rows = [{"players": p, **r} for p, found in result.items() for r in found["ratings"].iter_rows(named=True)]
    numbers = [record(data, r["players"], "rating", r["rating"], r["lo"], r["hi"], r["games"], r["method"],
                      strategy=r["strategy"]) for r in rows]
    return Finding("Ratings.", " ".join(sentences), table(
        "", rows, ("Players", "players"), ("Strategy", "strategy"), ("Rating (Elo)", "rating", lambda x: f"{x:+.0f}"),
        ("95% CI", ("lo", "hi"), lambda lo, hi: f"{lo:+.0f} to {hi:+.0f}")), tuple(numbers))


def cycle_clause(cycles: list[dict], strategies: int) -> str:
    """What the intransitive cycles say, where three strategies or more could form one."""
    if strategies < 3:
        return ""
    clear_cycles = [c for c in cycles if c["verdict"] == "clear"]
    if clear_cycles:
        return f"; {len(clear_cycles)} clear cycle(s) of three strategies each beating the next"
    return "; no three strategies beat each other in a circle clearly"


def cycle_table(result: dict[int, dict], _) -> list:
    rows = [{"players": p, "cycle": " > ".join(c["cycle"]) + f" > {c['cycle'][0]}", "verdict": c["verdict"],
             "support": c["support"]} for p, found in result.items() for c in found["cycles"]]
    return [table("Intransitive cycles (each strategy ahead of the next head-to-head)", rows, ("Players", "players"),
                  ("Cycle", "cycle"), ("Verdict", "verdict"), ("Resamples where it holds", "support", pct))] if rows \
        else []


def strategy_win_share_chart(result: dict, data: GameData) -> Chart:
    """Horizontal bars of win share per strategy, one panel per player count, with the 1/P line."""
    per_count, order, counts = result["per_count"], data.order, data.player_counts
    fig, axes = panels(len(counts), 3.4 * len(counts) + 1.8, 1.8 + 0.36 * len(order), sharey=True)
    for ax, players in zip(axes, counts):
        panel = aligned(per_count.filter(pl.col("players") == players), "strategy", order)
        bars_with_ci(ax, order, {"win share": (panel["share"], panel["lo"], panel["hi"])}, horizontal=True)
        ax.axvline(1 / players, color="#555", linestyle="--", linewidth=1.2, label="fair share 1/P")
        ax.set(title=f"{players} players", xlabel="Share of victories")
        ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    return finished_chart(fig, axes[-1], f"{data.title}: win share by strategy (95% cluster-robust intervals)",
                          data.out_dir, f"{data.slug}_strategy_win_share.png",
                          "Win share per game played, by strategy and player count; the dashed line is the fair share "
                          "1/P.")


def score_by_strategy_chart(quantiles: pl.DataFrame, data: GameData) -> Chart:
    """Box plots of score by strategy (box: quartiles, whiskers: 5th–95th percentile, dot: mean)."""
    order, counts = data.order, data.player_counts
    fig, axes = panels(len(counts), 3.4 * len(counts) + 1.8, 1.5 + 0.36 * len(order), sharey=True)
    colour = palette(1)[0]
    for ax, players in zip(axes, counts):
        panel = {r["strategy"]: r for r in quantiles.filter(pl.col("players") == players).iter_rows(named=True)}
        present = [i for i, s in enumerate(order) if s in panel]
        stats = [{**{k: panel[order[i]][k] for k in BOX_KEYS}, "fliers": [], "label": order[i]} for i in present]
        ax.bxp(stats, positions=present, orientation="horizontal", showmeans=True, widths=0.6, patch_artist=True,
               boxprops={"facecolor": colour, "alpha": 0.55}, medianprops={"color": "black"},
               meanprops={"marker": "o", "markerfacecolor": "white", "markeredgecolor": "black", "markersize": 5})
        ax.set(yticks=range(len(order)), yticklabels=order, ylim=(len(order) - 0.5, -0.5))
        ax.set(title=f"{players} players", xlabel="Score")
    fig.suptitle(f"{data.title}: score distribution by strategy")
    return save_chart(fig, data.out_dir, f"{data.slug}_score_by_strategy.png",
                      "Score by strategy and player count: boxes span the quartiles, the line is the median, whiskers "
                      "reach the 5th and 95th percentiles, the white dot is the mean.")


def score_quantiles(data: GameData) -> pl.DataFrame:
    score = pl.col("score")
    return mixed_games(data.rows).group_by("players", "strategy").agg(
        med=score.median(), q1=score.quantile(0.25, "midpoint"), q3=score.quantile(0.75, "midpoint"),
        whislo=score.quantile(0.05, "midpoint"), whishi=score.quantile(0.95, "midpoint"), mean=score.mean())


def head_to_head_table(matchups: pl.DataFrame, _) -> list:
    """Each pair once, leader first, most lopsided first."""
    leaders = matchups.filter(
        (pl.col("share") > 0.5) | ((pl.col("share") == 0.5) & (pl.col("strategy") < pl.col("strategy_b")))
    ).sort("share", "strategy", descending=[True, False])
    return [table("Head-to-head: share of meetings in which A finished ahead of B (B ahead of A is 100% minus this)",
                  leaders, ("A", "strategy"), ("B", "strategy_b"), ("Meetings", "meetings", count),
                  *share_ci("A ahead"))]


def head_to_head_chart(matchups: pl.DataFrame, data: GameData) -> Chart:
    """Heat map: row strategy's share of meetings finished ahead of the column strategy."""
    order = data.order
    index = {s: i for i, s in enumerate(order)}
    grid = np.full((len(order), len(order)), np.nan)
    for r in matchups.iter_rows(named=True):
        grid[index[r["strategy"]], index[r["strategy_b"]]] = r["share"]
    size = max(4.5, 2.0 + 0.62 * len(order))
    fig = new_figure(size + 1.5, size)
    ax = fig.subplots()
    cmap = matplotlib.colormaps["RdBu"].with_extremes(bad="#e4e4e4")  # grey: never met, or itself
    image = ax.imshow(grid, cmap=cmap, vmin=0, vmax=1)
    for (i, j), share in np.ndenumerate(grid):
        if not np.isnan(share):
            ax.text(j, i, f"{100 * share:.0f}", ha="center", va="center", fontsize="small",
                    color="white" if abs(share - 0.5) > 0.3 else "black")
    ax.set_xticks(range(len(order)), order, rotation=40, ha="right")
    ax.set_yticks(range(len(order)), order)
    ax.grid(False)
    ax.set(xlabel="Opponent (B)", ylabel="Strategy (A)")
    colourbar = fig.colorbar(image, ax=ax, shrink=0.8, format=PercentFormatter(1.0, decimals=0))
    colourbar.set_label("A finished ahead of B")
    ax.set_title(f"{data.title}: head-to-head\n% of meetings in which A finished ahead of B")
    return save_chart(fig, data.out_dir, f"{data.slug}_head_to_head.png",
                      "Head-to-head: cell (A, B) is the percentage of their meetings in which A finished ahead of B "
                      "(tie = 1/2); blue favours the row strategy, grey cells are pairs that never met. Counts and "
                      "intervals are in the table.")


# ---------------------------------------------------------------- the generic sections

SEATS = [
    Analysis("Win share by seat", seat_analysis, intro=seat_intro, chart=seat_win_share_chart, tables=seat_tables,
             finding=seat_finding, caveats=rotation_caveats, headline=True),
    Analysis("Ties and the start player's score gap", ties_and_gaps, tables=ties_table),
    Analysis("Score distribution by seat", lambda data: score_bin_width(data.rows), chart=score_by_seat_chart,
             leading_only=True),
    Analysis("Handicaps", handicaps, intro=handicap_intro, chart=handicap_chart, tables=handicap_table,
             finding=handicap_finding, leading_only=True),
]
COMPARED = [
    Analysis("Seat advantage by experiment", seat_by_experiment,
             intro="Each experiment's seat numbers side by side (its strategy pool in brackets); each bar comes from "
                   "its own experiment's games.",
             chart=seat_experiment_chart, tables=seat_experiment_table, finding=seat_experiment_finding),
]
STRATEGIES = [
    Analysis("Win share by strategy", strategy_analysis,
             intro="A strategy's win share is its share of victories per game played (ties count 1/k). Its fair share "
                   "is 1/P in a P-player game; '× fair' is the ratio of the two. Only games where at least two "
                   "strategies meet count here: a table of one strategy says nothing about strength.",
             chart=strategy_win_share_chart, tables=strategy_tables, finding=strategy_finding, headline=True),
    Analysis("Ratings", rating_analysis,
             intro="A Bradley–Terry rating of every strategy from the finishing order of every pair of seats with "
                   "different strategies (a tie counts half), on the Elo scale: 400 points apart means about 10 to 1 "
                   "head-to-head. Intervals are clustered by deal.",
             tables=cycle_table, finding=rating_finding),
    Analysis("Score distribution by strategy", score_quantiles, chart=score_by_strategy_chart, leading_only=True),
    Analysis("Head-to-head", lambda data: head_to_head(data.rows) if len(data.order) > 1 else None,
             intro="For each pair of strategies that met in a game: how often the row strategy finished ahead of the "
                   "column strategy (a tie counts 1/2). Pairs are pooled over player counts; in games of 3 or more "
                   "players a 'meeting' is one pair of players inside a larger game.",
             chart=head_to_head_chart, tables=head_to_head_table, leading_only=True),
]
