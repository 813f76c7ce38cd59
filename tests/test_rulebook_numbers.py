"""The rulebooks' numbers for Kintsugi, Broken and Beautiful and Kaleido, written here as the rulebooks state them
(../shared/rules/), never copied from the code's tables: components, supply, rounds per player count, tiles per
player and the scoring tables, against the rules' data files, Params defaults and facts, and against games played.
"""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

import numpy as np
import pytest

from sim.registry import get_game

# Kintsugi, Components: "4 Pottery Color cards", "13 Fragment cards", each "four broken pottery fragments".
KINTSUGI_COLOUR_CARDS, KINTSUGI_FRAGMENT_CARDS, FRAGMENTS_PER_CARD = 4, 13, 4
# Broken and Beautiful, Components: 46 game cards (39 pottery, 3 gold, 2 serving trays, 2 storage boxes), 14 ingots.
BB_CARDS = {"pottery": 39, "gold": 3, "tray": 2, "box": 2}
BB_INGOTS = 14
BB_DRAFT = {2: 5, 3: 7, 4: 9}  # "two times the number of players, plus one (seven cards in a three-player game)"
BB_ROUNDS = {2: 46 // 5, 3: 46 // 7, 4: 46 // 9}  # "ends when you can no longer deal enough cards for a draft"
# Pottery Scores: cup 1 / repaired 3; a saucer multiplies a cup by 2 / repaired 3; each pair of plates 6, plus 2
# per repaired plate; each bowl worth the number of bowls, plus 1 per repaired bowl; the most tea jars 6, plus 1
# per repaired jar; one vase 1, two 5, three 15, plus 1 per repaired vase; a repaired teapot twice an unbroken one;
# a tray 2; a storage box its owner's ingots, at most 4.
BB_SCORING = {"cup": (1, 3), "saucer": (2, 3), "plate_pair": 6, "plate_repaired": 2, "bowl_repaired": 1,
              "tea_jar_most": 6, "tea_jar_repaired": 1, "vase_repaired": 1, "teapot_repaired": 2, "tray": 2,
              "box_cap": 4}
BB_VASES = {1: 1, 2: 5, 3: 15}
# Kaleido, Set-up and the Summary table: own-colour tiles (two of them score markers), boards and white tiles each;
# the 2-player variant takes the 4-player set-up with two colours, 4 white tiles and 4 boards each.
KALEIDO_SETUP = {3: (14, 2, 2), 4: (13, 2, 2), 5: (13, 2, 2)}
KALEIDO_TWO = {"colours": 2, "tiles": 13, "boards": 4, "whites": 4}
KALEIDO_SCORING = {"first": 8, "second": 4, "tie_pool": 12, "monochrome": 12}  # "12 points (8+4)"; "a single
KALEIDO_BOARDS_IN_BOX, KALEIDO_STARTING_BOARDS = 14, 2  # player earns 12"; 14 frames; "2 game boards" to start


def trace(name: str, players: int, seed: int) -> dict:
    spec = get_game(name)
    seated = [spec.players.bench] * players
    return spec.trace(spec.make_params(players, {}), seated, seed)


def test_kintsugi_deck_and_colours_are_the_rulebooks() -> None:
    rules = get_game("kintsugi").rules
    params = rules.make_params(3, {})
    cards = params.cards
    assert len(rules.facts(params)["colours"]) == KINTSUGI_COLOUR_CARDS
    assert rules.facts(params)["cards"] == len(cards) == KINTSUGI_FRAGMENT_CARDS
    assert cards[0].size == FRAGMENTS_PER_CARD
    turned = {frozenset(tuple(np.rot90(card, k).ravel()) for k in range(4)) for card in cards}
    assert len(turned) == KINTSUGI_FRAGMENT_CARDS  # "each depicts a unique arrangement", however turned
    assert {2, 3} <= set(rules.player_counts) and max(rules.player_counts) <= KINTSUGI_COLOUR_CARDS
    assert rules.lowest_wins  # "The player with the lowest score wins."


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_kintsugi_game_lays_every_card_but_the_start_and_each_seat_holds_its_own_colour(players: int) -> None:
    record = trace("kintsugi", players, players)
    assert len(record["placements"]) == KINTSUGI_FRAGMENT_CARDS - 1  # until no more cards remain
    assert len(set(record["colors"])) == players and set(record["colors"]) <= set(range(KINTSUGI_COLOUR_CARDS))
    assert len(record["guesses"]) == players


def test_broken_beautiful_components_and_scoring_are_the_rulebooks() -> None:
    rules = get_game("broken_beautiful").rules
    kit = rules.make_params(3, {}).kit
    kinds = Counter(kit.catalog()[c]["type"] for c in range(kit.size))
    pottery = sum(n for t, n in kinds.items() if t not in BB_CARDS)
    assert {"pottery": pottery, **{t: kinds[t] for t in ("gold", "tray", "box")}} == BB_CARDS
    assert kit.size == sum(BB_CARDS.values()) == 46
    assert kit.supply == BB_INGOTS
    scoring = kit.scoring._asdict()
    assert {key: scoring[key] for key in BB_SCORING} == BB_SCORING
    assert {n: scoring["vase"][n] for n in BB_VASES} == BB_VASES and scoring["vase"][0] == 0
    assert not rules.lowest_wins and rules.tie_breakers == ("repaired", "items")  # then "most items overall"
    for players in rules.player_counts:
        params = rules.make_params(players, {})
        assert params.kit.draft_size(players) == BB_DRAFT[players]
        assert rules.facts(params)["rounds"] == BB_ROUNDS[players]
        assert rules.facts(params)["supply"] == BB_INGOTS
        assert params.new_player_ingots == 0  # "New Player" takes an ingot: a switch, off by default


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_broken_beautiful_game_plays_the_rulebooks_rounds_and_keeps_its_14_ingots(players: int) -> None:
    record = trace("broken_beautiful", players, players)
    assert len(record["rounds"]) == BB_ROUNDS[players]
    for entry in record["rounds"]:
        assert len(entry["dealt"]) == BB_DRAFT[players] and len(entry["picks"]) == 2 * players
        assert sum(entry["ingots"]) + entry["supply"] == BB_INGOTS  # the default supply never runs dry here
    assert sum(record["final"]["ingots"]) <= BB_INGOTS


def test_kaleido_set_up_and_scoring_are_the_rulebooks() -> None:
    rules = get_game("kaleido").rules
    defaults = rules.make_params(3, {})
    assert {key: getattr(defaults, key) for key in KALEIDO_SCORING} == KALEIDO_SCORING
    for players, (tiles, boards, whites) in KALEIDO_SETUP.items():
        params = rules.make_params(players, {})
        facts = rules.facts(params)
        assert (facts["tiles_each"], facts["boards_each"], facts["whites_each"]) == (tiles - 2, boards, whites)
        assert len(facts["colours"]) == players
        assert len(facts["starting_boards"]) == KALEIDO_STARTING_BOARDS
        assert KALEIDO_STARTING_BOARDS + players * boards <= KALEIDO_BOARDS_IN_BOX
    two = rules.facts(rules.make_params(2, {}))
    assert len(two["colours"]) == 2 * KALEIDO_TWO["colours"]
    assert two["tiles_each"] == KALEIDO_TWO["colours"] * (KALEIDO_TWO["tiles"] - 2)
    assert (two["boards_each"], two["whites_each"]) == (KALEIDO_TWO["boards"], KALEIDO_TWO["whites"])


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_a_kaleido_game_places_every_tile_of_the_set_up(players: int) -> None:
    record = trace("kaleido", players, players)
    tiles, boards, whites = KALEIDO_SETUP[4 if players == 2 else players]
    colours = KALEIDO_TWO["colours"] if players == 2 else 1
    if players == 2:
        boards, whites = KALEIDO_TWO["boards"], KALEIDO_TWO["whites"]
    events = record["events"]
    placed = Counter(e["color"] for e in events if e["type"] == "tile" and not e["white"])
    assert not record["stalled"]
    assert placed == dict.fromkeys([c for seat in record["colors"] for c in seat], tiles - 2)
    for seat in range(players):
        assert len(record["colors"][seat]) == colours
        assert sum(e["type"] == "board" and e["seat"] == seat for e in events) <= boards
        assert sum(e["type"] == "tile" and e["white"] and e["seat"] == seat for e in events) <= whites
    if players == 2:  # "They cannot put 2 tiles of the same color successively."
        for seat in range(2):
            played = [e["color"] for e in events if e["type"] == "turn" and e["seat"] == seat]
            assert all(a != b for a, b in pairwise(played))
