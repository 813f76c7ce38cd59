"""Witkacy: the deck file and its checks, the set-up, and collections: the overlap rule, completed paintings,
Solvent and Gift, and scoring (rulebook ../shared/rules/witkacy.txt). Expected values are worked out by hand."""

from __future__ import annotations

import dataclasses
from collections import Counter
from pathlib import Path

import numpy as np
import playback
import pytest

from sim.errors import AtelierError, IllegalMove
from sim.game import Outcome, params_from, play
from sim.registry import get_game
from sim.witkacy import collection as col
from sim.witkacy import engine, rules
from sim.witkacy import reference as ref
from sim.witkacy.rules import CARDS, Params, fragment_code, fragment_name, load_deck
from strategies.common import Table


def test_the_default_deck_is_balanced_on_both_sides():
    cards = load_deck()
    assert cards.shape == (CARDS, 2, 2, 2)
    for side, quarters in ((0, (0, 1)), (1, (2, 3))):
        halves, loose = Counter(), Counter()
        for card in cards:
            grid = card[side]
            row = 0 if grid[0, 0] // 4 == grid[0, 1] // 4 else 1
            halves[grid[row, 0] // 4] += 1
            loose.update(grid[1 - row].tolist())
        assert halves == dict.fromkeys(range(5), 11)  # each painting's half 11 times
        assert loose == {4 * p + q: 11 for p in range(5) for q in quarters}  # each quarter 11 times outside halves


def test_fragments_are_written_painting_dot_quarter():
    assert fragment_code("A.UL") == 0 and fragment_code("E.LR") == 19
    assert [fragment_name(c) for c in (0, 5, 19)] == ["A.UL", "B.UR", "E.LR"]
    with pytest.raises(ValueError):
        fragment_code("F.UL")


def write_deck(tmp_path: Path, cards: list[tuple[list, list]]) -> str:
    path = tmp_path / "cards.toml"
    path.write_text("".join(f"[[card]]\nfront = {front}\nback = {back}\n\n" for front, back in cards)
                    .replace("'", '"'))
    return str(path)


def default_cards() -> list[tuple[list, list]]:
    return [([[fragment_name(c) for c in row] for row in card[0]], [[fragment_name(c) for c in row] for row in card[1]])
            for card in load_deck()]


@pytest.mark.parametrize(("change", "message"), [
    (lambda cards: cards[:54], "must hold 55 cards"),
    (lambda cards: [cards[0], *cards[:54]], "the same card twice"),
    (lambda cards: [([["A.UL", "A.UR"], ["B.LL", "C.UL"]], cards[0][1]), *cards[1:]], "only upper"),
    (lambda cards: [([["A.UL", "B.UR"], ["C.UL", "D.UR"]], cards[0][1]), *cards[1:]], "whole half"),
    (lambda cards: [([["A.UL", "A.UR"], ["A.UL", "C.UL"]], cards[0][1]), *cards[1:]], "two other paintings"),
    (lambda cards: [(cards[0][0], [["A.LL", "A.LR"], ["B.LL", "B.LR"]]), *cards[1:]], "whole half"),
    (lambda cards: [([["A.UL", "A.UR"], ["B.UL", "Q.UL"]], cards[0][1]), *cards[1:]], "malformed"),
])
def test_a_bad_deck_is_refused_in_one_line(tmp_path, change, message):
    path = write_deck(tmp_path, change(default_cards()))
    with pytest.raises(AtelierError, match=message):
        params_from(Params, 3, rules.PLAYER_COUNTS, {"deck": path})


def test_switches_take_only_their_readings():
    with pytest.raises(AtelierError, match="'rush_draw' must be 'deck' or 'any'"):
        params_from(Params, 3, rules.PLAYER_COUNTS, {"rush_draw": "top"})


@pytest.mark.parametrize("players", rules.PLAYER_COUNTS)
@pytest.mark.parametrize("start_distinct", ["painting", "half"])
def test_the_set_up_deals_every_card_once_and_keeps_starting_halves_apart(players, start_distinct):
    params = Params(players=players, start_distinct=start_distinct)
    deal = rules.deal(params, np.random.default_rng(players), 300)
    cards = params.cards
    for g in range(300):
        deck = deal.deck[g][deal.deck[g] >= 0].tolist()
        everything = deck + deal.start[g].tolist() + deal.hand[g].tolist() + deal.display[g].tolist()
        assert sorted(everything) == list(range(CARDS))  # every card exactly once
        shown = []
        for card in deal.start[g]:
            grid = cards[card, deal.up[g, card]]
            row = 0 if grid[0, 0] // 4 == grid[0, 1] // 4 else 1
            shown.append((grid[row, 0] // 4, int(deal.up[g, card])))
        key = [p for p, _ in shown] if start_distinct == "painting" else shown
        assert len(set(key)) == players  # no two starting collection cards show the same (half of a) painting
        log = [tuple(row) for row in deal.dealt[g].tolist() if row[0] >= 0]
        kept = [(seat, card) for seat, card, fate in log if fate == 0]
        assert kept == list(enumerate(deal.start[g].tolist()))
        assert [card for _, card, fate in log if fate == 1] == deal.hand[g].tolist()
        assert [seat for seat, _, fate in log if fate < 2] == sorted(list(range(players)) * 2)  # seat by seat
    backs = (deal.up == 1).sum(axis=1)  # 27 turned over, then the two display cards turned
    assert (np.abs(backs - CARDS // 2) <= 2).all()


def test_display_cards_show_the_side_that_was_face_down():
    params = Params(players=2)
    deal = rules.deal(params, np.random.default_rng(5), 50)
    for g in range(50):
        order = deal.shuffled[g].tolist()
        drawn = len([row for row in deal.dealt[g].tolist() if row[0] >= 0 and row[2] < 2])
        returned = len([row for row in deal.dealt[g].tolist() if row[0] >= 0 and row[2] == 2])
        if returned == 0:  # nothing went back: the display is the next two cards of the shuffled deck
            assert deal.display[g].tolist() == order[drawn : drawn + 2]
            assert deal.deck[g, 0] == order[drawn + 2]


# ---------------------------------------------------------------------------------------------- collections

F = rules.fragment_code


def card(front: list[list[str]], back: list[list[str]]) -> np.ndarray:
    return np.array([[[F(f) for f in row] for row in side] for side in (front, back)], np.int8)


# Hand-made cards (collections check no deck structure): X's front has A's upper half on top; Y's back has A's
# lower half on top; Z and W carry no half of A.
CARDS_BY_HAND = np.stack([
    card([["A.UL", "A.UR"], ["B.UL", "C.UR"]], [["D.LL", "D.LR"], ["B.LL", "C.LR"]]),  # X
    card([["E.UL", "E.UR"], ["B.UR", "D.UL"]], [["A.LL", "A.LR"], ["E.LL", "B.LR"]]),  # Y
    card([["C.UL", "C.UR"], ["D.UR", "E.UL"]], [["C.LL", "C.LR"], ["D.LR", "E.LL"]]),  # Z
    card([["B.UL", "B.UR"], ["E.UR", "A.UL"]], [["B.LL", "B.LR"], ["A.LR", "C.LL"]]),  # W
])
X, Y, Z, W = range(4)


def test_completion_across_two_cards_a_front_half_above_a_back_half():
    mine = [col.Placed(X, rules.FRONT, 0, 0), col.Placed(Y, rules.BACK, 1, 0)]  # Y on top, one row lower
    assert col.copies(mine, CARDS_BY_HAND) == [(0, 0, 0)]  # A, its upper-left quarter at (0, 0)
    assert col.copies_by_painting(mine, CARDS_BY_HAND) == [1, 0, 0, 0, 0]
    under = [col.Placed(Y, rules.BACK, 1, 0), col.Placed(X, rules.FRONT, 0, 0)]  # Y slid under X instead
    assert col.copies(under, CARDS_BY_HAND) == []  # X's bottom row covers A's lower half


def test_the_overlap_rule():
    base = [col.Placed(X, rules.FRONT, 0, 0)]
    one_cell = col.Placed(Z, rules.FRONT, 1, 1)  # shares (1, 1) only
    assert col.may_add(base, one_cell, advanced=False, correction=False)
    assert not col.may_add(base, one_cell, advanced=True, correction=False)  # the advanced variant wants 2
    assert col.may_add(base, col.Placed(Z, rules.FRONT, 1, 0), advanced=True, correction=False)  # shares 2
    assert not col.may_add(base, col.Placed(Z, rules.FRONT, 2, 0), advanced=False, correction=False)  # apart
    on_top = col.Placed(Z, rules.FRONT, 0, 0)  # entirely on (or, with z = 0, under) the collection
    assert not col.may_add(base, on_top, advanced=False, correction=False)
    assert col.may_add(base, on_top, advanced=False, correction=True)  # Correction allows it this turn
    spots = col.spots(base, advanced=False, correction=False)
    assert (1, 1) in spots and (0, 0) not in spots and (2, 0) not in spots
    assert (0, 0) in col.spots(base, advanced=False, correction=True)
    two = [col.Placed(X, rules.FRONT, 0, 0), col.Placed(Y, rules.FRONT, 0, 1)]
    between = col.added(two, col.Placed(Z, rules.FRONT, 1, 0), 1)  # over X, under Y
    assert (1, 0) in col.spots(two, False, False)
    assert list(col.depths(two, col.Placed(Z, rules.FRONT, 1, 0), CARDS_BY_HAND, keep=False)) == [0, 1, 2]
    shown = col.visible(between, CARDS_BY_HAND)
    assert shown[(1, 0)] == F("C.UL") and shown[(1, 1)] == F("B.UR")  # Z over X at (1, 0); Y over Z at (1, 1)


def test_covering_a_copy_destroys_it():
    mine = [col.Placed(X, rules.FRONT, 0, 0), col.Placed(Y, rules.BACK, 1, 0)]
    covering = col.Placed(Z, rules.FRONT, 0, -1)  # over (0, 0) and (1, 0)
    assert col.may_add(mine, covering, advanced=False, correction=False)  # one's own expansion may do it
    assert col.copies(col.added(mine, covering, 2), CARDS_BY_HAND) == []
    assert col.copies(col.added(mine, covering, 0), CARDS_BY_HAND) == [(0, 0, 0)]  # slid under: still complete


def test_solvent_and_gift_refuse_to_break_a_completed_painting():
    mine = [col.Placed(X, rules.FRONT, 0, 0), col.Placed(Y, rules.BACK, 1, 0)]
    assert list(col.removals(mine, CARDS_BY_HAND)) == []  # either card's removal breaks A
    three = [col.Placed(X, rules.FRONT, 0, 0), col.Placed(Y, rules.BACK, 1, 0), col.Placed(W, rules.BACK, 2, 1)]
    assert list(col.removals(three, CARDS_BY_HAND)) == [2]  # W holds no quarter of the copy
    assert list(col.removals([col.Placed(X, rules.FRONT, 0, 0)], CARDS_BY_HAND)) == []  # a collection keeps a card
    gifts = [(col.Placed(Z, rules.FRONT, *spot), z) for spot in col.spots(three, False, False)
             for z in col.depths(three, col.Placed(Z, rules.FRONT, *spot), CARDS_BY_HAND, keep=True)]
    assert gifts and all(set(col.copies(col.added(three, p, z), CARDS_BY_HAND)) >= {(0, 0, 0)} for p, z in gifts)
    assert (col.Placed(Z, rules.FRONT, 0, -1), 3) not in gifts  # it would cover A's upper-left quarter
    assert (col.Placed(Z, rules.FRONT, 0, -1), 0) in gifts  # slid under, it covers nothing that shows


def test_the_rulebook_scoring_example_in_the_engine():
    """The example's copies (Tomek A A B C, Ewa A B B C, Gabrysia A C D), scored by the batched engine's outcome:
    the table's "Number of paintings" row, Tomek 14, Ewa 13, Gabrysia 8, Tomek wins."""
    from sim.game import evolve
    from sim.witkacy import engine

    tomek, ewa, gabrysia = [2, 1, 1, 0, 0], [1, 2, 1, 0, 0], [1, 0, 1, 1, 0]
    assert [a + b + c for a, b, c in zip(tomek, ewa, gabrysia, strict=True)] == [4, 3, 3, 1, 0]  # A B C D E
    params = Params(players=3)
    state = engine.init(params, rules.deal(params, np.random.default_rng(0), 1))
    outcome = engine.outcome(params, evolve(state, copies=np.array([[tomek, ewa, gabrysia]], np.int8)))
    assert outcome.scores[0].tolist() == [14, 13, 8]
    assert outcome.rank[0].tolist() == [1, 2, 3] and outcome.win[0].tolist() == [1, 0, 0]
    assert outcome.columns["paintings"][0].tolist() == [4, 4, 3]


def test_ties_in_the_engine_go_to_more_paintings_then_are_shared():
    """End of the Game: "In case of a tie, the player who has more paintings in their Collection wins. If the tie
    remains, the players share the victory." """
    from sim.game import evolve
    from sim.witkacy import engine

    params = Params(players=3)
    state = engine.init(params, rules.deal(params, np.random.default_rng(0), 2))
    copies = np.array([[[0, 0, 1, 1, 0], [1, 0, 0, 0, 0], [1, 0, 0, 0, 0]],  # C + D, A, A: 2 points each
                       [[0, 0, 1, 0, 0], [0, 0, 0, 1, 0], [0, 0, 0, 0, 0]]], np.int8)  # C, D, nothing: 1, 1, 0
    outcome = engine.outcome(params, evolve(state, copies=copies))
    assert outcome.scores.tolist() == [[2, 2, 2], [1, 1, 0]]
    assert outcome.rank.tolist() == [[1, 2, 2], [1, 1, 3]]
    assert outcome.win.tolist() == [[1, 0, 0], [0.5, 0.5, 0]]


def test_the_rulebooks_numbers():
    """Contents of the Box, Card Appearance and Setup, as the rulebook states them."""
    cards = load_deck()
    assert len(cards) == 55  # "55 double-sided cards with picture fragments"
    for card in cards:  # "6 picture fragments": on each side a half of one painting and quarters of two others
        for grid in card:
            paintings = Counter((grid // 4).ravel().tolist())
            assert sorted(paintings.values()) == [1, 1, 2]
    # "20 action tokens: 4 white, 4 blue, 4 orange, 4 yellow and 4 green"; "Each player takes one token of each
    # colour": five actions, at most 4 players
    assert rules.ACTIONS == ("stash", "solvent", "correction", "gift", "rush")
    assert max(rules.PLAYER_COUNTS) == 4
    from sim.witkacy import engine

    params = Params(players=4)
    one = rules.deal(params, np.random.default_rng(3), 1)
    state = engine.init(params, one)
    assert state.tokens.sum() == 20 and state.tokens.shape == (1, 4, 5)
    # "each player receives two cards": one starts the collection, one is kept in hand
    assert state.size[0].tolist() == [1, 1, 1, 1] and (state.hand[0] >= 0).sum(axis=1).tolist() == [1, 1, 1, 1]
    # "turn two cards over from the top of the deck and place them beside it"
    assert (one.display[0] >= 0).sum() == 2 and len(set(one.display[0].tolist())) == 2
    # "divide the deck into roughly equal parts. Turn one of the parts over": 27 or 28 of 55 show their backs
    from sim.witkacy import api

    before = api.record(params, one, ref.play(params, one, RandomDecider(3)))["deck_before"]
    assert sum(side == "back" for _, side in before) in (27, 28)


def test_the_deck_places_the_halves_as_documented():
    """README: each painting's halves lie in the top row 6, 5, 6, 5 and 6 times (A to E) on fronts and on backs."""
    for side in (0, 1):
        on_top = Counter()
        for card in load_deck():
            grid = card[side]
            if grid[0, 0] // 4 == grid[0, 1] // 4:
                on_top[int(grid[0, 0] // 4)] += 1
        assert [on_top[p] for p in range(5)] == [6, 5, 6, 5, 6]


def test_the_rulebook_scoring_example():
    # Copies per painting A-E: Tomek A A B C, Ewa A B B C, Gabrysia A C D (the table is right: A, C and D).
    tomek, ewa, gabrysia = [2, 1, 1, 0, 0], [1, 2, 1, 0, 0], [1, 0, 1, 1, 0]
    assert col.score_counts([tomek, ewa, gabrysia]) == [14, 13, 8]
    assert col.winners([14, 13, 8], [4, 4, 3]) == [0]
    assert col.winners([10, 10, 8], [3, 4, 2]) == [1]  # a tie goes to the most completed paintings
    assert col.winners([10, 10, 8], [3, 3, 2]) == [0, 1]  # then it is shared


# ---------------------------------------------------------------------------------------------- whole games


class RandomDecider:
    """Random legal answers; an action a quarter of the time."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)

    def __call__(self, game, phase, options):
        if phase == "action":
            return self.action(options)
        return options[self.rng.integers(len(options))]

    def action(self, options):
        return options[1 + self.rng.integers(len(options) - 1)] if self.rng.random() < 0.25 else ref.NO_ACTION


@pytest.mark.parametrize("players", rules.PLAYER_COUNTS)
def test_a_game_ends_after_the_round_in_which_too_few_cards_are_left(players):
    params = Params(players=players)
    game = ref.new_game(params, rules.deal(params, np.random.default_rng(players), 1))
    decider, left = RandomDecider(players), []
    while not ref.over(game):
        ref.play_turn(game, decider)
        left.append(game.available())
    rounds = game.turn // players
    assert game.turn % players == 0  # every seat played as many turns
    assert min(left[: (rounds - 1) * players]) >= players  # enough cards after every turn of earlier rounds
    assert min(left[(rounds - 1) * players :]) < players  # too few at some point of the last round
    used = [t["action"]["kind"] for t in game.turns if t["action"]]
    assert all(used.count(kind) <= players for kind in rules.ACTIONS)  # each token once per player
    points, paintings = col.scores(game.collections, game.cards)
    counts = [col.copies_by_painting(c, game.cards) for c in game.collections]
    assert points == col.score_counts(counts) and paintings == [sum(c) for c in counts]


class Plain(RandomDecider):
    """Random answers and no actions: each turn draws exactly one card."""

    def action(self, options):
        return ref.NO_ACTION


def test_the_end_condition_counts_deck_and_display_or_the_deck_only():
    for end_count, last in (("deck_and_display", True), ("deck", True)):
        params = Params(players=3, end_count=end_count)
        game = ref.new_game(params, rules.deal(params, np.random.default_rng(0), 1))
        game.deck = game.deck[:2]  # 2 in the deck, 2 in the display
        assert (game.available() < 3) == (end_count == "deck")
        decider = Plain(0)
        ref.play_turn(game, decider)  # seat 0 draws one: 3 (or 1) left
        assert game.last_round == (end_count == "deck") and not ref.over(game)
        while not ref.over(game):
            ref.play_turn(game, decider)
        assert game.turn == 3 and game.last_round is last  # the round is finished, whoever noticed first


@pytest.mark.parametrize("players", rules.PLAYER_COUNTS)
def test_a_trace_replays_to_its_scores_from_its_set_up_alone(players):
    import json

    from sim.witkacy import api

    params = Params(players=players)
    one = rules.deal(params, np.random.default_rng(10 + players), 1)
    game = ref.play(params, one, RandomDecider(players))
    record = json.loads(json.dumps(api.record(params, one, game)))
    record.update(game="witkacy", players=players, seed=0, strategies=["random"] * players,
                  params=dataclasses.asdict(params))
    assert api.replay(record) == record["final"]["scores"]
    assert all(np.array_equal(a, b) for a, b in zip(api.deal_of(params, record), one, strict=True))  # the set-up
    # gives back the deal
    assert len(record["cards"]) == CARDS and len(record["deck_before"]) == CARDS
    drawn = [card for _, card, _, fate in record["dealt"]]
    if all(fate != "returned" for *_, fate in record["dealt"]):  # nothing went back: the deck's order, drawn
        assert drawn == [card for card, _ in record["deck_before"][: len(drawn)]]
    assert [c for c, _ in record["display"]] == [c for c, _ in record["deck_before"][len(drawn) : len(drawn) + 2]] \
        or any(fate == "returned" for *_, fate in record["dealt"])
    story = api.narrate(record)
    assert story.count("\nTurn ") == len(record["turns"]) and story.endswith(
        ", ".join(f"seat {s}" for s in record["final"]["winners"]))
    tampered = json.loads(json.dumps(record))
    tampered["turns"] = tampered["turns"][:-1]  # a turn missing: the rules ask for it
    with pytest.raises(IllegalMove):
        api.replay(tampered)


# ---------------------------------------------------------------------------------------------- bad players


def crooked_factory(kind: str, value: int):
    from strategies.witkacy import make_player

    def make(name, *, seat, params, games, secret):
        player = make_player("random" if name == "crooked" else name, seat=seat, params=params, games=games)
        if name == "crooked":
            setattr(player, kind, lambda obs, rng: np.full(len(obs.legal[games]), value))
            player.name = "crooked"
        return player

    return make


@pytest.mark.parametrize(("kind", "value", "detail"), [
    ("where", rules.WINDOW ** 2 - 1, "where choice 3248"),  # far below and right of any small collection
    ("z", rules.MAX_STACK, "z choice 55"),  # deeper than any collection at the start
    ("gift", 0, "gift choice 0"),  # to seat 0, the crooked player itself
    ("expand", 5, "expand choice 5"),  # the third hand card: hands hold two at most then
])
def test_a_strategy_that_answers_illegally_is_named_in_one_line(kind, value, detail):
    from playback import play_batch

    params = Params(players=2)
    deal = rules.deal(params, np.random.default_rng(1), 3)
    with pytest.raises(IllegalMove) as err:
        play_batch("witkacy", params, deal, np.array([["crooked", "random"]] * 3), np.random.default_rng(0),
                   crooked_factory(kind, value))
    assert err.value.strategy == "crooked" and detail in str(err.value) and "\n" not in str(err.value)


# ---------------------------------------------------------------------------------------------- the readings' switches


class Script:
    """Answers each question as `answers` says (an option, or a function of the options), else with the first
    option; keeps the options of every question asked."""

    def __init__(self, **answers):
        self.answers, self.asked = answers, {}

    def __call__(self, game, phase, options):
        self.asked[phase] = options
        want = self.answers.get(phase, options[0])
        want = want(options) if callable(want) else want
        return want if want in options else options[0]


def first_turn(params: Params, script: Script) -> ref.Game:
    game = ref.new_game(params, rules.deal(params, np.random.default_rng(2), 1))
    ref.play_turn(game, script)
    return game


@pytest.mark.parametrize("reading", ["any", "deck"])
def test_stash_draws_any_card_or_the_decks_top(reading):
    stash = 1 + rules.ACTIONS.index("stash")
    script = Script(search=rules.DECK, action=stash, stash_draw=0)
    game = first_turn(Params(players=2, stash_draw=reading), script)
    drew = game.turns[0]["action"]["drew"]
    if reading == "any":  # "Draw a card", as the Search: display slot 0 taken
        assert script.asked["stash_draw"] == [0, 1, rules.DECK] and drew["from"] == "display"
    else:  # the deck's top only, so the question is not asked
        assert "stash_draw" not in script.asked and drew["from"] == "deck"
    game.deck = []
    assert ref.drawable(game, reading) == [0, 1]  # with the deck empty, the display


@pytest.mark.parametrize("reading", ["display", "display_and_deck"])
def test_a_gift_takes_a_display_card_or_also_the_decks_top(reading):
    gift = 1 + rules.ACTIONS.index("gift")
    script = Script(search=rules.DECK, action=gift, gift=lambda options: options[-1])  # the last: the deck if allowed
    params = Params(players=2, gift_from=reading)
    game = ref.new_game(params, rules.deal(params, np.random.default_rng(2), 1))
    deck, display = list(game.deck), list(game.display)
    ref.play_turn(game, script)
    offered = {option % 6 // 2 for option in script.asked["gift"]}  # the sources offered
    action = game.turns[0]["action"]
    if reading == "display":
        assert offered == {0, 1} and action["slot"] == 1 and "from" not in action
        assert game.deck == deck[2:] and game.display == [display[0], deck[1]]  # slot 1 refilled from the deck
    else:
        assert offered == {0, 1, rules.DECK} and action["from"] == "deck" and action["card"] == deck[1]
        assert game.deck == deck[2:] and game.display == display  # the search's card, then the gift's
    assert action["card"] in [p.card for p in game.collections[1]]


@pytest.mark.parametrize("reading", ["forced", "optional"])
def test_a_rush_plays_both_cards_or_may_keep_the_second(reading):
    rush = 1 + rules.ACTIONS.index("rush")
    script = Script(search=rules.DECK, action=rush, expand_again=rules.KEEP)
    game = first_turn(Params(players=2, rush_both=reading), script)
    if reading == "forced":
        assert rules.KEEP not in script.asked["expand_again"] and len(game.turns[0]["placements"]) == 2
        assert len(game.hands[0]) == 1  # both played, one drawn
    else:
        assert rules.KEEP in script.asked["expand_again"] and len(game.turns[0]["placements"]) == 1
        assert len(game.hands[0]) == 2  # one played, one kept, one drawn


def test_the_trace_deals_cards_as_drawn_and_tells_a_rush_in_order():
    """`dealt` gives each card's side as it was drawn (the side up in `deck_before`: nothing turns before the
    display), even for a card later turned over into the display; a Rush's draw is told after its placements."""
    from sim.registry import get_game
    from sim.witkacy import api

    record = get_game("witkacy").trace(Params(players=3), ["random", "completer", "saboteur"], 4)
    before = dict(record["deck_before"])
    assert all(side == before[card] for _, card, side, _ in record["dealt"])
    assert [2, 54, "front", "returned"] in record["dealt"] and [54, "back"] in record["display"]
    turns = api.narrate(record).split("\nTurn ")[1:]
    rushes = [turn.splitlines() for turn in turns if "uses Rush" in turn]
    assert rushes
    for lines in rushes:
        told = [line.split()[0] for line in lines[1:]]
        assert told[-3:] == ["adds", "adds", "ends"]


def test_lying_entirely_on_the_cards_is_judged_on_them_all_or_on_one_card():
    two = [col.Placed(X, rules.FRONT, 0, 0), col.Placed(Y, rules.FRONT, 0, 2)]  # side by side: cols 0 to 3 covered
    straddling = col.Placed(Z, rules.FRONT, 0, 1)  # all 4 cells covered, half on each card
    exactly = col.Placed(Z, rules.FRONT, 0, 2)  # in Y's very place
    for placed, by_all, by_one in ((straddling, False, True), (exactly, False, False)):
        assert col.may_add(two, placed, False, False, entirely="collection") is by_all
        assert col.may_add(two, placed, False, False, entirely="card") is by_one
        assert col.may_add(two, placed, False, True, entirely="card")  # Correction allows either
    assert (0, 1) in col.spots(two, False, False, "card") and (0, 1) not in col.spots(two, False, False)


# ------------------------------------------------------------- the engine against the reference, game by game
# The batched engine plays batches with the shipped strategies; every game is then replayed through the reference
# (tests/playback.py, the replay tests/test_differential.py runs for every game), which must ask the same questions
# with exactly the engine's legal options, and end here with the same collections (card, side, place, stack order),
# hands, display, deck, unused tokens, turns, scores and own columns. A trace must be the game the engine plays with
# the same seed.

witkacy = get_game("witkacy")
POOL = np.array(["random", "completer", "popular", "saboteur", "saboteur-no-rush", "completer-no-stash"])
CASES = [(2, 200, 1, {}), (3, 200, 2, {}), (4, 200, 3, {}),  # players, games, seed, Params: 720 games in all
         (3, 60, 4, {"advanced": True}),
         (3, 60, 5, {"rush_draw": "any", "end_count": "deck", "start_distinct": "half", "stash_draw": "deck",
                     "gift_from": "display_and_deck", "rush_both": "optional", "entirely": "card"})]


def same_game(state: engine.State, g: int, game: ref.Game, outcome: Outcome, row: int) -> None:
    """Game g of the engine's batch (its outcome's row `row`) is the reference's game: the same collections, hands,
    display (and the side each display card shows), deck (and each card's side up), tokens, turns; and the
    outcome's scores, ranks, wins and own columns are what the reference's collections give."""
    for owner, stack in enumerate(game.collections):
        assert state.stack[g, owner, : state.size[g, owner]].tolist() == [list(p) for p in stack], (g, owner)
    assert [[c for c in hand if c >= 0] for hand in state.hand[g].tolist()] == game.hands
    assert state.display[g].tolist() == [-1 if c is None else c for c in game.display]
    assert [state.up[g, c] for c in game.display if c is not None] == [game.up[c] for c in game.display
                                                                       if c is not None]
    assert state.deck[g, state.drawn[g]: state.drawn[g] + state.left[g]].tolist() == game.deck
    assert [state.up[g, c] for c in game.deck] == [game.up[c] for c in game.deck]
    assert state.tokens[g].tolist() == [[a in tokens for a in rules.ACTIONS] for tokens in game.tokens]
    assert state.turns[g] == game.turn and state.played[g].tolist() == game.played
    same_outcome(outcome, row, game)


def same_outcome(outcome: Outcome, row: int, game: ref.Game) -> None:
    """The outcome's row against the rulebook's End of the Game read off the reference's collections: the points
    and the completed paintings (its tie-breaker; the ranks and win shares that follow are checked by the replay,
    tests/playback.py), and every own column."""
    points, paintings = col.scores(game.collections, game.cards)
    players = len(points)
    assert outcome.scores[row].tolist() == points
    seats = slice(row * players, (row + 1) * players)
    columns = outcome.columns
    assert columns["paintings"][row].tolist() == paintings
    assert columns["copies_by_painting"][seats].to_list() == [col.copies_by_painting(c, game.cards)
                                                              for c in game.collections]
    assert columns["actions_used"][seats].to_list() == [[a not in tokens for a in rules.ACTIONS]
                                                        for tokens in game.tokens]
    assert columns["cards_played"][row].tolist() == game.played
    assert columns["turns"][row] == game.turn and columns["deck_left"][row] == len(game.deck)


def replay_agrees(params, deal, lineups: np.ndarray, rng: np.random.Generator, games: list | None = None):
    """Play the batch in the engine and every game through the reference, which must ask the same questions with
    the same options (the generic replay, tests/playback.py) and end in the same game, with the same standings and
    columns; the reference's games are added to `games`. Returns the engine's final State and the Recorder."""
    def check(state, outcome, g, game):
        same_game(state, g, game, outcome, g)
        if games is not None:
            games.append(game)

    return playback.against_reference("witkacy", params, deal, lineups, rng, check)


@pytest.mark.parametrize(("players", "games", "seed", "switches"), CASES)
def test_the_reference_offers_the_same_options_and_gives_the_same_scores(players, games, seed, switches):
    params = rules.Params(players=players, **switches)
    rng = np.random.default_rng(seed)
    deal = rules.deal(params, rng, games)
    lineups = rng.choice(POOL, size=(games, players))
    games_played = []
    state, recorder = replay_agrees(params, deal, lineups, rng, games_played)
    asked = {question.phase for question in recorder.log}
    if not switches:  # every question was asked (a draw after a Rush is a choice only once the deck is empty), and
        assert asked >= set(rules.PHASES) - {"rush_draw"}  # every action was used
        assert (~state.tokens).any(axis=(0, 1)).all()
    if switches.get("rush_draw") == "any":
        assert "rush_draw" in asked
    from_deck = kept = 0
    for game in games_played:
        from_deck += sum((t["action"] or {}).get("from") == "deck" for t in game.turns)
        kept += sum((t["action"] or {}).get("kind") == "rush" and len(t["placements"]) == 1 for t in game.turns)
    assert (from_deck > 0) == (switches.get("gift_from") == "display_and_deck")  # Gifts from the deck's top
    assert (kept > 0) == (switches.get("rush_both") == "optional")  # a Rush that keeps its second card


@pytest.mark.parametrize("players", rules.PLAYER_COUNTS)
def test_a_trace_is_the_game_the_engine_plays_and_replays_to_its_scores(players):
    lineup = list(POOL[[3, 1, 0, 2][:players]])
    params = witkacy.make_params(players, {})
    record = witkacy.trace(params, lineup, seed=40 + players)
    rng = np.random.default_rng(40 + players)
    deal = witkacy.rules.deal(params, rng, 1)
    state = play(engine, params, deal, Table(witkacy.players, params, np.array([lineup]), None).choose, rng)
    outcome = engine.outcome(params, state)
    assert outcome.scores[0].tolist() == record["final"]["scores"]
    assert np.flatnonzero(outcome.win[0]).tolist() == record["final"]["winners"]
    for owner, stack in enumerate(record["final"]["collections"]):
        assert [[p["card"], rules.SIDES.index(p["side"]), p["row"], p["col"]] for p in stack] \
            == state.stack[0, owner, : state.size[0, owner]].tolist()
    assert witkacy.rules.replay(record) == record["final"]["scores"]
