"""Boards placed and white tiles used, against what each player has: by player count, and which strategy places
the most boards and uses the fewest white tiles."""

import polars as pl

from reports.analysis import GameData
from reports.fmt import count, listing, spread
from reports.spec import EVERYONE, Measure, Metrics, leader, leaders

BOARDS_PLACED, WHITES_USED = pl.col("boards_placed"), pl.col("whites_used")
LEADS = (("boards", True, "places the most boards", "boards"),
         ("whites", False, "uses the fewest white tiles", "white tiles"))  # measure, largest, what, noun


def with_allotment(data: GameData) -> pl.DataFrame:
    """The rows with each player's boards and white tiles (the manifest's facts)."""
    return data.with_facts(data.rows, "boards_each", "whites_each")


def sole_leader(usage: pl.DataFrame, name: str, largest: bool) -> str | None:
    """The strategy that clearly leads on NAME at every player count, if one does."""
    names = set(leaders(usage, name, largest).values())
    return names.pop() if len(names) == 1 and None not in names else None


def several_strategies(usage: pl.DataFrame) -> bool:
    return usage.filter(pl.col("strategy") != EVERYONE)["strategy"].n_unique() > 1


def usage_sentence(usage: pl.DataFrame, data: GameData) -> str:
    """Boards and white tiles used, as a share of what each player has; which strategy clearly places the most
    boards and uses the fewest white tiles, with the share of its own the leader uses where one leads at every
    player count."""
    overall = usage.filter(pl.col("strategy") == EVERYONE)
    text = (f"Players place {spread(overall['boards_used'])} of their boards and {spread(overall['whites_used'])} of "
            "their white tiles, by player count.")
    if not several_strategies(usage):
        return text
    phrases = []
    for name, largest, what, noun in LEADS:
        phrase, sole = leader(usage, name, data.player_counts, what, largest), sole_leader(usage, name, largest)
        if sole:
            phrase += f" ({spread(usage.filter(pl.col('strategy') == sole)[f'{name}_used'])} of its {noun})"
        phrases.append(phrase)
    return text + f" By strategy, each over the games it played: {phrases[0]}; {phrases[1]}."


def recorded_groups(usage: pl.DataFrame, *_) -> pl.DataFrame:
    """Every player together, and the strategies the sentence names as leading at every player count."""
    named = [sole_leader(usage, name, largest) for name, largest, *_ in LEADS] if several_strategies(usage) else []
    return usage.filter((pl.col("strategy") == EVERYONE) | pl.col("strategy").is_in([n for n in named if n]))


def usage_intro(usage: pl.DataFrame, _) -> str:
    each = usage.group_by("players").agg(pl.col("boards_each", "whites_each").first()).sort("players")
    return ("Each player has " + listing(f"{r['boards_each']} boards and {r['whites_each']} white tiles at "
                                         f"{r['players']} players" for r in each.iter_rows(named=True))
            + "; a board must be placed when every hole is full at the start of the player's turn. Means per player "
              "with 95% intervals clustered by deal; 'own tiles placed' counts the player's coloured tiles "
              "(one per turn).")


USAGE = Metrics(
    "Boards placed and white tiles used", (
        Measure("boards", "Boards placed", BOARDS_PLACED, metric="boards_placed"),
        Measure("whites", "White tiles used", WHITES_USED, metric="white_tiles_used"),
        Measure("turns", "Own tiles placed", pl.col("turns")),
        Measure("boards_used", "Of their boards", BOARDS_PLACED, pl.col("boards_each"), share=True),
        Measure("whites_used", "Of their white tiles", WHITES_USED, pl.col("whites_each"), share=True)),
    usage_sentence, label="Boards and white tiles.", rows=with_allotment, overall=True, stated=("boards", "whites"),
    by=("players", "strategy", "boards_each", "whites_each"),  # the allotments: one per player count
    recorded=recorded_groups,
    about_measure=lambda m: {f"{m.name}_each": f"{m.name}_each", "share_used": f"{m.name}_used"},
    caption="Boards placed, white tiles used and own tiles placed per player ('all' = every player; 95% intervals "
            "clustered by deal)",
    shown=("boards", "whites", "turns"),
    lead=(("Players", "players"), ("Strategy", "strategy"), ("Player results", "n", count),
          ("Boards each", "boards_each")),
    charted=("boards_used", "whites_used"), file="boards_whites", leading_only=True,
    chart_title="boards placed and white tiles used, of each player's own (95% intervals clustered by deal)",
    chart_caption="The share of their boards that players place and of their white tiles that they use, by strategy "
                  "and player count. 'all' is every player.",
    intro=usage_intro)
