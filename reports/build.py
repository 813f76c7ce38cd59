"""Build the balance report: read Parquet results, analyse them, write index.html, summary.md and PNGs.

The generic parts (seat advantage, strategy strength, head-to-head, score distributions) work for any
game; a game's own section comes from SECTIONS, keyed by the `game` column. Reports read Parquet only.
"""

import math
from collections.abc import Callable
from pathlib import Path

import matplotlib
import numpy as np
import polars as pl
from matplotlib.ticker import MaxNLocator, PercentFormatter

from reports import broken_beautiful, kaleido, kintsugi
from reports.frames import GAME_KEY
from reports.load import ResultsError, load_results
from reports.render import (
    Chart,
    Heading,
    Report,
    Section,
    Table,
    bars_with_ci,
    chart_style,
    count,
    legend_below,
    new_figure,
    num,
    num_ci,
    palette,
    pct,
    pct_ci,
    pp,
    pp_ci,
    render_html,
    render_markdown,
    save_chart,
)
from reports.stats import bootstrap_mean_ci, with_wilson

SECTIONS: dict[str, Callable[[pl.DataFrame, Path], Section]] = {
    "kintsugi": kintsugi.section,
    "broken_beautiful": broken_beautiful.section,
    "kaleido": kaleido.section,
}
# where str.title() would get the name wrong (or to keep it next to the section)
GAME_TITLES = {"broken_beautiful": broken_beautiful.TITLE, "kaleido": kaleido.TITLE}

BOX_KEYS = ["med", "q1", "q3", "whislo", "whishi", "mean"]

GENERAL_CAVEATS = [
    (
        "Bots are not people. Every number here describes scripted heuristics playing each other; human "
        "players adapt, bluff, make mistakes and read the table, so a balance problem the bots show is a "
        "lead to test at the table, not a verdict."
    ),
    (
        "Intervals are 95% intervals that cover sampling noise only, not modelling choices. Shares of "
        "victory count a k-way tie as 1/k of a win; the Wilson interval is derived for whole successes, so "
        "on fractional tie shares it is an approximation (a close one when ties are rare). Rows from the "
        "same game are not independent, so intervals that pool several seats of one game (strategies "
        "appearing twice in a game, head-to-head meetings) are somewhat too narrow."
    ),
    (
        "All experiments found under the results folder are pooled. If they ran different rules or "
        "components, point the report at one experiment folder at a time."
    ),
]


def build_report(results_dir: Path, out_dir: Path) -> Path:
    """Analyse every experiment under results_dir and write the report into out_dir.

    results_dir is one experiment folder (manifest.json + parts/*.parquet) or a folder of them.
    Writes out_dir/index.html, out_dir/summary.md and PNG charts; returns the path of index.html.
    Raises ResultsError when there are no results or the results are inconsistent.
    """
    results_dir, out_dir = Path(results_dir), Path(out_dir)
    rows, manifests = load_results(results_dir)
    check_results(rows)
    out_dir.mkdir(parents=True, exist_ok=True)
    with matplotlib.rc_context(chart_style()):
        report = assemble_report(rows, manifests, out_dir)
    (out_dir / "summary.md").write_text(render_markdown(report), encoding="utf-8")
    index = out_dir / "index.html"
    index.write_text(render_html(report), encoding="utf-8")
    return index


def check_results(rows: pl.DataFrame) -> None:
    """Raise ResultsError unless every game has one row per seat and its win shares sum to 1."""
    games = rows.group_by(GAME_KEY).agg(seats=pl.len(), players=pl.col("players").first(), win=pl.col("win").sum())
    wrong_size = games.filter(pl.col("seats") != pl.col("players"))
    if wrong_size.height:
        first = wrong_size.row(0, named=True)
        raise ResultsError(
            f"{wrong_size.height} games do not have one row per seat, e.g. game {first['game_id']} of "
            f"experiment {first['experiment']!r} has {first['seats']} rows for {first['players']} players."
        )
    wrong_wins = games.filter((pl.col("win") - 1).abs() > 1e-6)
    if wrong_wins.height:
        first = wrong_wins.row(0, named=True)
        raise ResultsError(
            f"Win shares must sum to 1 in every game; {wrong_wins.height} games do not, e.g. game "
            f"{first['game_id']} of experiment {first['experiment']!r} sums to {first['win']:.3f}."
        )


def assemble_report(rows: pl.DataFrame, manifests: list[dict], out_dir: Path) -> Report:
    """Run every analysis, draw the charts into out_dir and collect the report."""
    sections, summary = [], []
    caveats = list(GENERAL_CAVEATS) + incomplete_experiment_caveats(manifests)
    for game in sorted(rows["game"].unique()):
        game_rows = rows.filter(pl.col("game") == game)
        game_sections = [seat_section(game_rows, out_dir, game), strategy_section(game_rows, out_dir, game)]
        if game in SECTIONS:
            game_sections.append(SECTIONS[game](game_rows, out_dir))
        summary.append((game_title(game), [f for s in game_sections for f in s.findings]))
        caveats += [c for s in game_sections for c in s.caveats]
        sections += game_sections
    games = rows.select(GAME_KEY).unique().height
    overview = [
        (
            f"{count(games)} simulated games ({count(rows.height)} player results) from "
            f"{len(manifests)} experiment(s). Every rate carries a 95% confidence interval."
        ),
        experiments_table(rows, manifests),
    ]
    title = "Balance report: " + ", ".join(game_title(g) for g in sorted(rows["game"].unique()))
    return Report(title, overview, summary, sections, caveats)


def game_title(game: str) -> str:
    """The game's name for people: 'broken_beautiful' -> 'Broken and Beautiful', 'kunst_stuecke' -> 'Kunst Stuecke'."""
    return GAME_TITLES.get(game, game.replace("_", " ").title())


def experiments_table(rows: pl.DataFrame, manifests: list[dict]) -> Table:
    """One line per experiment: game, player counts, games, seed, config hash, completeness."""
    sizes = rows.group_by("experiment").agg(
        games=pl.col("game_id").n_unique(), players=pl.col("players").unique().sort()
    )
    by_name = {r["experiment"]: r for r in sizes.iter_rows(named=True)}
    table_rows = []
    for manifest in manifests:
        name = str(manifest.get("experiment", "?"))
        size = by_name.get(name, {"games": 0, "players": []})
        table_rows.append(
            [
                name,
                str(manifest.get("game", "?")),
                ", ".join(str(p) for p in size["players"]),
                count(size["games"]),
                str(manifest.get("seed", "?")),
                str(manifest.get("config_hash", "?"))[:12],
                "yes" if manifest.get("complete") else "no",
            ]
        )
    return Table(
        "Experiments",
        ["Experiment", "Game", "Players", "Games", "Seed", "Config hash", "Complete"],
        table_rows,
    )


def incomplete_experiment_caveats(manifests: list[dict]) -> list[str]:
    """A caveat for every experiment whose manifest says it did not finish."""
    return [
        f"Experiment {m.get('experiment', '?')!r} has not finished; it contributes the games completed so far."
        for m in manifests
        if not m.get("complete")
    ]


# ---------------------------------------------------------------- seat advantage


def seat_win_shares(rows: pl.DataFrame) -> pl.DataFrame:
    """Win share by (players, seat) with Wilson intervals and the fair share 1/players."""
    shares = (
        rows.group_by("players", "seat")
        .agg(games=pl.len(), wins=pl.col("win").sum())
        .sort("players", "seat")
        .with_columns(share=pl.col("wins") / pl.col("games"), fair=1 / pl.col("players"))
    )
    return with_wilson(shares, "wins", "games")


def first_player_advantage(seat_shares: pl.DataFrame) -> pl.DataFrame:
    """Seat 0's win share minus 1/players, with the interval shifted the same way, per player count."""
    return seat_shares.filter(pl.col("seat") == 0).with_columns(
        advantage=pl.col("share") - pl.col("fair"),
        advantage_lo=pl.col("lo") - pl.col("fair"),
        advantage_hi=pl.col("hi") - pl.col("fair"),
    )


def tie_rates(rows: pl.DataFrame) -> pl.DataFrame:
    """Per player count: games whose victory was shared, with a Wilson interval."""
    rates = (
        rows.group_by(GAME_KEY)
        .agg(players=pl.col("players").first(), shared=pl.col("win").max() < 1 - 1e-9)
        .group_by("players")
        .agg(games=pl.len(), ties=pl.col("shared").sum())
        .sort("players")
        .with_columns(rate=pl.col("ties") / pl.col("games"))
    )
    return with_wilson(rates, "ties", "games")


def start_player_score_gaps(rows: pl.DataFrame) -> pl.DataFrame:
    """Per player count: mean over games of (seat 0's score − mean score of the other seats), bootstrapped."""
    gaps = rows.group_by(GAME_KEY).agg(
        players=pl.col("players").first(),
        gap=pl.col("score").filter(pl.col("seat") == 0).first() - pl.col("score").filter(pl.col("seat") > 0).mean(),
    )
    out = []
    for (players,), games in sorted(gaps.partition_by("players", as_dict=True).items()):
        lo, hi = bootstrap_mean_ci(games["gap"].to_numpy())
        out.append({"players": players, "gap": games["gap"].mean(), "gap_lo": lo, "gap_hi": hi})
    return pl.DataFrame(out)


def score_direction(rows: pl.DataFrame) -> str:
    """'higher' or 'lower': which scores win in this game, read from the data (rank 1 against the rest)."""
    firsts = rows.filter(pl.col("rank") == 1)["score"].mean()
    rest = rows.filter(pl.col("rank") > 1)["score"].mean()
    return "lower" if firsts is not None and rest is not None and firsts < rest else "higher"


def seat_section(rows: pl.DataFrame, out_dir: Path, game: str) -> Section:
    """Win share by seat, first-player advantage, ties and score distributions by seat."""
    shares = seat_win_shares(rows)
    advantage = first_player_advantage(shares)
    direction = score_direction(rows)
    favours = "positive" if direction == "higher" else "negative"
    section = Section(f"{game_title(game)}: seat advantage")
    section.blocks = [
        (
            "Seats are numbered in turn order; seat 0 is the start player. With P players a seat's fair "
            "share of victories is 1/P. The first-player advantage is the start player's win share minus 1/P. "
            f"In this game {direction} scores win, so a {favours} score gap favours the start player."
        ),
        seat_win_share_chart(shares, out_dir, game),
        first_player_advantage_table(advantage),
        seat_share_table(shares),
        ties_and_score_gap_table(tie_rates(rows), start_player_score_gaps(rows), direction),
        score_by_seat_chart(rows, out_dir, game),
    ]
    section.findings = [seat_finding(advantage)]
    section.caveats = seat_rotation_caveats(rows, game)
    return section


def seat_finding(advantage: pl.DataFrame) -> str:
    """Plain-words answer to 'is there a first-player advantage?', one sentence per player count."""
    sentences = []
    for r in advantage.iter_rows(named=True):
        clear = r["advantage_lo"] > 0 or r["advantage_hi"] < 0
        verdict = "clearly different from zero" if clear else "not distinguishable from zero with these data"
        sentences.append(
            f"At {r['players']} players the start player wins {pct(r['share'])} of games "
            f"(95% CI {pct_ci(r['lo'], r['hi'])}) against a fair {pct(r['fair'])}: a first-player "
            f"advantage of {pp(r['advantage'])} (95% CI {pp_ci(r['advantage_lo'], r['advantage_hi'])}), {verdict}."
        )
    return "Seat advantage. " + " ".join(sentences)


def first_player_advantage_table(advantage: pl.DataFrame) -> Table:
    """Start player's share, fair share and advantage per player count."""
    return Table(
        "First-player advantage (start player's win share − 1/P)",
        ["Players", "Games", "Start player wins", "95% CI", "Fair share", "Advantage", "95% CI", "Clear?"],
        [
            [
                str(r["players"]),
                count(r["games"]),
                pct(r["share"]),
                pct_ci(r["lo"], r["hi"]),
                pct(r["fair"]),
                pp(r["advantage"]),
                pp_ci(r["advantage_lo"], r["advantage_hi"]),
                "yes" if r["advantage_lo"] > 0 or r["advantage_hi"] < 0 else "no",
            ]
            for r in advantage.iter_rows(named=True)
        ],
    )


def seat_share_table(shares: pl.DataFrame) -> Table:
    """Win share of every seat at every player count."""
    return Table(
        "Win share by seat (95% Wilson intervals; ties count 1/k)",
        ["Players", "Seat", "Games", "Win share", "95% CI", "Fair share", "Difference"],
        [
            [
                str(r["players"]),
                str(r["seat"]),
                count(r["games"]),
                pct(r["share"]),
                pct_ci(r["lo"], r["hi"]),
                pct(r["fair"]),
                pp(r["share"] - r["fair"]),
            ]
            for r in shares.iter_rows(named=True)
        ],
    )


def ties_and_score_gap_table(ties: pl.DataFrame, gaps: pl.DataFrame, direction: str = "higher") -> Table:
    """Shared victories and the start player's mean score gap, per player count.

    direction: 'higher' or 'lower', the scores that win; it says which sign of the gap favours the start player.
    """
    joined = ties.join(gaps, on="players").sort("players")
    favours = "positive" if direction == "higher" else "negative"
    return Table(
        "Shared victories, and the start player's score minus the mean of the other seats (same game; "
        f"{direction} scores win, so a {favours} gap favours the start player)",
        ["Players", "Games", "Shared victory", "95% CI", "Score gap (start − others)", "95% CI (bootstrap)"],
        [
            [
                str(r["players"]),
                count(r["games"]),
                pct(r["rate"]),
                pct_ci(r["lo"], r["hi"]),
                num(r["gap"]),
                num_ci(r["gap_lo"], r["gap_hi"]),
            ]
            for r in joined.iter_rows(named=True)
        ],
    )


def seat_win_share_chart(shares: pl.DataFrame, out_dir: Path, game: str) -> Chart:
    """Bars of win share by seat, one panel per player count, 95% error bars and a 1/P line."""
    player_counts = shares["players"].unique().sort().to_list()
    fig = new_figure(3.2 * len(player_counts) + 0.6, 3.8)
    axes = np.atleast_1d(fig.subplots(1, len(player_counts), sharey=True))
    for ax, players in zip(axes, player_counts):
        panel = shares.filter(pl.col("players") == players)
        seats = [str(s) for s in panel["seat"]]
        bars_with_ci(ax, seats, {"win share": (panel["share"], panel["lo"], panel["hi"])})
        ax.axhline(1 / players, color="#555", linestyle="--", linewidth=1.2, label="fair share 1/P")
        ax.set_title(f"{players} players")
        ax.set_xlabel("Seat (0 = start player)")
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    axes[0].set_ylabel("Share of victories")
    legend_below(fig, axes[0])
    fig.suptitle(f"{game_title(game)}: win share by seat (95% Wilson intervals)")
    return save_chart(
        fig,
        out_dir,
        f"{game}_seat_win_share.png",
        "Win share by seat at each player count; error bars are 95% Wilson intervals, the dashed line is 1/P.",
    )


def score_by_seat_chart(rows: pl.DataFrame, out_dir: Path, game: str) -> Chart:
    """Score distribution (share of games at each score) by seat, one panel per player count."""
    width = score_bin_width(rows)
    dist = (
        rows.with_columns(bin=(pl.col("score") // width) * width)
        .group_by("players", "seat", "bin")
        .agg(n=pl.len())
        .with_columns(share=pl.col("n") / pl.col("n").sum().over("players", "seat"))
        .sort("players", "seat", "bin")
    )
    player_counts = dist["players"].unique().sort().to_list()
    seats = dist["seat"].unique().sort().to_list()
    colours = palette(len(seats))
    fig = new_figure(3.6 * len(player_counts) + 0.6, 3.8)
    axes = np.atleast_1d(fig.subplots(1, len(player_counts), sharey=True))
    for ax, players in zip(axes, player_counts):
        for seat in range(players):
            line = dist.filter((pl.col("players") == players) & (pl.col("seat") == seat))
            ax.plot(
                line["bin"],
                line["share"],
                marker="o",
                markersize=3.5,
                color=colours[seat],
                label=f"seat {seat}",
            )
        ax.set_title(f"{players} players")
        ax.set_xlabel("Score" if width == 1 else f"Score (bins of {width})")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    # after all panels are drawn: set_ylim freezes the shared top, which must fit every panel's peak
    axes[0].set_ylim(bottom=0)
    axes[0].set_ylabel("Share of the seat's games")
    legend_below(fig, axes[-1])
    fig.suptitle(f"{game_title(game)}: score distribution by seat")
    return save_chart(
        fig,
        out_dir,
        f"{game}_score_by_seat.png",
        "Share of games ending at each score, by seat (0 = start player), one panel per player count.",
    )


def score_bin_width(rows: pl.DataFrame, max_bins: int = 40) -> int:
    """1 for scores with a small range; otherwise a width giving at most about max_bins bins."""
    spread = rows["score"].max() - rows["score"].min()
    return max(1, math.ceil(spread / max_bins))


def seat_rotation_caveats(rows: pl.DataFrame, game: str) -> list[str]:
    """A caveat for each player count at which strategies did not sit in every seat equally often."""
    per_seat = rows.group_by("players", "strategy", "seat").agg(n=pl.len())
    balance = per_seat.group_by("players", "strategy").agg(
        seats=pl.len(), low=pl.col("n").min(), high=pl.col("n").max()
    )
    unbalanced = (
        balance.filter((pl.col("seats") < pl.col("players")) | (pl.col("high") > 1.1 * pl.col("low")))["players"]
        .unique()
        .sort()
        .to_list()
    )
    return [
        f"{game_title(game)} at {players} players: the strategies did not sit in every seat equally often, "
        "so seat effects and strategy effects are partly mixed in the seat and strategy numbers."
        for players in unbalanced
    ]


# ---------------------------------------------------------------- strategy strength


def strategy_win_shares(rows: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Win share of each strategy (grouped by `by` + strategy) against its fair share, Wilson intervals."""
    shares = (
        rows.group_by(*by, "strategy")
        .agg(games=pl.len(), wins=pl.col("win").sum(), fair=(1 / pl.col("players")).mean())
        .with_columns(share=pl.col("wins") / pl.col("games"))
        .with_columns(ratio=pl.col("share") / pl.col("fair"))
        .sort(*by, "ratio", descending=[False] * len(by) + [True])
    )
    return with_wilson(shares, "wins", "games")


def mean_scores(rows: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Mean score per group with a bootstrap interval."""
    out = []
    for key, group in rows.partition_by(by, as_dict=True).items():
        lo, hi = bootstrap_mean_ci(group["score"].to_numpy())
        out.append({**dict(zip(by, key)), "mean_score": group["score"].mean(), "score_lo": lo, "score_hi": hi})
    return pl.DataFrame(out)


def head_to_head(rows: pl.DataFrame) -> pl.DataFrame:
    """For each ordered pair (A, B) of different strategies that met in a game: the share of meetings in
    which A finished ahead of B (better rank; equal rank counts 1/2), with Wilson intervals.

    Uses rank, so it works whether a game counts high or low scores as better.
    """
    players = rows.select(*GAME_KEY, "strategy", "rank")
    pairs = players.join(players, on=GAME_KEY, suffix="_b").filter(pl.col("strategy") != pl.col("strategy_b"))
    ahead = (pl.col("rank") < pl.col("rank_b")).cast(pl.Float64) + 0.5 * (pl.col("rank") == pl.col("rank_b"))
    matrix = (
        pairs.group_by("strategy", "strategy_b")
        .agg(meetings=pl.len(), ahead=ahead.sum())
        .with_columns(share=pl.col("ahead") / pl.col("meetings"))
        .sort("strategy", "strategy_b")
    )
    return with_wilson(matrix, "ahead", "meetings")


def strategy_section(rows: pl.DataFrame, out_dir: Path, game: str) -> Section:
    """Win share by strategy, score distributions by strategy and the head-to-head matrix."""
    pooled = strategy_win_shares(rows, [])
    per_count = strategy_win_shares(rows, ["players"]).join(
        mean_scores(rows, ["players", "strategy"]), on=["players", "strategy"]
    )
    order = pooled["strategy"].to_list()
    section = Section(f"{game_title(game)}: strategy strength")
    section.blocks = [
        (
            "A strategy's win share is its share of victories per game played (ties count 1/k). Its fair share is "
            "1/P in a P-player game; '× fair' is the ratio of the two."
        ),
        strategy_win_share_chart(per_count, order, out_dir, game),
        pooled_strategy_table(pooled),
        strategy_table(per_count),
        score_by_strategy_chart(rows, order, out_dir, game),
    ]
    if len(order) < 2:
        section.findings = [
            f"Strategy strength. Only one strategy took part ({order[0]}), so there is nothing to compare."
        ]
        return section
    matchups = head_to_head(rows)
    section.blocks += [
        Heading("Head-to-head"),
        (
            "For each pair of strategies that met in a game: how often the row strategy finished ahead of the "
            "column strategy (a tie counts 1/2). Pairs are pooled over player counts; in games of 3 or more "
            "players a 'meeting' is one pair of players inside a larger game."
        ),
        head_to_head_chart(matchups, order, out_dir, game),
        head_to_head_table(matchups),
    ]
    section.findings = [strategy_finding(pooled, matchups)]
    return section


def strategy_finding(pooled: pl.DataFrame, matchups: pl.DataFrame) -> str:
    """Plain-words answer to 'which strategy wins most, and how does it fare head-to-head?'."""
    best, worst = pooled.row(0, named=True), pooled.row(-1, named=True)
    text = (
        f"Strategy strength. {best['strategy']} wins most: {pct(best['share'])} of its games "
        f"(95% CI {pct_ci(best['lo'], best['hi'])}) against a fair share of {pct(best['fair'])} "
        f"({num(best['ratio'])}× fair). The weakest, {worst['strategy']}, wins {pct(worst['share'])} "
        f"(95% CI {pct_ci(worst['lo'], worst['hi'])}; {num(worst['ratio'])}× fair)."
    )
    record = matchups.filter(pl.col("strategy") == best["strategy"]).sort("share")
    if record.is_empty():
        return text + f" {best['strategy']} never met another strategy in a game, so there is no head-to-head."
    weakest = record.row(0, named=True)
    return text + (
        f" Head-to-head, {best['strategy']} finishes ahead of {record.filter(pl.col('lo') > 0.5).height} of its "
        f"{record.height} opponents more often than not (interval above 50%); its weakest matchup is against "
        f"{weakest['strategy_b']}: ahead in {pct(weakest['share'])} of {count(weakest['meetings'])} meetings "
        f"(95% CI {pct_ci(weakest['lo'], weakest['hi'])})."
    )


def pooled_strategy_table(pooled: pl.DataFrame) -> Table:
    """Strategies ranked by win share relative to fair, pooled over player counts."""
    return Table(
        "Win share by strategy, all player counts together (fair share = mean of 1/P over its games)",
        ["Strategy", "Games", "Win share", "95% CI", "Fair share", "× fair"],
        [
            [
                r["strategy"],
                count(r["games"]),
                pct(r["share"]),
                pct_ci(r["lo"], r["hi"]),
                pct(r["fair"]),
                num(r["ratio"]),
            ]
            for r in pooled.iter_rows(named=True)
        ],
    )


def strategy_table(per_count: pl.DataFrame) -> Table:
    """Win share and mean score of every strategy at every player count."""
    return Table(
        "Win share and mean score by strategy and player count",
        ["Players", "Strategy", "Games", "Win share", "95% CI", "× fair", "Mean score", "95% CI (bootstrap)"],
        [
            [
                str(r["players"]),
                r["strategy"],
                count(r["games"]),
                pct(r["share"]),
                pct_ci(r["lo"], r["hi"]),
                num(r["ratio"]),
                num(r["mean_score"]),
                num_ci(r["score_lo"], r["score_hi"]),
            ]
            for r in per_count.sort("players", "ratio", descending=[False, True]).iter_rows(named=True)
        ],
    )


def head_to_head_table(matchups: pl.DataFrame) -> Table:
    """Each pair once, leader first, most lopsided first."""
    leaders = matchups.filter(
        (pl.col("share") > 0.5) | ((pl.col("share") == 0.5) & (pl.col("strategy") < pl.col("strategy_b")))
    ).sort("share", "strategy", descending=[True, False])
    return Table(
        "Head-to-head: share of meetings in which A finished ahead of B (B ahead of A is 100% minus this)",
        ["A", "B", "Meetings", "A ahead", "95% CI"],
        [
            [r["strategy"], r["strategy_b"], count(r["meetings"]), pct(r["share"]), pct_ci(r["lo"], r["hi"])]
            for r in leaders.iter_rows(named=True)
        ],
    )


def strategy_win_share_chart(per_count: pl.DataFrame, order: list[str], out_dir: Path, game: str) -> Chart:
    """Horizontal bars of win share per strategy, one panel per player count, with the 1/P line."""
    player_counts = per_count["players"].unique().sort().to_list()
    fig = new_figure(3.4 * len(player_counts) + 1.8, 1.8 + 0.36 * len(order))
    axes = np.atleast_1d(fig.subplots(1, len(player_counts), sharey=True))
    for ax, players in zip(axes, player_counts):
        panel = pl.DataFrame({"strategy": order}).join(
            per_count.filter(pl.col("players") == players), on="strategy", how="left", maintain_order="left"
        )
        bars_with_ci(ax, order, {"win share": (panel["share"], panel["lo"], panel["hi"])}, horizontal=True)
        ax.axvline(1 / players, color="#555", linestyle="--", linewidth=1.2, label="fair share 1/P")
        ax.set_title(f"{players} players")
        ax.set_xlabel("Share of victories")
        ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    legend_below(fig, axes[-1])
    fig.suptitle(f"{game_title(game)}: win share by strategy (95% Wilson intervals)")
    return save_chart(
        fig,
        out_dir,
        f"{game}_strategy_win_share.png",
        "Win share per game played, by strategy and player count; the dashed line is the fair share 1/P.",
    )


def score_by_strategy_chart(rows: pl.DataFrame, order: list[str], out_dir: Path, game: str) -> Chart:
    """Box plots of score by strategy (box: quartiles, whiskers: 5th–95th percentile, dot: mean)."""
    quantiles = rows.group_by("players", "strategy").agg(
        med=pl.col("score").median(),
        q1=pl.col("score").quantile(0.25, "midpoint"),
        q3=pl.col("score").quantile(0.75, "midpoint"),
        whislo=pl.col("score").quantile(0.05, "midpoint"),
        whishi=pl.col("score").quantile(0.95, "midpoint"),
        mean=pl.col("score").mean(),
    )
    player_counts = quantiles["players"].unique().sort().to_list()
    fig = new_figure(3.4 * len(player_counts) + 1.8, 1.5 + 0.36 * len(order))
    axes = np.atleast_1d(fig.subplots(1, len(player_counts), sharey=True))
    colour = palette(1)[0]
    for ax, players in zip(axes, player_counts):
        panel = {r["strategy"]: r for r in quantiles.filter(pl.col("players") == players).iter_rows(named=True)}
        present = [i for i, s in enumerate(order) if s in panel]
        stats = [{**{k: panel[order[i]][k] for k in BOX_KEYS}, "fliers": [], "label": order[i]} for i in present]
        ax.bxp(
            stats,
            positions=present,
            orientation="horizontal",
            showmeans=True,
            widths=0.6,
            patch_artist=True,
            boxprops={"facecolor": colour, "alpha": 0.55},
            medianprops={"color": "black"},
            meanprops={
                "marker": "o",
                "markerfacecolor": "white",
                "markeredgecolor": "black",
                "markersize": 5,
            },
        )
        ax.set_yticks(range(len(order)), order)
        ax.set_ylim(len(order) - 0.5, -0.5)
        ax.set_title(f"{players} players")
        ax.set_xlabel("Score")
    fig.suptitle(f"{game_title(game)}: score distribution by strategy")
    return save_chart(
        fig,
        out_dir,
        f"{game}_score_by_strategy.png",
        "Score by strategy and player count: boxes span the quartiles, the line is the median, whiskers reach "
        "the 5th and 95th percentiles, the white dot is the mean.",
    )


def head_to_head_chart(matchups: pl.DataFrame, order: list[str], out_dir: Path, game: str) -> Chart:
    """Heat map: row strategy's share of meetings finished ahead of the column strategy."""
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
            ax.text(
                j,
                i,
                f"{100 * share:.0f}",
                ha="center",
                va="center",
                fontsize="small",
                color="white" if abs(share - 0.5) > 0.3 else "black",
            )
    ax.set_xticks(range(len(order)), order, rotation=40, ha="right")
    ax.set_yticks(range(len(order)), order)
    ax.grid(False)
    ax.set_xlabel("Opponent (B)")
    ax.set_ylabel("Strategy (A)")
    colourbar = fig.colorbar(image, ax=ax, shrink=0.8, format=PercentFormatter(1.0, decimals=0))
    colourbar.set_label("A finished ahead of B")
    ax.set_title(f"{game_title(game)}: head-to-head\n% of meetings in which A finished ahead of B")
    return save_chart(
        fig,
        out_dir,
        f"{game}_head_to_head.png",
        "Head-to-head: cell (A, B) is the percentage of their meetings in which A finished ahead of B (tie = 1/2); "
        "blue favours the row strategy, grey cells are pairs that never met. Counts and intervals are in the table.",
    )

