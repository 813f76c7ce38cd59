"""The analyses every game gets, from its rows and its manifest alone: win share by seat, first-player advantage,
start-player compensation, score distributions, seat advantage by experiment, strategy strength and head-to-head.

A game module may set options for them (see GameData.options): `handicaps`, the points tried in the compensation
table. The manifest's `tie_breakers` (columns that settle equal scores, the most wins) shape it too.
"""

import math

import matplotlib
import numpy as np
import polars as pl
from matplotlib.ticker import MaxNLocator, PercentFormatter
from scipy.stats import chi2

from reports.analysis import GAME_KEY, Analysis, GameData, groups
from reports.charts import aligned, bars_with_ci, finished_chart, legend_below, new_figure, palette, panels, save_chart
from reports.fmt import at_counts, by_phrase, clear, count, listing, num, num_ci, pct, pct_ci, pp, pp_ci, yes
from reports.render import Chart, Finding, Table, est, share_ci, table
from reports.stats import bootstrap_mean_ci, wilson, with_wilson

HANDICAPS = range(-4, 5)
BOX_KEYS = ["med", "q1", "q3", "whislo", "whishi", "mean"]
LEVEL = 0.05  # significance level of the seat tests


# ---------------------------------------------------------------- seat advantage


def seat_win_shares(rows: pl.DataFrame, by: tuple[str, ...] = ()) -> pl.DataFrame:
    """Win share by (*by, players, seat) with Wilson intervals and the fair share 1/players."""
    shares = (rows.group_by(*by, "players", "seat").agg(games=pl.len(), wins=pl.col("win").sum())
              .sort(*by, "players", "seat")
              .with_columns(share=pl.col("wins") / pl.col("games"), fair=1 / pl.col("players")))
    return with_wilson(shares, "wins", "games")


def first_player_advantage(seat_shares: pl.DataFrame) -> pl.DataFrame:
    """Seat 0's win share minus 1/players, with the interval shifted the same way, per player count."""
    return seat_shares.filter(pl.col("seat") == 0).with_columns(
        advantage=pl.col("share") - pl.col("fair"), advantage_lo=pl.col("lo") - pl.col("fair"),
        advantage_hi=pl.col("hi") - pl.col("fair"))


def seat_name(seat: int, players: int) -> str:
    """Seat in words: 'the start player', 'the last seat', 'the second to last', 'seat 1'."""
    if seat == 0:
        return "the start player"
    if seat == players - 1:
        return "the last seat"
    return "the second to last" if seat == players - 2 else f"seat {seat}"


def seat_test(wins: np.ndarray, games: np.ndarray, fair: float | None = None) -> float:
    """p-value of a chi-squared test that every seat wins the same share: with `fair`, a goodness-of-fit test of
    which seat wins a game (seats of the same games); without, a test of equal shares over independent samples."""
    if fair is not None:
        expected = games * fair
        stat = float(((wins - expected) ** 2 / expected).sum())
    else:
        pooled = wins.sum() / games.sum()
        if pooled <= 0 or pooled >= 1:
            return 1.0
        stat = float(((wins - games * pooled) ** 2 / (games * pooled * (1 - pooled))).sum())
    return float(chi2.sf(stat, len(wins) - 1))


def seat_extremes(shares: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Per group of seat shares: the best and worst seat, their shares, and the seat test's p-value."""
    out = []
    for (*key, players), group in sorted(shares.partition_by(*by, "players", as_dict=True).items()):
        if group.height < 2:
            continue
        ranked = group.sort("share", "seat", descending=[True, False])
        wins, games = ranked["wins"].to_numpy().astype(float), ranked["games"].to_numpy().astype(float)
        p = seat_test(wins, games, 1 / players if not by else None)
        best, worst = ranked.row(0, named=True), ranked.row(-1, named=True)
        out.append({**dict(zip(by, key)), "players": players, "best": best["seat"], "best_share": best["share"],
                    "worst": worst["seat"], "worst_share": worst["share"], "p": p, "clear": p < LEVEL,
                    "games": int(games.sum())})
    return pl.DataFrame(out)


def seat_analysis(data: GameData) -> dict:
    shares = seat_win_shares(data.rows)
    advantage = first_player_advantage(shares).join(seat_extremes(shares, []).drop("games"), on="players")
    return {"shares": shares, "advantage": advantage,
            "by_strategy": seat_extremes(seat_win_shares(data.rows, ("strategy",)), ["strategy"])}


def seat_intro(_, data: GameData) -> str:
    favours = "negative" if data.lowest_wins else "positive"
    return ("Seats are numbered in turn order; seat 0 is the start player. With P players a seat's fair share of "
            "victories is 1/P. The first-player advantage is the start player's win share minus 1/P. In this game "
            f"{data.direction} scores win, so a {favours} score gap favours the start player.")


def seat_finding(result: dict, data: GameData) -> Finding:
    """Which seats do well, from the numbers: the start player's verdict, the best and worst seats, and whether
    seats matter for each strategy."""
    adv, every = result["advantage"], data.player_counts
    verdict = {r["players"]: "clearly more than a fair share" if r["advantage_lo"] > 0 else
               "clearly less than a fair share" if r["advantage_hi"] < 0 else "a share not distinguishable from fair"
               for r in adv.iter_rows(named=True)}
    text = f"The start player wins {by_phrase(verdict, every)}"
    differ = adv.filter(pl.col("clear"))
    if differ.is_empty():
        text += "; no seat's share differs clearly from the others' at any player count."
    else:
        best = {r["players"]: seat_name(r["best"], r["players"]) for r in differ.iter_rows(named=True)}
        worst = {r["players"]: seat_name(r["worst"], r["players"]) for r in differ.iter_rows(named=True)}
        text += f"; the best seat is {by_phrase(best, every)}, and the worst is {by_phrase(worst, every)}."
        same = adv.filter(~pl.col("clear"))["players"].to_list()
        if same:
            text = text[:-1] + f" (at {at_counts(same)} no seat differs clearly)."
    text += " " + strategy_seat_sentence(result["by_strategy"])
    columns = [("Players", "players"), *share_ci("Start player wins"), ("Fair share", "fair", pct),
               *est("Advantage", "advantage", pp, pp_ci),
               ("Best seat", lambda r: f"{r['best']} ({pct(r['best_share'])})" if r["clear"] else "–"),
               ("Worst seat", lambda r: f"{r['worst']} ({pct(r['worst_share'])})" if r["clear"] else "–")]
    return Finding("Seat advantage.", text, table("", adv, *columns))


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
    if list(kinds) == ["always"]:
        return f"Seats matter clearly for every strategy at every player count it played {test}."
    if list(kinds) == ["never"]:
        return f"Within each strategy no seat does clearly better than another {test}."
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
        table("Win share by seat (95% Wilson intervals; ties count 1/k)", shares, ("Players", "players"),
              ("Seat", "seat"), ("Games", "games", count), *share_ci("Win share"), ("Fair share", "fair", pct),
              ("Difference", lambda r: pp(r["share"] - r["fair"]))),
        table("Best and worst seat for each strategy (χ² test that all its seats win the same share)",
              result["by_strategy"], ("Players", "players"), ("Strategy", "strategy"),
              ("Player results", "games", count), ("Best seat", "best"), ("Win share", "best_share", pct),
              ("Worst seat", "worst"), ("Win share", "worst_share", pct), ("p-value", "p", lambda p: f"{p:.3g}"),
              ("Seats differ?", "clear", yes)),
    ]


def seat_win_share_chart(result: dict, data: GameData) -> Chart:
    """Bars of win share by seat, one panel per player count, 95% error bars and a 1/P line."""
    shares = result["shares"]
    fig, axes = panels(len(data.player_counts), 3.2 * len(data.player_counts) + 0.6, 3.8, sharey=True)
    for ax, players in zip(axes, data.player_counts):
        panel = shares.filter(pl.col("players") == players)
        bars_with_ci(ax, [str(s) for s in panel["seat"]], {"win share": (panel["share"], panel["lo"], panel["hi"])})
        ax.axhline(1 / players, color="#555", linestyle="--", linewidth=1.2, label="fair share 1/P")
        ax.set(title=f"{players} players", xlabel="Seat (0 = start player)")
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    axes[0].set_ylabel("Share of victories")
    return finished_chart(fig, axes[0], f"{data.title}: win share by seat (95% Wilson intervals)",
                          data.out_dir, f"{data.name}_seat_win_share.png",
                          "Win share by seat at each player count; error bars are 95% Wilson intervals, the dashed "
                          "line is 1/P.")


def ties_and_gaps(data: GameData) -> pl.DataFrame:
    """Per player count: games whose victory was shared (Wilson), and the mean over games of the start player's
    score minus the mean score of the other seats (bootstrap)."""
    games = data.rows.group_by(GAME_KEY).agg(
        players=pl.col("players").first(), shared=pl.col("win").max() < 1 - 1e-9,
        gap=pl.col("score").filter(pl.col("seat") == 0).first() - pl.col("score").filter(pl.col("seat") > 0).mean())
    out = []
    for (players,), group in sorted(games.partition_by("players", as_dict=True).items()):
        ties, n = int(group["shared"].sum()), group.height
        lo, hi = wilson(ties, n)
        gap_lo, gap_hi = bootstrap_mean_ci(group["gap"].to_numpy())
        out.append({"players": players, "games": n, "rate": ties / n, "lo": lo, "hi": hi, "gap": group["gap"].mean(),
                    "gap_lo": gap_lo, "gap_hi": gap_hi})
    return pl.DataFrame(out)


def ties_table(ties: pl.DataFrame, data: GameData) -> list:
    favours = "negative" if data.lowest_wins else "positive"
    return [table("Shared victories, and the start player's score minus the mean of the other seats (same game; "
                  f"{data.direction} scores win, so a {favours} gap favours the start player)", ties,
                  ("Players", "players"), ("Games", "games", count), *share_ci("Shared victory", "rate"),
                  ("Score gap (start − others)", "gap", num), ("95% CI (bootstrap)", ("gap_lo", "gap_hi"), num_ci))]


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
            ax.plot(line["bin"], line["share"], marker="o", markersize=3.5, color=colours[seat], label=f"seat {seat}")
        ax.set(title=f"{players} players", xlabel="Score" if width == 1 else f"Score (bins of {width})")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    # after all panels are drawn: set_ylim freezes the shared top, which must fit every panel's peak
    axes[0].set_ylim(bottom=0)
    axes[0].set_ylabel("Share of the seat's games")
    return finished_chart(fig, axes[-1], f"{data.title}: score distribution by seat",
                          data.out_dir, f"{data.name}_score_by_seat.png",
                          "Share of games ending at each score, by seat (0 = start player), one panel per player "
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


# ---------------------------------------------------------------- compensation


def tie_key(tie_breakers: tuple[str, ...] | list[str]) -> tuple[pl.Expr, int]:
    """The score with tie-breaking columns folded in below it (each under 1000, most wins), and a point's worth."""
    key = pl.col("score").cast(pl.Int64)
    for column in tie_breakers:
        key = key * 1000 + pl.col(column).cast(pl.Int64)
    return key, 1000 ** len(tie_breakers)


def start_player_compensation(rows: pl.DataFrame, higher_wins: bool, key: pl.Expr | None = None, unit: int = 1,
                              handicaps: range = HANDICAPS) -> pl.DataFrame:
    """Seat 0's win share if `handicap` points were added to its final score, per player count (Wilson).

    `key` ranks the seats of a game (default: the score); a point is worth `unit` on it, so a key that folds
    tie-breakers in below the score still works. Ties on the key share the win."""
    sign = 1 if higher_wins else -1
    keyed = rows.with_columns(key=sign * (pl.col("score").cast(pl.Int64) if key is None else key))
    best = (keyed.filter(pl.col("seat") > 0).with_columns(best=pl.col("key").max().over(GAME_KEY))
            .group_by(GAME_KEY).agg(best=pl.col("best").first(), tied=(pl.col("key") == pl.col("best")).sum()))
    games = keyed.filter(pl.col("seat") == 0).select(*GAME_KEY, "players", start=pl.col("key")).join(best, on=GAME_KEY)
    out = []
    for (players,), group in sorted(games.partition_by("players", as_dict=True).items()):
        start, top, tied = (group[c].to_numpy() for c in ("start", "best", "tied"))
        for handicap in handicaps:
            adjusted = start + sign * handicap * unit
            share = np.where(adjusted > top, 1.0, np.where(adjusted == top, 1 / (1 + tied), 0.0))
            lo, hi = wilson(share.sum(), share.size)
            out.append({"players": players, "handicap": handicap, "games": share.size, "share": share.mean(),
                        "lo": lo, "hi": hi})
    return pl.DataFrame(out)


def compensation(data: GameData) -> pl.DataFrame:
    key, unit = tie_key(data.tie_breakers)
    return start_player_compensation(data.rows, not data.lowest_wins, key, unit,
                                     data.options.get("handicaps", HANDICAPS))


def compensation_intro(_, data: GameData) -> str:
    breakers = data.tie_breakers
    ties = (f"ties still go to the most {listing(f'`{c}`' for c in breakers).replace(' and ', ', then the most ')}"
            if breakers else "tied players share the win")
    helps = "hurts" if data.lowest_wins else "helps"
    return ("The start player's win share if their final score were raised (positive) or lowered (negative) by a "
            f"fixed number of points, all other scores unchanged; {ties}. {data.direction.capitalize()} scores win, "
            f"so adding points {helps} the start player. The fair share is 1/P.")


def handicap_words(handicap: int) -> str:
    """0 -> 'no adjustment to', 1 -> 'adding 1 point to', -2 -> 'subtracting 2 points from'."""
    if handicap == 0:
        return "no adjustment to"
    points = f"{abs(handicap)} point{'s' if abs(handicap) > 1 else ''}"
    return f"adding {points} to" if handicap > 0 else f"subtracting {points} from"


def closest_adjustments(comp: pl.DataFrame, higher_wins: bool) -> pl.DataFrame:
    """Per player count: the start player's share, and the whole-point adjustment that comes closest to fair (or
    the one-point step toward fair when the edge is worth less than a point), with its share."""
    tried = sorted(comp["handicap"].unique().to_list())
    out = []
    for (players,), group in sorted(comp.partition_by("players", as_dict=True).items()):
        fair = 1 / players
        base = group.filter(pl.col("handicap") == 0).row(0, named=True)
        best = group.with_columns(gap=(pl.col("share") - fair).abs()).sort("gap", pl.col("handicap").abs()).row(0,
                                                                                                                named=True)
        ahead = base["share"] > fair
        kind = "fair" if base["lo"] <= fair <= base["hi"] else "small" if best["handicap"] == 0 else "points"
        if kind == "small":
            best = group.filter(pl.col("handicap") == (-1 if ahead == higher_wins else 1)).row(0, named=True)
        out.append({"players": players, "fair": fair, "start": base["share"], "ahead": ahead, "kind": kind,
                    "handicap": best["handicap"], "share": best["share"], "lo": best["lo"], "hi": best["hi"],
                    "edge": best["handicap"] in (tried[0], tried[-1]) and kind == "points"})
    return pl.DataFrame(out)


def compensation_finding(comp: pl.DataFrame, data: GameData) -> Finding:
    """The whole-point adjustment to the start player's final score that comes closest to fair, per player count."""
    best = closest_adjustments(comp, not data.lowest_wins)
    tried = sorted(comp["handicap"].unique().to_list())
    phrases = {r["players"]: "none is called for" if r["kind"] == "fair" else
               "the edge is worth less than a point" if r["kind"] == "small" else
               f"{handicap_words(r['handicap'])} the start player's final score comes closest"
               for r in best.iter_rows(named=True)}
    text = (f"Toward a fair share ({'lowest' if data.lowest_wins else 'highest'} score wins), "
            f"{by_phrase(phrases, data.player_counts)}.")
    edges = best.filter(pl.col("edge"))["players"].to_list()
    if edges:
        text += (f" At {at_counts(edges)} a bigger adjustment than the {tried[0]:+d} to {tried[-1]:+d} points tried "
                 "may be needed.")
    return Finding("Seat compensation.", text, table(
        "", best, ("Players", "players"), ("Start player wins", "start", pct), ("Fair share", "fair", pct),
        ("Adjustment", lambda r: "none needed" if r["kind"] == "fair" else f"{r['handicap']:+d}"
         + (" (overshoots)" if r["kind"] == "small" else "")),
        ("Start player would win", lambda r: "–" if r["kind"] == "fair" else f"{pct(r['share'])}"),
        ("95% CI", lambda r: "–" if r["kind"] == "fair" else pct_ci(r["lo"], r["hi"]))))


def compensation_table(comp: pl.DataFrame, _=None) -> list[Table]:
    """Seat 0's win share under each whole-point adjustment, one row per player count."""
    rows = []
    for (players,), group in sorted(comp.partition_by("players", as_dict=True).items()):
        ordered = group.sort("handicap").iter_rows(named=True)
        cells = [f"{pct(r['share'])} ({pct_ci(r['lo'], r['hi'])})" for r in ordered]
        rows.append([str(players), pct(1 / players), *cells])
    return [Table("Start player's win share (95% CI) with points added to their final score",
                  ["Players", "Fair share", *(f"{h:+d}" for h in sorted(comp["handicap"].unique()))], rows)]


def compensation_chart(comp: pl.DataFrame, data: GameData) -> Chart:
    """Seat 0's win share against the points added to its score, one line (and fair line) per player count."""
    colours = palette(len(data.player_counts))
    fig = new_figure(7.2, 4.4)
    ax = fig.subplots()
    for colour, players in zip(colours, comp["players"].unique().sort().to_list()):
        line = comp.filter(pl.col("players") == players).sort("handicap")
        ax.fill_between(line["handicap"], line["lo"], line["hi"], color=colour, alpha=0.2, linewidth=0)
        ax.plot(line["handicap"], line["share"], marker="o", markersize=4, color=colour, label=f"{players} players")
        ax.axhline(1 / players, color=colour, linestyle="--", linewidth=1.1)
    ax.axvline(0, color="#555", linewidth=0.8)
    ax.set(xlabel="Points added to the start player's final score", ylabel="Start player's win share")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    legend_below(fig, ax)
    ax.set_title(f"{data.title}: start player's win share with a points adjustment")
    return save_chart(fig, data.out_dir, f"{data.name}_compensation.png",
                      "Seat 0's win share (bands: 95% Wilson intervals) if a fixed number of points were added to its "
                      "final score; the dashed line of the same colour is the fair share 1/P. Where a line crosses its "
                      "dashed line the adjustment would make the seat fair.")


# ---------------------------------------------------------------- seat advantage by experiment


def seat_by_experiment(data: GameData) -> pl.DataFrame | None:
    """Win share by (experiment, players, seat), when there is more than one experiment."""
    return seat_win_shares(data.rows, ("experiment",)) if data.rows["experiment"].n_unique() > 1 else None


def seat_experiment_finding(seats: pl.DataFrame, data: GameData) -> Finding:
    """Whether the start player's advantage differs between experiments (intervals apart) at each player count."""
    start = seats.filter(pl.col("seat") == 0).with_columns(adv=pl.col("share") - pl.col("fair"),
                                                           adv_lo=pl.col("lo") - pl.col("fair"),
                                                           adv_hi=pl.col("hi") - pl.col("fair"))
    apart = [p for (p,), g in sorted(start.partition_by("players", as_dict=True).items())
             if g.height > 1 and g["adv_lo"].max() > g["adv_hi"].min()]
    shared = start.group_by("players").agg(n=pl.len()).filter(pl.col("n") > 1)["players"].sort().to_list()
    if not shared:
        text = "No player count was played in more than one experiment, so experiments cannot be compared."
    elif apart:
        text = (f"It depends on who plays: the start player's advantage differs clearly between experiments at "
                f"{at_counts(apart, shared)} (intervals apart).")
    else:
        text = f"The start player's advantage does not differ clearly between experiments at {at_counts(shared)}."
    names = data.pools()
    return Finding("Seat advantage by experiment.", text, table(
        "", start.sort("players", "experiment"), ("Players", "players"),
        ("Experiment", lambda r: f"{r['experiment']} ({names[r['experiment']]})"),
        *est("Start player's advantage", "adv", pp, pp_ci)))


def seat_experiment_table(seats: pl.DataFrame, data: GameData) -> list:
    names = data.pools()
    return [table("First-player advantage by experiment (start player's win share − 1/P)",
                  seats.filter(pl.col("seat") == 0), ("Experiment", "experiment"),
                  ("Strategies", lambda r: names[r["experiment"]]), ("Players", "players"), ("Games", "games", count),
                  *share_ci("Start player wins"), ("Advantage", lambda r: pp(r["share"] - r["fair"])),
                  ("95% CI", lambda r: pp_ci(r["lo"] - r["fair"], r["hi"] - r["fair"])),
                  ("Clear?", lambda r: yes(clear(r["lo"] - r["fair"], r["hi"] - r["fair"]))))]


def seat_experiment_chart(seats: pl.DataFrame, data: GameData) -> Chart:
    """Win share by seat, bars per experiment, one panel per player count, with the fair line 1/P."""
    counts, names = seats["players"].unique().sort().to_list(), data.pools()
    widths = [max(2, p) + 0.8 for p in counts]
    fig, axes = panels(len(counts), 0.95 * sum(widths) + 1.2, 4.2, sharey=True, width_ratios=widths)
    for ax, players in zip(axes, counts):
        bars = {}
        for experiment in seats["experiment"].unique().sort().to_list():
            panel = aligned(seats.filter((pl.col("experiment") == experiment) & (pl.col("players") == players)),
                            "seat", list(range(players)))
            bars[f"{experiment} ({names[experiment]})"] = (panel["share"], panel["lo"], panel["hi"])
        bars_with_ci(ax, [str(s) for s in range(players)], bars)
        ax.axhline(1 / players, color="#555", linestyle="--", linewidth=1.2, label="fair share 1/P")
        ax.set(title=f"{players} players", xlabel="Seat (0 = start player)")
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    axes[0].set_ylim(bottom=0)
    axes[0].set_ylabel("Share of victories")
    return finished_chart(fig, axes[-1], f"{data.title}: win share by seat in each experiment (95% Wilson intervals)",
                          data.out_dir, f"{data.name}_seat_by_experiment.png",
                          "Win share of each seat (0 = start player), one bar per experiment (its strategies in "
                          "brackets), one panel per player count; the dashed line is the fair share 1/P.")


# ---------------------------------------------------------------- strategy strength


def mixed_games(rows: pl.DataFrame) -> pl.DataFrame:
    """The rows of the games where at least two strategies meet: a table of one strategy says nothing of strength.
    All rows when no game mixes strategies (the strategy finding then says there is nothing to compare)."""
    kinds = rows.group_by(GAME_KEY).agg(pl.col("strategy").n_unique().alias("kinds"))
    mixed = rows.join(kinds.filter(pl.col("kinds") > 1).select(GAME_KEY), on=GAME_KEY, how="semi")
    return rows if mixed.is_empty() else mixed


def strategy_win_shares(rows: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Win share of each strategy (grouped by `by` + strategy) against its fair share, Wilson intervals."""
    shares = (rows.group_by(*by, "strategy").agg(games=pl.len(), wins=pl.col("win").sum(),
                                                fair=(1 / pl.col("players")).mean())
              .with_columns(share=pl.col("wins") / pl.col("games")).with_columns(ratio=pl.col("share") / pl.col("fair"))
              .sort(*by, "ratio", descending=[False] * len(by) + [True]))
    return with_wilson(shares, "wins", "games")


def mean_scores(rows: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Mean score per group with a bootstrap interval."""
    out = []
    for key, group in groups(rows, by):
        lo, hi = bootstrap_mean_ci(group["score"].to_numpy())
        out.append({**key, "mean_score": group["score"].mean(), "score_lo": lo, "score_hi": hi})
    return pl.DataFrame(out)


def head_to_head(rows: pl.DataFrame) -> pl.DataFrame:
    """For each ordered pair (A, B) of different strategies that met in a game: the share of meetings in
    which A finished ahead of B (better rank; equal rank counts 1/2), with Wilson intervals.

    Uses rank, so it works whether a game counts high or low scores as better."""
    players = rows.select(*GAME_KEY, "strategy", "rank")
    pairs = players.join(players, on=GAME_KEY, suffix="_b").filter(pl.col("strategy") != pl.col("strategy_b"))
    ahead = (pl.col("rank") < pl.col("rank_b")).cast(pl.Float64) + 0.5 * (pl.col("rank") == pl.col("rank_b"))
    matrix = (pairs.group_by("strategy", "strategy_b").agg(meetings=pl.len(), ahead=ahead.sum())
              .with_columns(share=pl.col("ahead") / pl.col("meetings")).sort("strategy", "strategy_b"))
    return with_wilson(matrix, "ahead", "meetings")


def strategy_analysis(data: GameData) -> dict:
    rows = mixed_games(data.rows)
    per_count = strategy_win_shares(rows, ["players"]).join(mean_scores(rows, ["players", "strategy"]),
                                                            on=["players", "strategy"])
    return {"pooled": strategy_win_shares(rows, []), "per_count": per_count,
            "matchups": head_to_head(rows) if len(data.order) > 1 else None}


def strategy_finding(result: dict, data: GameData) -> Finding:
    """Which strategy wins most and least, and how the best fares head-to-head; best and weakest per player count
    in the table."""
    pooled, matchups = result["pooled"], result["matchups"]
    if matchups is None:
        return Finding("Strategy strength.", f"Only one strategy took part ({data.order[0]}), so there is nothing "
                                             "to compare.")
    best, worst = pooled.row(0, named=True), pooled.row(-1, named=True)
    text = (f"Over all player counts {best['strategy']} wins most ({num(best['ratio'])}× its fair share) and "
            f"{worst['strategy']} least ({num(worst['ratio'])}× fair).")
    record = matchups.filter(pl.col("strategy") == best["strategy"]).sort("share")
    if record.is_empty():
        text += f" {best['strategy']} never met another strategy in a game, so there is no head-to-head."
    else:
        weakest = record.row(0, named=True)
        text += (f" Head-to-head it finishes ahead of {record.filter(pl.col('lo') > 0.5).height} of its "
                 f"{record.height} opponents more often than not (interval above 50%); its weakest matchup is "
                 f"{weakest['strategy_b']}, ahead in {pct(weakest['share'])} of {count(weakest['meetings'])} meetings "
                 f"(95% CI {pct_ci(weakest['lo'], weakest['hi'])}).")
    rows = []
    per_count = sorted(result["per_count"].partition_by("players", as_dict=True).items())
    for players, shares in [("all", pooled), *((p, g) for (p,), g in per_count)]:
        shares = shares.sort("ratio", "strategy", descending=[True, False])
        rows.append({"players": players, **{f"{k}_{c}": shares.row(i, named=True)[c] for k, i in (("b", 0), ("w", -1))
                                             for c in ("strategy", "share", "lo", "hi", "ratio")}})
    columns = [("Players", "players")]
    for k, what in (("b", "Strongest"), ("w", "Weakest")):
        columns += [(what, f"{k}_strategy"), *share_ci("Win share", f"{k}_share", f"{k}_lo", f"{k}_hi"),
                    ("× fair", f"{k}_ratio", num)]
    return Finding("Strategy strength.", text, table("", rows[1:] + rows[:1], *columns))


def strategy_tables(result: dict, _) -> list:
    per_count = result["per_count"].sort("players", "ratio", descending=[False, True])
    return [
        table("Win share by strategy, all player counts together (fair share = mean of 1/P over its games)",
              result["pooled"], ("Strategy", "strategy"), ("Games", "games", count), *share_ci("Win share"),
              ("Fair share", "fair", pct), ("× fair", "ratio", num)),
        table("Win share and mean score by strategy and player count", per_count, ("Players", "players"),
              ("Strategy", "strategy"), ("Games", "games", count), *share_ci("Win share"), ("× fair", "ratio", num),
              ("Mean score", "mean_score", num), ("95% CI (bootstrap)", ("score_lo", "score_hi"), num_ci)),
    ]


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
    return finished_chart(fig, axes[-1], f"{data.title}: win share by strategy (95% Wilson intervals)",
                          data.out_dir, f"{data.name}_strategy_win_share.png",
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
    return save_chart(fig, data.out_dir, f"{data.name}_score_by_strategy.png",
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
    return save_chart(fig, data.out_dir, f"{data.name}_head_to_head.png",
                      "Head-to-head: cell (A, B) is the percentage of their meetings in which A finished ahead of B "
                      "(tie = 1/2); blue favours the row strategy, grey cells are pairs that never met. Counts and "
                      "intervals are in the table.")


# ---------------------------------------------------------------- the generic sections

SEATS = [
    Analysis("Win share by seat", seat_analysis, intro=seat_intro, chart=seat_win_share_chart, tables=seat_tables,
             finding=seat_finding, caveats=rotation_caveats, headline=True),
    Analysis("Ties and the start player's score gap", ties_and_gaps, tables=ties_table),
    Analysis("Score distribution by seat", lambda data: score_bin_width(data.rows), chart=score_by_seat_chart),
    Analysis("Seat compensation", compensation, intro=compensation_intro, chart=compensation_chart,
             tables=compensation_table, finding=compensation_finding),
    Analysis("Seat advantage by experiment", seat_by_experiment,
             intro="The seat numbers above pool every experiment. Which seat does well can depend on who sits at the "
                   "table, so here each experiment is shown on its own (its strategy pool in brackets).",
             chart=seat_experiment_chart, tables=seat_experiment_table, finding=seat_experiment_finding),
]
STRATEGIES = [
    Analysis("Win share by strategy", strategy_analysis,
             intro="A strategy's win share is its share of victories per game played (ties count 1/k). Its fair share "
                   "is 1/P in a P-player game; '× fair' is the ratio of the two. Only games where at least two "
                   "strategies meet count here: a table of one strategy says nothing about strength.",
             chart=strategy_win_share_chart, tables=strategy_tables, finding=strategy_finding, headline=True),
    Analysis("Score distribution by strategy", score_quantiles, chart=score_by_strategy_chart),
    Analysis("Head-to-head", lambda data: head_to_head(data.rows) if len(data.order) > 1 else None,
             intro="For each pair of strategies that met in a game: how often the row strategy finished ahead of the "
                   "column strategy (a tie counts 1/2). Pairs are pooled over player counts; in games of 3 or more "
                   "players a 'meeting' is one pair of players inside a larger game.",
             chart=head_to_head_chart, tables=head_to_head_table),
]
