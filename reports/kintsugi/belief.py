"""What a Kintsugi guesser believes, and how fast a colour leaks. Each player writes its guesser's belief over the
left neighbour's colour (`belief`, four probabilities, at the guess) and the belief's entropy in bits after each of
the neighbour's placements (`belief_entropy`). The Brier score of the belief against the neighbour's true colour
(the sum over colours of (p − truth)², 0 for certainty on the right colour, 2 on a wrong one) stands beside
chance's, every colour but one's own alike (2/3); the entropy falls from log2 3 = 1.58 bits as the neighbour's
placements give its colour away. Both by guesser and by the placement policy of the player guessed, a search's
included (a search's guesses are its rollout policy's guesser's). A tracker holds no probabilities: its belief is
where its guess falls, all on one colour (shared among ties), so its Brier score is 2 × its misses."""

import math

import numpy as np
import polars as pl

from reports.analysis import Analysis, GameData, with_names
from reports.charts import finished_chart, palette, panels
from reports.fmt import count, listing, num, num_ci
from reports.kintsugi.guessing import with_policy_and_guesser, with_target_policy
from reports.render import Chart, Finding, table
from reports.spec import Measure, measure_records, measured
from reports.stats import cluster_columns

COLOURS = 4
CHANCE_BRIER = 2 / 3  # (1 - 1/3)² + 2 (1/3)²: every colour but one's own alike
START_BITS = math.log2(COLOURS - 1)
BRIER = Measure("brier", "Brier score", pl.col("brier"), metric="belief_brier")
ENTROPY = Measure("entropy", "Entropy (bits)", pl.col("entropy"), metric="belief_entropy")


def with_brier(rows: pl.DataFrame) -> pl.DataFrame:
    """rows with `brier`: the Brier score of the row's belief at the guess against its neighbour's true colour."""
    belief = pl.col("belief").list
    squares = [(belief.get(k).cast(pl.Float64) - (pl.col("target_color") == k)) ** 2 for k in range(COLOURS)]
    return rows.with_columns(brier=pl.sum_horizontal(squares))


def belief_scores(data: GameData) -> dict | None:
    """Per player count, guesser and placement policy guessed: the mean Brier score and the mean entropy after each
    of the neighbour's placements (turn 1 the first), with cluster-robust intervals; None for results that
    predate the belief columns."""
    if "belief" not in data.rows.columns or data.rows["belief"].null_count():
        return None
    rows = with_target_policy(with_policy_and_guesser(with_brier(data.rows)))
    by = ["players", "guesser", "target_policy"]
    return {"brier": with_names(measured(rows, [BRIER], by, everyone=False)),
            "guessers": with_names(measured(rows, [BRIER], ["players", "guesser"], everyone=False)),
            "entropy": entropy_by_turn(rows, by)}


def entropy_by_turn(rows: pl.DataFrame, by: list[str]) -> pl.DataFrame | None:
    """ENTROPY per group of `by` and turn: each turn's entropies (the t-th of every row's list, where its neighbour
    placed t times) summed a turn at a time (each turn's groups are its own); None where no
    neighbour placed. The guesser and the policy guessed come as codes (with_policy_and_guesser)."""
    kept = [*dict.fromkeys([*by, *cluster_columns(rows), "game_id"])]
    entropy = pl.col("belief_entropy").list.get(pl.col("turn") - 1, null_on_oob=True)
    turns = int(rows["belief_entropy"].list.len().max() or 0)
    found = [measured(rows.lazy().select(*kept, "belief_entropy").with_columns(turn=pl.lit(turn, pl.Int64))
                      .select(*kept, "turn", entropy=entropy)
                      .filter(pl.col("entropy").is_not_null() & pl.col("entropy").is_not_nan()),  # a seat whose
                      [ENTROPY], [*by, "turn"], everyone=False)  # neighbour placed less often than another's
             for turn in range(1, turns + 1)]
    found = [frame for frame in found if frame.height]
    return with_names(pl.concat(found)).sort([*by, "turn"]) if found else None


def last_entropy(result: dict) -> pl.DataFrame | None:
    """Per player count, guesser and policy guessed: the entropy after the neighbour's last placement."""
    entropy = result["entropy"]
    if entropy is None:
        return None
    last = pl.col("turn") == pl.col("turn").max().over("players", "guesser", "target_policy")
    return entropy.filter(last)


def belief_finding(result: dict, data: GameData) -> Finding:
    """Per player count: each guesser's Brier score against chance's, and how much of the colour has leaked by the
    neighbour's last placement, the policy guessed that hides it best and worst."""
    guessers, last, sentences = result["guessers"], last_entropy(result), []
    for (players,), mine in sorted(guessers.partition_by("players", as_dict=True).items()):
        scores = listing(f"{r['guesser']} {num(r['brier'])} ({num_ci(r['brier_lo'], r['brier_hi'])})"
                         for r in mine.sort("brier").iter_rows(named=True))
        text = (f"At {players} players the guessers' beliefs score a Brier of {scores} (lower is better; chance "
                f"{num(CHANCE_BRIER)}, certainty on the right colour 0)")
        leak = None if last is None else last.filter(pl.col("players") == players)
        if leak is not None and leak.height:
            best = mine.sort("brier").row(0, named=True)["guesser"]
            theirs = leak.filter(pl.col("guesser") == best).sort("entropy")
            most, least = theirs.row(-1, named=True), theirs.row(0, named=True)
            text += (f"; after the neighbour's last placement {best}'s belief still holds {num(most['entropy'])} "
                     f"bits of uncertainty (of the {num(START_BITS)} it starts with) against "
                     f"{most['target_policy']}" + ("" if theirs.height == 1 else
                                                  f", the most, and {num(least['entropy'])} against "
                                                  f"{least['target_policy']}, the least"))
        sentences.append(text + ".")
    with_constants = pl.lit(CHANCE_BRIER).alias("chance"), pl.lit(START_BITS).alias("start_bits")
    numbers = measure_records(data, result["brier"].with_columns(*with_constants), [BRIER], guesser="guesser",
                              target_policy="target_policy", guesses="n", chance="chance")
    numbers += measure_records(data, guessers.with_columns(*with_constants), [BRIER], guesser="guesser", guesses="n",
                               chance="chance")
    if last is not None:
        numbers += measure_records(data, last.with_columns(*with_constants), [ENTROPY], guesser="guesser",
                                   target_policy="target_policy", turn="turn", start_bits="start_bits")
    return Finding("Beliefs, and how fast a colour leaks.", " ".join(sentences),
                   table("", guessers, ("Players", "players"), ("Guesser", "guesser"), ("Guesses", "n", count),
                         *BRIER.columns()), tuple(numbers))


def belief_tables(result: dict, _) -> list:
    out = [table("Brier score of the belief at the guess, by guesser and the policy guessed (chance: 0.67)",
                 result["brier"], ("Players", "players"), ("Guesser", "guesser"), ("Policy guessed", "target_policy"),
                 ("Guesses", "n", count), *BRIER.columns())]
    if result["entropy"] is not None:
        out.append(table("The belief's entropy after each of the neighbour's placements (bits; 1.58 at the start)",
                         result["entropy"], ("Players", "players"), ("Guesser", "guesser"),
                         ("Policy guessed", "target_policy"), ("After placement", "turn"), *ENTROPY.columns()))
    return out


def entropy_chart(result: dict, data: GameData) -> Chart | None:
    """The belief's entropy after each of the neighbour's placements, a panel per guesser (at the player count with
    the most guesses), a line per policy guessed, with 95% intervals."""
    entropy = result["entropy"]
    if entropy is None:
        return None
    players = entropy.group_by("players").agg(n=pl.col("n").sum()).sort("n", "players").row(-1)[0]
    mine = entropy.filter(pl.col("players") == players)
    guessers = sorted(mine["guesser"].unique())
    targets = sorted(mine["target_policy"].unique())
    fig, axes = panels(len(guessers), min(2.6 * len(guessers) + 1, 7.3), 3.6, sharey=True)
    for ax, guesser in zip(axes, guessers):
        for colour, target in zip(palette(len(targets)), targets):
            line = mine.filter((pl.col("guesser") == guesser) & (pl.col("target_policy") == target)).sort("turn")
            if line.is_empty():
                continue
            error = np.nan_to_num([line["entropy"] - line["entropy_lo"], line["entropy_hi"] - line["entropy"]])
            ax.errorbar(line["turn"], line["entropy"], yerr=error, color=colour, marker="o", markersize=3,
                        capsize=2, label=target)
        ax.axhline(START_BITS, color="#333", linewidth=1, linestyle=":")
        ax.set_title(guesser)
    axes[0].set(ylabel="entropy of the belief (bits)", xlabel="neighbour's placements seen")
    return finished_chart(fig, axes[0], f"{data.title}: how fast a colour leaks ({players} players)", data.out_dir,
                          f"{data.slug}_belief_entropy.png",
                          "The entropy of each guesser's belief over its left neighbour's colour after each of the "
                          "neighbour's placements, by the neighbour's placement policy (lines), with 95% "
                          "cluster-robust intervals; the dotted line is where every belief starts, 1.58 bits (three "
                          "colours alike). Lower is more certain; a tracker's belief is where its guess falls.")


BELIEF = Analysis("Beliefs, and how fast a colour leaks", belief_scores,
                  intro="Each guesser's belief over its left neighbour's colour: its Brier score at the guess (the "
                        "sum over colours of (p − truth)², 0 for certainty on the right colour, 2 for certainty on a "
                        "wrong one, 0.67 for chance) and its entropy after each of the neighbour's placements.",
                  chart=entropy_chart, tables=belief_tables, finding=belief_finding, leading_only=True)
