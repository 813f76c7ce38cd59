"""Kunst Stücke: the shapes file and its checks, and the rules on scripted boards drawn as ASCII (reference
engine): placing, sliding, targets, blocks and scoring, and whole games.

Boards are drawn as rows of 18 characters: '.' an empty square, a letter a square of the piece that letter
names in the test. Expected values are worked out by hand from the rulebook (../shared/rules/kunst_stuecke.txt)
and the issue's readings, never copied from the code. Shapes (sim/kunst_stuecke/shapes.toml): 0 L5, 1 P5,
2 T5, 4 R6 (a 2 x 3 block), 9 R8 (a 2 x 4 block). Piece p has colour p // 12 (0 red, 1 yellow, 2 green) and
shape p % 12.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import playback
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.errors import AtelierError, IllegalMove
from sim.game import params_from
from sim.kunst_stuecke import engine, rules
from sim.kunst_stuecke import reference as ref
from sim.kunst_stuecke.rules import Params, load_shapes, tile_of
from sim.registry import get_game

SIDE = 18  # the default board (ours: the rulebook gives no size)
SQUARES = SIDE * SIDE

RED_L5, RED_P5, RED_T5, RED_L6, RED_R6, RED_S6, RED_R8 = 0, 1, 2, 3, 4, 5, 9
YELLOW_L5, YELLOW_R6, YELLOW_R8 = 12, 16, 21
GREEN_L5, GREEN_R8 = 24, 33


def empty_game(players: int = 2, **params) -> ref.Game:
    """A game with nobody's pieces dealt and full stacks, for scripted positions."""
    params = Params(players=players, **params)
    deal = rules.deal(params, np.random.default_rng(0), 1)
    game = ref.new_game(params, deal)
    game.supply = [[] for _ in range(players)]
    game.turns.append({"seat": 0, "actions": []})
    return game


def drawn(rows: list[str]) -> dict[str, list[int]]:
    """The squares (18 row + col) of each letter of a drawing; rows not drawn are empty."""
    out: dict[str, list[int]] = {}
    for r, line in enumerate(rows):
        for c, char in enumerate(line):
            if char != ".":
                out.setdefault(char, []).append(r * SIDE + c)
    return out


def way_of(game: ref.Game, piece: int, cells: list[int]) -> tuple[int, int]:
    """The (orientation, anchor) that lays the piece on exactly these squares."""
    for orientation, shape in enumerate(game.shapes[rules.shape_of(piece)]):
        if shape:
            for anchor in ref.anchors(game, piece, orientation):
                if sorted(ref.squares(game, piece, orientation, anchor)) == sorted(cells):
                    return orientation, anchor
    raise AssertionError(f"piece {piece} cannot cover {cells}")


def lay(game: ref.Game, rows: list[str], pieces: dict[str, int]) -> None:
    """Put the drawn pieces on the board (outside any turn)."""
    for letter, cells in drawn(rows).items():
        orientation, anchor = way_of(game, pieces[letter], cells)
        for square in cells:
            game.board[square] = pieces[letter]
        game.where[pieces[letter]] = (orientation, anchor)


def put(game: ref.Game, piece: int, row: int, col: int, orientation: int = 0) -> None:
    """Put a piece on the board in an orientation, its bounding box's top-left corner at (row, col)."""
    anchor = row * game.params.board + col
    for square in ref.squares(game, piece, orientation, anchor):
        assert game.board[square] == -1
        game.board[square] = piece
    game.where[piece] = (orientation, anchor)


def may_place(game: ref.Game, piece: int, rows: list[str]) -> bool:
    """Whether the piece may be placed on the squares marked '#'."""
    orientation, anchor = way_of(game, piece, drawn(rows)["#"])
    return SQUARES * orientation + anchor in ref.placements(game, piece)


# ---------------------------------------------------------------------------------------------- the shapes file


def test_the_default_shapes_are_twelve_distinct_polyominoes_of_5_to_8_squares():
    shapes = load_shapes()
    assert len(shapes) == 12 and [len(cells) for _, cells in shapes] == [5, 5, 5, 6, 6, 6, 7, 7, 7, 8, 8, 8]
    geo = rules.geometry()
    assert geo.distinct.sum(axis=1).tolist() == [4, 4, 4, 4, 2, 2, 4, 4, 4, 2, 2, 4]  # a rectangle or S turns twice
    mirrored = rules.geometry("", True)
    assert mirrored.distinct.shape == (12, 8) and mirrored.distinct.sum() > geo.distinct.sum()


def write_shapes(tmp_path: Path, shapes: list[list[list[int]]]) -> str:
    path = tmp_path / "shapes.toml"
    path.write_text("".join(f"[[shape]]\nname = \"s{i}\"\ncells = {cells}\n\n" for i, cells in enumerate(shapes)))
    return str(path)


DEFAULT_CELLS = [cells.tolist() for _, cells in load_shapes()]


@pytest.mark.parametrize(("change", "message"), [
    (lambda s: s[:11], "must hold 12 shapes, got 11"),
    (lambda s: [[[0, 0], [0, 0], [0, 1], [0, 2], [0, 3]], *s[1:]], "overlapping cells"),
    (lambda s: [[[0, 0], [0, 1], [0, 2], [0, 3], [2, 0]], *s[1:]], "not connected"),
    (lambda s: [[[0, 0], [0, 1], [0, 2], [0, 3]], *s[1:]], "5 to 8 cells"),
    (lambda s: [[[1, 0], [1, 1], [1, 2], [1, 3], [2, 3]], *s[1:]], "start at row 0 and col 0"),
    (lambda s: [*s[:11], [[0, 1], [1, 1], [2, 1], [3, 1], [3, 0]]], "same shape as s0, turned or mirrored"),
])
def test_a_bad_shapes_file_is_refused_in_one_line(tmp_path, change, message):
    path = write_shapes(tmp_path, change(DEFAULT_CELLS))
    with pytest.raises(AtelierError, match=message):
        params_from(Params, 3, rules.PLAYER_COUNTS, {"shapes": path})


def test_a_missing_shapes_file_is_named():
    with pytest.raises(AtelierError, match=r"shapes file /nowhere/shapes\.toml does not exist"):
        params_from(Params, 3, rules.PLAYER_COUNTS, {"shapes": "/nowhere/shapes.toml"})


def test_spaces_take_five_whole_numbers():
    assert params_from(Params, 3, rules.PLAYER_COUNTS, {"spaces": [20, 10, 5, 5, 0]}).spaces == (20, 10, 5, 5, 0)
    with pytest.raises(AtelierError, match="'spaces' must be 5 whole numbers"):
        params_from(Params, 3, rules.PLAYER_COUNTS, {"spaces": [20, 10, 5]})


RULEBOOK_DEAL = {5: 11, 4: 13, 3: 18, 2: 26}  # Preparation: "5 Players > 11 Shapes", ...


def test_the_rulebook_s_components_chips_and_score_boards():
    params = Params()
    assert params.chips == 10 and params.spaces == (15, 10, 10, 5, 5)  # "10 chips"; "marked 15/10/10/5/5"
    assert [rules.colour_of(p) for p in range(60)] == [c for c in range(5) for _ in range(12)]  # 12 in each of 5
    assert rules.COLORS[:1] == ("red",) and len(rules.COLORS) == 5
    tiles = {rules.tile_parts(t) for t in rules.deal(params, np.random.default_rng(0), 1).stacks.ravel().tolist()}
    assert tiles == {(colour, size) for colour in range(5) for size in (1, 2, 3, 4, 5, 6)}  # "1 - 6+", each colour


def test_the_deal_gives_each_player_their_pieces_and_five_stacks_of_six():
    for players, each in RULEBOOK_DEAL.items():
        deal = rules.deal(Params(players=players), np.random.default_rng(players), 50)
        assert deal.supply.shape == (50, players, each)
        flat = deal.supply.reshape(50, -1)
        assert all(len(set(row.tolist())) == players * each for row in flat)  # no piece twice
        assert (np.sort(deal.stacks.reshape(50, -1), axis=1) == np.arange(30)).all()  # every tile once


# ---------------------------------------------------------------------------------------------- placing

BOARD = [
    "..................",
    ".aa...............",
    ".aa...............",
    ".aa...............",
    "..................",
    "......bbbb........",
    "......bbbb........",
]


def test_a_piece_may_lie_free_or_against_its_own_colour_but_not_against_another_colour_alone():
    game = empty_game()
    lay(game, BOARD, {"a": RED_R6, "b": YELLOW_R8})  # a: red 3 x 2 block, b: yellow 2 x 4 block
    free = [""] * 13 + ["#", "#", "#", "##"]
    assert may_place(game, RED_L5, free)  # no piece touches it
    assert may_place(game, RED_L5, ["", "...#", "...#", "...#", "...##"])  # against red a along an edge
    against_yellow = [""] * 3 + ["..........#", "..........#", "..........#", "..........##"]
    assert not may_place(game, RED_L5, against_yellow)  # (5, 10) shares an edge with b's (5, 9)
    assert may_place(game, YELLOW_L5, against_yellow)  # a yellow piece may lie there
    corner_only = [""] * 7 + ["..........#", "..........#", "..........#", "..........##"]
    assert may_place(game, RED_L5, corner_only)  # (7, 10) meets b's (6, 9) at a corner only: free


def test_with_corner_contact_a_piece_meeting_another_colour_at_a_corner_is_not_free():
    rows = [""] * 7 + ["..........#", "..........#", "..........#", "..........##"]  # (7, 10) meets b's (6, 9)
    for contact, allowed in (("edge", True), ("corner", False)):
        game = empty_game(placement_contact=contact)
        lay(game, BOARD, {"a": RED_R6, "b": YELLOW_R8})
        assert may_place(game, RED_L5, rows) is allowed
        assert may_place(game, YELLOW_L5, rows)  # against its own colour at a corner: it abuts it, or is free


def test_a_piece_abutting_both_its_own_colour_and_another_may_lie():
    game = empty_game()
    lay(game, ["", "aa", "aa", "aa", "", "bbbb", "bbbb"], {"a": RED_R6, "b": YELLOW_R8})
    # Column 2, rows 1-4 then (4, 3): touches red a (rows 1-3) and yellow b below at row 5.
    assert may_place(game, RED_L5, ["", "..#", "..#", "..#", "..##"])
    # The same squares for a yellow piece: it touches red a and yellow b, so it may lie too.
    assert may_place(game, YELLOW_L5, ["", "..#", "..#", "..#", "..##"])
    # A green piece there touches red and yellow, no green: refused.
    assert not may_place(game, 24, ["", "..#", "..#", "..#", "..##"])


def test_a_piece_never_lies_off_the_board_or_on_another_piece():
    game = empty_game()
    lay(game, ["", "aa", "aa", "aa"], {"a": RED_R6})
    legal = ref.placements(game, RED_L5)
    for option in legal:
        orientation, anchor = divmod(option, SQUARES)
        cells = ref.squares(game, RED_L5, orientation, anchor)
        assert all(0 <= c < SQUARES for c in cells) and all(game.board[c] == -1 for c in cells)
    # An L of 4 x 2 in orientation 0 fits its anchor only at rows 0-14 and cols 0-16: 15 * 17 squares.
    assert len(list(ref.anchors(game, RED_L5, 0))) == 15 * 17
    assert not may_place(game, RED_L5, ["", ".#", ".#", ".#", ".##"])  # on top of a


def test_discarding_is_always_allowed_and_placing_only_where_the_piece_can_lie():
    game = empty_game()
    game.supply[0] = [RED_L5, YELLOW_R8]
    options = ref.play_options(game)
    assert options == [RED_L5, YELLOW_R8, ref.DISCARD + RED_L5, ref.DISCARD + YELLOW_R8]


# ---------------------------------------------------------------------------------------------- sliding


def cells_at(game: ref.Game, piece: int, anchor: int) -> list[int]:
    return ref.squares(game, piece, game.where[piece][0], anchor)


def test_a_slide_never_passes_through_a_piece_nor_leaves_the_board():
    game = empty_game()
    # a (red, 2 x 3) in the top-left corner; yellow b to its right (4 x 2), green c below (2 x 4): a can only
    # move down by one or two rows.
    lay(game, [
        "aaabb",
        "aaabb",
        "...bb",
        "...bb",
        "cccc",
        "cccc",
    ], {"a": RED_R6, "b": YELLOW_R8, "c": GREEN_R8})
    assert sorted(ref.reachable(game, RED_R6)) == [1 * SIDE, 2 * SIDE]


def test_a_slide_may_turn_corners_but_not_pass_a_wall():
    game = empty_game()
    lay(game, [
        "aaa",
        "aaa",
        "bbbb",
        "bbbb",
    ], {"a": RED_R6, "b": YELLOW_R8})
    reach = set(ref.reachable(game, RED_R6))
    assert 0 * SIDE + 15 in reach  # right along the top, to the board's right edge
    assert 0 * SIDE + 16 not in reach  # one more and it would leave the board
    assert 2 * SIDE + 4 in reach  # right, then down past the wall's end at column 3
    assert 4 * SIDE + 0 in reach  # and back left under the wall: right, down, left
    assert 1 * SIDE + 0 not in reach and 2 * SIDE + 0 not in reach  # straight down runs into b


def test_sliding_costs_a_chip_and_a_piece_slides_once_a_turn():
    game = empty_game(chips=1)
    lay(game, ["aa", "aa", "aa"], {"a": RED_R6})
    assert ref.slide_options(game) == [RED_R6, ref.STOP]
    ref.slide(game, RED_R6, 10)
    assert game.chips[0] == 0 and ref.slide_options(game) == [ref.STOP]
    again = empty_game(chips=5)
    lay(again, ["aa", "aa", "aa"], {"a": RED_R6})
    ref.slide(again, RED_R6, 10)
    assert ref.slide_options(again) == [ref.STOP]  # slid once this turn already
    once_more = empty_game(chips=5, slide_again=True)
    lay(once_more, ["aa", "aa", "aa"], {"a": RED_R6})
    ref.slide(once_more, RED_R6, 10)
    assert ref.slide_options(once_more) == [RED_R6, ref.STOP]


def test_per_slide_a_slid_piece_that_started_against_its_own_colour_must_stay_against_it():
    game = empty_game(chips=5, contact="slide")
    # a (red, 3 x 2) and b (red, 2 x 4) share an edge; c (yellow) lies far away, against nothing.
    lay(game, ["aabbbb", "aabbbb", "aa"] + [""] * 11 + ["..........cccc", "..........cccc"],
        {"a": RED_R6, "b": RED_R8, "c": YELLOW_R8})
    game.start_contact = {p: ref.touches_own(game, p) for p in game.where}
    assert game.start_contact == {RED_R6: True, RED_R8: True, YELLOW_R8: False}
    options = set(ref.destinations(game, RED_R6))
    assert 1 * SIDE in options  # one row down it still shares an edge with b
    assert 10 * SIDE not in options  # far down it would touch no red piece: refused at once
    assert 0 * SIDE + 10 in set(ref.destinations(game, YELLOW_R8))  # c started alone: anywhere it reaches
    ref.slide(game, RED_R6, 1 * SIDE)
    assert game.must_touch == {RED_R6} and game.chips[0] == 4
    # b may not now slide away: a, slid this turn, would end it touching no red piece.
    assert 0 * SIDE + 10 not in set(ref.destinations(game, RED_R8))
    with pytest.raises(IllegalMove, match="slide_to_before choice"):
        ref._ask(game, lambda *_: 0 * SIDE + 10, "slide_to_before", ref.destinations(game, RED_R8))


def test_a_placed_piece_slid_in_the_same_turn_keeps_the_contact_it_was_placed_with():
    for from_placement, allowed in ((True, False), (False, True)):
        game = empty_game(chips=5, contact="slide", contact_from_placement=from_placement)
        lay(game, ["aa", "aa", "aa"], {"a": RED_R6})
        game.supply[0] = [RED_R8]
        game.start_contact = {p: ref.touches_own(game, p) for p in game.where}
        orientation, anchor = way_of(game, RED_R8, drawn(["..####", "..####"])["#"])
        ref.place(game, RED_R8, SQUARES * orientation + anchor)
        assert (10 * SIDE + 10 in ref.destinations(game, RED_R8)) is allowed


# ---------------------------------------------------------------------------------------------- readings


def test_rotation_k_turns_a_shape_a_quarter_counter_clockwise():
    game = empty_game()
    #  L5 as drawn:  X.   turned once (row 0 at the top):  ...X
    #                X.                                    XXXX
    #                X.
    #                XX
    assert sorted(ref.squares(game, RED_L5, 0, 0)) == [0, SIDE, 2 * SIDE, 3 * SIDE, 3 * SIDE + 1]
    assert sorted(ref.squares(game, RED_L5, 1, 0)) == [3, SIDE, SIDE + 1, SIDE + 2, SIDE + 3]
    mirrored = empty_game(mirror=True)  # fliplr first:   .X
    assert sorted(ref.squares(mirrored, RED_L5, 4, 0)) == [1, SIDE + 1, 2 * SIDE + 1, 3 * SIDE, 3 * SIDE + 1]


def test_without_rotation_a_piece_lies_only_as_drawn():
    # L5 is 4 x 2 as drawn (15 * 17 anchors on an empty board) and 2 x 4 turned (17 * 15); no turn repeats it.
    assert len(ref.placements(empty_game(), RED_L5)) == 4 * 15 * 17
    assert len(ref.placements(empty_game(rotate=False), RED_L5)) == 15 * 17
    assert sorted({o // SQUARES for o in ref.placements(empty_game(rotate=False, mirror=True), RED_L5)}) == [0, 4]


def test_the_board_s_side_is_a_switch():
    game = empty_game(board=8)
    assert len(game.board) == 64
    assert len(ref.placements(game, RED_L5)) == 4 * 5 * 7  # a 4 x 2 piece: 5 rows by 7 cols of anchors, turned too
    put(game, RED_R8, 6, 4)  # bottom-right corner: rows 6-7, cols 4-7
    assert sorted(ref.squares(game, RED_R8, 0, 6 * 8 + 4)) == [52, 53, 54, 55, 60, 61, 62, 63]
    assert ref.reachable(game, RED_R8) and all(a // 8 <= 6 and a % 8 <= 4 for a in ref.reachable(game, RED_R8))


def test_the_piece_just_placed_slides_only_with_slide_placed():
    for slide_placed in (True, False):
        game = empty_game(chips=5, slide_placed=slide_placed)
        game.supply[0] = [RED_R8]
        ref.place(game, RED_R8, 0)
        assert (RED_R8 in ref.slide_options(game)) is slide_placed


# ---------------------------------------------------------------------------------------------- the contact rule


# The rulebook's example of a turn that breaks a contact and mends it (Sliding Shapes): a (red) starts the turn
# against b (red); it slides away from every red shape, and then c (red, alone) slides against it. "It must also
# end the turn in contact with a shape of its own color, although this need not be the original shape", and b
# "may be left as a single piece"; sliding may come "before placement, afterwards, or before and after".
EXAMPLE = ["aabbbb", "aabbbb", "aa"] + [""] * 7 + ["............c", "............c", "............c",
                                                  "............cc"]
AWAY = 10 * SIDE + 8  # a on rows 10-12, cols 8-9: against no red square
AGAINST = 10 * SIDE + 10  # c on col 10, beside a's right side
YELLOW_SPOT = 16 * SIDE  # the yellow piece placed on rows 16-17, cols 0-3, against nothing
BEFORE = [("slide_before", RED_R6), ("slide_to_before", AWAY), ("slide_before", RED_L5),
          ("slide_to_before", AGAINST), ("slide_before", ref.STOP), ("play", YELLOW_R8), ("place", YELLOW_SPOT),
          ("slide_after", ref.STOP)]
BEFORE_AND_AFTER = [("slide_before", RED_R6), ("slide_to_before", AWAY), ("slide_before", ref.STOP),
                    ("play", YELLOW_R8), ("place", YELLOW_SPOT), ("slide_after", RED_L5),
                    ("slide_to_after", AGAINST), ("slide_after", ref.STOP)]


def example_game(contact: str = "turn", chips: int = 3) -> ref.Game:
    """The example's board at the start of seat 0's turn; seat 0 holds one yellow piece (no red one to mend a)."""
    game = empty_game(chips=chips, contact=contact)
    lay(game, EXAMPLE, {"a": RED_R6, "b": RED_R8, "c": RED_L5})
    game.supply[0] = [YELLOW_R8]
    game.stacks = [[] for _ in game.stacks]  # no look is asked
    return game


class Script:
    """A reference decider that answers the scripted (phase, choice) pairs in order, recording each question's
    options."""

    def __init__(self, answers: list[tuple[str, int]]):
        self.answers, self.asked = list(answers), []

    def __call__(self, game, phase, options):
        self.asked.append((phase, list(options)))
        expected, choice = self.answers.pop(0)
        assert phase == expected
        return choice


def engine_turn(game: ref.Game, answers: list[tuple[str, int]]) -> tuple[engine.State, list]:
    """The batched engine from the reference game's position at the start of a turn, stepped with the scripted
    answers (each required legal); the state after them and each question's (phase, legal options)."""
    params = game.params
    state = engine.init(params, rules.deal(params, np.random.default_rng(0), 1))
    orient, anchor = np.full((1, rules.PIECES), -1, np.int8), np.zeros((1, rules.PIECES), np.int16)
    for p, (o, a) in game.where.items():
        orient[0, p], anchor[0, p] = o, a
    owner = np.full((1, rules.PIECES), -1, np.int8)
    owner[0, game.supply[0]] = 0
    stacks = np.full(state.stacks.shape, -1, np.int8)
    state = engine._advance(params, engine.evolve(state, board=np.array([game.board], np.int8), orient=orient,
                                                  anchor=anchor, owner=owner, stacks=stacks), "end")
    asked = []
    for phase, choice in answers:
        decision = engine.decision(params, state)
        options = np.flatnonzero(decision.legal[0]).tolist()
        asked.append((state.phase, options))
        assert state.phase == phase and choice in options, (phase, choice)
        state = engine.step(params, state, np.array([choice]))
    return state, asked


@pytest.mark.parametrize("answers", [BEFORE, BEFORE_AND_AFTER], ids=["before", "before_and_after"])
def test_the_rulebook_s_turn_that_breaks_a_contact_and_mends_it_is_legal_by_default_in_both_engines(answers):
    game, script = example_game(), Script(answers)
    ref.play_turn(game, script)
    assert not script.answers and game.chips[0] == 1
    assert ref.touches_own(game, RED_R6) and not ref.touches_own(game, RED_R8)  # against c; b left alone
    state, asked = engine_turn(example_game(), answers)
    assert asked == script.asked  # the same questions with the same options
    assert state.board[0].tolist() == game.board and state.chips[0, 0] == 1


def test_under_the_per_slide_switch_the_rulebook_s_turn_is_refused_in_both_engines():
    game = example_game("slide")
    game.start_contact = {p: ref.touches_own(game, p) for p in game.where}
    assert AWAY not in ref.destinations(game, RED_R6) and SIDE in ref.destinations(game, RED_R6)
    with pytest.raises(IllegalMove, match="slide_to_before choice"):
        ref.play_turn(example_game("slide"), Script(BEFORE))
    with pytest.raises(AssertionError, match="slide_to_before"):
        engine_turn(example_game("slide"), BEFORE)


def test_after_placing_the_turn_may_not_end_while_a_slid_piece_is_parted_from_its_colour():
    _state, asked = engine_turn(example_game(), BEFORE_AND_AFTER[:6])
    game = example_game()
    script = Script([*BEFORE_AND_AFTER[:5], ("slide_after", RED_L5)])
    with pytest.raises(IndexError):  # the script ends at the slide_to question: the reference asks on
        ref.play_turn(game, script)
    for questions in (asked, script.asked):
        phase, options = questions[5]
        assert phase == "slide_after" and ref.STOP not in options and {RED_L5, RED_R8} <= set(options)


def test_a_contact_is_broken_only_where_one_more_action_can_mend_it():
    # One chip: a slide away leaves no chip for c, and the mover holds no red piece: refused.
    poor = example_game(chips=1)
    poor.start_contact = {p: ref.touches_own(poor, p) for p in poor.where}
    assert AWAY not in ref.destinations(poor, RED_R6) and SIDE in ref.destinations(poor, RED_R6)
    # Two chips: allowed, but then the last chip must mend it: every place c may go is against a.
    game = example_game(chips=2)
    script = Script([*BEFORE_AND_AFTER[:5], ("slide_after", RED_L5), ("slide_to_after", AGAINST)])
    ref.play_turn(game, script)
    phase, options = script.asked[-1]
    assert phase == "slide_to_after" and AGAINST in options
    for anchor in options:
        with ref.tried_slide(game, RED_L5, anchor):
            assert ref.touches_own(game, RED_R6)
    # A red piece still to place can mend it instead (the placement), so one chip is enough before placing.
    placing = example_game(chips=1)
    placing.supply[0] = [RED_T5]
    placing.start_contact = {p: ref.touches_own(placing, p) for p in placing.where}
    assert AWAY in ref.destinations(placing, RED_R6)
    ref.slide(placing, RED_R6, AWAY)
    assert ref.play_options(placing) == [RED_T5]  # no discard: nothing else could mend a
    assert all(RED_R6 in ref.neighbours(placing, ref.squares(placing, RED_T5, *divmod(o, SQUARES)))
               for o in ref.placements(placing, RED_T5))


def test_two_contacts_broken_at_once_need_one_action_that_mends_both():
    # a slides away; then b, which started against a, slides away too, far from a: no one slide or placement
    # could bring both back, so that second slide is refused; b sliding against a (still red beside it) is not.
    game = example_game(chips=5)
    game.start_contact = {p: ref.touches_own(game, p) for p in game.where}
    ref.slide(game, RED_R6, AWAY)
    options = ref.destinations(game, RED_R8)
    assert 14 not in options  # rows 0-1, cols 14-17: against nothing, and no red piece could reach both
    assert 13 * SIDE + 8 in options  # rows 13-14, cols 8-11: under a (and c)


# ---------------------------------------------------------------------------------------------- targets


def test_a_look_takes_one_tile_of_a_whole_stack_onto_a_free_space_once_a_turn():
    game = empty_game()
    game.stacks = [[tile_of(0, 2), tile_of(1, 3)], [], [tile_of(2, 6)], [tile_of(3, 1)], [tile_of(4, 4)]]
    assert ref.look_options(game) == [0, 2, 3, 4, ref.NO_LOOK]  # an empty stack cannot be chosen
    assert ref.keep_options(game, 0) == [5 * i + j for i in range(2) for j in range(5)]
    ref.keep(game, 0, 5 * 1 + 4)  # keep the yellow 3 on the last space
    assert game.stacks[0] == [tile_of(0, 2)] and game.spaces[0] == [None, None, None, None, tile_of(1, 3)]
    game.looked = True
    assert ref.look_options(game) == [ref.NO_LOOK]  # one look a turn


def test_a_full_score_board_takes_no_more_tiles():
    game = empty_game()
    game.spaces[0] = [tile_of(0, 1), tile_of(0, 2), tile_of(0, 3), tile_of(0, 4), None]
    assert ref.look_options(game) != [ref.NO_LOOK] and ref.keep_options(game, 0)[:1] == [4]
    game.spaces[0][4] = tile_of(0, 5)
    assert ref.look_options(game) == [ref.NO_LOOK]  # five tiles: no more looks


# ---------------------------------------------------------------------------------------------- blocks, scoring


def test_pieces_touching_only_corner_to_corner_are_two_blocks():
    diagonal = empty_game()
    lay(diagonal, ["aa", "aa", "aa", "..bbbb", "..bbbb"], {"a": RED_R6, "b": RED_R8})
    assert sorted(ref.blocks(diagonal)) == [(0, 1), (0, 1)]  # two red blocks of one piece each
    joined = empty_game()
    lay(joined, ["aa", "aa", "aa", ".bbbb", ".bbbb"], {"a": RED_R6, "b": RED_R8})
    assert ref.blocks(joined) == [(0, 2)]  # an edge shared: one block of two
    colours = empty_game()
    lay(colours, ["aa", "aa", "aa", ".bbbb", ".bbbb"], {"a": RED_R6, "b": YELLOW_R8})
    assert sorted(ref.blocks(colours)) == [(0, 1), (1, 1)]  # different colours never join


def red_blocks_of_two(game: ref.Game) -> None:
    """Three red blocks of two pieces each, apart from one another."""
    lay(game, ["aa", "aa", "aa", ".bbbb", ".bbbb"], {"a": RED_R6, "b": RED_R8})
    put(game, RED_L5, 8, 0)  # (8..11, 0) and (11, 1)
    put(game, RED_P5, 8, 1)  # (8, 1), (8, 2), (9, 1), (9, 2), (10, 1): shares (8, 0)-(8, 1)
    put(game, RED_T5, 14, 10)  # (14, 10..12), (15, 11), (16, 11)
    put(game, RED_L6, 12, 13)  # (12..16, 13), (16, 14): shares (14, 12)-(14, 13)


def test_the_rulebook_example_red_2_on_the_15_space_scores_17_once():
    game = empty_game()
    lay(game, ["aa", "aa", "aa", ".bbbb", ".bbbb"], {"a": RED_R6, "b": RED_R8})
    game.spaces[0][0] = tile_of(0, 2)  # Red-2 on the 15 space
    assert ref.scores(game) == [17, 0]
    many = empty_game()
    red_blocks_of_two(many)
    assert sorted(ref.blocks(many)) == [(0, 2)] * 3
    many.spaces[0][0] = tile_of(0, 2)
    assert ref.scores(many) == [17, 0]  # three red blocks of two still score the tile once


def test_a_6_plus_tile_needs_six_or_more_and_a_wrong_tile_scores_nothing():
    game = empty_game()
    lay(game, ["aabbbbcc", "aabbbbcc", "aa....cc"], {"a": RED_R6, "b": RED_R8, "c": YELLOW_R6})
    game.spaces[0] = [tile_of(0, 6), tile_of(1, 1), tile_of(0, 3), None, None]
    game.spaces[1] = [None, None, None, tile_of(0, 2), None]
    # Seat 0: red 6+ wrong (the red block has 2), yellow 1 right (1 + 10), red 3 wrong; seat 1: red 2 (2 + 5).
    assert ref.scores(game) == [11, 7]
    six = empty_game()
    for piece, row, col in [(RED_L5, 0, 0), (RED_P5, 4, 0), (RED_T5, 7, 0), (RED_L6, 10, 1), (RED_R6, 15, 0),
                            (RED_S6, 14, 3)]:  # a chain, each sharing an edge with the one before
        put(six, piece, row, col)
    assert ref.blocks(six) == [(0, 6)]
    six.spaces[0] = [tile_of(0, 6), tile_of(0, 5), None, None, None]
    assert ref.scores(six) == [6 + 15, 0]  # 6+ right, 5 wrong (the block has six)


# ---------------------------------------------------------------------------------------------- whole games


class Random:
    """A scripted player: random legal choices, a look half the time, a slide now and then."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)

    def pick(self, options):
        return int(options[self.rng.integers(len(options))])

    def __call__(self, game, phase, options):
        kind = ref.kind_of(phase)
        if kind == "look":
            return self.pick(options) if self.rng.random() < 0.5 else ref.NO_LOOK
        if kind == "slide":  # STOP, when offered, is the last option
            pieces = [o for o in options if o != ref.STOP]
            return self.pick(pieces) if pieces and (self.rng.random() < 0.2 or ref.STOP not in options) else ref.STOP
        if kind == "play":
            places = [o for o in options if o < ref.DISCARD]
            return self.pick(places or options)
        return self.pick(options)  # keep, slide_to, place


@pytest.mark.parametrize("players", [2, 5])
def test_a_game_ends_when_every_piece_is_placed_or_discarded(players):
    params = Params(players=players)
    game = ref.play(params, rules.deal(params, np.random.default_rng(players), 1), Random(players))
    assert game.turn == players * RULEBOOK_DEAL[players] and not any(game.supply)
    assert len(game.where) + sum(game.discards) == players * RULEBOOK_DEAL[players]
    assert all(0 <= chips <= params.chips for chips in game.chips)
    assert all(sum(tile is not None for tile in spaces) <= 5 for spaces in game.spaces)
    counted = sum(n for _, n in ref.blocks(game))
    assert counted == len(game.where)  # every piece on the board is in exactly one block
    covered = [s for s in range(SQUARES) if game.board[s] >= 0]
    assert len(covered) == sum(int(rules.geometry().size[rules.shape_of(p)]) for p in game.where)
    for turn in game.turns:
        kinds = [a["act"] for a in turn["actions"]]
        assert sum(k in ("place", "discard") for k in kinds) == 1 and kinds.count("target") <= 1
    assert [t["seat"] for t in game.turns] == [t % players for t in range(game.turn)]


# ---------------------------------------------------------------------------------------------- bad choices


def crooked_factory(kind: str, value: int):
    from strategies.kunst_stuecke import make_player

    def make(name, *, seat, params, games, secret):
        if name == "crooked":
            player = make_player("random", seat=seat, params=params, games=games)
            setattr(player, kind, lambda obs, rng: np.full(len(obs.legal[games]), value))
            player.name = "crooked"
            return player
        return make_player(name, seat=seat, params=params, games=games, secret=secret)

    return make


@pytest.mark.parametrize(("kind", "value", "detail"), [
    ("place", SQUARES * 0 + SQUARES - 1, "place choice 323"),  # no shape fits in the corner
    ("play", ref.DISCARD + rules.PIECES - 1, "play choice 119"),  # piece 59: the supplies below hold 0 to 51
    ("look", 7, "look choice 7"),  # no such stack
])
def test_a_strategy_that_answers_illegally_is_named_in_one_line(kind, value, detail):
    from playback import play_batch

    params = Params(players=2, chips=3)
    deal = rules.deal(params, np.random.default_rng(1), 2)
    deal = deal._replace(supply=np.stack([np.arange(26), np.arange(26, 52)], axis=0)[None].repeat(2, axis=0)
                         .astype(np.int8))
    lineups = np.array([["crooked", "random"]] * 2)
    with pytest.raises(IllegalMove) as err:
        play_batch("kunst_stuecke", params, deal, lineups, np.random.default_rng(0), crooked_factory(kind, value))
    assert err.value.strategy == "crooked" and detail in str(err.value)
    assert "\n" not in str(err.value)


def test_a_slide_of_a_piece_that_cannot_slide_is_refused():
    from playback import play_batch

    params = Params(players=2, chips=3)
    deal = rules.deal(params, np.random.default_rng(1), 2)
    make = crooked_factory("slide", 59)  # piece 59 is never on the board: nobody holds it
    deal = deal._replace(supply=np.stack([np.arange(26), np.arange(26, 52)], axis=0)[None].repeat(2, axis=0)
                         .astype(np.int8))
    with pytest.raises(IllegalMove, match="slide choice 59") as err:
        play_batch("kunst_stuecke", params, deal, np.array([["random", "crooked"]] * 2), np.random.default_rng(0),
                   make)
    assert err.value.strategy == "crooked"


playout_params = st.builds(
    Params, players=st.sampled_from(rules.PLAYER_COUNTS), chips=st.integers(0, 12), mirror=st.booleans(),
    slide_again=st.booleans(), contact=st.sampled_from(rules.CONTACT_RULES), contact_from_placement=st.booleans(),
    placement_contact=st.sampled_from(rules.PLACEMENT_CONTACTS), rotate=st.booleans(), slide_placed=st.booleans(),
    board=st.integers(rules.BOARD_RANGE[0], SIDE))


@settings(max_examples=20, deadline=None)
@given(playout_params, st.integers(0, 2**32), st.integers(0, 40), st.sampled_from([None, "planner"]))
def test_a_playout_ends_where_stepping_its_players_ends(params: Params, seed: int, stepped: int, strategy) -> None:
    """engine.random_playout (or planner_playout) under the readings that change a turn's flow (chips, when contact
    is judged, repeated slides, sliding the piece just placed, what abuts, orientations, the board's size) at every
    player count, from the set-up or after `stepped` questions, against stepping the batch with the `random` (or
    `planner`) strategy at every seat (tests/test_contract.py holds it so under the default Params): the same final
    State, and the rng left in the same state."""
    from playback import assert_playout_is_stepping

    assert engine.terminal(params, assert_playout_is_stepping("kunst_stuecke", params, seed, stepped, games=6,
                                                              strategy=strategy))


class Restless(Random):
    """A scripted player that slides whenever it may, four times in five: it breaks contacts as often as the rules
    let it."""

    def __call__(self, game, phase, options):
        assert options, f"{phase} at turn {game.turn}: a question with no answer"
        if ref.kind_of(phase) == "slide":
            pieces = [o for o in options if o != ref.STOP]
            return self.pick(pieces) if pieces and (self.rng.random() < 0.8 or ref.STOP not in options) else ref.STOP
        return super().__call__(game, phase, options)


def restless_game(params: Params, seed: int) -> tuple[ref.Game, int]:
    """A reference game with a Restless player at every seat; how many slides the outside reading saw leave a
    slid piece apart from its colour in mid-turn (it checks that each is back by the end of its turn)."""
    from independent import kunst_contact

    game = ref.play(params, rules.deal(params, np.random.default_rng(seed), 1), Restless(seed))
    assert game.turn == params.players * RULEBOOK_DEAL[params.players] and not any(game.supply)
    trace = {"params": {"contact": params.contact, "contact_from_placement": params.contact_from_placement},
             "pieces": [{"id": p, "color": rules.colour_of(p)} for p in range(rules.PIECES)], "turns": game.turns}
    return game, kunst_contact(trace)


@settings(max_examples=6, deadline=None)
@given(chips=st.integers(1, 40), slide_again=st.booleans(), slide_placed=st.booleans(),
       contact_from_placement=st.booleans(), seed=st.integers(0, 2**16))
def test_a_turn_that_breaks_contacts_always_has_a_legal_end_and_ends_with_them_mended(
        chips, slide_again, slide_placed, contact_from_placement, seed):
    """The reference under the default contact rule, with players that slide whenever they may, on a small board:
    every question has an answer (Restless asserts it), every game ends, and every slid piece is back against its
    colour at the end of each turn."""
    restless_game(Params(players=2, board=12, chips=chips, slide_again=slide_again, slide_placed=slide_placed,
                         contact_from_placement=contact_from_placement), seed)


def test_players_that_slide_whenever_they_may_break_contacts_in_mid_turn_and_mend_them():
    apart = [restless_game(Params(players=2, board=12, chips=20), seed)[1] for seed in (0, 1, 2)]
    assert all(n > 0 for n in apart)
    assert [restless_game(Params(players=2, board=12, chips=20, contact="slide"), seed)[1] for seed in (0, 1)] == [0, 0]


# ------------------------------------------------------------- the engine against the reference, game by game
# The engine plays batches with the shipped strategies (and chips enough to slide), under every rule switch; every
# game is then replayed through the reference (tests/playback.py, the replay tests/test_differential.py runs for
# every game), which must offer exactly the legal options the engine offered at every question, and end here with
# the same board, chips, discards, score boards and stacks, and the own result columns worked out here. A trace
# must be the game the engine plays with the same seed (its winners too).

kunst = get_game("kunst_stuecke")
POOL = np.array(["random", "planner", "planner@6", "slider", "spoiler"])
CASES = [(2, 32, 1, {}), (3, 32, 2, {}), (4, 32, 3, {}), (5, 32, 4, {}),  # players, games, seed, Params:
         (3, 30, 5, {"mirror": True, "slide_again": True, "contact_from_placement": False}),
         (3, 24, 6, {"contact": "slide"}), (2, 24, 7, {"slide_again": True, "board": 12}),
         (4, 30, 8, {"rotate": False, "slide_placed": False}), (3, 24, 9, {"rotate": False, "mirror": True}),
         (2, 24, 10, {"board": 8}), (2, 6, 11, {"board": 32}),
         (3, 24, 12, {"placement_contact": "corner", "contact": "slide"})]  # 314 games in all


def same_game(state: engine.State, g: int, game: ref.Game) -> None:
    assert state.board[g].tolist() == game.board
    assert state.chips[g].tolist() == game.chips and state.discards[g].tolist() == game.discards
    assert state.spaces[g].tolist() == [[-1 if t is None else t for t in row] for row in game.spaces]
    assert [[t for t in stack if t >= 0] for stack in state.stacks[g].tolist()] == game.stacks
    assert state.first_look[g].tolist() == game.first_look


def met(blocks: list[tuple[int, int]], colour: int, size: int) -> bool:
    """Scoring: a block of the colour with exactly `size` pieces; size 6 is the 6+ tile, six or more."""
    return any(c == colour and (n == size or (size == 6 and n >= 6)) for c, n in blocks)


def own_columns(params: rules.Params, game: ref.Game) -> list[dict]:
    """Each seat's own result columns, read off the game's actions (not its tallies) and its final blocks."""
    seats = range(params.players)
    slides, discards, first = [0 for _ in seats], [0 for _ in seats], [-1 for _ in seats]
    taken: list[list[tuple[int, int, int]]] = [[] for _ in seats]  # (space, colour, size)
    for number, turn in enumerate(game.turns):
        seat = turn["seat"]
        for action in turn["actions"]:
            slides[seat] += action["act"] == "slide"
            discards[seat] += action["act"] == "discard"
            if action["act"] == "target":
                taken[seat].append((action["space"], *action["tile"]))
                first[seat] = number if first[seat] < 0 else first[seat]
    blocks = ref.blocks(game)
    out = []
    for seat in seats:
        sizes, correct = [0] * 5, [False] * 5
        for space, colour, size in taken[seat]:
            sizes[space], correct[space] = size, met(blocks, colour, size)
        out.append({"targets_taken": len(taken[seat]), "targets_correct": sum(correct),
                    "target_points": sum(size + params.spaces[space] for space, colour, size in taken[seat]
                                         if met(blocks, colour, size)),
                    "chips_left": params.chips - slides[seat], "discards": discards[seat], "first_look": first[seat],
                    "aimed_sizes": [size for size in sizes if size], "space_sizes": sizes, "space_correct": correct})
    return out


def same_outcome(outcome, g: int, params: rules.Params, game: ref.Game) -> None:
    """Every own column of game g against the reference's game, worked out independently, and each seat's score
    the points of its correct targets (the replay, tests/playback.py, checks the scores, ranks and win shares)."""
    scores = ref.scores(game)
    for seat, expected in enumerate(own_columns(params, game)):
        row = g * params.players + seat
        got = {name: outcome.columns[name][g, seat].item() for name in
               ("targets_taken", "targets_correct", "target_points", "chips_left", "discards", "first_look")}
        for name in ("aimed_sizes", "space_sizes", "space_correct"):
            got[name] = outcome.columns[name][row].to_list()
        assert got == expected, (g, seat)
        assert expected["target_points"] == scores[seat]


def against_reference(params: rules.Params, deal: rules.Deal, lineups: np.ndarray, rng: np.random.Generator):
    """Play the batch in the engine, then every game through the reference: the same questions with the same legal
    options (the generic replay, tests/playback.py), the same end and the same outcome. Returns the engine's final
    state and its recorded questions."""
    def check(state, outcome, g, game):
        same_game(state, g, game)
        same_outcome(outcome, g, params, game)

    return playback.against_reference("kunst_stuecke", params, deal, lineups, rng, check)


def questions(recorder: playback.Recorder, kind: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """(legal, choice) of the games asked, for each question of a kind."""
    return [(q.legal[q.asked], q.choice[q.asked]) for q in recorder.log if q.kind == kind]


@pytest.mark.parametrize(("players", "games", "seed", "switches"), CASES)
def test_the_reference_offers_the_same_moves_and_gives_the_same_outcome(players, games, seed, switches):
    params = rules.Params(players=players, chips=5, **switches)
    rng = np.random.default_rng(seed)
    deal = rules.deal(params, rng, games)
    lineups = rng.choice(POOL, size=(games, players))
    _, recorder = against_reference(params, deal, lineups, rng)
    kinds = {kind for kind, *_ in recorder.log}
    assert kinds == {"look", "keep", "slide", "slide_to", "play", "place"}  # every question was asked
    # A turn that had to mend a contact: no stop offered after placing, or no discard offered.
    mending = sum((~legal[:, rules.STOP]).sum() for legal, _ in questions(recorder, "slide")) + \
        sum((~legal[:, rules.DISCARD:].any(axis=1)).sum() for legal, _ in questions(recorder, "play"))
    if switches.get("contact") == "slide":  # every slide kept every contact: nothing was left to mend
        assert mending == 0
    elif games > 6:  # the default: contacts broken in mid-turn (by `random` and `slider`) and mended
        assert mending > 0
    if switches.get("rotate") is False:  # every placement lies as the shapes file draws it (o = 4 m + 0)
        assert all((choice // params.squares % 4 == 0).all() for _, choice in questions(recorder, "place"))


@pytest.mark.parametrize(("players", "strategies", "seed"), [
    (2, ["slider", "random"], 0), (3, ["planner", "spoiler", "slider"], 1), (5, ["random"] * 5, 2)])
def test_a_trace_is_the_game_the_engine_plays_with_the_same_seed(players, strategies, seed):
    params = rules.Params(players=players)
    record = kunst.trace(params, strategies, seed)
    rng = np.random.default_rng(seed)
    deal = rules.deal(params, rng, 1)
    played = playback.play_batch("kunst_stuecke", params, deal, np.array([strategies]), rng)
    assert record["final"]["scores"] == played.outcome.scores[0].tolist()
    assert record["final"]["winners"] == np.flatnonzero(played.outcome.win[0] > 0).tolist()
    assert kunst.rules.replay(record) == record["final"]["scores"]
    assert record["supplies"] == deal.supply[0].tolist()
    squares = sorted(r * params.board + c for turn in record["turns"] for a in turn["actions"] if a["act"] == "place"
                     for r, c in a["cells"])
    assert len(squares) == int((played.state.board[0] >= 0).sum())  # slides move pieces, never grow them
    assert len(record["turns"]) == players * rules.DEALT[players]
    assert sum(n for _, n in record["final"]["blocks"]) == int((played.state.orient[0] >= 0).sum())
    narration = kunst.rules.narrate(record)
    assert narration.count("\nTurn ") == len(record["turns"]) and "Winner(s): " in narration


@pytest.mark.parametrize(("players", "stepped"), [(2, 36), (4, 60)])
def test_the_planners_playout_plays_on_from_slides_it_must_make(players: int, stepped: int) -> None:
    """engine.planner_playout (Catalogue.fused) after sliders opened the games and left some of them in a slide the
    mover must make (a piece parted from its colour: a search's rollout can start there), with other games not asked
    (no chip left): the games and the rng that stepping planners gives, the forced slides and their draws included."""
    params = kunst.make_params(players, {})
    deal = kunst.rules.deal(params, np.random.default_rng(players), 24)
    start, _, _ = playback.opened(kunst, params, deal, np.full((24, players), "planner"), "slider", stepped, 1)
    forced = start.asked & ~start.sliding[:, rules.STOP]
    assert start.phase == "slide_after" and forced.any() and not start.asked.all()
    playback.assert_playout_is_stepping("kunst_stuecke", params, players, stepped, strategy="planner",
                                        opening="slider")
