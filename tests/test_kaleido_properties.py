"""Kaleido invariants (hypothesis): the majority rule against its rulebook wording, end-game hexagons of random
tables scored by drawing, by the reference and by the engine alike, and conservation at every decision of
random games: tiles, white tiles and boards are never lost or made, no hole is filled twice, the scored
boards are exactly the full ones, and the final standing adds up; and the compiled random playout ends where
stepping random players ends, at every player count and under any scoring.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from playback import assert_playout_is_stepping, play_batch
from test_kaleido import LETTERS, drawn_hexagons, engine_state, position, rulebook_points

from sim.game import Asker
from sim.kaleido import engine, reference, rules
from sim.kaleido.rules import EMPTY, WHITE, Params, majority
from sim.registry import get_game
from strategies.common import Table
from strategies.kaleido import STRATEGIES, make_player

ALL_STRATEGIES = sorted(STRATEGIES)


# ---------------------------------------------------------------------------------------------- majority rule

point_params = st.builds(Params, players=st.sampled_from(rules.PLAYER_COUNTS), first=st.integers(0, 20),
                         second=st.integers(0, 20), tie_pool=st.integers(0, 20), monochrome=st.integers(0, 30),
                         monochrome_with_white=st.booleans())


@settings(max_examples=300, deadline=None)
@given(point_params, st.data())
def test_majority_follows_the_rulebook_wording(params: Params, data) -> None:
    boards = data.draw(st.lists(st.lists(st.sampled_from([*range(params.colours), WHITE]), min_size=6, max_size=6),
                                min_size=1, max_size=4))
    counts = np.array([[board.count(c) for c in range(params.colours)] for board in boards])
    points = majority(counts, params)
    assert points.shape == counts.shape
    for board, got in zip(boards, points):
        assert got.tolist() == rulebook_points(board, params.colours, params), board
    if params == Params(players=params.players):  # the rulebook's numbers: at most 12 handed out, 0 if all white
        assert (points.sum(axis=1) <= 12).all()
        assert ((points.sum(axis=1) == 0) == (counts.sum(axis=1) == 0)).all()


# ---------------------------------------------------------------------------------------------- random tables


@st.composite
def tables(draw):
    """A random table: boards joined side by side from the two starting boards, random rotations and fills."""
    players = draw(st.sampled_from(rules.PLAYER_COUNTS))
    params = Params(players=players, hexagon_needs_full_boards=draw(st.booleans()))
    cells = [(0, 0), (1, 0)]
    for _ in range(draw(st.integers(0, params.boards - 2))):
        spots = sorted({(q + dq, r + dr) for q, r in cells for dq, dr in rules.DIRECTIONS.tolist()} - set(cells))
        cells.append(draw(st.sampled_from(spots)))
    letters = LETTERS[: params.colours] + "W" + "." * draw(st.integers(0, 3))  # some tables have no gaps
    layout = [(q, r, draw(st.integers(0, 5)), "".join(draw(st.lists(st.sampled_from(letters), min_size=6,
                                                                     max_size=6))))
              for q, r in cells]
    return params, layout


@settings(max_examples=150, deadline=None)
@given(tables())
def test_random_tables_score_alike_drawn_reference_and_engine(table) -> None:
    params, layout = table
    cells = [(q, r) for q, r, _, _ in layout]
    drawn = drawn_hexagons(cells)
    expected = [0] * params.colours
    for hexagon in drawn:
        shown = [layout[b][3][(k - layout[b][2]) % 6] for b, k in hexagon]
        boards_full = all("." not in layout[b][3] for b, _ in hexagon)
        if "." not in shown and (boards_full or not params.hexagon_needs_full_boards):
            points = rulebook_points([LETTERS.index(ch) for ch in shown], params.colours, params)
            expected = [e + p for e, p in zip(expected, points)]
    game = position(params, layout)
    assert len(reference.hexagon_triples(game)) == len(drawn)
    # Free spots for a new board: empty cells next to a board, the same whichever engine asks.
    spots = {(q + dq, r + dr) for q, r in cells for dq, dr in rules.DIRECTIONS.tolist()} - set(cells)
    assert set(game.board_spots()) == spots
    geo = engine.geometry(params)
    free = np.flatnonzero(engine.board_spots(engine_state(params, layout), geo)[0])
    assert {tuple(geo.qr[c].tolist()) for c in free} == spots
    reference.endgame_scoring(game)
    assert game.endgame == expected
    state = engine_state(params, layout)
    y, _, _ = engine.hexagons(state, geo)
    assert (y >= 0).sum() == len(drawn)
    assert engine.endgame_scoring(params, state, geo).endgame[0].tolist() == expected


# ---------------------------------------------------------------------------------------------- random games


def check_table(params: Params, state: engine.State, start_of_turn: bool) -> None:
    """Conservation on every game of a batch, at any moment of a turn."""
    placed = state.placed
    on_boards = np.stack([(state.slots == c).sum(axis=(1, 2)) for c in range(params.colours)], axis=1)
    assert np.array_equal(on_boards + state.tiles, np.full_like(on_boards, params.tiles))
    whites_down = (state.slots == WHITE).sum(axis=(1, 2))
    assert np.array_equal(whites_down, state.whites_used.sum(axis=1))
    assert np.array_equal(state.whites + state.whites_used, np.full_like(state.whites, params.whites_each))
    assert np.array_equal(placed.sum(axis=1), 2 + state.boards_placed.sum(axis=1))
    assert np.array_equal(state.stock + state.boards_placed, np.full_like(state.stock, params.boards_each))
    assert (state.tiles >= 0).all() and (state.whites >= 0).all() and (state.stock >= 0).all()
    # No hole filled twice: every tile ever laid still shows.
    filled = (state.slots != EMPTY).sum(axis=(1, 2))
    assert np.array_equal(filled, (params.tiles - state.tiles.astype(int)).sum(axis=1) + whites_down)
    assert (state.slots[~placed] == EMPTY).all() and (state.rot[~placed] == 0).all()
    assert ((state.rot >= 0) & (state.rot < 6)).all()
    games, boards = np.nonzero(placed)
    assert np.array_equal(state.grid[games, state.cell[games, boards]], boards)
    assert (state.grid >= 0).sum() == placed.sum()
    full = placed & (state.slots != EMPTY).all(axis=2)
    assert not (state.scored & ~full).any()
    if start_of_turn:  # between turns the scored boards are exactly the full ones, and their points are paid
        assert np.array_equal(state.scored, full)
        owner = np.array([params.owner(c) for c in range(params.colours)])
        laid = params.tiles - state.tiles.astype(int)
        assert np.array_equal(state.turns_played, np.stack([laid[:, owner == s].sum(axis=1)
                                                            for s in range(params.players)], axis=1))
        for g in range(len(full)):
            counts = np.array([[(state.slots[g, b] == c).sum() for c in range(params.colours)]
                               for b in np.flatnonzero(full[g])]).reshape(-1, params.colours)
            assert majority(counts, params).sum(axis=0).tolist() == state.midgame[g].tolist()


class Checked:
    """A real strategy that checks the table's invariants each time it is asked."""

    def __init__(self, inner, params: Params, seen: list):
        self.inner, self.params, self.seen, self.name = inner, params, seen, inner.name

    def look(self, obs) -> None:
        self.seen.append(obs.phase)
        check_table(self.params, obs.state, obs.phase in ("before", "forced"))
        assert (obs.legal[obs.asked].any(axis=1)).all()  # whoever is asked has a legal answer

    def extra(self, obs, rng):
        self.look(obs)
        return self.inner.extra(obs, rng)

    def tile(self, obs, rng):
        self.look(obs)
        return self.inner.tile(obs, rng)

    def rotate(self, obs, rng):
        self.look(obs)
        return self.inner.rotate(obs, rng)


@st.composite
def batches(draw):
    players = draw(st.sampled_from(rules.PLAYER_COUNTS))
    batch = draw(st.integers(1, 3))
    names = draw(st.lists(st.sampled_from(ALL_STRATEGIES), min_size=batch * players, max_size=batch * players))
    return players, np.array(names).reshape(batch, players), draw(st.integers(0, 2**32 - 1))


@settings(max_examples=40, deadline=None)
@given(batches())
def test_random_games_conserve_components_and_add_up(case) -> None:
    players, lineups, seed = case
    params = Params(players=players)
    seen: list = []
    record = play_batch("kaleido", params, rules.deal(params, np.random.default_rng(0), len(lineups)), lineups,
                        np.random.default_rng(seed), lambda name, **kw: Checked(make_player(name, **kw), params, seen))
    assert seen
    state, out = record.state, record.outcome
    check_table(params, state, start_of_turn=True)
    assert state.done.all() and engine.terminal(params, state)
    # Every turn of every game is one of: a tile, a pass, a skip, or the stall that ends it; the turns after a
    # game has ended are counted in none.
    turns = state.turns_played + state.passes + state.skips
    assert (turns.sum(axis=1) + state.stalled <= state.turn).all()
    assert (turns.sum(axis=1) + state.stalled == state.turn).any()  # the batch ends with its longest game
    assert np.array_equal(state.stalled, state.tiles.sum(axis=1) > 0)  # a game ends early only by stalling
    assert not (state.placed[..., None] & (state.slots == EMPTY)).any(axis=(1, 2))[state.stalled].any()
    owner = np.array([params.owner(c) for c in range(params.colours)])
    by_seat = np.stack([(state.midgame + state.endgame)[:, owner == s].sum(axis=1) for s in range(players)], axis=1)
    assert np.array_equal(out.scores, by_seat)
    assert np.array_equal(out.columns["midgame_points"] + out.columns["endgame_points"], by_seat)
    assert np.allclose(out.win.sum(axis=1), 1)
    best = out.scores == out.scores.max(axis=1, keepdims=True)
    assert np.allclose(out.win, best / best.sum(axis=1, keepdims=True))
    assert np.array_equal(out.rank, 1 + (out.scores[:, None, :] > out.scores[:, :, None]).sum(axis=2))
    assert (state.endgame >= 0).all() and (state.midgame >= 0).all()


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(rules.PLAYER_COUNTS), st.data())
def test_reference_games_conserve_components_and_add_up(players: int, data) -> None:
    params = Params(players=players)
    strategies = data.draw(st.lists(st.sampled_from(ALL_STRATEGIES), min_size=players, max_size=players))
    table = Table(get_game("kaleido").players, params, np.array([strategies]), None)
    one = rules.deal(params, np.random.default_rng(0), 1)
    game = reference.play(params, one, Asker(reference.question, table.choose,
                                             np.random.default_rng(data.draw(st.integers(0, 999)))))
    result = game.result
    assert reference.scores(game) == result.scores
    state = reference.to_state(game)
    check_table(params, state, start_of_turn=True)
    tiles = [e for e in game.events if e["type"] == "tile"]
    assert len(tiles) == (state.slots != EMPTY).sum()
    # Every turn starts with a `turn` event, and is a tile, a pass, a skip or the stall that ends the game.
    turns = [e for e in game.events if e["type"] == "turn"]
    assert game.events[0]["type"] == "turn" and len(turns) == game.turn + game.stalled
    assert len(turns) == state.turns_played.sum() + state.passes.sum() + state.skips.sum() + game.stalled
    assert sum(e["white"] for e in tiles) == sum(game.whites_used)
    assert game.stalled == (sum(game.tiles) > 0)
    assert result.colour_points == [m + e for m, e in zip(game.midgame, game.endgame)]
    assert result.scores == [sum(result.colour_points[c] for c in range(params.colours) if c % players == s)
                             for s in range(players)]
    assert sum(result.wins) == 1 or abs(sum(result.wins) - 1) < 1e-9
    assert result.winners == [s for s in range(players) if result.scores[s] == max(result.scores)]
    assert result.ranks == [1 + sum(o > m for o in result.scores) for m in result.scores]


# ---------------------------------------------------------------------------------------------- playouts

playout_params = st.builds(Params, players=st.sampled_from(rules.PLAYER_COUNTS), first=st.integers(0, 20),
                           second=st.integers(0, 20), tie_pool=st.integers(0, 20), monochrome=st.integers(0, 30),
                           monochrome_with_white=st.booleans(), hexagon_needs_full_boards=st.booleans())


@settings(max_examples=12, deadline=None)
@given(playout_params, st.integers(0, 2**32), st.integers(0, 60))
def test_the_random_playout_ends_where_stepping_random_players_ends(params: Params, seed: int, stepped: int) -> None:
    """engine.random_playout at every player count (2 players: the two-colour variant, with its own boards, white
    tiles and alternating colours) and under any scoring, from the set-up or after `stepped` questions, against
    stepping the batch with the `random` strategy at every seat (tests/test_contract.py holds every game's playout
    so under the default Params): the same final State, and the rng left in the same state."""
    assert engine.terminal(params, assert_playout_is_stepping("kaleido", params, seed, stepped))


@settings(max_examples=12, deadline=None)
@given(playout_params, st.integers(0, 2**32), st.integers(0, 60))
def test_the_greedy_playout_ends_where_stepping_greedy_players_ends(params: Params, seed: int, stepped: int) -> None:
    """engine.greedy_playout, as the random one above, against stepping the batch with `greedy` at every seat."""
    assert engine.terminal(params, assert_playout_is_stepping("kaleido", params, seed, stepped, strategy="greedy"))
