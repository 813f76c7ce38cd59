"""Witkacy: the deck file and its checks, and the set-up (rulebook ../shared/rules/witkacy.txt)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from sim.errors import AtelierError
from sim.game import params_from
from sim.witkacy import rules
from sim.witkacy.rules import CARDS, Params, fragment_code, fragment_name, load_deck


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
