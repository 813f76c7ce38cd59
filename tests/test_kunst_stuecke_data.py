"""Kunst Stücke: what the shapes check accepts, both engines play, and they agree.

Shapes files at the edges of what the check allows (rules.load_shapes: 12 connected shapes of 5 to 8 distinct
squares, none alike turned or mirrored): straight pieces of 5 to 8 squares, all twelve of 8 squares, all twelve
pentominoes (the only twelve of 5), on boards from the smallest (8: a straight 8 just fits) to the largest.
Cells that are not whole numbers are refused in one line. tests/test_boundscheck.py plays the named edge shapes
(sim/kunst_stuecke/checks.py) with numba's bounds checking on, so a kernel reading past an array fails a test
instead of reading garbage.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_kunst_stuecke import POOL, against_reference

from sim.errors import AtelierError
from sim.game import params_from
from sim.kunst_stuecke import rules
from sim.kunst_stuecke.checks import Cells, free_polyominoes, straight, write_shapes


def test_the_polyominoes_are_counted_as_known():
    assert {n: len(shapes) for n, shapes in free_polyominoes().items()} == {5: 12, 6: 35, 7: 108, 8: 369}


@st.composite
def shapes_files(draw) -> tuple[list[Cells], int]:
    """Twelve shapes the check accepts, at its edges, and a board they fit on."""
    sizes = draw(st.sampled_from([(5,), (6,), (8,), (7, 8), (5, 6, 7, 8)]))
    pool = [shape for n in sizes for shape in free_polyominoes()[n]]
    longest = straight(max(sizes))
    chosen = [longest] if draw(st.booleans()) else []
    rest = [shape for shape in pool if shape != longest]  # the straight one is drawn, or left to chance
    picks = draw(st.lists(st.sampled_from(range(len(rest))), min_size=12 - len(chosen), max_size=12 - len(chosen),
                          unique=True)) if len(rest) > 12 - len(chosen) else range(len(rest))
    chosen += [rest[i] for i in picks]
    if len(chosen) < 12:  # the twelve pentominoes, the straight one included
        chosen = list(pool)
    board = draw(st.sampled_from([8, 9, 13, 18]))
    return draw(st.permutations(chosen)), board


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=shapes_files(), players=st.sampled_from([2, 3, 5]), mirror=st.booleans(), rotate=st.booleans(),
       contact=st.sampled_from(["slide", "turn"]), seed=st.integers(0, 2**16))
def test_edge_shapes_play_alike_in_both_engines(tmp_path, data, players, mirror, rotate, contact, seed):
    shapes, board = data
    path = write_shapes(tmp_path / f"shapes{seed}.toml", shapes)
    params = params_from(rules.Params, players, rules.PLAYER_COUNTS,
                         {"shapes": path, "board": board, "mirror": mirror, "rotate": rotate, "contact": contact,
                          "chips": 4})
    rng = np.random.default_rng(seed)
    deal = rules.deal(params, rng, 3)
    state, _ = against_reference(params, deal, rng.choice(POOL, size=(3, players)), rng)
    on_board = [np.flatnonzero(state.orient[g] >= 0) for g in range(3)]  # slides move pieces, never grow them
    assert (state.board >= 0).sum(axis=1).tolist() == [int(params.geometry.size[on % 12].sum()) for on in on_board]


@pytest.mark.parametrize(("cells", "shown"), [
    ([[0, 0], [1, 0], [2, 0], [3, 0], [3, 1.7]], "1.7"),  # numpy would truncate it to [3, 1]
    ([[0, 0], [1, 0], [2, 0], [3, 0], ["3", "1"]], "'3'"),
    ([[0, 0], [1, 0], [2, 0], [3, 0], [True, 1]], "True"),  # a bool is an int to Python
    ([[0, 0], [1, 0], [2, 0], [3, 0], [3]], "[3]"),
    ([[0, 0], [1, 0], [2, 0], [3, 0], [3, 1, 0]], "[3, 1, 0]"),
    ([[0, 0], [1, 0], [2, 0], [3, 0], [3, 2**40]], str(2**40)),
    ("L", "'L'"),
])
def test_cells_that_are_not_pairs_of_whole_numbers_are_refused_in_one_line(tmp_path, cells, shown):
    shapes = [cells, *free_polyominoes()[6][:11]]
    path = write_shapes(tmp_path / "shapes.toml", shapes)
    with pytest.raises(AtelierError) as err:
        params_from(rules.Params, 3, rules.PLAYER_COUNTS, {"shapes": path})
    message = str(err.value)
    assert message.startswith(f"shapes file {path}: shape s0 must list its cells as [row, col] pairs of whole numbers")
    assert shown in message and "\n" not in message


def test_a_shapes_file_without_shape_tables_is_refused_in_one_line(tmp_path):
    path = tmp_path / "shapes.toml"
    path.write_text("shape = 3\n")
    with pytest.raises(AtelierError, match=f"shapes file {path} is malformed: it must hold"):
        params_from(rules.Params, 3, rules.PLAYER_COUNTS, {"shapes": str(path)})


@pytest.mark.parametrize(("key", "value", "message"), [
    ("board", 7, "'board' must be between 8 and 32, got 7"), ("board", 33, "'board' must be between 8 and 32"),
    ("contact", "end", "'contact' must be one of turn, slide, got 'end'")])
def test_a_board_or_contact_rule_the_kernels_do_not_take_is_refused(key, value, message):
    with pytest.raises(AtelierError, match=message):
        params_from(rules.Params, 3, rules.PLAYER_COUNTS, {key: value})


