"""Restricted play, shared by the games whose pools hold BASE-no-THING strategies (Broken and Beautiful's card types,
Witkacy's action tokens): the strategy BASE that never uses THING, against BASE, in every experiment and player
count where both played (never pooled), paired over the deals both played, with whom each side met."""

from __future__ import annotations

from collections.abc import Iterator

import polars as pl

from reports.analysis import GAME_KEY, GameData, groups, opponent_share, record
from reports.fmt import listing
from reports.stats import paired_difference

RESTRICTED = "-no-"  # "greedy-no-teapot" = greedy that never keeps a teapot


def variants(rows: pl.DataFrame) -> list[tuple[str, str, str]]:
    """(variant, base, what it never uses) for each BASE-no-THING strategy in rows, by name."""
    names = sorted(s for s in rows["strategy"].unique().to_list() if RESTRICTED in s)
    return [(name, *name.split(RESTRICTED, 1)) for name in names]


def pairs(rows: pl.DataFrame) -> Iterator[tuple[dict, pl.DataFrame, str, str, str]]:
    """(key {experiment, players}, its rows, variant, base, thing) wherever a variant and its base both played."""
    found = variants(rows)
    for key, stratum in groups(rows, ["experiment", "players"]):
        present = set(stratum["strategy"].unique().to_list())
        for variant, base, thing in found:
            if variant in present and base in present:
                yield key, stratum, variant, base, thing


def win_difference(stratum: pl.DataFrame, variant: str, base: str) -> dict:
    """The variant's win share minus its base's (stats.paired_difference: paired over clusters, with the unpaired
    Newcombe interval beside it)."""
    return paired_difference(stratum, pl.col("strategy") == variant, pl.col("strategy") == base)


def make_up(stratum: pl.DataFrame, variant: str, base: str) -> dict:
    """How a variant's games and its base's are made up: same_deals (both play exactly the same deals),
    faces_itself (some game seats the variant, or the base, twice); base_met, the share of the variant's opponent
    seats that the base holds, others_met, the share its fellow variants (BASE-no-*) hold, and variants_met, the
    share of the base's that its variants hold; and others: 'variants' where every other strategy of the stratum
    is a restricted variant, 'mixed' where some is not, 'none' where there is none."""
    pair = stratum.filter(pl.col("strategy").is_in([variant, base]))
    deals = [set(pair.filter(pl.col("strategy") == s)["deal"]) for s in (variant, base)]
    others = set(stratum["strategy"].unique()) - {variant, base}
    is_variant = pl.col("strategy").str.starts_with(base + RESTRICTED)
    return {"same_deals": deals[0] == deals[1],
            "faces_itself": bool(pair.group_by(*GAME_KEY, "strategy").len()["len"].max() > 1),
            "base_met": opponent_share(stratum, variant, pl.col("strategy") == base),
            "others_met": opponent_share(stratum, variant, is_variant & (pl.col("strategy") != variant)),
            "variants_met": opponent_share(stratum, base, is_variant),
            "others": "none" if not others else "variants" if all(RESTRICTED in s for s in others) else "mixed"}


def met_records(data: GameData, r: dict, thing: str) -> list[dict]:
    """Whom each side met, as counts (opponent_share): the base among the variant's opponents, the other variants
    among them, and the variants among the base's; r is a row with experiment, players, strategy, base, the
    make_up fields and games_a (the variant's games) and games_b (the base's)."""
    variants_name = f"{r['base']}{RESTRICTED}{thing}"
    met = (("base_met", r["strategy"], r["base"], r["games_a"]),
           ("others_met", r["strategy"], f"other {variants_name}", r["games_a"]),
           ("variants_met", r["base"], variants_name, r["games_b"]))
    return [record(data, r["players"], "opponent_share", r[key], r[key], r[key], games, "count",
                   experiment=r["experiment"], strategy=player, opponent=opponent)
            for key, player, opponent, games in met]


def unmatched(rows: pl.DataFrame) -> list[str]:
    """A sentence for each player count where some variant played without its base."""
    found = variants(rows)
    out = []
    for players, strategies in rows.group_by("players").agg(pl.col("strategy").unique()).sort("players").iter_rows():
        alone = [v for v, base, _ in found if v in strategies and base not in strategies]
        out += [f"No unrestricted base at {players} players for {listing(alone)}."] if alone else []
    return out
