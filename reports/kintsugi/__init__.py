"""Kintsugi's report: guessing accuracy, guesses that changed the winner, win share by secret colour, and matches;
the overview states how often a guess names the neighbour's colour, against chance.

Kintsugi rows carry `color` (secret colour, an index into the manifest's `colours` fact), `pieces` (score before
guessing), `guess` (colour guessed for the next seat), `guess_correct` and `target_color`; strategies are named
"policy+guesser", e.g. "camouflage@0.8+bayes". The manifest's `guess_chance` fact is a blind guess's chance.
Every interval is cluster-robust over deals (matches in match mode): the games of one deal share its colours and
tiles, and the guesses of one game its board, so neither is independent."""

import polars as pl

from reports.analysis import Analysis, GameData
from reports.findings import select
from reports.fmt import count, num, pct, pct_ci
from reports.kintsugi.guessing import GUESSING, WINNER_CHANGES, accuracy_records, guess_accuracy
from reports.kintsugi.matches import MATCHES
from reports.render import table
from reports.spec import GameReport, Measure, measured

WIN_SHARE = Measure("share", "Win share", pl.col("win"), share=True)


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


def colour_win_shares(data: GameData) -> pl.DataFrame:
    """WIN_SHARE by secret colour and player count, with the games the colour was held in, the mean pieces before
    guessing and the colour's name from the facts."""
    rows = (data.with_facts(data.rows, "colours")
            .with_columns(colour=pl.col("colours").list.get(pl.col("color").cast(pl.Int64), null_on_oob=True)
                          .fill_null(pl.col("color").cast(pl.String))))
    shares = measured(rows, [WIN_SHARE], ["players", "color"], everyone=False)
    about = rows.group_by("players", "color").agg(pieces=pl.col("pieces").mean(), colour=pl.col("colour").first())
    return shares.join(about, on=["players", "color"]).with_columns(fair=1 / pl.col("players")).sort("players",
                                                                                                   "color")


COLOURS = Analysis("Win share by secret colour", colour_win_shares, tables=lambda shares, _: [table(
    "Win share by secret colour, with the mean number of pieces before guessing", shares, ("Players", "players"),
    ("Colour", "colour"), ("Games", "games", count), *WIN_SHARE.columns(), ("Fair share", "fair", pct),
    ("Mean pieces", "pieces", num))])

REPORT = GameReport(analyses=(GUESSING, WINNER_CHANGES, COLOURS, MATCHES), numbers=numbers, key_finding=key_finding)
