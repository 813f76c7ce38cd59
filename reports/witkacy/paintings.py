"""Which paintings get copied: each painting's share of the completed copies, by player count and by strategy,
against an even spread."""

import polars as pl

from reports.analysis import GameData, record
from reports.fmt import listing, pct, pct_ci
from reports.spec import EVERYONE, Measure, Metrics
from reports.witkacy.common import BASIC_ONLY, NO_BASIC, basic_rows, defined, names, ranked_shares

PAINTINGS_DRAWN = ("A", "B", "C", "D", "E")  # the game's paintings, as the manifests name them


def copy_shares(data: GameData) -> tuple[Measure, ...]:
    """Each painting's share of the completed copies (none where a group completed no copy)."""
    copies = pl.col("copies_by_painting")
    return tuple(Measure(p, p, copies.list.get(i).cast(pl.Int64), copies.list.sum(), metric="copy_share", share=True)
                 for i, p in enumerate(names(data, "paintings")))


def off_even(top: dict, bottom: dict) -> str:
    """Whether the most and least copied paintings' intervals exclude an even spread's share (field `fair`)."""
    above, below = top["lo"] > top["fair"], bottom["hi"] < bottom["fair"]
    if above and below:
        return "both intervals exclude the even share"
    if above or below:
        return f"only {(top if above else bottom)['name']}'s interval excludes the even share"
    return "neither interval excludes the even share"


def painting_clause(row: dict, paintings: list[str]) -> str:
    """At one player count: the most and least copied paintings with their intervals, against an even spread."""
    ranked = [{**s, "fair": 1 / len(paintings)} for s in ranked_shares(row, paintings)]
    top, bottom = ranked[0], ranked[-1]
    return (f"at {row['players']} players {top['name']} is copied most ({pct(top['share'])} of the completed "
            f"copies, 95% CI {pct_ci(top['lo'], top['hi'])}) and {bottom['name']} least ({pct(bottom['share'])}, "
            f"{pct_ci(bottom['lo'], bottom['hi'])}): {off_even(top, bottom)}")


def lean(by_strategy: pl.DataFrame, paintings: list[str]) -> str:
    """Where several strategies played: the one strategy's share of one painting whose interval lies highest (its
    lower end the largest), against an even spread."""
    found = [{**s, "strategy": r["strategy"], "players": r["players"]} for r in by_strategy.iter_rows(named=True)
             for s in ranked_shares(r, paintings)]
    if len({s["strategy"] for s in found}) < 2:
        return ""
    top = max(found, key=lambda s: s["lo"])
    side = "above" if top["lo"] > 1 / len(paintings) else "not above"
    return (f" The highest share of one painting in one strategy's copies (by its interval's lower end): "
            f"{top['strategy']}'s {top['name']} at {top['players']} players, {pct(top['share'])} (95% CI "
            f"{pct_ci(top['lo'], top['hi'])}), {side} the even share.")


def painting_sentence(frame: pl.DataFrame, data: GameData) -> str:
    """The most and least copied paintings at each player count against an even spread, and the strategy whose
    copies lean most clearly towards one painting."""
    paintings = names(data, "paintings")
    counts = [r for r in frame.filter(pl.col("strategy") == EVERYONE).iter_rows(named=True)
              if ranked_shares(r, paintings)]
    if not counts:
        return "No player completed a painting."
    return (f"An even spread gives each painting {pct(1 / len(paintings))} of the completed copies; "
            f"{'; '.join(painting_clause(r, paintings) for r in counts)}."
            + lean(frame.filter(pl.col("strategy") != EVERYONE), paintings))


def even_share(frame: pl.DataFrame, data: GameData) -> list[dict]:
    """The even share, 1 / paintings, at each player count."""
    even = 1 / len(names(data, "paintings"))
    return [record(data, r["players"], "even_copy_share", even, even, even, r["games"], "exact")
            for r in frame.filter(pl.col("strategy") == EVERYONE).iter_rows(named=True)]


def painting_intro(_, data: GameData) -> str:
    paintings = names(data, "paintings")
    return ("A completed painting is worth as many points as there are copies of it in all collections together. "
            f"Shares of all completed copies by painting ({listing(paintings)}); an even spread gives each "
            f"{pct(1 / len(paintings))}. The copies of one deal are tied together (the same shuffle under every "
            "seating), so intervals clustered by deal (cluster-robust). " + BASIC_ONLY)


PAINTINGS = Metrics(
    "Which paintings get copied", copy_shares, painting_sentence, rows=basic_rows, overall=True, recorded=defined,
    named="painting", more=even_share,
    caption="Each painting's share of the completed copies by player count and strategy ('all' = every player; 95% "
            "intervals clustered by deal)",
    charted=PAINTINGS_DRAWN, file="paintings", leading_only=True, chart_title="which paintings get copied",
    chart_caption="Each painting's share of the completed copies per player count and strategy ('all' = every "
                  "player), with 95% intervals clustered by deal; an even spread gives each painting the same share.",
    intro=painting_intro, absent=NO_BASIC).analysis()
