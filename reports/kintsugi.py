"""Kintsugi's own report section: guessing accuracy, guesses that changed the winner, the start
player's handicap in points, win share by secret colour, and matches.

Kintsugi rows carry `color` (secret colour), `pieces` (score before guessing), `guess` (colour guessed
for the next seat), `guess_correct` and `target_color`; strategies are named "policy+guesser", e.g.
"camouflage@0.8+bayes". Lowest score wins; ties share the victory.
"""

from pathlib import Path

import numpy as np
import polars as pl
from matplotlib.ticker import PercentFormatter

from reports.frames import GAME_KEY
from reports.render import (
    Chart,
    Heading,
    Section,
    Table,
    bars_with_ci,
    compensation_finding,
    count,
    legend_below,
    new_figure,
    num,
    num_ci,
    pct,
    pct_ci,
    pp,
    save_chart,
)
from reports.seats import compensation_chart, compensation_table, start_player_compensation
from reports.stats import bootstrap_mean_ci, wilson, with_wilson

COLOURS = ("blue", "yellow", "white", "red")
CHANCE = 1 / 3  # the guesser rules out its own colour and picks one of the other three at random
MATCH_KEY = ["experiment", "players", "lineup", "match_id"]


def section(rows: pl.DataFrame, out_dir: Path) -> Section:
    """The Kintsugi section of the report (rows: Kintsugi rows only)."""
    rows = with_policy_and_guesser(rows)
    accuracy = guess_accuracy(rows, ["guesser", "target_policy"])
    by_guesser = guess_accuracy(rows, ["guesser"])
    changes = winner_changes(rows)
    handicap = start_player_compensation(rows, higher_wins=False)
    result = Section("Kintsugi: guessing, colours and matches")
    result.blocks = [
        Heading("Guessing accuracy"),
        (
            "At the end each player guesses the secret colour of the player to their left (the next seat). "
            f"Chance is {pct(CHANCE)}: a guesser knows its own colour, so one of the other three is right. "
            "Accuracy is shown against the placement policy of the player being guessed: a low bar means that "
            "policy hides its colour well."
        ),
        guess_accuracy_chart(guess_accuracy(rows, ["players", "guesser", "target_policy"]), out_dir),
        guess_accuracy_table(accuracy, "Guessing accuracy by guesser and by the placement policy of the target"),
        guesser_table(by_guesser, guess_accuracy(rows, ["players", "guesser"])),
        Heading("Did a correct guess change the winner?"),
        (
            "Winners recomputed from the pieces alone (before any guess is scored) compared with the actual "
            "winners. A difference means the guessing phase decided the game."
        ),
        winner_change_table(changes),
        Heading("Points that would offset the start player's edge"),
        (
            "The start player's win share if that player's final score were raised (positive) or lowered "
            "(negative) by a fixed number of points, all other scores unchanged. The fair share is 1/P."
        ),
        compensation_chart(handicap, out_dir, "kintsugi", "Kintsugi"),
        compensation_table(handicap),
        Heading("Win share by secret colour"),
        colour_table(colour_win_shares(rows)),
    ]
    result.findings = [
        guessing_finding(by_guesser, accuracy, changes),
        compensation_finding(handicap, higher_wins=False),
    ]
    if "match_id" in rows.columns and rows["match_id"].drop_nulls().len():
        matches = match_standings(rows)
        result.blocks += [
            Heading("Matches"),
            (
                "The rulebook recommends a match of as many games as players, each player starting once; the "
                "lowest total score wins and ties share. Only complete matches are counted."
            ),
            match_table(matches),
        ]
        result.findings.append(match_finding(matches))
    result.caveats = [
        (
            f"Guessing chance level ({pct(CHANCE)}) assumes colours are dealt uniformly at random without "
            "replacement and that a guesser rules out its own colour and nothing else; a guesser that did not "
            "even rule out its own colour would be at 25%. Accuracy above chance comes from reading the board."
        ),
    ]
    return result


def with_policy_and_guesser(rows: pl.DataFrame) -> pl.DataFrame:
    """Split "policy+guesser" into two columns (a knob such as "@0.8" stays with its part)."""
    parts = pl.col("strategy").str.split("+")
    return rows.with_columns(policy=parts.list.first(), guesser=parts.list.last())


def with_target_policy(rows: pl.DataFrame) -> pl.DataFrame:
    """Each row joined with the placement policy of the player it guessed: the next seat in the same game."""
    targets = rows.select(*GAME_KEY, pl.col("seat").alias("target_seat"), pl.col("policy").alias("target_policy"))
    return rows.with_columns(target_seat=(pl.col("seat") + 1) % pl.col("players")).join(
        targets, on=[*GAME_KEY, "target_seat"]
    )


def guess_accuracy(rows: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Share of correct guesses per group, with Wilson intervals. `by` may include "target_policy"."""
    if "target_policy" in by:
        rows = with_target_policy(rows)
    accuracy = (
        rows.group_by(by)
        .agg(guesses=pl.len(), correct=pl.col("guess_correct").sum())
        .with_columns(accuracy=pl.col("correct") / pl.col("guesses"))
        .sort(by)
    )
    return with_wilson(accuracy, "correct", "guesses")


def winner_changes(rows: pl.DataFrame) -> pl.DataFrame:
    """Per player count: games whose winner set differs from the winners by pieces alone (Wilson),
    overall and among games with at least one correct guess."""
    games = (
        rows.with_columns(
            pieces_winner=pl.col("pieces") == pl.col("pieces").min().over(GAME_KEY),
            actual_winner=pl.col("win") > 0,
        )
        .group_by(GAME_KEY)
        .agg(
            players=pl.col("players").first(),
            changed=(pl.col("pieces_winner") != pl.col("actual_winner")).any(),
            any_correct=pl.col("guess_correct").any(),
        )
    )
    changes = (
        games.group_by("players")
        .agg(
            games=pl.len(),
            changed=pl.col("changed").sum(),
            with_correct=pl.col("any_correct").sum(),
        )
        .sort("players")
    )
    lo, hi = wilson(changes["changed"].to_numpy(), changes["games"].to_numpy())
    lo_c, hi_c = wilson(changes["changed"].to_numpy(), changes["with_correct"].to_numpy())
    return changes.with_columns(
        rate=pl.col("changed") / pl.col("games"),
        lo=pl.Series(lo),
        hi=pl.Series(hi),
        rate_correct=pl.col("changed") / pl.col("with_correct"),
        lo_correct=pl.Series(lo_c),
        hi_correct=pl.Series(hi_c),
    )


def colour_win_shares(rows: pl.DataFrame) -> pl.DataFrame:
    """Win share by secret colour and player count, with Wilson intervals."""
    shares = (
        rows.group_by("players", "color")
        .agg(games=pl.len(), wins=pl.col("win").sum(), pieces=pl.col("pieces").mean())
        .with_columns(share=pl.col("wins") / pl.col("games"), fair=1 / pl.col("players"))
        .sort("players", "color")
    )
    return with_wilson(shares, "wins", "games")


def match_standings(rows: pl.DataFrame) -> pl.DataFrame:
    """Per player count and strategy: match win share (Wilson) and mean match total (bootstrap)."""
    totals = (
        rows.filter(pl.col("match_id").is_not_null())
        .group_by(*MATCH_KEY, "player")
        .agg(total=pl.col("score").sum(), games=pl.len(), strategy=pl.col("strategy").first())
        .filter(pl.col("games") == pl.col("players"))
        .with_columns(best=pl.col("total") == pl.col("total").min().over(MATCH_KEY))
        .with_columns(win=pl.col("best").cast(pl.Float64) / pl.col("best").sum().over(MATCH_KEY))
    )
    out = []
    for (players, strategy), group in sorted(totals.partition_by("players", "strategy", as_dict=True).items()):
        lo, hi = wilson(group["win"].sum(), group.height)
        total_lo, total_hi = bootstrap_mean_ci(group["total"].to_numpy())
        out.append(
            {
                "players": players,
                "strategy": strategy,
                "matches": group.height,
                "share": group["win"].mean(),
                "lo": lo,
                "hi": hi,
                "fair": 1 / players,
                "total": group["total"].mean(),
                "total_lo": total_lo,
                "total_hi": total_hi,
            }
        )
    return pl.DataFrame(out).sort("players", "share", descending=[False, True])


def guessing_finding(by_guesser: pl.DataFrame, accuracy: pl.DataFrame, changes: pl.DataFrame) -> str:
    """Plain-words answer to 'how accurate is the guessing, and does it decide games?'."""
    guessers = by_guesser.sort("accuracy", descending=True)
    parts = [
        f"{r['guesser']} is right {pct(r['accuracy'])} of the time (95% CI {pct_ci(r['lo'], r['hi'])}, "
        f"{chance_verdict(r['lo'], r['hi'])})"
        for r in guessers.iter_rows(named=True)
    ]
    text = f"Guessing accuracy, against a chance level of {pct(CHANCE)}: " + "; ".join(parts) + "."
    best = guessers["guesser"][0]
    against_best = accuracy.filter(pl.col("guesser") == best).sort("accuracy")
    if against_best.height > 1:
        text += " " + hardest_policy_sentence(best, against_best)
    changed = "; ".join(
        f"{pct(r['rate'])} of games at {r['players']} players (95% CI {pct_ci(r['lo'], r['hi'])})"
        for r in changes.iter_rows(named=True)
    )
    return text + f" A correct guess changed the winner in {changed}."


def hardest_policy_sentence(guesser: str, against: pl.DataFrame) -> str:
    """Which target policy `guesser` reads worst, if it is clearly harder than the easiest one.

    against: that guesser's accuracy per target policy, sorted by accuracy.
    """
    hardest, easiest = against.row(0, named=True), against.row(-1, named=True)
    if hardest["hi"] >= easiest["lo"]:
        return f"No placement policy is clearly harder to read than another for {guesser}."
    return (
        f"The hardest placement policy to read is {hardest['target_policy']}: {guesser} names its colour in "
        f"{pct(hardest['accuracy'])} of guesses (95% CI {pct_ci(hardest['lo'], hardest['hi'])}), against "
        f"{pct(easiest['accuracy'])} for {easiest['target_policy']} (95% CI {pct_ci(easiest['lo'], easiest['hi'])})."
    )


def chance_verdict(lo: float, hi: float) -> str:
    """Where a 95% interval lies relative to the chance level."""
    if lo > CHANCE:
        return "above chance"
    if hi < CHANCE:
        return "below chance"
    return "not distinguishable from chance"


def match_finding(matches: pl.DataFrame) -> str:
    """The strongest strategy over full matches, per player count."""
    parts = [
        f"at {r['players']} players {r['strategy']} wins {pct(r['share'])} of {count(r['matches'])} matches "
        f"(95% CI {pct_ci(r['lo'], r['hi'])}; fair {pct(r['fair'])})"
        for r in matches.group_by("players", maintain_order=True).first().sort("players").iter_rows(named=True)
    ]
    return "Matches (each player starts once, lowest total wins): " + "; ".join(parts) + "."


def guess_accuracy_table(accuracy: pl.DataFrame, caption: str) -> Table:
    """Accuracy per guesser and target policy, next to chance."""
    return Table(
        caption,
        ["Guesser", "Target's policy", "Guesses", "Correct", "95% CI", "vs chance (33.3%)", "Verdict"],
        [
            [
                r["guesser"],
                r["target_policy"],
                count(r["guesses"]),
                pct(r["accuracy"]),
                pct_ci(r["lo"], r["hi"]),
                pp(r["accuracy"] - CHANCE),
                chance_verdict(r["lo"], r["hi"]),
            ]
            for r in accuracy.iter_rows(named=True)
        ],
    )


def guesser_table(by_guesser: pl.DataFrame, per_count: pl.DataFrame) -> Table:
    """Accuracy per guesser, over all games and at each player count."""
    all_counts = by_guesser.with_columns(players=pl.lit("all"))
    combined = pl.concat([all_counts, per_count.with_columns(pl.col("players").cast(pl.String))], how="diagonal")
    return Table(
        "Guessing accuracy by guesser and player count",
        ["Guesser", "Players", "Guesses", "Correct", "95% CI", "vs chance (33.3%)"],
        [
            [
                r["guesser"],
                r["players"],
                count(r["guesses"]),
                pct(r["accuracy"]),
                pct_ci(r["lo"], r["hi"]),
                pp(r["accuracy"] - CHANCE),
            ]
            for r in combined.sort("guesser").iter_rows(named=True)
        ],
    )


def winner_change_table(changes: pl.DataFrame) -> Table:
    """Games decided by the guessing phase, per player count."""
    return Table(
        "Games whose winners differ from the winners by pieces alone",
        [
            "Players",
            "Games",
            "Winner changed",
            "95% CI",
            "Games with a correct guess",
            "Changed among those",
            "95% CI",
        ],
        [
            [
                str(r["players"]),
                count(r["games"]),
                pct(r["rate"]),
                pct_ci(r["lo"], r["hi"]),
                count(r["with_correct"]),
                *(
                    [pct(r["rate_correct"]), pct_ci(r["lo_correct"], r["hi_correct"])]
                    if r["with_correct"]
                    else ["–", "–"]
                ),
            ]
            for r in changes.iter_rows(named=True)
        ],
    )


def colour_table(shares: pl.DataFrame) -> Table:
    """Win share and mean pieces by secret colour."""
    return Table(
        "Win share by secret colour, with the mean number of pieces before guessing",
        ["Players", "Colour", "Games", "Win share", "95% CI", "Fair share", "Mean pieces"],
        [
            [
                str(r["players"]),
                colour_name(r["color"]),
                count(r["games"]),
                pct(r["share"]),
                pct_ci(r["lo"], r["hi"]),
                pct(r["fair"]),
                num(r["pieces"]),
            ]
            for r in shares.iter_rows(named=True)
        ],
    )


def colour_name(colour: int) -> str:
    """0 -> 'blue'; unknown codes stay numbers."""
    return COLOURS[colour] if 0 <= colour < len(COLOURS) else str(colour)


def match_table(matches: pl.DataFrame) -> Table:
    """Match win share and mean total score per strategy and player count."""
    return Table(
        "Match results by strategy (ties share the match win)",
        [
            "Players",
            "Strategy",
            "Matches",
            "Match win share",
            "95% CI",
            "Fair share",
            "Mean total",
            "95% CI (bootstrap)",
        ],
        [
            [
                str(r["players"]),
                r["strategy"],
                count(r["matches"]),
                pct(r["share"]),
                pct_ci(r["lo"], r["hi"]),
                pct(r["fair"]),
                num(r["total"]),
                num_ci(r["total_lo"], r["total_hi"]),
            ]
            for r in matches.iter_rows(named=True)
        ],
    )


def guess_accuracy_chart(accuracy: pl.DataFrame, out_dir: Path) -> Chart:
    """Grouped bars: accuracy of each guesser against each target policy, one panel per player count."""
    player_counts = accuracy["players"].unique().sort().to_list()
    policies = accuracy["target_policy"].unique().sort().to_list()
    guessers = accuracy["guesser"].unique().sort().to_list()
    fig = new_figure(max(4.0, 1.2 * len(policies)) * len(player_counts) + 0.6, 4.6)
    axes = np.atleast_1d(fig.subplots(1, len(player_counts), sharey=True))
    for ax, players in zip(axes, player_counts):
        groups = {}
        for guesser in guessers:
            bars = pl.DataFrame({"target_policy": policies}).join(
                accuracy.filter((pl.col("players") == players) & (pl.col("guesser") == guesser)),
                on="target_policy",
                how="left",
                maintain_order="left",
            )
            groups[guesser] = (bars["accuracy"], bars["lo"], bars["hi"])
        bars_with_ci(ax, policies, groups)
        ax.axhline(CHANCE, color="#555", linestyle="--", linewidth=1.2, label="chance (1/3)")
        ax.set_title(f"{players} players")
        ax.set_xlabel("Placement policy of the player guessed")
        ax.set_ylim(0, 1.05)
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    axes[0].set_ylabel("Correct guesses")
    legend_below(fig, axes[-1])
    fig.suptitle("Kintsugi: guessing accuracy against the target's placement policy (95% Wilson intervals)")
    return save_chart(
        fig,
        out_dir,
        "kintsugi_guess_accuracy.png",
        "Share of correct colour guesses by guesser (bar colour) against the placement policy of the player "
        "guessed, one panel per player count; the dashed line is chance (1/3).",
    )
