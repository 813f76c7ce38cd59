"""Kintsugi's report: guessing accuracy, guesses that changed the winner, win share by secret colour, and matches;
the overview states how often a guess names the neighbour's colour, against chance.

Kintsugi rows carry `color` (secret colour, an index into the manifest's `colours` fact), `pieces` (score before
guessing), `guess` (colour guessed for the next seat), `guess_correct`, `target_color`, and what the player's guesser
believed (`belief`, `belief_entropy`: reports/kintsugi/belief.py); strategies are named
"policy+guesser", e.g. "camouflage@0.8+bayes". The manifest's `guess_chance` fact is a blind guess's chance.
Every interval is cluster-robust over deals (matches in match mode): the games of one deal share its colours and
tiles, and the guesses of one game its board, so neither is independent."""

import polars as pl

from reports.analysis import GameData
from reports.findings import select
from reports.fmt import count, pct, pct_ci
from reports.kintsugi.belief import BELIEF
from reports.kintsugi.guessing import GUESSING, WINNER_CHANGES, accuracy_records, guess_accuracy
from reports.kintsugi.matches import MATCHES
from reports.spec import GameReport, Measure, Metrics, leader

WIN_SHARE = Measure("share", "Win share", pl.col("win"), metric="colour_win_share", share=True)


def numbers(data: GameData) -> list[dict]:
    """The overview's Kintsugi numbers: how often a guess, any guesser's, names the left neighbour's colour."""
    return accuracy_records(data, guess_accuracy(data.with_facts(data.rows, "guess_chance"), ["players"]))


def key_finding(numbers: list[dict], players: int) -> str | None:
    """The overview's line for Kintsugi: guessing accuracy over every guesser against chance."""
    found = [r for r in select(numbers, metric="guess_accuracy", players=players) if "guesser" not in r]
    if not found:
        return None
    r = found[0]
    return (f"guesses name the neighbour's colour {pct(r['estimate'])} of the time ({pct_ci(r['low'], r['high'])}), "
            f"chance {pct(r['chance'])}")


def with_colour_names(data: GameData) -> pl.DataFrame:
    """The rows with their secret colour's name from the facts (its index where the facts name none)."""
    keys = ["experiment", "players", "color"]
    names = (data.with_facts(data.facts.select("experiment", "players"), "colours")
             .select("experiment", "players", colour="colours", color=pl.int_ranges(pl.col("colours").list.len()))
             .explode("colour", "color").cast({"color": data.rows.schema["color"]}))
    colour = data.rows.select(keys).join(names, on=keys, how="left", maintain_order="left")["colour"]
    return data.rows.with_columns(colour=colour.fill_null(data.rows["color"].cast(pl.String)))


def colour_sentence(shares: pl.DataFrame, data: GameData) -> str:
    """Which secret colour wins most and least often, where its interval clears every other's."""
    most = leader(shares, "share", data.player_counts, "wins the most", by="colour")
    least = leader(shares, "share", data.player_counts, "wins the least", largest=False, by="colour")
    return f"By secret colour, {most}; {least}."


COLOURS = Metrics(
    "Win share by secret colour", (WIN_SHARE, Measure("pieces", "Mean pieces", pl.col("pieces"))), colour_sentence,
    "Win share by secret colour, with the mean number of pieces before guessing", rows=with_colour_names,
    by=("players", "color", "colour"), everyone=False, about={"colour": "colour"},
    lead=(("Players", "players"), ("Colour", "colour"), ("Games", "games", count),
          ("Fair share", lambda r: pct(1 / r["players"]))))

REPORT = GameReport(analyses=(GUESSING, BELIEF, WINNER_CHANGES.analysis(), COLOURS.analysis(), MATCHES),
                    numbers=numbers, key_finding=key_finding, ladder=(BELIEF,))
