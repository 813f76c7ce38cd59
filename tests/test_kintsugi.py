"""Kintsugi: the deck, the rulebook's scoring example, scripted boards, traces and the strategies.

Expected boards and piece counts below are worked out by hand from the rulebook and the card layouts in
sim/kintsugi/cards.toml, never copied from the code. Letters: B blue, Y yellow, W white, R red, '.' no card.
Reference coordinates put the starting card's top-left at (0, 0); an engine action is 4 * offset + rotation,
offsets (-1, -1), (-1, 1), (1, -1), (1, 1) from the previous card's top-left.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import independent
import numpy as np
import playback
import pytest
import twins
from playback import play_batch

from sim.errors import AtelierError, IllegalMove
from sim.game import Asker, Outcome
from sim.kintsugi import engine, reference, rules
from sim.kintsugi.reference import Placement
from sim.registry import get_game
from strategies.common import Table
from strategies.kintsugi import GUESSERS, POLICIES, make_player, parse_strategy, piece_deltas

kintsugi = get_game("kintsugi")
LETTERS = "BYWR"
N_CARDS = 13
# The action convention, written out here rather than read from rules.OFFSETS.
OFFSET_INDEX = {(-1, -1): 0, (-1, 1): 1, (1, -1): 2, (1, 1): 3}
OFFSET_OF = {index: offset for offset, index in OFFSET_INDEX.items()}


def action_for(previous: Placement, placement: Placement) -> int:
    """The engine action that lays a card as `placement` after `previous` (reference coordinates)."""
    offset = (placement.row - previous.row, placement.col - previous.col)
    return 4 * OFFSET_INDEX[offset] + placement.rotation


def placement_for(previous: tuple[int, int], action: int) -> Placement:
    dr, dc = OFFSET_OF[int(action) // 4]
    return Placement(int(previous[0]) + dr, int(previous[1]) + dc, int(action) % 4)


def one_deal(order, colors) -> rules.Deal:
    """The deal of one game (a batch of one) with this deck order and these seat colours."""
    return rules.Deal(np.array([order], np.int8), np.array([colors], np.int8))


def scripted(actions: list[int], guesses: list[int]):
    """A decider that lays the cards as the engine's `actions`, turn by turn, then names `guesses`, seat by seat."""
    return lambda game, phase, options: guesses[game.guessing] if phase == "guess" else actions[game.turn]


def full_order(prefix: list[int]) -> list[int]:
    """A whole deck from top to bottom that starts with `prefix`."""
    return prefix + [card for card in range(N_CARDS) if card not in prefix]


def engine_text(board: np.ndarray) -> str:
    """One engine board (H, W) cropped to its covered cells, in letters."""
    rows, cols = np.nonzero(board != engine.EMPTY)
    crop = board[rows.min() : rows.max() + 1, cols.min() : cols.max() + 1]
    return "\n".join("".join("." if v == engine.EMPTY else LETTERS[v] for v in line) for line in crop)


def board(text: str) -> str:
    return "\n".join(line.strip() for line in text.strip().splitlines())


# ---------------------------------------------------------------------------------------------- the deck


def test_conventions_match_the_documented_action_encoding() -> None:
    assert [tuple(o) for o in rules.OFFSETS] == [OFFSET_OF[i] for i in range(4)]
    assert rules.N_ACTIONS == 16
    for action in range(16):
        assert (rules.ACTION_OFFSET[action], rules.ACTION_ROTATION[action]) == (action // 4, action % 4)
    assert rules.COLORS == ("blue", "yellow", "white", "red")


def test_default_deck_meets_the_design_constraints() -> None:
    cards = rules.load_deck()
    assert cards.shape == (13, 2, 2)
    canonical = {min(tuple(np.rot90(card, k).ravel()) for k in range(4)) for card in cards}
    assert len(canonical) == 13, "two cards are the same under rotation"
    assert all(len(set(card.ravel())) > 1 for card in cards), "a card is a single colour"
    assert np.bincount(cards.ravel(), minlength=4).tolist() == [13, 13, 13, 13]
    assert np.array_equal(rules.Params().cards, cards)


def test_rotated_layouts_are_numpy_rot90_and_reference_rotate_agrees() -> None:
    cards = rules.load_deck()
    turned = rules.rotated_layouts(cards)
    for c, card in enumerate(cards):
        for k in range(4):
            assert np.array_equal(turned[c, k], np.rot90(card, k))
            assert reference.rotate(card.tolist(), k) == np.rot90(card, k).tolist()
    # one quarter turn counter-clockwise: the top-right fragment comes to the top-left
    assert reference.rotate([[0, 1], [2, 3]], 1) == [[1, 3], [0, 2]]


BAD_DECKS = {
    "invalid TOML": "[[card]\nlayout = [[0, 1], [2, 3]]\n",
    "no cards": "title = 'empty'\n",
    "card without layout": "[[card]]\nname = 'a'\n[[card]]\nname = 'b'\n",
    "card list not tables": "card = [1, 2]\n",
    "three columns": "[[card]]\nlayout = [[0, 1, 2], [2, 3, 1]]\n[[card]]\nlayout = [[0, 1, 2], [2, 3, 1]]\n",
    "ragged": "[[card]]\nlayout = [[0, 1], [2]]\n[[card]]\nlayout = [[0, 1], [2, 3]]\n",
    "colour 4": "[[card]]\nlayout = [[0, 1], [2, 4]]\n[[card]]\nlayout = [[0, 1], [2, 3]]\n",
    "colour -1": "[[card]]\nlayout = [[0, 1], [2, -1]]\n[[card]]\nlayout = [[0, 1], [2, 3]]\n",
    "colour names": "[[card]]\nlayout = [['b', 'y'], ['w', 'r']]\n[[card]]\nlayout = [[0, 1], [2, 3]]\n",
    "one card": "[[card]]\nlayout = [[0, 1], [2, 3]]\n",
    "fractional colour": "[[card]]\nlayout = [[0, 1.5], [2, 3]]\n[[card]]\nlayout = [[0, 1], [2, 3]]\n",
    "boolean colour": "[[card]]\nlayout = [[0, true], [2, 3]]\n[[card]]\nlayout = [[0, 1], [2, 3]]\n",
    "huge colour": "[[card]]\nlayout = [[0, 1], [2, 99999999999999999999]]\n[[card]]\nlayout = [[0, 1], [2, 3]]\n",
    "130 cards": "[[card]]\nlayout = [[0, 1], [2, 3]]\n" * 130,
}


@pytest.mark.parametrize("problem", sorted(BAD_DECKS))
def test_malformed_deck_files_raise_atelier_error(tmp_path: Path, problem: str) -> None:
    path = tmp_path / f"{problem.replace(' ', '_')}.toml"
    path.write_text(BAD_DECKS[problem])
    with pytest.raises(AtelierError, match="deck file"):
        rules.load_deck(str(path))
    with pytest.raises(AtelierError, match="deck file"):
        kintsugi.make_params(3, {"deck": str(path)})


def test_a_deck_beyond_the_largest_is_refused_and_the_largest_deals_each_card_once(tmp_path: Path) -> None:
    """Card ids are int8 and the board grows with the deck: MAX_CARDS is the documented limit."""
    assert rules.MAX_CARDS == 64
    path = tmp_path / "deck.toml"
    path.write_text("[[card]]\nlayout = [[0, 1], [2, 3]]\n" * 65)
    with pytest.raises(AtelierError) as err:
        kintsugi.make_params(3, {"deck": str(path)})
    assert str(err.value) == f"deck file {path} must list 2 to 64 cards, each a 2x2 layout"
    path.write_text("[[card]]\nlayout = [[0, 1], [2, 3]]\n" * 64)
    params = kintsugi.make_params(3, {"deck": str(path)})
    order, _ = rules.deal(params, np.random.default_rng(0), 200)
    assert (np.sort(order, axis=1) == np.arange(64)).all()


def test_unreadable_deck_files_raise_one_line(unreadable_file: tuple[Path, str]) -> None:
    path, problem = unreadable_file
    with pytest.raises(AtelierError) as err:
        kintsugi.make_params(3, {"deck": str(path)})
    assert str(err.value).startswith(f"deck file {path} {problem}") and "\n" not in str(err.value)


def test_missing_deck_file_raises_atelier_error(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.toml"
    with pytest.raises(AtelierError, match="does not exist"):
        rules.load_deck(str(missing))
    with pytest.raises(AtelierError, match="does not exist"):
        rules.Params(deck=str(missing)).validate()


def test_a_valid_alternative_deck_is_used(tmp_path: Path) -> None:
    path = tmp_path / "tiny.toml"
    path.write_text("[[card]]\nlayout = [[0, 1], [2, 3]]\n[[card]]\nlayout = [[3, 3], [3, 0]]\n"
                    "[[card]]\nlayout = [[1, 1], [1, 2]]\n")
    params = kintsugi.make_params(2, {"deck": str(path)})
    assert params.cards.tolist() == [[[0, 1], [2, 3]], [[3, 3], [3, 0]], [[1, 1], [1, 2]]]
    game = reference.new_game(params, one_deal([1, 0, 2], [0, 3]))
    reference.place(game, Placement(1, 1, 0))  # card 0 over the blue bottom-right of card 1
    reference.place(game, Placement(2, 2, 2))  # card 2 half turned over the red bottom-right of card 0
    assert game.over
    assert reference.board_text(game, mark_last=False) == board("""
        RR..
        RBY.
        .WWY
        ..YY""")
    assert reference.pieces(game) == [1, 1, 1, 1]  # yellow joins corner to corner


@pytest.mark.parametrize("overrides", [{"connectivity": 6}, {"connectivity": 0}])
def test_connectivity_must_be_4_or_8(overrides: dict) -> None:
    with pytest.raises(AtelierError, match="connectivity"):
        kintsugi.make_params(3, overrides)


# ---------------------------------------------------------------------------------------------- scoring


def test_rulebook_scoring_example_through_engine_and_reference() -> None:
    # Pieces: Blue 3, Yellow 2, White 2, Red 5. Seat 0 plays Blue, seat 1 Yellow (the opponent, to Blue's left).
    pieces = [3, 2, 2, 5]
    colors = [0, 1]
    guesses = [1, 2]  # Blue names Yellow (right); Yellow names White (wrong: Blue is seat 0's colour)
    out = engine.score(np.array([pieces]), np.array([colors], np.int8), np.array([guesses], np.int8))
    assert out.correct.tolist() == [[True, False]]
    assert out.scores.tolist() == [[1, 2]]  # Blue 3 - 2 = 1; Yellow 2 - 0 = 2
    assert out.rank.tolist() == [[1, 2]]
    assert out.win.tolist() == [[1.0, 0.0]]
    result = reference.settle(pieces, colors, guesses)
    assert result.correct == [True, False]
    assert result.scores == [1, 2]
    assert result.winners == [0]
    assert result.ranks == [1, 2]
    assert result.wins == [1.0, 0.0]


TIES = [
    # pieces by colour, colours by seat, guesses by seat -> scores, ranks, win shares
    ([1, 1, 3, 0], [0, 1, 2], [2, 0, 1], [1, 1, 3], [1, 1, 3], [0.5, 0.5, 0.0]),
    ([2, 2, 2, 2], [3, 0, 1, 2], [1, 2, 3, 0], [2, 2, 2, 2], [1, 1, 1, 1], [0.25] * 4),
    # seat 1 names seat 2's red (5 - 4 = 1) and ties seat 0; seat 2 keeps 4, seat 3 names nobody right
    ([1, 5, 3, 4], [0, 1, 3, 2], [3, 3, 1, 1], [1, 1, 4, 3], [1, 1, 4, 3], [0.5, 0.5, 0.0, 0.0]),
    # everyone names the neighbour right but seat 3: two seats tie at 0, the other two tie for third
    ([2, 2, 2, 4], [3, 0, 1, 2], [0, 1, 2, 1], [2, 0, 0, 2], [3, 1, 1, 3], [0, 0.5, 0.5, 0]),
]


@pytest.mark.parametrize(("pieces", "colors", "guesses", "scores", "ranks", "wins"), TIES)
def test_ties_share_the_victory_with_competition_ranks(pieces, colors, guesses, scores, ranks, wins) -> None:
    out = engine.score(np.array([pieces]), np.array([colors], np.int8), np.array([guesses], np.int8))
    assert out.scores.tolist() == [scores]
    assert out.rank.tolist() == [ranks]
    assert out.win.tolist() == [pytest.approx(wins)]
    result = reference.settle(pieces, colors, guesses)
    assert result.scores == scores
    assert result.ranks == ranks
    assert result.wins == pytest.approx(wins)
    assert result.winners == [s for s, w in enumerate(wins) if w > 0]


def test_ranks_below_zero_and_ties_behind_the_winner() -> None:
    # Seats 0..3 hold blue, yellow, white, red. Every seat names its left neighbour correctly.
    pieces = [1, 1, 1, 4]
    result = reference.settle(pieces, [0, 1, 2, 3], [1, 2, 3, 0])
    assert result.scores == [0, 0, -3, 3]
    assert result.ranks == [2, 2, 1, 4]
    assert result.winners == [2]
    pieces = [2, 2, 2, 1]
    result = reference.settle(pieces, [0, 1, 2, 3], [2, 0, 0, 1])  # all wrong
    assert result.scores == [2, 2, 2, 1]
    assert result.ranks == [2, 2, 2, 1]
    assert result.wins == [0, 0, 0, 1]


# ---------------------------------------------------------------------------------------------- scripted boards

# (order prefix, placements, connectivity, [(board after each placement, pieces B Y W R)])
SCRIPTS = {
    # Card 12 = [[B, W], [W, B]] alone: each colour is one piece corner to corner, two edge to edge.
    "corner joins, 8": ([12], [], 8, [("BW\nWB", [1, 0, 1, 0])]),
    "corner joins, 4": ([12], [], 4, [("BW\nWB", [2, 0, 2, 0])]),
    # Card 12 laid straight over the blue bottom-right of card 7 = [[B, Y], [W, B]]: blue and white each
    # join across the two cards only by corners.
    "across cards, 8": ([7, 12], [Placement(1, 1, 0)], 8,
                        [("BY\nWB", [1, 1, 1, 0]), ("BY.\nWBW\n.WB", [1, 1, 1, 0])]),
    "across cards, 4": ([7, 12], [Placement(1, 1, 0)], 4,
                        [("BY\nWB", [2, 1, 1, 0]), ("BY.\nWBW\n.WB", [3, 1, 3, 0])]),
    # Card 11 = [[Y, Y], [W, W]] covers the only blue of card 10 = [[B, R], [R, R]]: blue vanishes.
    "colour covered": ([10, 11], [Placement(-1, -1, 0)], 8,
                       [("BR\nRR", [1, 0, 0, 1]), ("YY.\nWWR\n.RR", [0, 1, 1, 1])]),
    # Start card 0 = [[B, W], [Y, R]]; card 5 = [[B, Y], [Y, R]] up-left turned once; card 9 = [[Y, W], [R, W]]
    # down-left turned twice; card 3 = [[B, R], [W, Y]] down-right turned three times, over card 5 too.
    "walk, 8": ([0, 5, 9, 3], [Placement(-1, -1, 1), Placement(0, -2, 2), Placement(1, -1, 3)], 8, [
        ("BW\nYR", [1, 1, 1, 1]),
        ("YR.\nBYW\n.YR", [1, 1, 1, 2]),
        (".YR.\nWRYW\nWYYR", [0, 1, 2, 2]),
        (".YR.\nWRYW\nWWBR\n.YR.", [1, 2, 2, 2]),
    ]),
    "walk, 4": ([0, 5, 9, 3], [Placement(-1, -1, 1), Placement(0, -2, 2), Placement(1, -1, 3)], 4, [
        ("BW\nYR", [1, 1, 1, 1]),
        ("YR.\nBYW\n.YR", [1, 2, 1, 2]),
        (".YR.\nWRYW\nWYYR", [0, 2, 2, 3]),
        (".YR.\nWRYW\nWWBR\n.YR.", [1, 3, 2, 4]),
    ]),
}


@pytest.mark.parametrize("name", list(SCRIPTS))
def test_scripted_boards_reference(name: str) -> None:
    prefix, placements, connectivity, expected = SCRIPTS[name]
    params = rules.Params(players=2, connectivity=connectivity)
    game = reference.new_game(params, one_deal(full_order(prefix), [0, 1]))
    for step, (text, pieces) in enumerate(expected):
        if step:
            reference.place(game, placements[step - 1])
        assert reference.board_text(game, mark_last=False) == text
        assert reference.pieces(game) == pieces


@pytest.mark.parametrize("name", list(SCRIPTS))
def test_scripted_boards_engine(name: str) -> None:
    prefix, placements, connectivity, expected = SCRIPTS[name]
    params = rules.Params(players=2, connectivity=connectivity)
    state = engine.init(params, rules.Deal(np.array([full_order(prefix)], np.int8), np.array([[0, 1]], np.int8)))
    origin = engine.origin(N_CARDS)
    previous = Placement(0, 0, 0)
    for step, (text, pieces) in enumerate(expected):
        if step:
            placement = placements[step - 1]
            state = engine.step(params, state, np.array([action_for(previous, placement)]))
            previous = placement
        assert engine_text(state.board[0]) == text
        assert state.pos[0].tolist() == [previous.row + origin, previous.col + origin]
        assert twins.count_pieces(state, connectivity)[0].tolist() == pieces


def test_board_text_marks_the_newest_card_in_lower_case() -> None:
    game = reference.new_game(rules.Params(players=2), one_deal(full_order([0, 5]), [0, 1]))
    assert reference.board_text(game) == "BW\nYR"  # the starting card is not a placement
    reference.place(game, Placement(-1, -1, 1))
    assert reference.board_text(game) == "yr.\nbyW\n.YR"


def test_placements_must_cover_exactly_one_fragment_of_the_previous_card() -> None:
    game = reference.new_game(rules.Params(players=2), one_deal(full_order([0, 5, 9]), [0, 1]))
    diagonal = {Placement(r, c, k) for r in (-1, 1) for c in (-1, 1) for k in range(4)}
    legal = reference.legal_placements(game)
    assert len(legal) == 16
    assert set(legal) == diagonal
    refused = {
        "two fragments (edge neighbour)": Placement(1, 0, 0),
        "two fragments (left)": Placement(0, -1, 2),
        "four fragments (same spot)": Placement(0, 0, 0),
        "four fragments, turned": Placement(0, 0, 3),
        "none (two cells away)": Placement(2, 2, 0),
        "none (two cells right)": Placement(0, 2, 1),
    }
    for what, placement in refused.items():
        with pytest.raises(IllegalMove, match="exactly one fragment"):
            reference.place(game, placement, who="tester")
        assert len(game.placements) == 1, what
    reference.place(game, Placement(-1, -1, 1))
    # Covering one fragment of an older card but none of the previous one is not allowed.
    with pytest.raises(IllegalMove, match="strategy 'tester'"):
        reference.place(game, Placement(1, 1, 0), who="tester")
    assert set(reference.legal_placements(game)) == {
        Placement(r, c, k) for r in (-2, 0) for c in (-2, 0) for k in range(4)
    }


def test_engine_legal_mask_allows_every_diagonal_candidate() -> None:
    params = rules.Params(players=3)
    rng = np.random.default_rng(3)
    order, colors = rules.deal(rules.Params(players=3), rng, 5)
    state = engine.init(params, rules.Deal(order, colors))
    for _ in range(4):
        mask = engine.legal_mask(state)
        assert mask.shape == (5, 16)
        assert mask.all()
        state = engine.step(params, state, rng.integers(0, 16, 5))


def test_deal_gives_permutations_and_distinct_colours() -> None:
    order, colors = rules.deal(rules.Params(players=4), np.random.default_rng(0), 200)
    assert (np.sort(order, axis=1) == np.arange(N_CARDS)).all()
    assert (np.sort(colors, axis=1) == np.arange(4)).all()  # 4 players hold all 4 colours
    order, colors = rules.deal(rules.Params(players=2), np.random.default_rng(1), 500)
    assert colors.shape == (500, 2)
    assert (colors[:, 0] != colors[:, 1]).all()
    assert set(np.unique(colors)) == {0, 1, 2, 3}
    assert len({tuple(row) for row in order}) == 500


# ---------------------------------------------------------------------------------------------- traces


def audit(record: dict) -> dict:
    """Re-score a trace with numpy.rot90 and the independent reading's flood fill: nothing from atelier."""
    cards = [np.array(card) for card in record["cards"]]
    previous = None
    table: dict[tuple[int, int], int] = {}
    moves = [record["start"], *record["placements"]]
    for move in moves:
        footprint = {(move["row"] + i, move["col"] + j) for i in (0, 1) for j in (0, 1)}
        if previous is not None:
            assert len(footprint & previous) == 1, "a placement must cover exactly one fragment"
        layout = np.rot90(cards[move["card"]], move["rotation"])
        for i in (0, 1):
            for j in (0, 1):
                table[move["row"] + i, move["col"] + j] = int(layout[i, j])
        previous = footprint
    pieces = independent.kintsugi_pieces(table, record["params"]["connectivity"])
    colors, guesses = record["colors"], record["guesses"]
    players = len(colors)
    scores = []
    for seat in range(players):
        left = (seat + 1) % players
        scores.append(pieces[colors[seat]] - (pieces[colors[left]] if guesses[seat] == colors[left] else 0))
    winners = [s for s in range(players) if scores[s] == min(scores)]
    return {"pieces": pieces, "scores": scores, "winners": winners, "cards": [m["card"] for m in moves]}


TRACE_CASES = [
    (2, ["greedy+bayes", "random+uniform"], 0, 8),
    (3, ["camouflage+tracker", "spoiler+bayes", "greedy+uniform"], 1, 8),
    (4, ["random+tracker", "camouflage@0.8+bayes@2", "spoiler@1.5+uniform", "greedy+tracker"], 2, 8),
    (3, ["greedy+bayes", "greedy+bayes", "random+tracker"], 3, 4),
    (2, ["spoiler+tracker", "camouflage+uniform"], 11, 4),
    (4, ["greedy+uniform", "greedy+uniform", "greedy+uniform", "greedy+uniform"], 7, 8),
]


@pytest.mark.parametrize(("players", "strategies", "seed", "connectivity"), TRACE_CASES)
def test_trace_matches_the_engine_and_an_independent_audit(players, strategies, seed, connectivity) -> None:
    params = rules.Params(players=players, connectivity=connectivity)
    record = json.loads(json.dumps(kintsugi.trace(params, strategies, seed)))  # JSON-ready
    assert set(record) == {"game", "players", "seed", "strategies", "params", "cards", "colors", "start",
                           "placements", "guesses", "pieces", "scores", "winners"}
    assert record["game"] == "kintsugi"
    assert (record["players"], record["seed"], record["strategies"]) == (players, seed, strategies)
    assert record["params"]["connectivity"] == connectivity
    assert record["cards"] == rules.load_deck().tolist()
    assert set(record["start"]) == {"card", "row", "col", "rotation"}
    assert (record["start"]["row"], record["start"]["col"], record["start"]["rotation"]) == (0, 0, 0)
    assert len(record["placements"]) == N_CARDS - 1
    for turn, move in enumerate(record["placements"]):
        assert set(move) == {"seat", "card", "row", "col", "rotation"}
        assert move["seat"] == turn % players
    assert len(record["pieces"]) == 4

    checked = audit(record)
    assert sorted(checked["cards"]) == list(range(N_CARDS))
    assert checked["pieces"] == record["pieces"]
    assert checked["scores"] == record["scores"]
    assert checked["winners"] == record["winners"]

    # The engine, given the same seed sequence, plays the very same game.
    rng = np.random.default_rng(seed)
    order, colors = rules.deal(rules.Params(players=players), rng, 1)
    played = play_batch("kintsugi", params, rules.Deal(order, colors), np.array([strategies]), rng)
    assert order[0].tolist() == checked["cards"]
    assert colors[0].tolist() == record["colors"]
    previous = (0, 0)
    for action, move in zip(played.of_kind("place")[0], record["placements"]):
        placement = placement_for(previous, action)
        assert placement == (move["row"], move["col"], move["rotation"])
        previous = placement[:2]
    out = played.outcome
    assert played.state.guesses[0].tolist() == record["guesses"]
    assert twins.count_pieces(played.state, params.connectivity)[0].tolist() == record["pieces"]
    assert out.scores[0].tolist() == record["scores"]
    assert np.flatnonzero(out.win[0] > 0).tolist() == record["winners"]


def test_narrate_tells_every_turn_and_the_winners() -> None:
    params = rules.Params(players=3)
    record = kintsugi.trace(params, ["greedy+bayes", "camouflage+tracker", "random+uniform"], 5)
    text = kintsugi.rules.narrate(record)
    for turn, move in enumerate(record["placements"], start=1):
        assert (f"Turn {turn}: seat {move['seat']} lays card {move['card']} at row {move['row']}, "
                f"col {move['col']}") in text
    assert text.count("Turn ") == N_CARDS - 1
    winners = ", ".join(f"seat {s}" for s in record["winners"])
    assert f"Winner(s): {winners}" in text
    for seat, score in enumerate(record["scores"]):
        assert f"seat {seat} {score}" in text
    for seat, colour in enumerate(record["colors"]):
        assert f"seat {seat} ({record['strategies'][seat]}) favours {rules.COLORS[colour]}" in text


def test_narrate_refuses_a_doctored_trace() -> None:
    record = kintsugi.trace(rules.Params(players=2), ["greedy+bayes", "random+uniform"], 9)
    first = record["placements"][0]
    first["row"], first["col"] = 2, 2  # no longer on the starting card
    with pytest.raises(IllegalMove, match="greedy\\+bayes"):
        kintsugi.rules.narrate(record)
    with pytest.raises(IllegalMove, match=r"strategy 'trace'.*exactly one fragment"):  # nor does the replay
        kintsugi.rules.replay(json.loads(json.dumps(record)))


SMALL_DECK = ["[[0, 1], [2, 3]]", "[[3, 3], [3, 0]]", "[[1, 1], [1, 2]]"]


@pytest.mark.parametrize("n_cards", [2, 3])
def test_the_smallest_decks_play_in_the_batched_engine_and_the_trace(tmp_path: Path, n_cards: int) -> None:
    """Boards of 2- and 3-card decks are narrower than the engine's usual window for counting pieces."""
    path = tmp_path / "deck.toml"
    path.write_text("".join(f"[[card]]\nlayout = {layout}\n" for layout in SMALL_DECK[:n_cards]))
    params = kintsugi.make_params(3, {"deck": str(path)})
    assert len(params.cards) == n_cards
    lineups = np.array([[ALL_STRATEGIES[(g + s) % len(ALL_STRATEGIES)] for s in range(3)] for g in range(24)])
    out = kintsugi.simulate(params, lineups, np.arange(24), np.random.SeedSequence(1), np.random.SeedSequence(2))
    order, colors = rules.deal(params, np.random.default_rng(1), 24)
    record = play_batch("kintsugi", params, rules.Deal(order, colors), lineups, np.random.default_rng(2))
    assert out["score"].tolist() == record.outcome.scores.ravel().tolist()
    pieces = twins.count_pieces(record.state, params.connectivity)
    for g in range(24):
        guesses = record.state.guesses[g].tolist()
        game = reference.play(params, rules.Deal(order[g : g + 1], colors[g : g + 1]),
                              scripted(record.of_kind("place")[g].tolist(), guesses))
        assert len(game.placements) == n_cards and game.guesses == guesses
        result = reference.final_result(game)
        assert (result.pieces, result.scores) == (pieces[g].tolist(), record.outcome.scores[g].tolist())
    trace = kintsugi.trace(params, list(lineups[0]), 3)
    assert len(trace["placements"]) == n_cards - 1
    checked = audit(trace)
    assert (checked["pieces"], checked["scores"]) == (trace["pieces"], trace["scores"])


# ---------------------------------------------------------------------------------------------- strategies

ALL_STRATEGIES = [f"{policy}+{guesser}" for policy in POLICIES for guesser in GUESSERS]


def test_strategy_names_parse_with_knobs() -> None:
    assert parse_strategy("camouflage@0.8+bayes@2") == (("camouflage", 0.8), ("bayes", 2.0))
    assert parse_strategy("greedy+uniform") == (("greedy", None), ("uniform", None))
    player = make_player("camouflage@0.8+bayes@2", seat=0, params=rules.Params(players=3), games=slice(None),
                         secret=np.array([1, 2]))
    assert (player.policy.knob, player.guesser.knob) == (0.8, 2.0)
    assert player.name == "camouflage@0.8+bayes@2"
    default = make_player("camouflage+bayes", seat=0, params=rules.Params(players=3), games=slice(None),
                          secret=np.array([1]))
    assert (default.policy.knob, default.guesser.knob) == (0.5, 1.0)
    for name in ALL_STRATEGIES:
        kintsugi.check_strategy(name)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("sneaky+bayes", "unknown Kintsugi policy 'sneaky'; known: random, greedy, camouflage, spoiler"),
        ("greedy+psychic", "unknown Kintsugi guesser 'psychic'; known: uniform, tracker, bayes"),
        ("camouflage@lots+bayes", "knob of 'camouflage@lots' must be a number"),
        ("spoiler@nan+bayes", "knob of 'spoiler@nan' must be a number from 0 to 100"),
        ("spoiler@inf+tracker", "knob of 'spoiler@inf' must be a number from 0 to 100"),
        ("camouflage@-0.5+bayes", "knob of 'camouflage@-0.5' must be a number from 0 to 100"),
        ("greedy+bayes@1e30", "knob of 'bayes@1e30' must be a number from 0 to 100"),
        ("greedy@3+bayes", "'greedy' takes no knob, got 'greedy@3'"),
        ("random+uniform@2", "'uniform' takes no knob, got 'uniform@2'"),
        ("greedy+bayes@x", "knob of 'bayes@x' must be a number"),
        ("greedy", "a player is POLICY+GUESSER"),
        ("greedy+bayes+tracker", "a player is POLICY+GUESSER"),
    ],
)
def test_unknown_strategies_raise_a_clear_error(name: str, message: str) -> None:
    with pytest.raises(AtelierError) as err:
        kintsugi.check_strategy(name)
    assert message in str(err.value)


@pytest.mark.parametrize("player", ["greedy+bayes@100", "spoiler@100+bayes@100", "camouflage@100+bayes@0"])
def test_guessers_at_the_ends_of_the_knob_range_never_name_their_own_colour(player: str) -> None:
    """A steep beta once overflowed the exponential, and the guess fell on any colour, the guesser's own too."""
    params = rules.Params(players=3)
    rng = np.random.default_rng(8)
    order, colors = rules.deal(rules.Params(players=3), rng, 300)
    played = play_batch("kintsugi", params, rules.Deal(order, colors), np.full((300, 3), player), rng)
    assert (played.state.guesses != colors).all()


class Misbehaving:
    """Plays legal moves until told to return `bad` as its placement or its guess."""

    def __init__(self, name: str, n: int, place_bad=None, guess_bad=None):
        self.name, self.n, self.place_bad, self.guess_bad = name, n, place_bad, guess_bad

    def place(self, obs, rng):
        return self.place_bad(self.n) if self.place_bad else np.zeros(self.n, np.int64)

    def guess(self, obs, rng):
        return self.guess_bad(self.n) if self.guess_bad else np.zeros(self.n, np.int64)


BAD_CHOICES = {
    "placement 16": ({"place_bad": lambda n: np.full(n, 16)}, "outside 0..15"),
    "placement -1": ({"place_bad": lambda n: np.full(n, -1)}, "outside 0..15"),
    "placement float": ({"place_bad": lambda n: np.full(n, 2.0)}, "must be"),
    "placement bool": ({"place_bad": lambda n: np.ones(n, bool)}, "must be"),
    "placement shape": ({"place_bad": lambda n: np.zeros(n + 1, np.int64)}, "must be"),
    "guess 4": ({"guess_bad": lambda n: np.full(n, 4)}, "outside 0..3"),
    "guess -1": ({"guess_bad": lambda n: np.full(n, -1)}, "outside 0..3"),
    "guess float": ({"guess_bad": lambda n: np.full(n, 1.5)}, "must be"),
    "guess list of str": ({"guess_bad": lambda n: ["red"] * n}, "must be"),
}


@pytest.mark.parametrize("case", list(BAD_CHOICES))
def test_illegal_choices_raise_illegal_move_naming_the_strategy(case: str) -> None:
    kwargs, detail = BAD_CHOICES[case]

    def factory(name, *, seat, params, games, secret):
        if name == "crooked":
            return Misbehaving(name, len(secret), **kwargs)
        return make_player(name, seat=seat, params=params, games=games, secret=secret)

    params = rules.Params(players=3)
    rng = np.random.default_rng(0)
    order, colors = rules.deal(rules.Params(players=3), rng, 6)
    lineups = np.array([["greedy+bayes", "crooked", "random+uniform"]] * 3 + [["greedy+bayes"] * 3] * 3)
    with pytest.raises(IllegalMove) as err:
        play_batch("kintsugi", params, rules.Deal(order, colors), lineups, rng, factory)
    assert err.value.strategy == "crooked"
    assert "strategy 'crooked'" in str(err.value)
    assert detail in str(err.value)


@pytest.mark.parametrize("case", list(BAD_CHOICES))
def test_reference_play_refuses_the_same_illegal_choices(case: str) -> None:
    kwargs, detail = BAD_CHOICES[case]

    def factory(name, *, seat, params, games, secret):
        return Misbehaving(name, len(secret), **kwargs)

    params = rules.Params(players=2)
    order, colors = rules.deal(params, np.random.default_rng(0), 1)
    table = Table(replace(kintsugi.players, make=factory), params, np.array([["crooked", "crooked"]]), colors)
    asker = Asker(reference.question, table.choose, np.random.default_rng(0))
    with pytest.raises(IllegalMove, match="strategy 'crooked'") as err:
        reference.play(params, rules.Deal(order, colors), asker)
    assert detail in str(err.value)


@pytest.mark.parametrize(("actions", "guesses", "refused"), [
    ([3] * 5 + [16] + [0] * 6, [1, 2], "place choice 16 at turn 5"),
    ([-1] + [0] * 11, [1, 2], "place choice -1 at turn 0"),
    ([0] * 12, [1, 4], "guess choice 4 by seat 1"),
    ([0] * 12, [-1, 0], "guess choice -1 by seat 0"),
])
def test_reference_play_refuses_a_scripted_deciders_illegal_choice(actions, guesses, refused) -> None:
    params = rules.Params(players=2)
    one = rules.deal(params, np.random.default_rng(0), 1)
    with pytest.raises(IllegalMove, match=f"strategy 'reference'.*{refused} is not allowed"):
        reference.play(params, one, scripted(actions, guesses))
    game = reference.play(params, one, scripted([0] * 12, [1, 2]))  # the same script, legal, plays to the end
    assert (game.over, game.guesses) == (True, [1, 2])


def test_observations_hide_secret_colours_and_the_deck() -> None:
    params = rules.Params(players=3)
    order, colors = rules.deal(rules.Params(players=3), np.random.default_rng(4), 3)
    state = engine.init(params, rules.Deal(order, colors))
    obs = engine.observe(params, state, 0)
    seen = {name for name in vars(obs) if not name.startswith("_")}
    assert seen == {"seat", "turn", "board", "pos", "offsets", "layouts", "spot", "rotation", "legal", "laid", "color",
                    "memo"}
    assert np.array_equal(obs.color, colors[:, 0]) and np.array_equal(obs.laid, order[:, :1])
    # The only card the player sees besides the table is the one in hand: the deck's second card.
    for g in range(3):
        for k in range(4):
            assert np.array_equal(obs.layouts[g, k], np.rot90(params.cards[order[g, 1]], k))
    # A seat not to move sees its own colour and the table, not the card in the mover's hand.
    watcher = engine.observe(params, state, 2)
    assert watcher.layouts is None and np.array_equal(watcher.color, colors[:, 2])
    # What every seat is shown of a placement leaves out the mover's colour.
    assert engine.decision(params, state).public.color is None


@pytest.mark.parametrize("connectivity", [8, 4])
def test_piece_deltas_agree_with_exact_counts(connectivity: int) -> None:
    params = rules.Params(players=3, connectivity=connectivity)
    rng = np.random.default_rng(20 + connectivity)
    agree = total = 0
    for turn in range(1, 12):
        batch = 60
        order, colors = rules.deal(rules.Params(players=3), rng, batch)
        state = engine.init(params, rules.Deal(order, colors))
        for _ in range(turn):
            state = engine.step(params, state, rng.integers(0, 16, batch))
        deltas = piece_deltas(engine.observe(params, state, state.turn % 3), connectivity)
        assert deltas.shape == (batch, 16, 4)
        before = twins.count_pieces(state, connectivity)
        for action in range(16):
            after = twins.count_pieces(engine.step(params, state, np.full(batch, action)), connectivity)
            agree += int((after - before == deltas[:, action]).sum())
            total += after.size
    assert agree / total >= 0.97


def lineups_with(hero: str, other: str, games: int, players: int) -> tuple[np.ndarray, np.ndarray]:
    seat = np.arange(games) % players  # the hero sits in every seat equally often
    lineups = np.full((games, players), other, dtype=object)
    lineups[np.arange(games), seat] = hero
    return lineups.astype(str), seat


@pytest.mark.parametrize("players", [2, 3, 4])
def test_greedy_beats_random(players: int) -> None:
    games = 1200
    params = rules.Params(players=players)
    rng = np.random.default_rng(100 + players)
    order, colors = rules.deal(rules.Params(players=players), rng, games)
    lineups, seat = lineups_with("greedy+uniform", "random+uniform", games, players)
    out = play_batch("kintsugi", params, rules.Deal(order, colors), lineups, rng).outcome
    share = out.win[np.arange(games), seat]
    # Shares are bounded by [0, 1]: 4 standard errors above the fair share 1/P is far beyond chance.
    assert share.mean() - 4 * share.std(ddof=1) / np.sqrt(games) > 1 / players
    assert np.allclose(out.win.sum(axis=1), 1)


def test_informed_guessers_beat_uniform_against_greedy_placers() -> None:
    games, players = 900, 3
    params = rules.Params(players=players)
    accuracy = {}
    for guesser in GUESSERS:
        rng = np.random.default_rng(7)
        order, colors = rules.deal(rules.Params(players=players), rng, games)
        out = play_batch("kintsugi", params, rules.Deal(order, colors), np.full((games, players),
                                                                               f"greedy+{guesser}"), rng).outcome
        assert (out.columns["guess"] != colors).all(), f"{guesser} named its own colour"
        accuracy[guesser] = out.columns["guess_correct"].mean()
    n = games * players
    se = np.sqrt(1 / 3 * 2 / 3 / n)
    assert abs(accuracy["uniform"] - 1 / 3) < 4 * se
    for guesser in ("tracker", "bayes"):
        assert accuracy[guesser] - 4 * np.sqrt(accuracy[guesser] * (1 - accuracy[guesser]) / n) > \
            accuracy["uniform"] + 4 * se, accuracy


# ------------------------------------------------------------- the engine against the reference, move by move
# The generic replay (tests/test_differential.py) plays each game through reference.play; here the engine and the
# reference are stepped side by side, so that the reference's own legality (cover exactly one fragment of the
# previous card), read through the documented action convention (OFFSET_OF), is compared with the engine's offset
# table at every turn, with the card in hand, the table and (after every placement) the pieces counted by its
# own flood fill, also for scripted walks no strategy plays.

ORIGIN = engine.origin(N_CARDS)


def to_placement(pos: np.ndarray, action: int) -> Placement:
    """An engine action for a game whose previous card lies at engine cell `pos`, in reference coordinates."""
    dr, dc = OFFSET_OF[int(action) // 4]
    return Placement(int(pos[0]) - ORIGIN + dr, int(pos[1]) - ORIGIN + dc, int(action) % 4)


def walk_extent(actions: np.ndarray) -> np.ndarray:
    """(B,) cells spanned by each game's cards along its wider axis, plus one empty cell each side."""
    steps = np.array([OFFSET_OF[i] for i in range(4)])[actions.astype(int) // 4]
    corners = np.concatenate([np.zeros((len(actions), 1, 2), int), np.cumsum(steps, axis=1)], axis=1)
    return (corners.max(axis=1) - corners.min(axis=1)).max(axis=1) + 4


def reference_board(game: reference.Game, shape: tuple[int, int]) -> np.ndarray:
    board = np.full(shape, engine.EMPTY, np.int8)
    for (row, col), colour in game.table.items():
        board[row + ORIGIN, col + ORIGIN] = colour
    return board


class Record(NamedTuple):
    """A finished batch: its deal, every placement and guess, and what the engine made of them."""

    order: np.ndarray
    colors: np.ndarray
    actions: np.ndarray  # (B, N - 1) placements
    guesses: np.ndarray  # (B, P)
    pieces: np.ndarray  # (B, 4) visible pieces of each colour
    correct: np.ndarray
    scores: np.ndarray
    rank: np.ndarray
    win: np.ndarray


def record_of(params: rules.Params, deal: rules.Deal, state: engine.State, actions: np.ndarray) -> Record:
    out = engine.outcome(params, state)
    return Record(*deal, actions, state.guesses, twins.count_pieces(state, params.connectivity),
                  out.columns["guess_correct"], out.scores, out.rank, out.win)


def play_mixed(players: int, games: int, seed: int, connectivity: int = 8):
    """A batch with lineups drawn per game and seat from every policy+guesser combination."""
    params = rules.Params(players=players, connectivity=connectivity)
    rng = np.random.default_rng(seed)
    deal = rules.deal(params, rng, games)
    lineups = rng.choice(ALL_STRATEGIES, size=(games, players))
    played = play_batch("kintsugi", params, deal, lineups, rng)
    return params, lineups, record_of(params, deal, played.state, played.of_kind("place"))


def replay(params: rules.Params, record: Record, every_turn_pieces: bool = False) -> list[reference.Game]:
    """Step the engine through the recorded actions beside one reference game per game, checking both agree
    on the legal placements and the previous card's position before every move."""
    batch, players = record.colors.shape
    state = engine.init(params, rules.Deal(record.order, record.colors))
    games = [reference.new_game(params, rules.Deal(record.order[g : g + 1], record.colors[g : g + 1]))
             for g in range(batch)]
    for turn in range(record.actions.shape[1]):
        obs = engine.observe(params, state, turn % players)
        mask = engine.legal_mask(state)
        assert np.array_equal(obs.legal, mask)
        assert obs.seat == turn % players
        hand = params.cards[record.order[:, turn + 1]]
        for k in range(4):
            assert np.array_equal(obs.layouts[:, k], np.rot90(hand, k, axes=(1, 2)))
        for g, game in enumerate(games):
            previous = game.placements[-1]
            assert (previous.row + ORIGIN, previous.col + ORIGIN) == tuple(state.pos[g]), (g, turn)
            engine_legal = {to_placement(state.pos[g], a) for a in np.flatnonzero(mask[g])}
            assert engine_legal == set(reference.legal_placements(game)), (g, turn)
            assert game.seat_to_move == obs.seat
            reference.place(game, to_placement(state.pos[g], record.actions[g, turn]))
        state = engine.step(params, state, record.actions[:, turn])
        if every_turn_pieces:
            counts = twins.count_pieces(state, params.connectivity)
            for g, game in enumerate(games):
                assert counts[g].tolist() == reference.pieces(game), (g, turn)
                assert np.array_equal(state.board[g], reference_board(game, state.board.shape[1:])), (g, turn)
    assert all(game.over for game in games)
    assert np.array_equal(twins.count_pieces(state, params.connectivity), record.pieces)
    for g, game in enumerate(games):
        assert np.array_equal(state.board[g], reference_board(game, state.board.shape[1:])), g
    return games


def check_outcome(out: Record, games: list[reference.Game]) -> None:
    """The reference's pieces, correct guesses and scores for each game (the ranks and win shares that follow:
    playback.assert_standings)."""
    for g, game in enumerate(games):
        game.guesses = out.guesses[g].tolist()
        result = reference.final_result(game)
        assert out.pieces[g].tolist() == result.pieces, g
        assert out.correct[g].tolist() == result.correct, g
        playback.assert_standings(kintsugi.rules, Outcome(out.scores, out.rank, out.win, {}), g, result.scores)


@pytest.mark.parametrize(("players", "games", "seed", "connectivity"),
                         [(2, 1000, 1, 8), (3, 1000, 2, 8), (4, 1000, 3, 8), (3, 500, 4, 4)])
def test_engine_agrees_with_reference_move_by_move(players: int, games: int, seed: int, connectivity: int) -> None:
    params, lineups, record = play_mixed(players, games, seed, connectivity)
    assert set(lineups.ravel()) == set(ALL_STRATEGIES)
    assert (lineups != lineups[:, :1]).any(axis=1).mean() > 0.8  # most games mix strategies
    assert record.actions.shape == (games, N_CARDS - 1)
    check_outcome(record, replay(params, record))


@pytest.mark.parametrize("connectivity", [8, 4])
def test_engine_agrees_with_reference_after_every_placement(connectivity: int) -> None:
    params, _, record = play_mixed(4, 150, 10 + connectivity, connectivity)
    check_outcome(record, replay(params, record, every_turn_pieces=True))


def test_random_walks_that_stretch_far_agree_with_reference() -> None:
    """Long straight walks take the engine's piece counting through its large-window path."""
    params = rules.Params(players=2)
    rng = np.random.default_rng(6)
    games = 120
    deal = rules.deal(params, rng, games)
    spots = np.where(rng.random((games, N_CARDS - 1)) < rng.random((games, 1)), rng.integers(0, 4, (games, 1)),
                     rng.integers(0, 4, (games, N_CARDS - 1)))
    actions = (4 * spots + rng.integers(0, 4, spots.shape)).astype(np.int8)
    guesses = rng.integers(0, 4, (games, 2)).astype(np.int8)
    extent = walk_extent(actions)
    assert (extent > 10).sum() > 30 and (extent <= 10).sum() > 30
    state = engine.init(params, deal)
    for turn in range(N_CARDS - 1):
        state = engine.step(params, state, actions[:, turn])
    assert np.array_equal((state.high - state.low).max(axis=1) + 4, extent)
    for seat in range(2):
        state = engine.step(params, state, guesses[:, seat])
    assert engine.terminal(params, state)
    record = record_of(params, deal, state, actions)
    check_outcome(record, replay(params, record))
