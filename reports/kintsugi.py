"""Kintsugi's own analyses: guessing accuracy, guesses that changed the winner, win share by secret colour, and
matches.

Kintsugi rows carry `color` (secret colour, an index into the manifest's `colours` fact), `pieces` (score before
guessing), `guess` (colour guessed for the next seat), `guess_correct` and `target_color`; strategies are named
"policy+guesser", e.g. "camouflage@0.8+bayes". The manifest's `guess_chance` fact is a blind guess's chance.
"""

import polars as pl
from matplotlib.ticker import PercentFormatter

from reports.analysis import GAME_KEY, Analysis, GameData
from reports.charts import aligned, bars_with_ci, finished_chart, panels
from reports.findings import record, select
from reports.fmt import at_counts, count, num, num_ci, pct, pct_ci, pp, spread
from reports.render import Chart, Finding, share_ci, table
from reports.stats import bootstrap_mean_ci, wilson, with_wilson

SECTION = "guessing, colours and matches"
MATCH_KEY = ["experiment", "players", "lineup", "match_id"]


def with_policy_and_guesser(rows: pl.DataFrame) -> pl.DataFrame:
    """Split "policy+guesser" into two columns (a knob such as "@0.8" stays with its part)."""
    parts = pl.col("strategy").str.split("+")
    return rows.with_columns(policy=parts.list.first(), guesser=parts.list.last())


def with_target_policy(rows: pl.DataFrame) -> pl.DataFrame:
    """Each row joined with the placement policy of the player it guessed: the next seat in the same game."""
    targets = rows.select(*GAME_KEY, pl.col("seat").alias("target_seat"), pl.col("policy").alias("target_policy"))
    return rows.with_columns(target_seat=(pl.col("seat") + 1) % pl.col("players")).join(
        targets, on=[*GAME_KEY, "target_seat"])


def guess_accuracy(rows: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Share of correct guesses per group, with Wilson intervals and the mean chance level of its guesses (a
    `guess_chance` column; 1/3 without one). `by` may include "target_policy"."""
    if "target_policy" in by:
        rows = with_target_policy(rows)
    chance = pl.col("guess_chance").mean() if "guess_chance" in rows.columns else pl.lit(1 / 3)
    accuracy = (rows.group_by(by).agg(guesses=pl.len(), correct=pl.col("guess_correct").sum(), chance=chance)
                .with_columns(accuracy=pl.col("correct") / pl.col("guesses")).sort(by))
    return with_wilson(accuracy, "correct", "guesses")


def numbers(data: GameData) -> list[dict]:
    """Kintsugi's own numbers: how often a guess names the left neighbour's colour, against chance."""
    accuracy = guess_accuracy(data.with_facts(data.rows, "guess_chance"), ["players"])
    return [record(data, r["players"], "guess_accuracy", r["accuracy"], r["lo"], r["hi"], r["guesses"] // r["players"],
                   "Wilson interval (guesses taken as independent)", chance=r["chance"])
            for r in accuracy.iter_rows(named=True)]


def key_finding(numbers: list[dict], players: int) -> str | None:
    """The overview's line for Kintsugi: guessing accuracy against chance."""
    found = select(numbers, metric="guess_accuracy", players=players)
    if not found:
        return None
    r = found[0]
    return (f"guesses name the neighbour's colour {pct(r['estimate'])} of the time ({pct_ci(r['low'], r['high'])}), "
            f"chance {pct(r['chance'])}")


def winner_changes(rows: pl.DataFrame) -> pl.DataFrame:
    """Per player count: games whose winner set differs from the winners by pieces alone (Wilson),
    overall and among games with at least one correct guess."""
    games = (rows.with_columns(pieces_winner=pl.col("pieces") == pl.col("pieces").min().over(GAME_KEY),
                               actual_winner=pl.col("win") > 0)
             .group_by(GAME_KEY).agg(players=pl.col("players").first(), any_correct=pl.col("guess_correct").any(),
                                     changed=(pl.col("pieces_winner") != pl.col("actual_winner")).any()))
    changes = (games.group_by("players").agg(games=pl.len(), changed=pl.col("changed").sum(),
                                             with_correct=pl.col("any_correct").sum()).sort("players"))
    lo, hi = wilson(changes["changed"].to_numpy(), changes["games"].to_numpy())
    lo_c, hi_c = wilson(changes["changed"].to_numpy(), changes["with_correct"].to_numpy())
    return changes.with_columns(rate=pl.col("changed") / pl.col("games"), lo=pl.Series(lo), hi=pl.Series(hi),
                                rate_correct=pl.col("changed") / pl.col("with_correct"), lo_correct=pl.Series(lo_c),
                                hi_correct=pl.Series(hi_c))


def chance_verdict(lo: float, hi: float, chance: float) -> str:
    """Where a 95% interval lies relative to the chance level."""
    return "above chance" if lo > chance else "below chance" if hi < chance else "not distinguishable from chance"


def chance_label(data: GameData) -> str:
    """The chance level for headers: one value, or the range over player counts."""
    values = sorted(set(data.facts["guess_chance"].to_list()))
    return pct(values[0]) if len(values) == 1 else f"{pct(values[0])}–{pct(values[-1])}"


def guessing(data: GameData) -> dict:
    rows = with_policy_and_guesser(data.with_facts(data.rows, "guess_chance"))
    return {"rows": rows, "by_target": guess_accuracy(rows, ["guesser", "target_policy"]),
            "by_guesser": guess_accuracy(rows, ["guesser"]), "per_count": guess_accuracy(rows, ["players", "guesser"]),
            "panels": guess_accuracy(rows, ["players", "guesser", "target_policy"]), "changes": winner_changes(rows)}


def guessing_intro(_, data: GameData) -> str:
    return ("At the end each player guesses the secret colour of the player to their left (the next seat). "
            f"Chance is {chance_label(data)}: a guesser knows its own colour and rules it out. Accuracy is shown "
            "against the placement policy of the player being guessed: a low bar means that policy hides its colour "
            "well.")


def guessing_finding(result: dict, data: GameData) -> Finding:
    """How accurate each guesser is against chance, which policy is hardest to read, and whether guesses decide
    games; accuracy and winner changes per player count in the table."""
    guessers = result["by_guesser"].sort("accuracy", descending=True)
    text = (f"Against a chance level of {chance_label(data)}, "
            + "; ".join(f"{r['guesser']} is right {pct(r['accuracy'])} of the time (95% CI "
                        f"{pct_ci(r['lo'], r['hi'])}, {chance_verdict(r['lo'], r['hi'], r['chance'])})"
                        for r in guessers.iter_rows(named=True)) + ".")
    best, changes = guessers["guesser"][0], result["changes"]
    against = result["by_target"].filter(pl.col("guesser") == best).sort("accuracy")
    parts = []
    if against.height > 1:
        hardest, easiest = against.row(0, named=True), against.row(-1, named=True)
        parts.append(f"for {best} no placement policy is clearly harder to read than another"
                     if hardest["hi"] >= easiest["lo"] else
                     f"against {best}, {hardest['target_policy']} hides its colour best ({pct(hardest['accuracy'])} "
                     f"read, against {pct(easiest['accuracy'])} for {easiest['target_policy']})")
    by_count = ", by player count" if changes.height > 1 else ""
    parts.append(f"a correct guess changes the winner in {spread(changes['rate'].to_list())} of games{by_count}")
    sentence = "; ".join(parts)
    text += f" {sentence[0].upper()}{sentence[1:]}."
    per_count = result["per_count"]
    rows = [{"players": r["players"], "rate": r["rate"], "lo": r["lo"], "hi": r["hi"],
             **{g: per_count.filter((pl.col("players") == r["players"]) & (pl.col("guesser") == g)).to_dicts()
                for g in guessers["guesser"]}} for r in changes.iter_rows(named=True)]
    accuracy = [(f"{g} right", lambda r, g=g: f"{pct(r[g][0]['accuracy'])} ({pct_ci(r[g][0]['lo'], r[g][0]['hi'])})"
                 if r[g] else "–") for g in guessers["guesser"]]
    return Finding("Guessing accuracy.", text, table("", rows, ("Players", "players"), *accuracy,
                                                     *share_ci("Winner changed by a guess", "rate")))


def guessing_tables(result: dict, data: GameData) -> list:
    vs = f"vs chance ({chance_label(data)})"
    combined = pl.concat([result["by_guesser"].with_columns(players=pl.lit("all")),
                          result["per_count"].with_columns(pl.col("players").cast(pl.String))], how="diagonal")
    return [
        table("Guessing accuracy by guesser and by the placement policy of the target", result["by_target"],
              ("Guesser", "guesser"), ("Target's policy", "target_policy"), ("Guesses", "guesses", count),
              *share_ci("Correct", "accuracy"), (vs, lambda r: pp(r["accuracy"] - r["chance"])),
              ("Verdict", lambda r: chance_verdict(r["lo"], r["hi"], r["chance"]))),
        table("Guessing accuracy by guesser and player count", combined.sort("guesser"), ("Guesser", "guesser"),
              ("Players", "players"), ("Guesses", "guesses", count), *share_ci("Correct", "accuracy"),
              (vs, lambda r: pp(r["accuracy"] - r["chance"]))),
    ]


def guess_accuracy_chart(result: dict, data: GameData) -> Chart:
    """Grouped bars: accuracy of each guesser against each target policy, one panel per player count."""
    accuracy = result["panels"]
    policies = accuracy["target_policy"].unique().sort().to_list()
    guessers = accuracy["guesser"].unique().sort().to_list()
    counts = data.player_counts
    fig, axes = panels(len(counts), max(4.0, 1.2 * len(policies)) * len(counts) + 0.6, 4.6, sharey=True)
    for ax, players in zip(axes, counts):
        groups = {}
        for guesser in guessers:
            bars = aligned(accuracy.filter((pl.col("players") == players) & (pl.col("guesser") == guesser)),
                           "target_policy", policies)
            groups[guesser] = (bars["accuracy"], bars["lo"], bars["hi"])
        bars_with_ci(ax, policies, groups)
        chance = data.fact("guess_chance", players)
        ax.axhline(chance, color="#555", linestyle="--", linewidth=1.2, label=f"chance ({pct(chance)})")
        ax.set(title=f"{players} players", xlabel="Placement policy of the player guessed")
        ax.set_ylim(0, 1.05)
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    axes[0].set_ylabel("Correct guesses")
    return finished_chart(fig, axes[-1],
                          f"{data.title}: guessing accuracy against the target's placement policy "
                          "(95% Wilson intervals)",
                          data.out_dir, f"{data.slug}_guess_accuracy.png",
                          "Share of correct colour guesses by guesser (bar colour) against the placement policy of "
                          "the player guessed, one panel per player count; the dashed line is chance.")


def winner_change_table(changes: pl.DataFrame, _) -> list:
    """Games decided by the guessing phase, per player count."""
    return [table("Games whose winners differ from the winners by pieces alone", changes, ("Players", "players"),
                  ("Games", "games", count), *share_ci("Winner changed", "rate"),
                  ("Games with a correct guess", "with_correct", count),
                  ("Changed among those", lambda r: pct(r["rate_correct"]) if r["with_correct"] else "–"),
                  ("95% CI", lambda r: pct_ci(r["lo_correct"], r["hi_correct"]) if r["with_correct"] else "–"))]


def colour_win_shares(data: GameData) -> pl.DataFrame:
    """Win share by secret colour and player count, with Wilson intervals and the colour's name from the facts."""
    shares = (data.with_facts(data.rows, "colours")
              .with_columns(colour=pl.col("colours").list.get(pl.col("color").cast(pl.Int64), null_on_oob=True)
                            .fill_null(pl.col("color").cast(pl.String)))
              .group_by("players", "color").agg(games=pl.len(), wins=pl.col("win").sum(),
                                                pieces=pl.col("pieces").mean(), colour=pl.col("colour").first())
              .with_columns(share=pl.col("wins") / pl.col("games"), fair=1 / pl.col("players"))
              .sort("players", "color"))
    return with_wilson(shares, "wins", "games")


def colour_table(shares: pl.DataFrame, _) -> list:
    return [table("Win share by secret colour, with the mean number of pieces before guessing", shares,
                  ("Players", "players"), ("Colour", "colour"), ("Games", "games", count), *share_ci("Win share"),
                  ("Fair share", "fair", pct), ("Mean pieces", "pieces", num))]


def match_standings(data: GameData) -> pl.DataFrame | None:
    """Per player count and strategy: match win share (Wilson) and mean match total (bootstrap); None without
    matches. The lowest (or, for a game where the highest score wins, the highest) total wins; ties share."""
    rows = data.rows
    if "match_id" not in rows.columns or not rows["match_id"].drop_nulls().len():
        return None
    sign = 1 if data.lowest_wins else -1
    totals = (rows.filter(pl.col("match_id").is_not_null()).group_by(*MATCH_KEY, "player")
              .agg(total=pl.col("score").sum(), games=pl.len(), strategy=pl.col("strategy").first())
              .filter(pl.col("games") == pl.col("players"))
              .with_columns(best=sign * pl.col("total") == (sign * pl.col("total")).min().over(MATCH_KEY))
              .with_columns(win=pl.col("best").cast(pl.Float64) / pl.col("best").sum().over(MATCH_KEY)))
    out = []
    for (players, strategy), group in sorted(totals.partition_by("players", "strategy", as_dict=True).items()):
        lo, hi = wilson(group["win"].sum(), group.height)
        total_lo, total_hi = bootstrap_mean_ci(group["total"].to_numpy())
        out.append({"players": players, "strategy": strategy, "matches": group.height, "share": group["win"].mean(),
                    "lo": lo, "hi": hi, "fair": 1 / players, "total": group["total"].mean(), "total_lo": total_lo,
                    "total_hi": total_hi})
    return pl.DataFrame(out).sort("players", "share", descending=[False, True])


def match_finding(matches: pl.DataFrame, data: GameData) -> Finding:
    """The strongest strategy over full matches, per player count."""
    best = matches.group_by("players", maintain_order=True).first().sort("players")
    names = best["strategy"].unique(maintain_order=True).to_list()
    who = (f"{names[0]} wins the most matches at {at_counts(best['players'].to_list(), data.player_counts)}"
           if len(names) == 1 else "the strongest strategy depends on the player count")
    above = best.filter(pl.col("lo") > pl.col("fair"))["players"].to_list()
    verdict = (f"the leader's share is clearly above fair at {at_counts(above, data.player_counts)}" if above else
               "no leader's share is clearly above fair")
    text = (f"Over full matches (each player starts once, the {'lowest' if data.lowest_wins else 'highest'} total "
            f"wins) {who}; {verdict}.")
    return Finding("Matches.", text, table("", best, ("Players", "players"), ("Strongest", "strategy"),
                                           ("Matches", "matches", count), *share_ci("Match win share"),
                                           ("Fair share", "fair", pct)))


def match_table(matches: pl.DataFrame, _) -> list:
    return [table("Match results by strategy (ties share the match win)", matches, ("Players", "players"),
                  ("Strategy", "strategy"), ("Matches", "matches", count), *share_ci("Match win share"),
                  ("Fair share", "fair", pct), ("Mean total", "total", num),
                  ("95% CI (bootstrap)", ("total_lo", "total_hi"), num_ci))]


def chance_caveat(_, data: GameData) -> list[str]:
    return [f"Guessing chance level ({chance_label(data)}) assumes colours are dealt uniformly at random without "
            "replacement and that a guesser rules out its own colour and nothing else; a guesser that did not even "
            f"rule out its own colour would be at {pct(1 / len(data.fact('colours', data.player_counts[0])))}. "
            "Accuracy above chance comes from reading the board."]


ANALYSES = [
    Analysis("Guessing accuracy", guessing, intro=guessing_intro, chart=guess_accuracy_chart,
             tables=guessing_tables, finding=guessing_finding, caveats=chance_caveat),
    Analysis("Did a correct guess change the winner?", lambda data: winner_changes(data.rows),
             tables=winner_change_table,
             intro="Winners recomputed from the pieces alone (before any guess is scored) compared with the actual "
                   "winners. A difference means the guessing phase decided the game."),
    Analysis("Win share by secret colour", colour_win_shares, tables=colour_table),
    Analysis("Matches", match_standings, tables=match_table, finding=match_finding,
             intro="The rulebook recommends a match of as many games as players, each player starting once; the "
                   "lowest total score wins and ties share. Only complete matches are counted."),
]
