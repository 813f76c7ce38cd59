"""Broken and Beautiful: the components, the Pottery Scores table, the rulebook's scoring example, the tie-breakers,
scripted rounds through both engines, traces and the strategies.

Expected values are worked out by hand from the rulebook (../shared/rules/broken_and_beautiful.txt) and the
documented default components (DESIGN.md, components.toml), never copied from the code. Collections are written
as specs 'type[/pattern][:state]', state i(ntact, the default), b(roken) or r(epaired); each spec takes the next
unused card of that type (and pattern) from the catalog. Every score is computed by reference.points_by_type and
by engine.standing (rules.tally + rules.points) on hand-built State arrays, and both must agree. Scripted rounds
are played by one script through both engines: as the reference's decider and as the engine's `choose`.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import re
from collections import Counter
from dataclasses import replace
from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import NamedTuple

import numpy as np
import playback
import pytest

from sim.broken_beautiful import engine, reference, rules
from sim.broken_beautiful.engine import KEEP, SELL
from sim.broken_beautiful.rules import BROKEN, INTACT, REPAIRED, SCORED, TYPES
from sim.errors import AtelierError, IllegalMove
from sim.game import Asker, Decision, play
from sim.registry import get_game
from strategies.broken_beautiful import PLAYERS, Player, make_player, parse_strategy
from strategies.common import Table

bb = get_game("broken_beautiful")

KIT = rules.load_components()
C = 46
STATE = {"i": INTACT, "b": BROKEN, "r": REPAIRED}


def cards_of(kind: str, pattern: int | None = None, kit=KIT) -> list[int]:
    """Card ids of a type (and pattern), from the catalog."""
    return [c["id"] for c in kit.catalog() if c["type"] == kind and (pattern is None or c["pattern"] == pattern)]


CUP, SAUCER, PLATE, BOWL, JAR, VASE, POT, TRAY, BOX, GOLD = (cards_of(kind) for kind in TYPES)


def collections(*seats: list[str], kit=KIT) -> list[dict[int, int]]:
    """One collection per seat from specs; every spec gets a different card."""
    used: set[int] = set()
    out = []
    for specs in seats:
        held = {}
        for spec in specs:
            head, _, state = spec.partition(":")
            kind, _, pattern = head.partition("/")
            card = next(c for c in cards_of(kind, int(pattern) if pattern else None, kit) if c not in used)
            used.add(card)
            held[card] = STATE[state or "i"]
        out.append(held)
    return out


def engine_state(params: rules.Params, held: list[dict[int, int]], ingots: list[int], supply: int) -> engine.State:
    size = params.kit.size
    owner = np.full((1, size), -1, np.int8)
    cond = np.zeros((1, size), np.int8)
    for seat, collection in enumerate(held):
        for card, state in collection.items():
            owner[0, card], cond[0, card] = seat, state
    start = engine.init(params, rules.Deal(np.arange(size, dtype=np.int8)[None]))
    return replace(start, owner=owner, cond=cond, ingots=np.array([ingots], np.int16),
                   supply=np.array([supply], np.int16))


def score_both(*seats: list[str], ingots: list[int] | None = None, **overrides) -> reference.Result:
    """Score the collections with the reference and with the engine; both must agree on everything."""
    seats = seats if len(seats) > 1 else (*seats, [])
    players = len(seats)
    params = rules.Params(players=players, **overrides)
    held = collections(*seats)
    ingots = ingots or [0] * players
    game = reference.Game(params, [], held, list(ingots), KIT.supply - sum(ingots))
    result = reference.final_result(game)
    by_type, scores, repaired, items, rank, win = engine.standing(params, engine_state(params, held, ingots, 0))
    for seat in range(players):
        assert dict(zip(SCORED, by_type[0, seat].tolist())) == result.points[seat], seat
        assert sum(result.points[seat].values()) == result.scores[seat]
    assert scores[0].tolist() == result.scores
    assert repaired[0].tolist() == result.repaired
    assert items[0].tolist() == result.items
    assert rank[0].tolist() == result.ranks
    assert win[0].tolist() == pytest.approx(result.wins)
    assert result.winners == [s for s in range(players) if result.wins[s] > 0]
    return result


def full(points: dict[str, int]) -> dict[str, int]:
    return {kind: points.get(kind, 0) for kind in SCORED}


# ---------------------------------------------------------------------------------------------- components


def test_default_components_follow_the_design_notes() -> None:
    kit = rules.Params().kit
    assert kit.size == C
    counts = {kind: len(cards_of(kind)) for kind in TYPES}
    assert counts == {"cup": 6, "saucer": 6, "plate": 6, "bowl": 6, "tea_jar": 6, "vase": 3, "teapot": 6,
                      "tray": 2, "box": 2, "gold": 3}
    assert sum(counts[kind] for kind in rules.POTTERY) == 39
    for kind in rules.POTTERY:
        per_pattern = [len(cards_of(kind, p)) for p in range(3)]
        assert per_pattern == ([1, 1, 1] if kind == "vase" else [2, 2, 2]), kind
    for kind in ("tray", "box"):  # Elements of a Card: a pattern on every card but gold; spread like pottery
        assert [len(cards_of(kind, p)) for p in range(3)] == [1, 1, 0], kind
    assert all(c["pattern"] is None for c in kit.catalog() if c["type"] == "gold")
    plain = rules.Params(trays_boxes_patterned=False).kit
    assert all(c["pattern"] is None for c in plain.catalog() if c["type"] in ("tray", "box", "gold"))
    assert [c["pattern"] for c in plain.catalog()[:39]] == [c["pattern"] for c in kit.catalog()[:39]]
    values = {c["type"]: c["value"] for c in kit.catalog()}
    assert values == {"cup": 1, "saucer": 1, "plate": 2, "bowl": 2, "tea_jar": 2, "teapot": 3, "vase": 3,
                      "gold": 3, "tray": 1, "box": 1}
    assert kit.supply == 14
    assert [c["id"] for c in kit.catalog()] == list(range(C))


@pytest.mark.parametrize(("players", "draft", "rounds"), [(2, 5, 9), (3, 7, 6), (4, 9, 5)])
def test_round_counts_of_the_default_deck(players: int, draft: int, rounds: int) -> None:
    assert KIT.draft_size(players) == draft  # two per player, plus one
    assert KIT.rounds(players) == rounds  # 46 // draft


def test_deal_gives_permutations_of_the_deck() -> None:
    (order,) = rules.deal(rules.Params(), np.random.default_rng(0), 300)
    assert order.shape == (300, C)
    assert (np.sort(order, axis=1) == np.arange(C)).all()
    assert len({tuple(row) for row in order}) == 300


def test_bad_components_files_raise_atelier_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("supply = 14\npatterns = 3\n[types]\nspoon = { count = 2, value = 1 }\n[scoring]\n")
    with pytest.raises(AtelierError, match="unknown card type 'spoon'"):
        rules.load_components(str(bad))
    with pytest.raises(AtelierError, match="does not exist"):
        rules.load_components(str(tmp_path / "nowhere.toml"))


FIELD_CHANGES = [  # (text in the default file, its replacement, the field the error names, its range)
    ("cup = { count = 6", "cup = { count = 2.7", "types.cup.count", "0 to 127, got 2.7"),
    ("cup = { count = 6", "cup = { count = true", "types.cup.count", "0 to 127, got True"),
    ("vase = { count = 3, value = 3 }", "vase = { count = 3, value = 128 }", "types.vase.value", "0 to 127, got 128"),
    ("supply = 14", "supply = 10001", "supply", "0 to 10000, got 10001"),
    ("supply = 14", "supply = 14.0", "supply", "0 to 10000, got 14.0"),
    ("patterns = 3", "patterns = 0", "patterns", "1 to 127, got 0"),
    ("plate_pair = 6", "plate_pair = 99999999999999999999", "scoring.plate_pair",
     "0 to 1000, got 99999999999999999999"),
    ("plate_pair = 6", "plate_pair = 6.5", "scoring.plate_pair", "0 to 1000, got 6.5"),
    ("tea_jar_most = 6", "tea_jar_most = -6", "scoring.tea_jar_most", "0 to 1000, got -6"),
    ("vase = [0, 1, 5, 15]", "vase = [0, 1, 5, 1001]", "scoring.vase", "0 to 1000, got 1001"),
    ("saucer = [2, 3]", "saucer = [0, 3]", "scoring.saucer", "1 to 1000, got 0"),
    ("cup = [1, 3]", "cup = [1, false]", "scoring.cup", "0 to 1000, got False"),
]


@pytest.mark.parametrize(("old", "new", "name", "bounds"), FIELD_CHANGES)
def test_components_numbers_must_be_whole_and_in_range(tmp_path: Path, old, new, name, bounds) -> None:
    """Never truncated: card ids, values and patterns are int8, ingots int16, points int32 (rules.py)."""
    path = tmp_path / "bad.toml"
    path.write_text(rules.DEFAULT_COMPONENTS.read_text().replace(old, new, 1))
    with pytest.raises(AtelierError) as err:
        bb.make_params(2, {"components": str(path)})
    assert str(err.value) == f"components file {path}: '{name}' must be a whole number from {bounds}"


def test_unreadable_components_files_raise_one_line(unreadable_file: tuple[Path, str]) -> None:
    path, problem = unreadable_file
    with pytest.raises(AtelierError) as err:
        bb.make_params(2, {"components": str(path)})
    assert str(err.value).startswith(f"components file {path} {problem}") and "\n" not in str(err.value)


def extreme_components(path: Path, types: str) -> str:
    """A components file with every scoring number at its largest (no vase scores nothing), 10,000 ingots and the
    given [types]."""
    path.write_text(f"supply = {rules.MAX_SUPPLY}\npatterns = 1\n[types]\n{types}\n[scoring]\n"
                    "cup = [1000, 1000]\nsaucer = [1000, 1000]\nplate_pair = 1000\nplate_repaired = 1000\n"
                    "bowl_repaired = 1000\ntea_jar_most = 1000\ntea_jar_repaired = 1000\nvase = [0, 1000]\n"
                    "vase_repaired = 1000\nteapot_repaired = 1000\ntray = 1000\nbox_cap = 1000\n")
    return str(path)


@pytest.mark.parametrize(("types", "specs", "points"), [
    # 63 cups each paired with a saucer: 1000 x 1000 apiece; the last saucer has no cup.
    ("cup = { count = 63, value = 1 }\nsaucer = { count = 64, value = 1 }", ["cup"] * 63 + ["saucer"] * 64,
     {"cup": 63 * 1000, "saucer": 63 * 1000 * 999}),
    # 127 repaired teapots of one pattern: each is worth 127 matching items, times 1000.
    ("teapot = { count = 127, value = 1 }", ["teapot:r"] * 127, {"teapot": 127 * 127 * 1000}),
])
def test_the_largest_scoring_numbers_score_exactly(tmp_path: Path, types: str, specs: list[str], points) -> None:
    params = bb.make_params(2, {"components": extreme_components(tmp_path / "kit.toml", types)})
    held = collections(specs, [], kit=params.kit)
    game = reference.Game(params, [], held, [0, 0], params.kit.supply)
    assert {k: v for k, v in reference.points_by_type(game, 0).items() if v} == points
    by_type, scores = engine.standing(params, engine_state(params, held, [0, 0], params.kit.supply))[:2]
    assert dict(zip(SCORED, by_type[0, 0].tolist())) == full(points)
    assert scores[0].tolist() == [sum(points.values()), 0]


def test_a_game_at_every_bound_plays_alike_in_both_engines(tmp_path: Path) -> None:
    """127 cards worth 127 each, 10,000 ingots to share, scoring numbers of 1000 and a bank that never runs out."""
    types = "\n".join(f"{kind} = {{ count = {n}, value = 127 }}" for kind, n in zip(TYPES, [13] * 9 + [10]))
    params = bb.make_params(3, {"components": extreme_components(tmp_path / "kit.toml", types),
                                "supply_shortfall": "unlimited", "new_player_ingots": 3333})
    strategies = ["greedy", "banker", "hater"]
    final = bb.trace(params, strategies, 5)["final"]
    rng = np.random.default_rng(5)
    played = play_recorded(params, rules.deal(params, rng, 1).order, [strategies], rng)
    assert played.scores[0].tolist() == final["scores"] and played.state.ingots[0].tolist() == final["ingots"]
    assert np.flatnonzero(played.win[0] > 0).tolist() == final["winners"]
    assert max(final["scores"]) > 32_767 and max(final["ingots"]) > 3333
    out = bb.simulate(params, np.array([strategies] * 4), np.arange(4), np.random.SeedSequence(1),
                      np.random.SeedSequence(2))
    assert out["score"].dtype == np.int32 and out["score"].max() > 32_767
    assert out["points_vase"].dtype == np.int32


@pytest.mark.parametrize(("overrides", "message"), [
    ({"supply_shortfall": "never"}, "supply_shortfall"),
    ({"new_player_ingots": -1}, "new_player_ingots"),
    ({"new_player_ingots": 10**20}, "'new_player_ingots' must be between 0 and 10000"),
    ({"new_player_ingots": 5}, "new_player_ingots"),  # 3 players * 5 > 14 ingots
    ({"tie_items_count_broken": 1}, "must be bool"),
])
def test_bad_params_raise_atelier_error(overrides: dict, message: str) -> None:
    with pytest.raises(AtelierError, match=message):
        bb.make_params(3, overrides)


# ---------------------------------------------------------------------------------------------- scoring


def test_rulebook_scoring_example_scores_20() -> None:
    # Pattern 0: teapot, two bowls (one repaired), a plate and a broken saucer: five cards of the teapot's
    # pattern, one broken. Pattern 1: a cup and a repaired plate. Pattern 2: a repaired vase.
    example = ["teapot/0", "bowl/0", "bowl/0:r", "plate/0", "saucer/0:b", "cup/1", "plate/1:r", "vase/2:r"]
    result = score_both(example)
    assert result.points[0] == full({"bowl": 5, "teapot": 4, "cup": 1, "plate": 8, "vase": 2})
    assert result.scores == [20, 0]
    assert result.repaired == [3, 0]
    assert result.items == [8, 0]  # the broken saucer is still an item
    assert result.winners == [0]


def test_the_scoring_example_through_rules_points_directly() -> None:
    example = collections(["teapot/0", "bowl/0", "bowl/0:r", "plate/0", "saucer/0:b", "cup/1", "plate/1:r",
                           "vase/2:r"])
    state = engine_state(rules.Params(players=2), [*example, {}], [0, 0], 14)
    counts = rules.tally(state.owner, state.cond, 2, KIT)
    assert counts.whole[0, 0].tolist() == [1, 0, 2, 2, 0, 1, 1, 0, 0, 0]  # by TYPES
    assert counts.broken[0, 0].tolist() == [0, 1, 0, 0, 0, 0, 0, 0, 0, 0]
    assert counts.pattern[0, 0].tolist() == [4, 2, 1]
    out = rules.points(counts, state.ingots, np.zeros((1, 2), np.int16), KIT)
    assert out[0, 0].tolist() == [1, 0, 8, 5, 0, 2, 4, 0, 0]
    assert out[0, 0].sum() == 20


@cache
def best_pairing(cups: tuple[int, ...], saucers: tuple[int, ...]) -> int:
    """Brute force over every pairing: each cup with at most one saucer and each saucer with at most one cup."""
    if not cups:
        return 0
    first, rest = cups[0], cups[1:]
    best = first + best_pairing(rest, saucers)
    for i, multiplier in enumerate(saucers):
        best = max(best, first * multiplier + best_pairing(rest, saucers[:i] + saucers[i + 1:]))
    return best


def cup_values(states: str) -> tuple[int, ...]:
    return tuple(sorted({"i": 1, "r": 3}[s] for s in states if s != "b"))


def saucer_multipliers(states: str) -> tuple[int, ...]:
    return tuple(sorted({"i": 2, "r": 3}[s] for s in states if s != "b"))


CUPS_AND_SAUCERS = [
    # cup states, saucer states -> cup points, cup + saucer points
    ("i", "", 1, 1),
    ("r", "", 3, 3),
    ("ii", "", 2, 2),
    ("i", "i", 1, 2),
    ("r", "r", 3, 9),  # a repaired cup on a repaired saucer: 3 x 3
    ("r", "i", 3, 6),
    ("i", "r", 1, 3),
    ("i", "ir", 1, 3),  # more saucers than cups: the cup takes the repaired saucer
    ("ir", "i", 4, 7),  # more cups than saucers: the saucer takes the repaired cup, 3 x 2 + 1
    ("ir", "ir", 4, 11),  # best with best: 3 x 3 + 1 x 2, not 3 x 2 + 1 x 3
    ("i", "b", 1, 1),  # a broken saucer multiplies nothing
    ("b", "r", 0, 0),  # a broken cup is worth nothing, even on a saucer
    ("", "ri", 0, 0),
    ("rrriii", "rriiii", 12, 30),  # 3 x 3 + 3 x 3 + 3 x 2 + 3 x (1 x 2)
    ("iiiiii", "rrrrrr", 6, 18),
    ("rib", "bri", 4, 11),
]


@pytest.mark.parametrize(("cups", "saucers", "cup_points", "total"), CUPS_AND_SAUCERS)
def test_cups_and_saucers_pair_freely_and_best(cups: str, saucers: str, cup_points: int, total: int) -> None:
    assert best_pairing(cup_values(cups), saucer_multipliers(saucers)) == total  # the hand value is optimal
    result = score_both([f"cup:{s}" for s in cups] + [f"saucer:{s}" for s in saucers])
    assert result.points[0] == full({"cup": cup_points, "saucer": total - cup_points})


@pytest.mark.parametrize(("plates", "points"), [
    ("i", 0), ("ii", 6), ("iii", 6), ("iiii", 12), ("iiiiii", 18), ("ib", 0), ("bb", 0),
    ("ir", 8), ("rrr", 12),  # the rulebook: three plates, all repaired, are collectively worth 12
    ("r", 2), ("rr", 10), ("iir", 8),
])
def test_plates_score_6_a_pair_plus_2_a_repaired_plate(plates: str, points: int) -> None:
    assert score_both([f"plate:{s}" for s in plates]).points[0] == full({"plate": points})


@pytest.mark.parametrize(("bowls", "points"), [
    ("i", 1), ("ii", 4), ("iii", 9), ("iir", 10), ("iib", 4), ("b", 0), ("rrrr", 20), ("iiiiii", 36), ("ir", 5),
])
def test_bowls_score_the_square_plus_1_a_repaired_bowl(bowls: str, points: int) -> None:
    assert score_both([f"bowl:{s}" for s in bowls]).points[0] == full({"bowl": points})


@pytest.mark.parametrize(("vases", "points"), [
    ("i", 1), ("ii", 5), ("iii", 15), ("r", 2), ("rii", 16), ("rrr", 18), ("bi", 1), ("bbb", 0), ("bri", 6),
])
def test_vases_score_1_5_15_plus_1_a_repaired_vase(vases: str, points: int) -> None:
    assert score_both([f"vase:{s}" for s in vases]).points[0] == full({"vase": points})


@pytest.mark.parametrize(("seats", "points"), [
    (["ii", "i"], [6, 0]),
    (["ii", "ii", "i"], [6, 6, 0]),
    (["i", "i", "i"], [6, 6, 6]),  # all tied: all score
    (["", ""], [0, 0]),  # nobody holds a tea jar: nobody has the most
    (["", "", ""], [0, 0, 0]),
    (["ib", "i"], [6, 6]),  # a broken jar does not count: 1 against 1
    (["bb", ""], [0, 0]),  # broken jars only: none to count
    (["bb", "i"], [0, 6]),
    (["r", "ii"], [1, 6]),  # repaired jars add 1 each even without the most
    (["rr", "i"], [8, 0]),
    (["rb", "i"], [7, 6]),
    (["ii", "ii", "ir", ""], [6, 6, 7, 0]),
])
def test_tea_jars_go_to_the_most_with_ties(seats: list[str], points: list[int]) -> None:
    result = score_both(*[[f"tea_jar:{s}" for s in jars] for jars in seats])
    assert [p["tea_jar"] for p in result.points] == points
    assert result.scores == points


@pytest.mark.parametrize(("specs", "points"), [
    (["teapot/0"], {"teapot": 1}),  # the teapot counts itself
    (["teapot/0", "cup/0", "plate/1"], {"teapot": 2, "cup": 1}),
    (["teapot/0:r", "cup/0", "bowl/0"], {"teapot": 6, "cup": 1, "bowl": 1}),  # repaired: 3 doubled
    (["teapot/0", "teapot/0", "bowl/0"], {"teapot": 6, "bowl": 1}),  # each of the two teapots counts 3
    (["teapot/0:b", "cup/0"], {"cup": 1}),  # a broken teapot scores nothing
    (["teapot/0", "cup/0:b", "saucer/0:r"], {"teapot": 2}),  # the broken cup does not count for the teapot
    (["teapot/2", "tray", "box"], {"teapot": 1, "tray": 2}),  # no tray or box of pattern 2
    (["teapot/0", "teapot/1:r", "cup/1", "plate/0"], {"teapot": 2 + 4, "cup": 1}),
    (["teapot/2:r", "vase/2:r", "tea_jar/2:b", "bowl/2"], {"teapot": 6, "vase": 2, "bowl": 1}),
])
def test_teapots_count_their_pattern(specs: list[str], points: dict[str, int]) -> None:
    assert score_both(specs).points[0] == full(points)


@pytest.mark.parametrize(("patterned", "teapot"), [(True, 3 + 2), (False, 1 + 1)])
def test_trays_and_boxes_count_for_a_teapot_of_their_pattern_only_when_patterned(patterned: bool, teapot: int) -> None:
    # Pattern 0: a teapot, a tray and a box; pattern 1: a teapot and a tray. Patterned, the first teapot counts
    # itself, the tray and the box, the second itself and its tray.
    specs = ["teapot/0", "tray/0", "box/0", "teapot/1", "tray/1"]
    result = score_both(specs, ingots=[3, 0], trays_boxes_patterned=patterned)
    assert result.points[0] == full({"teapot": teapot, "tray": 4, "box": 3})


@pytest.mark.parametrize(("specs", "ingots", "points"), [
    (["tray"], 0, {"tray": 2}),
    (["tray", "tray"], 0, {"tray": 4}),
    (["box"], 3, {"box": 3}),
    (["box"], 9, {"box": 4}),  # at most 4 per box
    (["box"], 0, {}),
    (["box", "box"], 3, {"box": 6}),  # two boxes score the same ingots
    (["box", "box"], 7, {"box": 8}),
])
def test_trays_and_storage_boxes(specs: list[str], ingots: int, points: dict[str, int]) -> None:
    assert score_both(specs, ingots=[ingots, 0]).points[0] == full(points)


# ---------------------------------------------------------------------------------------------- tie-breakers

TIES = [
    # seats, tie_items_count_broken -> scores, ranks, win shares
    # most points wins, whatever the repaired items and items
    ([["bowl", "bowl", "bowl"], ["cup:r", "cup:r", "tray"]], True, [9, 8], [1, 2], [1, 0]),
    # 3 all: the repaired cup beats the cup and tray
    ([["cup:r"], ["cup", "tray"]], True, [3, 3], [1, 2], [1, 0]),
    # 2 all, no repairs: two items (one broken) beat one ...
    ([["tray", "cup:b"], ["tray"]], True, [2, 2], [1, 2], [1, 0]),
    # ... unless broken items do not count: shared
    ([["tray", "cup:b"], ["tray"]], False, [2, 2], [1, 1], [0.5, 0.5]),
    # 3 all, one repair each: the broken plate is the deciding item
    ([["cup:r"], ["cup:r", "plate:b"]], True, [3, 3], [2, 1], [0, 1]),
    ([["cup:r"], ["cup:r", "plate:b"]], False, [3, 3], [1, 1], [0.5, 0.5]),
    # whole items count either way: the single plate scores nothing but is an item
    ([["cup:r"], ["cup:r", "plate"]], False, [3, 3], [2, 1], [0, 1]),
    # still tied after everything: shared, competition ranks
    ([["tray"], ["tray"], ["cup"], []], True, [2, 2, 1, 0], [1, 1, 3, 4], [0.5, 0.5, 0, 0]),
    ([["cup", "cup"], ["bowl", "cup"], ["tray", "plate"], ["cup"]], True, [2, 2, 2, 1], [1, 1, 1, 4],
     [1 / 3, 1 / 3, 1 / 3, 0]),
    ([["bowl", "bowl"], ["tray"], ["tray"], []], True, [4, 2, 2, 0], [1, 2, 2, 4], [1, 0, 0, 0]),
    ([[], [], [], []], True, [0, 0, 0, 0], [1, 1, 1, 1], [0.25] * 4),
    ([[], ["cup:b"], []], True, [0, 0, 0], [2, 1, 2], [0, 1, 0]),
    ([[], ["cup:b"], []], False, [0, 0, 0], [1, 1, 1], [1 / 3] * 3),
]


@pytest.mark.parametrize(("seats", "broken_count", "scores", "ranks", "wins"), TIES)
def test_tie_breakers(seats, broken_count: bool, scores, ranks, wins) -> None:
    result = score_both(*seats, tie_items_count_broken=broken_count)
    assert result.scores == scores
    assert result.ranks == ranks
    assert result.wins == pytest.approx(wins)
    assert sum(result.wins) == pytest.approx(1)


# ---------------------------------------------------------------------------------------------- scripted rounds


def offer_cost(params: rules.Params, card: int, done: int, free: bool) -> int:
    """Repairing Pottery, written out here: the card's value plus one per item already fixed this round; with a
    gold card showing, the first item each player fixes costs nothing."""
    return 0 if free and done == 0 else int(params.kit.value[card]) + done


class Script:
    """A script for one game, for either engine: the reference's decider (`script(game, phase, options)`) and the
    engine's `choose` over a batch of one (`script.choose`). Picks are (card, keep) in drafting order, repairs a
    card or None (pass) per repair turn. When a list runs out it drafts the first open card and keeps it (selling
    gold), and passes. It records the seat asked to draft and, per repair turn, the seat and the repairs on offer
    (the choices the rules allow) with their cost. Every choice must be allowed."""

    def __init__(self, params: rules.Params, picks=(), repairs=()):
        self.params = params
        self.picks, self.repairs = list(picks), list(repairs)
        self.drafts: list[int] = []
        self.turns: list[tuple[int, dict[int, int]]] = []
        self.keeping = True

    def __call__(self, game: reference.Game, phase: str, options: list[int]) -> int:
        asking = game.asking
        done = asking.repairs[asking.seat] if asking.repairs else 0
        return self.answer(phase, asking.seat, asking.dealt, asking.is_open, done, asking.free, options)

    def choose(self, decision: Decision, rng) -> np.ndarray:
        obs, seat = decision.observation, decision.seat
        assert decision.asked.tolist() == [True] and (obs.decision, obs.seat) == (decision.kind, seat)
        return np.array([self.answer(decision.kind, seat, obs.draft[0].tolist(), obs.open[0].tolist(),
                                     int(obs.repairs[0, seat]), bool(obs.free[0]),
                                     np.flatnonzero(decision.legal[0]).tolist())])

    def answer(self, kind: str, seat: int, dealt: list[int], is_open: list[bool], done: int, free: bool,
               options: list[int]) -> int:
        if kind == "draft":
            self.drafts.append(seat)
            if self.picks:
                card, self.keeping = self.picks.pop(0)
            else:
                card = next(c for c, here in zip(dealt, is_open) if here)
                self.keeping = TYPES[self.params.kit.type[card]] != "gold"
            choice = dealt.index(card)
        elif kind == "keep":
            choice = KEEP if self.keeping else SELL
        else:
            offer = {c: offer_cost(self.params, c, done, free) for c in options if c != self.params.kit.size}
            self.turns.append((seat, offer))
            card = self.repairs.pop(0) if self.repairs else None
            choice = self.params.kit.size if card is None else card
        assert choice in options, (kind, choice)
        return choice


def engine_collections(state: engine.State, players: int) -> list[dict[int, int]]:
    return [{int(c): int(state.cond[0, c]) for c in np.flatnonzero(state.owner[0] == seat)} for seat in range(players)]


def play_both(players: int, deck: list[int], picks=(), repairs=(), held=None, ingots=None, supply=None,
              rounds: int = 1, start: int = 0, **overrides) -> tuple[reference.Game, Script]:
    """Play scripted rounds from a prepared table through the reference and the engine: `deck` lists the top
    cards (the draft, then the card on top), the other cards follow in id order. Both must consume the whole
    script, ask the same seats, offer the same repairs at the same costs and end at the same table."""
    params = rules.Params(players=players, **overrides)
    kit = params.kit
    held = held or [{} for _ in range(players)]
    ingots = list(ingots) if ingots is not None else [0] * players
    supply = kit.supply - sum(ingots) if supply is None else supply
    in_hand = sorted(c for collection in held for c in collection)
    deck = list(deck) + [c for c in range(kit.size) if c not in deck and c not in in_hand]
    assert not in_hand or rounds * kit.draft_size(players) < len(deck)
    rng = np.random.default_rng(0)

    game = reference.Game(params, list(deck), [dict(c) for c in held], list(ingots), supply, round=start)
    script = Script(params, picks, repairs)
    for _ in range(rounds):
        reference.play_round(game, script)

    # The engine deals the first round's draft at setup; the prepared table then replaces the empty one.
    state = engine.init(params, rules.Deal(np.array([deck + in_hand], np.int8)))
    table = engine_state(params, held, ingots, supply)
    state = replace(state, owner=table.owner, cond=table.cond, ingots=table.ingots, supply=table.supply, round=start)
    twin = Script(params, picks, repairs)
    while state.round < start + rounds:
        state = engine.step(params, state, twin.choose(engine.decision(params, state), rng))

    assert script.picks == [] and script.repairs == [], "the script was not played out"
    assert twin.picks == [] and twin.repairs == []
    assert twin.drafts == script.drafts
    assert twin.turns == script.turns
    assert engine_collections(state, players) == game.collections
    assert state.ingots[0].tolist() == game.ingots
    assert int(state.supply[0]) == game.supply
    return game, script


def test_draft_keep_sell_and_breakage_by_leftover_and_deck_top() -> None:
    held = [{CUP[0]: INTACT, CUP[1]: REPAIRED, PLATE[0]: INTACT, BOWL[0]: INTACT, BOWL[1]: BROKEN},
            {PLATE[1]: INTACT, CUP[2]: INTACT, TRAY[0]: INTACT, BOX[0]: INTACT, VASE[0]: INTACT}]
    dealt = [POT[0], PLATE[2], SAUCER[0], GOLD[0], CUP[3]]
    picks = [(POT[0], True), (PLATE[2], True), (SAUCER[0], False), (GOLD[0], False)]  # seats 0, 1, 1, 0
    game, script = play_both(2, [*dealt, PLATE[3]], picks, held=held)
    (entry,) = game.log
    assert script.drafts == [0, 1, 1, 0]
    assert entry["first"] == 0
    assert entry["dealt"] == dealt
    assert entry["picks"] == [
        {"seat": 0, "card": POT[0], "action": "keep", "ingots_gained": 0},
        {"seat": 1, "card": PLATE[2], "action": "keep", "ingots_gained": 0},
        {"seat": 1, "card": SAUCER[0], "action": "sell", "ingots_gained": 1},
        {"seat": 0, "card": GOLD[0], "action": "sell", "ingots_gained": 3},
    ]
    assert (entry["leftover"], entry["deck_top"]) == (CUP[3], PLATE[3])
    # Cups (the leftover) and plates (the top of the deck) break, the plate kept this round too; the repaired
    # cup cannot break again; bowls, the vase, the teapot, the tray and the box are untouched.
    assert entry["broken"] == sorted([CUP[0], PLATE[0], PLATE[1], CUP[2], PLATE[2]])
    assert entry["free_repair"] is False
    assert game.collections == [
        {CUP[0]: BROKEN, CUP[1]: REPAIRED, PLATE[0]: BROKEN, BOWL[0]: INTACT, BOWL[1]: BROKEN, POT[0]: INTACT},
        {PLATE[1]: BROKEN, CUP[2]: BROKEN, TRAY[0]: INTACT, BOX[0]: INTACT, VASE[0]: INTACT, PLATE[2]: BROKEN},
    ]
    assert game.ingots == [3, 1]
    assert game.supply == 10
    # Nobody repairs; each seat was offered what it could pay for.
    assert script.turns == [(0, {CUP[0]: 1, PLATE[0]: 2, BOWL[1]: 2}), (1, {CUP[2]: 1})]
    assert entry["repairs"] == []
    assert (entry["ingots"], entry["supply"]) == ([3, 1], 10)
    assert game.round == 1 and len(game.deck) == C - 5 - len(held[0]) - len(held[1])


def test_only_the_showing_pottery_type_breaks_with_a_box_on_top() -> None:
    mine = ["cup", "saucer", "plate", "bowl", "tea_jar", "vase", "teapot", "tray", "box"]
    held = collections(mine, ["tray"])
    dealt = [POT[3], POT[4], POT[5], JAR[5], VASE[1]]
    picks = [(POT[3], True), (POT[4], True), (POT[5], True), (JAR[5], True)]
    game, _ = play_both(2, [*dealt, BOX[1]], picks, held=held)
    assert (game.log[0]["leftover"], game.log[0]["deck_top"]) == (VASE[1], BOX[1])
    assert game.log[0]["broken"] == [VASE[0]]  # the leftover vase breaks the vase; the box breaks nothing
    assert game.log[0]["free_repair"] is False
    assert [card for card, state in game.collections[0].items() if state != INTACT] == [VASE[0]]


def test_a_tray_left_over_and_a_box_on_top_break_nothing() -> None:
    held = collections(["cup", "saucer", "plate", "bowl", "tea_jar", "vase", "teapot", "box"], ["tray"])
    dealt = [POT[3], POT[4], POT[5], JAR[5], TRAY[1]]
    picks = [(POT[3], True), (POT[4], True), (POT[5], True), (JAR[5], True)]
    game, script = play_both(2, [*dealt, BOX[1]], picks, held=held)
    assert (game.log[0]["leftover"], game.log[0]["deck_top"]) == (TRAY[1], BOX[1])
    assert game.log[0]["broken"] == []
    assert game.log[0]["free_repair"] is False
    assert all(state == INTACT for collection in game.collections for state in collection.values())
    assert script.turns == [(0, {}), (1, {})]


def test_repaired_cards_never_break_again() -> None:
    held = [{CUP[0]: REPAIRED, CUP[1]: INTACT, BOWL[0]: REPAIRED}, {CUP[2]: REPAIRED}]
    dealt = [POT[0], POT[1], VASE[0], VASE[1], CUP[3]]
    picks = [(POT[0], True), (POT[1], True), (VASE[0], True), (VASE[1], True)]
    game, _ = play_both(2, [*dealt, BOWL[1]], picks, held=held)
    assert game.log[0]["broken"] == [CUP[1]]
    assert game.collections[0] == {CUP[0]: REPAIRED, CUP[1]: BROKEN, BOWL[0]: REPAIRED, POT[0]: INTACT,
                                   VASE[1]: INTACT}
    assert game.collections[1] == {CUP[2]: REPAIRED, POT[1]: INTACT, VASE[0]: INTACT}


def test_repairs_cost_value_then_plus_one_then_plus_two() -> None:
    held = [{CUP[0]: BROKEN, PLATE[0]: BROKEN, BOWL[0]: BROKEN}, {}]
    dealt = [POT[0], POT[1], VASE[0], VASE[1], TRAY[0]]
    picks = [(POT[0], True), (POT[1], True), (VASE[0], True), (VASE[1], True)]
    repairs = [CUP[0], None, PLATE[0], None, BOWL[0], None, None, None]
    game, script = play_both(2, [*dealt, BOX[0]], picks, repairs, held=held, ingots=[10, 0])
    assert game.log[0]["free_repair"] is False
    assert script.turns == [
        (0, {CUP[0]: 1, PLATE[0]: 2, BOWL[0]: 2}), (1, {}),
        (0, {PLATE[0]: 3, BOWL[0]: 3}), (1, {}),
        (0, {BOWL[0]: 4}), (1, {}),
        (0, {}), (1, {}),
    ]
    assert game.log[0]["repairs"] == [{"seat": 0, "card": CUP[0], "cost": 1},
                                      {"seat": 0, "card": PLATE[0], "cost": 3},
                                      {"seat": 0, "card": BOWL[0], "cost": 4}]
    assert game.ingots == [2, 0]
    assert game.supply == 4 + 8  # spent ingots return to the supply
    assert all(game.collections[0][c] == REPAIRED for c in (CUP[0], PLATE[0], BOWL[0]))


def test_repair_needs_the_ingots() -> None:
    held = [{POT[0]: BROKEN, CUP[0]: BROKEN}, {PLATE[0]: BROKEN}]
    dealt = [VASE[0], VASE[1], VASE[2], TRAY[0], TRAY[1]]
    picks = [(VASE[0], True), (VASE[1], True), (VASE[2], True), (TRAY[0], True)]
    game, script = play_both(2, [*dealt, BOX[0]], picks, [CUP[0]], held=held, ingots=[2, 1])
    # Seat 0 cannot afford the teapot (3); after the cup (1) the teapot would cost 4. Seat 1 never affords 2.
    assert script.turns == [(0, {CUP[0]: 1}), (1, {}), (0, {}), (1, {})]
    assert game.ingots == [1, 1]


@pytest.mark.parametrize("top", ["bowl", "second gold"])
def test_a_showing_gold_card_gives_each_player_one_free_repair(top: str) -> None:
    held = [{POT[0]: BROKEN, PLATE[0]: BROKEN, CUP[0]: BROKEN}, {CUP[1]: BROKEN}]
    dealt = [VASE[0], VASE[1], TRAY[0], BOX[0], GOLD[0]]
    picks = [(VASE[0], True), (VASE[1], True), (TRAY[0], True), (BOX[0], True)]
    repairs = [POT[0], CUP[1], PLATE[0], None, None, None]
    on_top = BOWL[0] if top == "bowl" else GOLD[1]
    game, script = play_both(2, [*dealt, on_top], picks, repairs, held=held, ingots=[3, 0])
    entry = game.log[0]
    assert (entry["leftover"], entry["deck_top"]) == (GOLD[0], on_top)
    assert entry["broken"] == [] and entry["free_repair"] is True
    assert script.turns == [
        (0, {POT[0]: 0, PLATE[0]: 0, CUP[0]: 0}),  # the first repair is free, even without ingots
        (1, {CUP[1]: 0}),
        (0, {PLATE[0]: 3, CUP[0]: 2}),  # the second costs value + 1: one gold card or two, one free repair
        (1, {}),
        (0, {}),  # the cup would now cost 1 + 2 with no ingots left
        (1, {}),
    ]
    assert entry["repairs"] == [{"seat": 0, "card": POT[0], "cost": 0}, {"seat": 1, "card": CUP[1], "cost": 0},
                                {"seat": 0, "card": PLATE[0], "cost": 3}]
    assert game.ingots == [0, 0]
    assert game.supply == 14


def test_repair_goes_on_until_all_pass_in_turn_and_a_passed_player_may_repair_later() -> None:
    held = [{CUP[0]: BROKEN}, {CUP[1]: BROKEN}, {CUP[2]: BROKEN}]
    dealt = [POT[0], POT[1], POT[2], VASE[0], VASE[1], VASE[2], BOX[0]]
    picks = [(POT[0], True), (POT[1], True), (POT[2], True), (VASE[0], True), (VASE[1], True), (VASE[2], True)]
    # Round 2: seat 1 holds the first player marker; turns go 1, 2, 0.
    repairs = [CUP[1], None, None,  # seat 1 repairs; 2 and 0 pass
               None, CUP[2], None,  # seat 2, who passed, repairs now
               None, None, CUP[0],  # and then seat 0
               None, None, None]  # everybody passes in turn: the phase ends
    game, script = play_both(3, [*dealt, BOX[1]], picks, repairs, held=held, ingots=[1, 1, 1], start=1)
    assert script.drafts == [1, 2, 0, 0, 2, 1]
    assert [seat for seat, _ in script.turns] == [1, 2, 0] * 4
    assert script.turns[4] == (2, {CUP[2]: 1})  # its first repair of the round: no surcharge
    assert [r["cost"] for r in game.log[0]["repairs"]] == [1, 1, 1]
    assert game.ingots == [0, 0, 0]
    assert game.supply == 14
    assert game.log[0]["first"] == 1


@pytest.mark.parametrize(("rule", "gained", "ingots", "supply"), [
    ("partial", [1, 0], [14, 0], 0),  # the seller takes what is left
    ("unlimited", [3, 1], [16, 1], -3),  # the bank pays in full and goes below zero
])
def test_supply_shortfall(rule: str, gained: list[int], ingots: list[int], supply: int) -> None:
    dealt = [POT[0], CUP[0], VASE[0], VASE[1], TRAY[0]]
    picks = [(POT[0], False), (CUP[0], False), (VASE[0], True), (VASE[1], True)]
    game, _ = play_both(2, [*dealt, BOX[0]], picks, ingots=[13, 0], supply=1, supply_shortfall=rule)
    assert [p["ingots_gained"] for p in game.log[0]["picks"]] == [*gained, 0, 0]
    assert game.ingots == ingots
    assert game.supply == supply


@pytest.mark.parametrize(("players", "each", "supply"), [(3, 2, 8), (4, 3, 2), (2, 1, 12), (2, 7, 0)])
def test_new_player_ingots_come_from_the_supply(players: int, each: int, supply: int) -> None:
    params = bb.make_params(players, {"new_player_ingots": each})
    game = reference.new_game(params, rules.Deal(np.arange(C, dtype=np.int8)[None]))
    assert (game.ingots, game.supply) == ([each] * players, supply)
    state = engine.init(params, rules.Deal(np.tile(np.arange(C, dtype=np.int8), (3, 1))))
    assert state.ingots.tolist() == [[each] * players] * 3
    assert state.supply.tolist() == [supply] * 3
    with pytest.raises(AtelierError, match="new_player_ingots"):
        bb.make_params(players, {"new_player_ingots": 14 // players + 1})


SNAKE = {
    2: [[0, 1, 1, 0], [1, 0, 0, 1]],
    3: [[0, 1, 2, 2, 1, 0], [1, 2, 0, 0, 2, 1], [2, 0, 1, 1, 0, 2]],
    4: [[0, 1, 2, 3, 3, 2, 1, 0], [1, 2, 3, 0, 0, 3, 2, 1], [2, 3, 0, 1, 1, 0, 3, 2], [3, 0, 1, 2, 2, 1, 0, 3]],
}


@pytest.mark.parametrize(("players", "rounds", "left"), [(2, 9, 1), (3, 6, 4), (4, 5, 1)])
def test_a_whole_game_snake_drafts_and_passes_the_marker_left(players: int, rounds: int, left: int) -> None:
    """First player picks first and last; the marker passes to the left each round; repair turns start with
    the first player; the deck's top card shows at each breakage; the game ends when a draft cannot be dealt."""
    params = rules.Params(players=players)
    (order,) = rules.deal(params, np.random.default_rng(players), 1)
    expected = [seat for r in range(rounds) for seat in SNAKE[players][r % players]]
    draft = 2 * players + 1

    script = Script(params)
    game = reference.play(params, rules.Deal(order), script)
    result = reference.final_result(game)
    assert len(game.log) == rounds
    assert len(game.deck) == left
    assert game.deck == order[0, rounds * draft:].tolist()
    assert script.drafts == expected
    assert [e["first"] for e in game.log] == [r % players for r in range(rounds)]
    # Nobody repairs, so each repair phase is one turn per player, from the first player to the left.
    assert [seat for seat, _ in script.turns] == [(r + k) % players for r in range(rounds) for k in range(players)]
    for r, entry in enumerate(game.log):
        assert entry["dealt"] == order[0, r * draft:(r + 1) * draft].tolist()
        assert entry["deck_top"] == int(order[0, (r + 1) * draft])  # never empty with 46 cards

    twin = Script(params)
    recorder = Recorder(twin.choose)
    record = record_of(params, order, recorder.log, play(engine, params, rules.Deal(order), recorder, None))
    assert twin.drafts == expected
    assert twin.turns == script.turns
    assert record.picks.shape == record.keeps.shape == (1, rounds, 2 * players)
    assert len(record.repairs) == rounds
    assert all(r.shape == (1, players) for r in record.repairs)
    assert (np.concatenate(record.repairs, axis=1) == C).all()
    assert engine_collections(record.state, players) == game.collections
    assert record.scores[0].tolist() == result.scores


def write_small_components(tmp_path: Path) -> str:
    """Ten cards: two full drafts at two players, so the deck is empty at the last breakage. Ids: cups 0-2,
    plates 3-4, bowls 5-6, tray 7, gold 8-9."""
    default = rules.DEFAULT_COMPONENTS.read_text()
    scoring = default[default.index("[scoring]"):]
    path = tmp_path / "small.toml"
    path.write_text("supply = 6\npatterns = 2\n[types]\ncup = { count = 3, value = 1 }\n"
                    "plate = { count = 2, value = 2 }\nbowl = { count = 2, value = 2 }\n"
                    "tray = { count = 1, value = 1 }\ngold = { count = 2, value = 3 }\n" + scoring)
    return str(path)


def test_an_empty_deck_at_breakage_leaves_only_the_leftover(tmp_path: Path) -> None:
    components = write_small_components(tmp_path)
    kit = rules.load_components(components)
    assert [c["type"] for c in kit.catalog()] == ["cup"] * 3 + ["plate"] * 2 + ["bowl"] * 2 + ["tray"] + ["gold"] * 2
    assert kit.rounds(2) == 2 and kit.rounds(3) == 1
    order = [3, 0, 7, 8, 5, 6, 4, 1, 2, 9]
    picks = [(3, True), (0, True), (7, True), (8, False),  # round 1, seats 0, 1, 1, 0
             (9, False), (6, True), (1, True), (4, True)]  # round 2, seats 1, 0, 0, 1
    repairs = [None, None,  # round 1: nothing to mend
               0, 1, None, None]  # round 2: seat 1 first, then seat 0
    game, script = play_both(2, order, picks, repairs, rounds=2, components=components)
    first, last = game.log
    assert (first["leftover"], first["deck_top"], first["broken"], first["free_repair"]) == (5, 6, [], False)
    # Round 2: the deck is empty, so only the leftover cup counts: both cups in collections break; the plates
    # and the bowl stay whole; the gold card dealt last does not count as showing.
    assert game.deck == []
    assert (last["leftover"], last["deck_top"]) == (2, None)
    assert last["broken"] == [0, 1]
    assert last["free_repair"] is False
    assert script.drafts == [0, 1, 1, 0, 1, 0, 0, 1]
    assert [seat for seat, _ in script.turns] == [0, 1, 1, 0, 1, 0]
    assert game.collections == [{3: INTACT, 6: INTACT, 1: REPAIRED}, {0: REPAIRED, 7: INTACT, 4: INTACT}]
    assert (game.ingots, game.supply) == ([2, 2], 2)
    assert reference.over(game)
    result = reference.final_result(game)
    # seat 0: a lone plate 0, a bowl 1, a repaired cup 3; seat 1: a repaired cup 3, a tray 2, a lone plate 0
    assert result.scores == [4, 5]
    assert result.winners == [1]

    params = rules.Params(players=2, components=components)
    played = reference.play(params, rules.Deal(np.array([order], np.int8)), Script(params, picks, repairs))
    assert reference.scores(played) == [4, 5]


# ---------------------------------------------------------------------------------------------- traces

TRACE_CASES = [
    (2, ["greedy", "random"], 0, {}),
    (3, ["collector", "banker", "hater@3"], 1, {}),
    (4, ["greedy-no-teapot", "collector-no-tea_jar", "hater", "random"], 2, {}),
    (3, ["greedy", "greedy", "banker-no-plate"], 3, {"supply_shortfall": "unlimited", "new_player_ingots": 1}),
    (2, ["hater", "collector"], 4, {"tie_items_count_broken": False}),
    (3, ["greedy", "collector", "hater"], 5, {"trays_boxes_patterned": False}),
]
ROUND_KEYS = {"first", "dealt", "deck_top", "picks", "leftover", "broken", "free_repair", "repairs", "ingots",
              "supply"}


@pytest.mark.parametrize(("players", "strategies", "seed", "overrides"), TRACE_CASES)
def test_trace_equals_the_engine_with_the_same_seed(players, strategies, seed, overrides) -> None:
    params = bb.make_params(players, overrides)
    record = json.loads(json.dumps(bb.trace(params, strategies, seed)))  # JSON-ready
    assert set(record) == {"game", "players", "seed", "strategies", "params", "catalog", "rounds", "final"}
    assert (record["game"], record["players"], record["seed"]) == ("broken_beautiful", players, seed)
    assert record["strategies"] == strategies
    assert record["params"] == {"players": players, "components": "", "supply_shortfall": "partial",
                                "new_player_ingots": 0, "tie_items_count_broken": True, "trays_boxes_patterned": True,
                                **overrides}
    assert record["catalog"] == params.kit.catalog()
    assert all(set(card) == {"id", "type", "pattern", "value"} for card in record["catalog"])
    rounds = KIT.rounds(players)
    assert len(record["rounds"]) == rounds
    for entry in record["rounds"]:
        assert set(entry) == ROUND_KEYS
        assert len(entry["picks"]) == 2 * players
        assert all(set(p) == {"seat", "card", "action", "ingots_gained"} for p in entry["picks"])
        assert all(set(r) == {"seat", "card", "cost"} for r in entry["repairs"])
    final = record["final"]
    assert set(final) == {"collections", "ingots", "points_by_type", "scores", "winners"}
    assert all(set(c) == {"card", "state"} for col in final["collections"] for c in col)
    assert all(set(p) == set(SCORED) for p in final["points_by_type"])
    assert final["scores"] == [sum(p.values()) for p in final["points_by_type"]]

    # The engine, given the same seed sequence, plays the very same game.
    rng = np.random.default_rng(seed)
    (order,) = rules.deal(params, rng, 1)
    played = play_recorded(params, order, [strategies], rng)
    draft = 2 * players + 1
    for r, entry in enumerate(record["rounds"]):
        assert entry["dealt"] == order[0, r * draft:(r + 1) * draft].tolist()
        assert [entry["dealt"][slot] for slot in played.picks[0, r]] == [p["card"] for p in entry["picks"]]
        assert [("keep" if k == KEEP else "sell") for k in played.keeps[0, r]] == [p["action"] for p in entry["picks"]]
        assert [int(c) for c in played.repairs[r][0] if c != C] == [rep["card"] for rep in entry["repairs"]]
    state = played.state
    collections_now = [[{"card": int(c), "state": rules.CONDITIONS[state.cond[0, c]]}
                        for c in np.flatnonzero(state.owner[0] == seat)] for seat in range(players)]
    assert collections_now == final["collections"]
    assert state.ingots[0].tolist() == final["ingots"] == record["rounds"][-1]["ingots"]
    assert int(state.supply[0]) == record["rounds"][-1]["supply"]
    assert [dict(zip(SCORED, p)) for p in played.points[0].tolist()] == final["points_by_type"]
    assert played.scores[0].tolist() == final["scores"]
    assert np.flatnonzero(played.win[0] > 0).tolist() == final["winners"]
    # The trace's choices, replayed through the reference, give the same scores.
    assert bb.rules.replay(record) == final["scores"]


def greedy_trace_with_repairs() -> dict:
    return next(r for seed in range(40) for r in [json.loads(json.dumps(bb.trace(bb.make_params(3, {}),
                                                                                ["greedy"] * 3, seed)))]
                if any(entry["repairs"] for entry in r["rounds"]) and any(
                    p["card"] in GOLD for entry in r["rounds"] for p in entry["picks"]))


def tamper_repair(record: dict) -> str:
    entry = next(entry for entry in record["rounds"] if entry["repairs"])
    card = next(c for c in range(C) if all(c not in e["dealt"] for e in record["rounds"]))  # never dealt
    entry["repairs"][0]["card"] = card
    return f"cannot repair card {card}"


def tamper_gold(record: dict) -> str:
    pick = next(p for entry in record["rounds"] for p in entry["picks"] if p["card"] in GOLD)
    pick["action"] = "keep"
    return f"gold card {pick['card']} must be sold"


def tamper_draft(record: dict) -> str:
    first, second = record["rounds"][0]["picks"][:2]
    second["card"] = first["card"]  # taken already
    return f"card {first['card']} is no longer in the drafting area"


def tamper_undealt(record: dict) -> str:
    card = next(c for c in range(C) if all(c not in e["dealt"] for e in record["rounds"]))
    record["rounds"][1]["picks"][0]["card"] = card
    return f"card {card} was not dealt in round 2"


def tamper_cost(record: dict) -> str:
    entry = next(entry for entry in record["rounds"] if entry["repairs"])
    entry["repairs"][0]["cost"] += 1
    return "does not follow from its choices: repairs differ"


@pytest.mark.parametrize("tamper", [tamper_repair, tamper_gold, tamper_draft, tamper_undealt, tamper_cost])
def test_a_tampered_trace_does_not_replay(tamper) -> None:
    """Replay plays the trace's choices under the rules (the reference's own checks, not a strategy table's) and
    insists that the rounds it plays are the trace's."""
    record = greedy_trace_with_repairs()
    assert bb.rules.replay(record) == record["final"]["scores"]
    message = tamper(record)
    with pytest.raises(AtelierError, match=re.escape(message)):
        bb.rules.replay(record)


def test_narrate_tells_every_round_and_the_winners() -> None:
    record = bb.trace(rules.Params(players=3), ["greedy", "hater", "collector"], 5)
    text = bb.rules.narrate(record)
    assert text.count("\nRound ") == 6
    for r, entry in enumerate(record["rounds"], start=1):
        assert f"Round {r}: seat {entry['first']} holds the first player marker" in text
        for pick in entry["picks"]:
            assert f"seat {pick['seat']} drafts " in text
    assert text.count(" drafts ") == 6 * 6
    repairs = sum(len(entry["repairs"]) for entry in record["rounds"])
    assert text.count(" repairs ") == repairs
    winners = ", ".join(f"seat {s}" for s in record["final"]["winners"])
    assert text.rstrip().endswith(f"Winner(s): {winners}")
    lines = text.splitlines()
    final = lines.index("Final collections:")
    for seat, score in enumerate(record["final"]["scores"]):
        at = next(i for i in range(final, len(lines)) if lines[i].startswith(f"  seat {seat}: "))
        assert lines[at + 1].endswith(f"= {score}")


# ---------------------------------------------------------------------------------------------- strategies

ALL_BASES = ["random", "greedy", "collector", "banker", "hater"]


def test_strategy_names_parse() -> None:
    assert parse_strategy("hater@3") == ("hater", 3.0, None)
    assert parse_strategy("greedy-no-teapot") == ("greedy", None, TYPES.index("teapot"))
    assert parse_strategy("collector-no-tea_jar") == ("collector", None, TYPES.index("tea_jar"))
    assert parse_strategy("hater@1.5-no-vase") == ("hater", 1.5, TYPES.index("vase"))
    assert parse_strategy("banker-no-box") == ("banker", None, TYPES.index("box"))
    for base in ALL_BASES:
        assert parse_strategy(base) == (base, None, None)
        bb.check_strategy(f"{base}-no-cup")
    assert parse_strategy("hater@-2.5") == ("hater", -2.5, None)  # a negative margin spites even at a loss
    assert parse_strategy("hater@1e6")[1] == parse_strategy("hater@-1e6-no-cup")[1] * -1 == 1e6
    player = make_player("hater@3", seat=1, params=rules.Params(), games=slice(None), secret=None)
    assert (player.name, player.seat, player.players, player.knob, player.banned) == ("hater@3", 1, 3, 3.0, None)
    assert make_player("hater", seat=0, params=rules.Params(), games=slice(None), secret=None).knob == 2.0
    assert PLAYERS.make is make_player and PLAYERS.bench == "greedy" and set(ALL_BASES) <= set(PLAYERS.strategies)


@pytest.mark.parametrize(("name", "message"), [
    ("sneaky", "unknown Broken and Beautiful strategy 'sneaky'; known: random, greedy, collector, banker, hater"),
    ("sneaky-no-cup", "unknown Broken and Beautiful strategy 'sneaky-no-cup'"),
    ("greedy-no-spoon", "'greedy-no-spoon': no card type 'spoon'; types: cup, saucer"),
    ("greedy-no-gold", "no card type 'gold'"),  # gold is never kept anyway
    ("greedy@2", "'greedy' takes no knob, got 'greedy@2'"),
    ("hater@lots", "knob of 'hater@lots' must be a number"),
    ("hater@", "knob of 'hater@' must be a number"),
    ("greedy-no-", "'greedy-no-': no card type ''"),
    ("hater@inf", "knob of 'hater@inf' must be a number from -1e+06 to 1e+06"),
    ("hater@nan-no-cup", "knob of 'hater@nan' must be a number from -1e+06 to 1e+06"),
    ("hater@-inf", "knob of 'hater@-inf' must be a number from -1e+06 to 1e+06"),
    ("hater@1e300", "knob of 'hater@1e300' must be a number from -1e+06 to 1e+06"),
])
def test_unknown_strategies_raise_a_clear_error(name: str, message: str) -> None:
    with pytest.raises(AtelierError) as err:
        bb.check_strategy(name)
    assert message in str(err.value)


def snake_seats(players: int, rounds: int) -> np.ndarray:
    """(R, 2P) the seat of each pick, by the snake rule written out here."""
    return np.array([[(r + k) % players for k in range(players)] + [(r + k) % players for k in reversed(range(players))]
                     for r in range(rounds)])


def picked_cards(record: Record, players: int) -> np.ndarray:
    """(B, R, 2P) the card taken at each pick: the recorded slot of that round's dealt cards."""
    batch, rounds, _ = record.picks.shape
    draft = 2 * players + 1
    dealt = record.order[:, : rounds * draft].reshape(batch, rounds, draft)
    return np.take_along_axis(dealt, record.picks.astype(np.intp), axis=2)


def hero_lineups(hero: str, others: list[str], games: int, players: int, rng) -> tuple[np.ndarray, np.ndarray]:
    seat = np.arange(games) % players  # the hero sits in every seat equally often
    lineups = rng.choice(others, size=(games, players)).astype(object)
    lineups[np.arange(games), seat] = hero
    return lineups.astype(str), seat


def hero_games(hero: str, others: list[str], games: int, players: int, seed: int):
    """`games` games of the hero against the others at default rules: (the hero's seat, their Record)."""
    params, rng = rules.Params(players=players), np.random.default_rng(seed)
    (order,) = rules.deal(params, rng, games)
    lineups, seat = hero_lineups(hero, others, games, players, rng)
    return seat, play_recorded(params, order, lineups, rng)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_no_type_variants_never_keep_that_type(players: int) -> None:
    names = ["greedy-no-teapot", "collector-no-tea_jar", "random-no-cup", "banker-no-plate", "hater-no-bowl",
             "greedy-no-vase", "greedy-no-tray", "random-no-box", "collector-no-saucer", "greedy"]
    games = 300
    params = rules.Params(players=players)
    rng = np.random.default_rng(30 + players)
    (order,) = rules.deal(params, rng, games)
    lineups = rng.choice(names, size=(games, players))
    record = play_recorded(params, order, lineups, rng)
    cards = picked_cards(record, players)
    seats = snake_seats(players, KIT.rounds(players))
    kept_kind = np.where(record.keeps == KEEP, KIT.type[cards], -1)
    owned_kind = np.where(record.state.owner >= 0, KIT.type[np.arange(C)], -1)
    for name in names[:-1]:
        banned = TYPES.index(name.partition("-no-")[2])
        games_, seat_ = np.nonzero(lineups == name)
        assert len(games_) > 20
        by_name = lineups[np.arange(games)[:, None], seats.reshape(1, -1)].reshape(cards.shape) == name
        assert not (by_name & (kept_kind == banned)).any(), name
        for g, s in zip(games_, seat_):
            assert not ((record.state.owner[g] == s) & (owned_kind[g] == banned)).any(), name
    # The unrestricted greedy players do keep those types, so the check has teeth.
    greedy = lineups[np.arange(games)[:, None], seats.reshape(1, -1)].reshape(cards.shape) == "greedy"
    assert {TYPES.index(t) for t in ("teapot", "tea_jar", "cup", "plate", "bowl", "vase")} <= set(
        np.unique(kept_kind[greedy]).tolist())


@pytest.mark.parametrize("players", [2, 3, 4])
def test_banker_keeps_nothing_in_the_first_half_and_repairs_only_in_the_last_two_rounds(players: int) -> None:
    games = 240
    seat, record = hero_games("banker", ["greedy", "random", "hater"], games, players, 40 + players)
    rounds = KIT.rounds(players)
    is_banker = (snake_seats(players, rounds)[None] == seat[:, None, None])  # (B, R, 2P)
    first_half = np.arange(rounds) < rounds // 2  # rounds wholly in the first half
    assert not (record.keeps[:, first_half] == KEEP)[is_banker[:, first_half]].any()
    assert (record.keeps[:, ~first_half] == KEEP)[is_banker[:, ~first_half]].mean() > 0.3  # then it drafts
    # Repair turns: seat of step s in round r is (r + s) mod P.
    for r, choices in enumerate(record.repairs):
        turn_seat = (r + np.arange(choices.shape[1])) % players
        mine = turn_seat[None, :] == seat[:, None]
        if r < rounds - 2:
            assert (choices[mine] == C).all(), r
    late = np.concatenate([c[(np.arange(c.shape[1])[None] + r) % players == seat[:, None]]
                           for r, c in enumerate(record.repairs) if r >= rounds - 2])
    assert (late != C).any()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_greedy_beats_random(players: int) -> None:
    games = 600
    seat, record = hero_games("greedy", ["random"], games, players, 100 + players)
    share = record.win[np.arange(games), seat]
    # Win shares lie in [0, 1]: 4 standard errors above the fair share 1/P is far beyond chance.
    assert share.mean() - 4 * share.std(ddof=1) / np.sqrt(games) > 1 / players
    assert share.mean() > 1.5 / players
    assert np.allclose(record.win.sum(axis=1), 1)


class Crooked(Player):
    """Plays greedily, except for one decision where `bad(player, obs)` answers instead."""

    def __init__(self, name, decision, bad, **kwargs):
        super().__init__(name, **kwargs)
        self.decision, self.bad = decision, bad

    def draft(self, obs, rng):
        return self.bad(self, obs) if self.decision == "draft" else super().draft(obs, rng)

    def keep(self, obs, rng):
        return self.bad(self, obs) if self.decision == "keep" else super().keep(obs, rng)

    def repair(self, obs, rng):
        return self.bad(self, obs) if self.decision == "repair" else super().repair(obs, rng)


def _taken_slot(player, obs):
    legal = obs.legal[player.idx]
    return np.where((~legal).any(axis=1), (~legal).argmax(axis=1), legal.argmax(axis=1))


def _grab_gold(player, obs):
    legal = obs.legal[player.idx]
    gold = legal & (KIT.type[obs.draft[player.idx]] == TYPES.index("gold"))
    return np.where(gold.any(axis=1), gold.argmax(axis=1), legal.argmax(axis=1))


def _rows(player, obs):
    return len(obs.legal[player.idx])


BAD_CHOICES = {
    "draft a taken slot": ("draft", _taken_slot, r"draft choice \d in round 1 is not allowed by the rules"),
    "draft past the area": ("draft", lambda p, o: np.full(_rows(p, o), 7), r"outside 0\.\.6"),
    "draft float": ("draft", lambda p, o: np.zeros(_rows(p, o)), "must be"),
    "draft shape": ("draft", lambda p, o: np.zeros(_rows(p, o) + 1, np.int64), "must be"),
    "keep 2": ("keep", lambda p, o: np.full(_rows(p, o), 2), r"outside 0\.\.1"),
    "keep gold": ("keep", lambda p, o: np.full(_rows(p, o), KEEP),
                  r"keep choice 1 in round \d+ is not allowed by the rules"),
    "repair a card not on offer": ("repair", lambda p, o: (~o.legal[p.idx][:, :-1]).argmax(axis=1),
                                   r"repair choice \d+ in round \d+ is not allowed by the rules"),
    "repair past pass": ("repair", lambda p, o: np.full(_rows(p, o), C + 1), r"outside 0\.\.46"),
    "repair bool": ("repair", lambda p, o: np.zeros(_rows(p, o), bool), "must be"),
}


def crooked_factory(case: str):
    decision, bad, _ = BAD_CHOICES[case]

    def factory(name, *, seat, params, games, secret):
        if name != "crooked":
            return make_player(name, seat=seat, params=params, games=games, secret=secret)
        player = Crooked(name, decision, bad, seat=seat, params=params, games=games)
        if case == "keep gold":  # go for the gold cards, then try to keep them
            player.draft = lambda obs, rng: _grab_gold(player, obs)
        return player

    return factory


@pytest.mark.parametrize("case", list(BAD_CHOICES))
def test_illegal_choices_raise_illegal_move_naming_the_strategy(case: str) -> None:
    params = rules.Params(players=3)
    rng = np.random.default_rng(0)
    (order,) = rules.deal(params, rng, 6)
    lineups = np.array([["greedy", "crooked", "random"]] * 3 + [["greedy"] * 3] * 3)
    with pytest.raises(IllegalMove) as err:
        play_recorded(params, order, lineups, rng, crooked_factory(case))
    assert err.value.strategy == "crooked"
    assert "strategy 'crooked'" in str(err.value)
    assert re.search(BAD_CHOICES[case][2], str(err.value))


@pytest.mark.parametrize("case", list(BAD_CHOICES))
def test_reference_play_refuses_the_same_illegal_choices(case: str) -> None:
    params = rules.Params(players=3)
    rng = np.random.default_rng(1)
    (order,) = rules.deal(params, rng, 1)
    crooked = replace(PLAYERS, make=crooked_factory(case))
    table = Table(crooked, params, np.array([["greedy", "crooked", "random"]]), None)
    with pytest.raises(IllegalMove) as err:
        reference.play(params, rules.Deal(order), Asker(reference.question, table.choose, rng))
    assert err.value.strategy == "crooked"
    assert re.search(BAD_CHOICES[case][2], str(err.value))


@pytest.mark.parametrize(("phase", "bad", "refused"), [
    ("draft", lambda options: 7, "draft choice 7 in round 1"),
    ("draft", lambda options: -1, "draft choice -1 in round 1"),
    ("keep", lambda options: KEEP, "keep choice 1 in round 1"),  # of the gold card on top of the deck
    ("repair", lambda options: 0, "repair choice 0 in round 1"),  # nothing is broken yet
])
def test_reference_play_refuses_a_scripted_deciders_illegal_choice(phase: str, bad, refused: str) -> None:
    """The reference checks every decider's answer, not only a strategy table's."""
    params = rules.Params(players=2)
    one = rules.Deal(np.array([[GOLD[0], *(c for c in range(C) if c != GOLD[0])]], np.int8))

    def decider(game, asked: str, options: list[int]) -> int:
        if asked == phase and (phase != "keep" or options == [SELL]):
            return bad(options)
        return options[-1] if asked == "repair" else options[0]  # pass; the first open slot; sell

    with pytest.raises(IllegalMove, match=f"strategy 'reference' .*: {refused} is not allowed by the rules"):
        reference.play(params, one, decider)


def test_hater_margins_of_any_finite_size_play_legal_games() -> None:
    """Unlike Kintsugi's knobs, the hater's margin enters no exponential: the largest one allowed never spites, the
    most negative one always does, and both pick only open slots (the table raises IllegalMove otherwise)."""
    params = rules.Params(players=3)
    picks = {}
    for knob in ("1e6", "-1e6"):
        rng = np.random.default_rng(4)
        lineups = np.array([[f"hater@{knob}", "greedy", "random"]] * 30)
        record = play_recorded(params, rules.deal(params, rng, 30).order, lineups, rng)
        assert np.allclose(record.win.sum(axis=1), 1)
        picks[knob] = record.picks
    assert not np.array_equal(picks["1e6"], picks["-1e6"])


def test_hater_weighs_spite_against_its_own_gain_from_the_cards_still_on_offer() -> None:
    """A card another player took is no gain of the hater's: it does not hold the hater back from spiting."""
    hater = make_player("hater", seat=0, params=rules.Params(players=3), games=slice(None))
    hater.leader_gains = lambda view: np.array([[-np.inf, 5.0, 0.0]])  # slot 1 is worth 5 points to the leader
    view = SimpleNamespace(open=np.array([[False, True, True]]), now=np.array([10.0]))
    keep = np.array([[30.0, 11.0, 12.0]])  # slot 0, taken, would have been worth 20 points to the hater
    value = hater.draft_value(view, keep, keep - 1, np.random.default_rng(0))
    assert value.argmax() == 1  # its best gain on offer, 2 points, plus the margin of 2 is less than 5: it spites


def test_legal_strategies_play_both_engines_without_complaint() -> None:
    # The same factory with no crooked player plays whole games: the errors above come from the bad choices.
    params = rules.Params(players=3)
    rng = np.random.default_rng(2)
    record = play_recorded(params, rules.deal(params, rng, 4).order, np.array([["greedy", "random", "hater"]] * 4),
                           rng, crooked_factory("keep gold"))
    assert np.allclose(record.win.sum(axis=1), 1)


def test_cup_pairing_follows_the_values_when_an_unbroken_cup_is_worth_more(tmp_path: Path) -> None:
    # A variant where an unbroken cup is worth 3 and a repaired one 1: the saucer (x2) goes with the unbroken
    # cup, 3 x 2 + 1 = 7 points, of which the saucer adds 3.
    path = tmp_path / "cups.toml"
    path.write_text(rules.DEFAULT_COMPONENTS.read_text().replace("cup = [1, 3]", "cup = [3, 1]"))
    params = rules.Params(players=2, components=str(path))
    held = collections(["cup:r", "cup", "saucer"], [])
    game = reference.Game(params, [], held, [0, 0], params.kit.supply)
    assert {k: v for k, v in reference.points_by_type(game, 0).items() if v} == {"cup": 4, "saucer": 3}
    by_type = engine.standing(params, engine_state(params, held, [0, 0], 0))[0]
    assert (by_type[0, 0, rules.CUP], by_type[0, 0, rules.SAUCER]) == (4, 3)


@pytest.mark.parametrize(("change", "message"), [
    (("cup = { count = 6", "cup = { count = 90"), "at most 127 cards"),
    (("cup = [1, 3]", "cup = [1]"), "cup and saucer as \\[unbroken, repaired\\]"),
    (("vase = [0, 1, 5, 15]", "vase = []"), "at least one vase entry"),
])
def test_components_beyond_what_the_engine_can_hold_are_refused(tmp_path: Path, change, message) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(rules.DEFAULT_COMPONENTS.read_text().replace(*change))
    with pytest.raises(AtelierError, match=message):
        rules.load_components(str(path))


# ------------------------------------------------------------- the engine against the reference, game by game
# The engine plays batches with mixed lineups; each game is replayed through the reference with the engine's
# choices (tests/playback.py, the replay tests/test_differential.py runs for every game: the same questions with
# exactly the engine's legal masks, the same standings). Here the game's own checks: at each question the
# reference shows the same table as the engine did (its `question`), passing a repair is always allowed, and the
# replays go through the rules that matter many times; at the end the same owner and condition of every card,
# ingots, supply, points by type, repaired items and items. The reference derives legality from the rules (the
# drafting area; gold cannot be kept; the affordable broken cards) and scores with its own code.
# The helpers Record, Recorder and play_recorded are the scripted tests' (above) too.

POOL = np.array(["random", "greedy", "collector", "banker", "hater", "hater@3", "greedy-no-teapot",
                 "collector-no-tea_jar", "random-no-cup", "banker-no-plate"])


class Record(NamedTuple):
    """A finished batch: every decision in order (to replay it), the choices by kind and the final standing."""

    order: np.ndarray  # (B, C) the deck
    decisions: list  # (Decision, (B,) choices) in the order they were asked
    picks: np.ndarray  # (B, R, 2P) drafting-area slot taken at each pick
    keeps: np.ndarray  # (B, R, 2P) KEEP or SELL
    repairs: list  # per round, (B, S) card repaired at each repair turn, C = pass (also where not asked)
    state: engine.State  # the final state
    points: np.ndarray  # (B, P, len(SCORED))
    scores: np.ndarray  # (B, P)
    repaired: np.ndarray  # (B, P) repaired items
    items: np.ndarray  # (B, P) items in the collection (broken ones too, unless tie_items_count_broken is off)
    broken: np.ndarray  # (B, P) broken items
    rank: np.ndarray
    win: np.ndarray


class Recorder:
    """A `choose` callback that asks another one and notes every decision with the choices made."""

    def __init__(self, choose):
        self.choose, self.log = choose, []

    def __call__(self, decision: Decision, rng) -> np.ndarray:
        choice = self.choose(decision, rng)
        decision.observation.memo.clear()  # the strategies' scratch space: not needed to replay, and large
        self.log.append((decision, np.array(choice)))
        return choice


def record_of(params: rules.Params, order: np.ndarray, log: list, state: engine.State) -> Record:
    """The Record of a finished batch from the log of its decisions."""
    rounds, size = params.kit.rounds(params.players), params.kit.size
    by_kind: dict = {(kind, r): [] for kind in ("draft", "keep", "repair") for r in range(rounds)}
    for decision, choice in log:
        choice = np.where(decision.asked, choice, size) if decision.kind == "repair" else choice
        by_kind[decision.kind, decision.observation.round].append(choice)
    picks, keeps = (np.stack([np.stack(by_kind[kind, r], 1) for r in range(rounds)], 1).astype(np.int8)
                    for kind in ("draft", "keep"))
    repairs = [np.stack(by_kind["repair", r], 1).astype(np.int8) for r in range(rounds)]
    out = engine.outcome(params, state)
    points = np.stack([out.columns[f"points_{kind}"] for kind in SCORED], axis=2)
    return Record(order, log, picks, keeps, repairs, state, points, out.scores, out.columns["repaired"],
                  out.columns["items"], out.columns["broken"], out.rank, out.win)


def play_recorded(params: rules.Params, order: np.ndarray, lineups, rng: np.random.Generator, make=None) -> Record:
    """Play the games of `order` (B, C) to the end with the players seated as `lineups` (B, P); `make` replaces the
    catalogue's make_player (for scripted or crooked test players)."""
    catalogue = PLAYERS if make is None else dataclasses.replace(PLAYERS, make=make)
    recorder = Recorder(Table(catalogue, params, np.asarray(lineups), None).choose)
    state = play(engine, params, rules.Deal(order), recorder, rng)
    return record_of(params, order, recorder.log, state)


def play_mixed(params: rules.Params, games: int, seed: int, pool=POOL):
    rng = np.random.default_rng(seed)
    (order,) = rules.deal(params, rng, games)
    lineups = rng.choice(pool, size=(games, params.players))
    return lineups, play_recorded(params, order, lineups, rng)


def same_table(ours, theirs, g: int) -> None:
    """The reference's observation (a batch of one) shows game g's table as the engine's did."""
    assert (ours.round, ours.first, ours.seat, ours.rounds_left) == (theirs.round, theirs.first, theirs.seat,
                                                                       theirs.rounds_left)
    assert np.array_equal(ours.owner[0], theirs.owner[g])
    held = ours.owner[0] >= 0
    assert np.array_equal(ours.cond[0][held], theirs.cond[g][held])
    assert ours.ingots[0].tolist() == theirs.ingots[g].tolist()
    assert int(ours.supply[0]) == int(theirs.supply[g])
    assert int(ours.deck_top[0]) == int(theirs.deck_top[g])
    assert ours.draft[0].tolist() == theirs.draft[g].tolist()
    assert ours.open[0].tolist() == theirs.open[g].tolist()
    assert int(ours.card[0]) == int(theirs.card[g])
    assert ours.repairs[0].tolist() == theirs.repairs[g].tolist()
    assert bool(ours.free[0]) == bool(theirs.free[g])


def observed(decision: Decision):
    """What the replay keeps of each engine question: its observation, without the strategies' scratch space."""
    decision.observation.memo.clear()
    return decision.observation


class Watch:
    """A Replay's watch for game g: the table each question shows, and counts of the rules the replay went
    through."""

    def __init__(self, params: rules.Params, g: int):
        self.params, self.g, self.size = params, g, params.kit.size
        self.turns: dict[int, int] = {}  # repair turns asked per round
        self.stats = {"free": 0, "surcharged": 0, "long phases": 0, "short sale": 0, "negative supply": 0}

    def __call__(self, game: reference.Game, phase: str, options: list[int], decision: Decision, asked) -> None:
        ours, g = decision.observation, self.g
        assert ours.decision == decision.kind
        same_table(ours, asked.kept, g)
        self.stats["negative supply"] += int(ours.supply[0]) < 0
        choice, seat = int(asked.choice[g]), decision.seat
        if decision.kind == "keep" and choice == SELL:
            self.stats["short sale"] += int(ours.supply[0]) < self.params.kit.value[ours.card[0]]
        if decision.kind == "repair":
            assert decision.legal[0, -1]  # passing is always allowed
            self.turns[ours.round] = self.turns.get(ours.round, 0) + 1
            if choice != self.size:
                done = int(ours.repairs[0, seat])
                self.stats["free"] += bool(ours.free[0]) and done == 0
                self.stats["surcharged"] += done > 0

    def finish(self) -> None:
        """Repair phases end after a whole round of turns; count those that went on past a second one."""
        players = self.params.players
        for asked in self.turns.values():
            assert asked % players == 0
            self.stats["long phases"] += asked // players >= 3  # someone repaired in a second round of turns


def same_end(params: rules.Params, state: engine.State, outcome, g: int, game: reference.Game) -> None:
    """Game g's end in the engine is the reference's: every card's owner and condition, ingots, supply, points by
    type, repaired items and items."""
    result = reference.final_result(game)
    assert game.round == params.kit.rounds(params.players)
    for card in range(params.kit.size):
        owner = next((s for s, col in enumerate(game.collections) if card in col), -1)
        assert state.owner[g, card] == owner, (g, card)
        if owner >= 0:
            assert state.cond[g, card] == game.collections[owner][card], (g, card)
    assert state.ingots[g].tolist() == game.ingots, g
    assert int(state.supply[g]) == game.supply, g
    points = np.stack([outcome.columns[f"points_{kind}"][g] for kind in SCORED], axis=1)
    assert [dict(zip(SCORED, p)) for p in points.tolist()] == result.points, g
    assert outcome.columns["repaired"][g].tolist() == result.repaired, g
    assert outcome.columns["items"][g].tolist() == result.items, g


def replay_mixed(params: rules.Params, games: int, seed: int, pool=POOL):
    """A batch of mixed lineups played by the engine and replayed game by game through the reference; the lineups,
    the Recorder and the counts of the rules the replays went through."""
    rng = np.random.default_rng(seed)
    deal = rules.deal(params, rng, games)
    lineups = rng.choice(pool, size=(games, params.players))
    watches: dict[int, Watch] = {}

    def watch(g: int) -> Watch:
        watches[g] = Watch(params, g)
        return watches[g]

    def check(state, outcome, g, game):
        watches[g].finish()
        same_end(params, state, outcome, g, game)

    _, recorder = playback.against_reference("broken_beautiful", params, deal, lineups, rng, check, keep=observed,
                                             watch=watch)
    totals = {key: sum(w.stats[key] for w in watches.values()) for key in Watch(params, 0).stats}
    return lineups, recorder, {**totals, "games": len(watches)}


@pytest.mark.parametrize(("players", "games", "seed"), [(2, 700, 1), (3, 700, 2), (4, 700, 3)])
def test_engine_agrees_with_reference_decision_by_decision(players: int, games: int, seed: int) -> None:
    params = rules.Params(players=players)
    lineups, recorder, stats = replay_mixed(params, games, seed)
    assert set(lineups.ravel()) == set(POOL)
    assert (lineups != lineups[:, :1]).any(axis=1).mean() > 0.8  # most games mix strategies
    rounds = params.kit.rounds(players)
    asked = Counter((question.kind, question.kept.round) for question in recorder.log)
    assert all(asked["draft", r] == asked["keep", r] == 2 * players and asked["repair", r] for r in range(rounds))
    assert stats["games"] == games
    # The replay went through the rules that matter, many times.
    assert stats["free"] > 20 and stats["surcharged"] > 20 and stats["long phases"] > 20
    assert stats["short sale"] > 0
    assert stats["negative supply"] == 0


def test_unlimited_supply_and_new_player_ingots_agree_with_reference() -> None:
    params = rules.Params(players=3, supply_shortfall="unlimited", new_player_ingots=1)
    _, _, stats = replay_mixed(params, 300, 7)
    assert stats["games"] == 300
    assert stats["negative supply"] > 0  # the bank did pay beyond its ingots
    assert stats["free"] > 0 and stats["surcharged"] > 0


def test_a_deck_that_runs_out_agrees_with_reference(tmp_path: Path) -> None:
    """45 cards (one box fewer) at 4 players: five drafts of nine empty the deck before the last breakage."""
    text = rules.DEFAULT_COMPONENTS.read_text().replace("box = { count = 2", "box = { count = 1")
    path = tmp_path / "45.toml"
    path.write_text(text)
    params = rules.Params(players=4, components=str(path), tie_items_count_broken=False)
    assert params.kit.size == 45 and params.kit.rounds(4) == 5
    _, recorder, stats = replay_mixed(params, 200, 8)
    last_tops = [q.kept.deck_top for q in recorder.log if q.kind == "repair" and q.kept.round == 4]
    assert last_tops and all((top == -1).all() for top in last_tops)
    assert stats["games"] == 200


def test_trays_and_boxes_without_a_pattern_agree_with_reference_and_change_results() -> None:
    """trays_boxes_patterned off, replayed through the reference; then the final tables of a default batch scored
    both ways by both engines: without their pattern, trays and boxes take points from the teapots beside them,
    never add any, and some winners change."""
    plain = rules.Params(players=3, trays_boxes_patterned=False)
    assert replay_mixed(plain, 300, 11)[2]["games"] == 300
    _, played = play_mixed(rules.Params(players=3), 300, 11)
    by_type, _, _, _, _, win = engine.standing(plain, played.state)
    teapot = SCORED.index("teapot")
    assert np.array_equal(np.delete(by_type, teapot, 2), np.delete(played.points, teapot, 2))
    assert (by_type[..., teapot] <= played.points[..., teapot]).all()
    fewer = (by_type[..., teapot] < played.points[..., teapot]).any(axis=1)
    assert fewer.mean() > 0.3
    assert (win != played.win).any(axis=1).sum() > 0
    state = played.state
    for g in np.flatnonzero(fewer)[:40]:
        for params, points in ((plain, by_type[g]), (rules.Params(players=3), played.points[g])):
            held = [{c: int(state.cond[g, c]) for c in np.flatnonzero(state.owner[g] == seat)} for seat in range(3)]
            game = reference.Game(params, [], held, state.ingots[g].tolist(), int(state.supply[g]))
            assert [dict(zip(SCORED, p)) for p in points.tolist()] == reference.final_result(game).points, g


@pytest.mark.parametrize(("players", "overrides"), [(3, {}), (2, {"supply_shortfall": "unlimited"}), (4, {})])
def test_a_state_copied_in_round_2s_repair_phase_plays_on_to_the_same_game(players: int, overrides: dict) -> None:
    """The contract's promise for search players: a State is a value. Stepping a deep copy taken mid-game with
    the same choices ends in the same game as the uninterrupted run, and stepping it leaves the original as it
    was."""
    params = rules.Params(players=players, **overrides)
    _, whole = play_mixed(params, 200, 90 + players)
    choices = [c for _, c in whole.decisions]
    at = next(i for i, (d, _) in enumerate(whole.decisions) if d.kind == "repair" and d.observation.round == 1)
    state = engine.init(params, rules.Deal(whole.order))
    for choice in choices[:at]:
        state = engine.step(params, state, choice)
    assert (state.phase, state.round, state.turn) == ("repair", 1, 0)
    kept = copy.deepcopy(state)
    frozen = {f.name: copy.deepcopy(getattr(state, f.name)) for f in dataclasses.fields(state)}
    for start in (kept, state):
        current = start
        for (decision, choice) in whole.decisions[at:]:
            asked = engine.decision(params, current)
            assert (asked.kind, asked.seat) == (decision.kind, decision.seat)
            assert np.array_equal(asked.legal, decision.legal) and np.array_equal(asked.asked, decision.asked)
            current = engine.step(params, current, choice)
        assert engine.terminal(params, current)
        for field in ("owner", "cond", "ingots", "supply"):
            assert np.array_equal(getattr(current, field), getattr(whole.state, field)), field
        out = engine.outcome(params, current)
        assert np.array_equal(out.scores, whole.scores) and np.array_equal(out.win, whole.win)
        for f in dataclasses.fields(state):  # the copy's steps never touched the state it was copied from
            value = getattr(state, f.name)
            same = np.array_equal(value, frozen[f.name]) if isinstance(value, np.ndarray) else value == frozen[f.name]
            assert same, f.name


@pytest.mark.parametrize("stepped", [1, 2, 13, 30])  # mid-draft, at a keep, into the repairs, a later round
@pytest.mark.parametrize("overrides", [{"supply_shortfall": "unlimited"}, {"new_player_ingots": 3}])
def test_greedys_compiled_playout_plays_the_games_stepping_greedy_plays(stepped: int, overrides: dict) -> None:
    """engine.greedy_playout (Catalogue.fused) from wherever stepping left the games, under either supply rule and
    with ingots from the start (repairs afforded early): the State and the rng that stepping greedy players gives."""
    for players in (2, 3, 4):
        played_out = playback.assert_playout_is_stepping("broken_beautiful", bb.make_params(players, overrides),
                                                         stepped + players, stepped, strategy="greedy")
        assert (played_out.cond == REPAIRED).any()  # the greedy repairs were played, not only drafts
