"""Kintsugi: the batched engine replayed move by move through the scalar reference.

The reference derives legality from the rule (cover exactly one fragment of the previous card), not from the
engine's offset table, and counts pieces with its own flood fill, so agreement over thousands of games with
every strategy mix is strong evidence that both implement the rulebook.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pytest
import twins
from playback import play_batch

from sim.kintsugi import engine, reference, rules
from sim.kintsugi.reference import Placement
from strategies.kintsugi import GUESSERS, POLICIES

N_CARDS = 13
ORIGIN = engine.origin(N_CARDS)
ALL_STRATEGIES = np.array([f"{policy}+{guesser}" for policy in POLICIES for guesser in GUESSERS])
# The documented action convention: action = 4 * offset index + rotation.
OFFSET_OF = {0: (-1, -1), 1: (-1, 1), 2: (1, -1), 3: (1, 1)}


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
        obs = engine.observe(state, params)
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
    for g, game in enumerate(games):
        game.guesses = out.guesses[g].tolist()
        result = reference.final_result(game)
        assert out.pieces[g].tolist() == result.pieces, g
        assert out.correct[g].tolist() == result.correct, g
        assert out.scores[g].tolist() == result.scores, g
        assert out.rank[g].tolist() == result.ranks, g
        assert out.win[g].tolist() == pytest.approx(result.wins), g


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
