"""Kintsugi's guessing phase: how often a guess names the next seat's secret colour, against chance and by the
placement policy of the player guessed, and how often the guessing phase changes the winner.

Rows carry `pieces` (score before guessing), `guess_correct` and the `guess_chance` fact (a blind guess's chance);
strategies are named "policy+guesser", e.g. "camouflage@0.8+bayes". Every interval is cluster-robust over deals
(matches in match mode; spec.measured): the guesses of one game share its board, so they are not independent."""

import polars as pl
from matplotlib.ticker import PercentFormatter

from reports.analysis import GAME_KEY, Analysis, GameData, groups, seat_rows, sorted_names, with_names
from reports.charts import aligned, bars_with_ci, finished_chart, panels
from reports.fmt import at_counts, by_phrase, count, pct, pct_ci, pp, spread
from reports.render import Chart, Finding, table
from reports.spec import Measure, Metrics, measure_records, measured, per_game, versus
from reports.stats import cluster_unit

ACCURACY = Measure("accuracy", "Correct", pl.col("guess_correct"), metric="guess_accuracy", share=True)
CHANGED = Measure("rate", "Winner changed", pl.col("changed"), metric="winner_changed_share", share=True)
CHANGED_AMONG = Measure("rate_correct", "Changed among those", pl.col("changed"), pl.col("any_correct"), share=True)


def with_policy_and_guesser(rows: pl.DataFrame) -> pl.DataFrame:
    """Split "policy+guesser" into two columns (a knob such as "@0.8" stays with its part), each the code of its
    name (a polars Enum of the names in sorted order: 4 bytes a row, and the split made once per strategy)."""
    coded = sorted_names(rows["strategy"])
    names = coded.categories.to_list()
    split = [name.split("+") for name in names]
    strategy = pl.col("strategy").cast(coded)
    return rows.with_columns(**{column: strategy.replace_strict(names, [parts[k] for parts in split],
                                                                return_dtype=pl.Enum(sorted({p[k] for p in split})))
                                for column, k in (("policy", 0), ("guesser", -1))})


def with_target_policy(rows: pl.DataFrame) -> pl.DataFrame:
    """Each row with the placement policy of the player it guessed: the next seat in the same game. Where each
    game's seats lie one after another in order (as results load), it is read a few rows on; else joined."""
    rows = rows.with_columns(target_seat=(pl.col("seat") + 1) % pl.col("players"))
    index = seat_rows(rows, rows["target_seat"].cast(pl.Int64).to_numpy())
    if index is not None:
        return rows.with_columns(target_policy=rows["policy"].gather(index))
    targets = rows.select(*GAME_KEY, pl.col("seat").alias("target_seat"), pl.col("policy").alias("target_policy"))
    return rows.join(targets, on=[*GAME_KEY, "target_seat"])


def guess_accuracy(rows: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """ACCURACY per group (accuracy, accuracy_lo, accuracy_hi), with the games it rests on, its guesses, the
    correct ones and the mean chance level of its guesses (a `guess_chance` column; 1/3 without one). `by` may
    include "target_policy"."""
    if "target_policy" in by and "target_policy" not in rows.columns:
        rows = with_target_policy(rows)
    chance = pl.col("guess_chance").mean() if "guess_chance" in rows.columns else pl.lit(1 / 3)
    counts = rows.group_by(by).agg(correct=pl.col("guess_correct").sum(), chance=chance)
    accuracy = measured(rows, [ACCURACY], by, everyone=False).rename({"n": "guesses"})
    return with_names(accuracy.join(counts, on=by, nulls_equal=True)).sort(by)


def accuracy_records(data: GameData, accuracy: pl.DataFrame, *about: str) -> list[dict]:
    """A guess_accuracy record per row of a guess_accuracy frame with a players column, naming the columns
    `about` (guesser, target_policy) it is about; `games` counts the games whose guesses it rests on."""
    return measure_records(data, accuracy, [ACCURACY], **{k: k for k in (*about, "chance", "guesses")})


def chance_label(data: GameData) -> str:
    """The chance level for headers: one value, or the range over player counts."""
    values = sorted(set(data.facts["guess_chance"].to_list()))
    return pct(values[0]) if len(values) == 1 else f"{pct(values[0])}–{pct(values[-1])}"


def versus_chance(r: dict) -> str:
    return versus(r["accuracy_lo"], r["accuracy_hi"], r["chance"])


def changed_games(data: GameData) -> pl.DataFrame:
    """One row per game: whether its winner set differs from the winners by pieces alone (`changed`), and whether
    any of its guesses was correct (`any_correct`)."""
    rows = data.rows.lazy().with_columns(pieces_winner=pl.col("pieces") == pl.col("pieces").min().over(GAME_KEY))
    return per_game(rows, any_correct=pl.col("guess_correct").any(),
                    changed=(pl.col("pieces_winner") != (pl.col("win") > 0)).any())


def guessing(data: GameData) -> dict:
    rows = with_target_policy(with_policy_and_guesser(data.with_facts(data.rows, "guess_chance")))
    return {"by_target": guess_accuracy(rows, ["guesser", "target_policy"]),
            "by_guesser": guess_accuracy(rows, ["guesser"]), "per_count": guess_accuracy(rows, ["players", "guesser"]),
            "panels": guess_accuracy(rows, ["players", "guesser", "target_policy"])}


def guessing_intro(_, data: GameData) -> str:
    return ("At the end each player guesses the secret colour of the player to their left (the next seat). "
            f"Chance is {chance_label(data)}: a guesser knows its own colour and rules it out. Accuracy is shown "
            "against the placement policy of the player being guessed: a low bar means the guesser names that policy's "
            "colour less often.")


def guesser_phrase(accuracy: pl.DataFrame) -> str:
    """One guesser's accuracy against chance: with its interval at one player count, as a range over several."""
    guesser = accuracy["guesser"][0]
    if accuracy.height == 1:
        r = accuracy.row(0, named=True)
        return (f"{guesser} is right {pct(r['accuracy'])} of the time (95% CI "
                f"{pct_ci(r['accuracy_lo'], r['accuracy_hi'])}, {versus_chance(r)})")
    verdicts = {r["players"]: versus_chance(r) for r in accuracy.iter_rows(named=True)}
    return f"{guesser} is right {spread(accuracy['accuracy'])} of the time, by player count ({by_phrase(verdicts, ())})"


def reading_extremes(panels: pl.DataFrame) -> list[tuple[dict, dict]]:
    """Per player count, the placement policies one guesser reads least and most often; none where it meets one."""
    out = []
    for _, group in groups(panels, ["players"]):
        ranked = group.sort("accuracy")
        if ranked.height > 1:
            out.append((ranked.row(0, named=True), ranked.row(-1, named=True)))
    return out


def reading_sentence(extremes: list[tuple[dict, dict]]) -> str:
    """Whether a guesser reads one placement policy's colour clearly more often than another's, from the policies
    it reads least and most often at each player count."""
    guesser = extremes[0][0]["guesser"]
    clear_at = [low["players"] for low, high in extremes if low["accuracy_hi"] < high["accuracy_lo"]]
    if not clear_at:
        return f"No placement policy's colour is read clearly more often than another's by {guesser}."
    if len({(low["target_policy"], high["target_policy"]) for low, high in extremes}) > 1:
        return f"Which placement policy {guesser} reads least and most often depends on the player count."
    low, high = extremes[0]
    lows, highs = [lo["accuracy"] for lo, _ in extremes], [hi["accuracy"] for _, hi in extremes]
    several = len(extremes) > 1
    apart = ("intervals apart" + (" at every player count" if several else "") if len(clear_at) == len(extremes)
             else f"intervals apart at {at_counts(clear_at)} only")
    return (f"Of the placement policies, {guesser} reads {high['target_policy']}'s colour most often and "
            f"{low['target_policy']}'s least often ({spread(highs)} against {spread(lows)}"
            f"{', by player count' if several else ''}; {apart}).")


def guessing_finding(result: dict, data: GameData) -> Finding:
    """How accurate each guesser is against chance at each player count, and which placement policy the most
    accurate guesser reads most and least often; accuracy per player count in the table."""
    per_count = result["per_count"]
    order = per_count.group_by("guesser").agg(pl.col("accuracy").mean()).sort("accuracy", "guesser",
                                                                                descending=[True, False])["guesser"]
    text = (f"Against a chance level of {chance_label(data)}, "
            + "; ".join(guesser_phrase(per_count.filter(pl.col("guesser") == g)) for g in order) + ".")
    extremes = reading_extremes(result["panels"].filter(pl.col("guesser") == order[0]))
    if extremes:
        text += " " + reading_sentence(extremes)
    rows = [{"players": p, **{g: per_count.filter((pl.col("players") == p) & (pl.col("guesser") == g)).to_dicts()
                              for g in order}} for p in per_count["players"].unique().sort()]
    accuracy = [(f"{g} right", lambda r, g=g: f"{pct(r[g][0]['accuracy'])} "
                 f"({pct_ci(r[g][0]['accuracy_lo'], r[g][0]['accuracy_hi'])})" if r[g] else "–") for g in order]
    read = pl.DataFrame([r for pair in extremes for r in pair]) if extremes else per_count.clear()
    numbers = accuracy_records(data, per_count, "guesser") + accuracy_records(data, read, "guesser", "target_policy")
    return Finding("Guessing accuracy.", text, table("", rows, ("Players", "players"), *accuracy), tuple(numbers))


def guessing_tables(result: dict, data: GameData) -> list:
    vs = f"vs chance ({chance_label(data)})"
    combined = pl.concat([result["by_guesser"].with_columns(players=pl.lit("all")),
                          result["per_count"].with_columns(pl.col("players").cast(pl.String))], how="diagonal")
    return [
        table("Guessing accuracy by guesser and by the placement policy of the target", result["by_target"],
              ("Guesser", "guesser"), ("Target's policy", "target_policy"), ("Guesses", "guesses", count),
              *ACCURACY.columns(), (vs, lambda r: pp(r["accuracy"] - r["chance"])), ("Verdict", versus_chance)),
        table("Guessing accuracy by guesser and player count", combined.sort("guesser"), ("Guesser", "guesser"),
              ("Players", "players"), ("Guesses", "guesses", count), *ACCURACY.columns(),
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
        bars = {}
        for guesser in guessers:
            bar = aligned(accuracy.filter((pl.col("players") == players) & (pl.col("guesser") == guesser)),
                          "target_policy", policies)
            bars[guesser] = (bar["accuracy"], bar["accuracy_lo"], bar["accuracy_hi"])
        bars_with_ci(ax, policies, bars)
        chance = data.fact("guess_chance", players)
        ax.axhline(chance, color="#555", linestyle="--", linewidth=1.2, label=f"chance ({pct(chance)})")
        ax.set(title=f"{players} players", xlabel="Placement policy of the player guessed")
        ax.set_ylim(0, 1.05)
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    axes[0].set_ylabel("Correct guesses")
    return finished_chart(fig, axes[-1],
                          f"{data.title}: guessing accuracy against the target's placement policy "
                          f"(95% intervals clustered by {cluster_unit(data.rows)})",
                          data.out_dir, f"{data.slug}_guess_accuracy.png",
                          "Share of correct colour guesses by guesser (bar colour) against the placement policy of "
                          "the player guessed, one panel per player count; the dashed line is chance.")


def chance_caveat(_, data: GameData) -> list[str]:
    return [f"Guessing chance level ({chance_label(data)}) assumes colours are dealt uniformly at random without "
            "replacement and that a guesser rules out its own colour and nothing else; a guesser that did not even "
            f"rule out its own colour would be at {pct(1 / len(data.fact('colours', data.player_counts[0])))}. "
            "Accuracy above chance comes from reading the board."]


GUESSING = Analysis("Guessing accuracy", guessing, intro=guessing_intro, chart=guess_accuracy_chart,
                    tables=guessing_tables, finding=guessing_finding, caveats=chance_caveat, leading_only=True)


def winner_change_sentence(changes: pl.DataFrame, _) -> str:
    by_count = ", by player count" if changes.height > 1 else ""
    return f"A correct guess changes the winner in {spread(changes['rate'].to_list())} of games{by_count}."


WINNER_CHANGES = Metrics(
    "Did a correct guess change the winner?", (CHANGED, CHANGED_AMONG), winner_change_sentence,
    "Games whose winners differ from the winners by pieces alone", label="Winner changes.", rows=changed_games,
    by=("players",), everyone=False, about={"changed": "changed"},
    lead=(("Players", "players"), ("Games", "games", count), ("Games with a correct guess", "with_correct", count)),
    extra={"changed": pl.col("changed").sum(), "with_correct": pl.col("any_correct").sum()},
    intro="Winners recomputed from the pieces alone (before any guess is scored) compared with the actual winners. A "
          "difference means the guessing phase decided the game.")
