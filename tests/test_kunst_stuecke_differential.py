"""Kunst Stücke: the batched engine against the readable reference, move by move.

The engine plays batches with the shipped strategies (and chips enough to slide); every game is then replayed
through the reference, which must offer exactly the legal options the engine offered at every question and end
with the same board, chips, discards, score boards, stacks and scores. A batch must also play exactly like its
games played one at a time, and a trace must be the game the engine plays with the same seed.
"""

from __future__ import annotations

import numpy as np
import pytest
from playback import Recorder, play_batch

from sim.game import play, take
from sim.kunst_stuecke import engine, reference, rules
from sim.registry import get_game
from strategies.common import Table

kunst = get_game("kunst_stuecke")
POOL = np.array(["random", "planner", "planner@6", "slider", "spoiler"])
CASES = [(2, 250, 1, {}), (3, 250, 2, {}), (4, 250, 3, {}), (5, 250, 4, {}),  # players, games, seed, Params:
         (3, 60, 5, {"mirror": True, "slide_again": True, "contact_from_placement": False})]  # 1,060 games in all


class Replay:
    """A reference decider for game g: each question must be the engine's next one for g, with the same legal
    options; it answers with the engine's choice."""

    def __init__(self, log, g: int):
        self.log, self.g, self.at = log, g, 0

    def answer(self, kind: str, phase: str, options: list[int]) -> int:
        while not self.log[self.at][2][self.g]:
            self.at += 1
        logged_kind, logged_phase, _, legal, choice = self.log[self.at]
        self.at += 1
        assert (logged_kind, logged_phase) == (kind, phase), (self.g, self.at)
        assert np.flatnonzero(legal[self.g]).tolist() == sorted(options), (self.g, kind, phase)
        return int(choice[self.g])

    def look(self, game, when, options):
        return self.answer("look", f"look_{when}", options)

    def keep(self, game, stack, options):
        return self.answer("keep", f"keep_{game.half}", options)

    def slide(self, game, when, options):
        return self.answer("slide", f"slide_{when}", options)

    def slide_to(self, game, piece, options):
        return self.answer("slide_to", f"slide_to_{game.half}", options)

    def play(self, game, options):
        return self.answer("play", "play", options)

    def place(self, game, piece, options):
        return self.answer("place", "place", options)

    def done(self) -> bool:
        return not any(asked[self.g] for _, _, asked, _, _ in self.log[self.at:])


def same_game(state: engine.State, g: int, game: reference.Game, scores: np.ndarray) -> None:
    assert state.board[g].tolist() == game.board
    assert state.chips[g].tolist() == game.chips and state.discards[g].tolist() == game.discards
    assert state.spaces[g].tolist() == [[-1 if t is None else t for t in row] for row in game.spaces]
    assert [[t for t in stack if t >= 0] for stack in state.stacks[g].tolist()] == game.stacks
    assert state.first_look[g].tolist() == game.first_look
    assert scores.tolist() == reference.scores(game)


@pytest.mark.parametrize(("players", "games", "seed", "switches"), CASES)
def test_the_reference_offers_the_same_moves_and_gives_the_same_scores(players, games, seed, switches):
    params = rules.Params(players=players, chips=5, **switches)
    rng = np.random.default_rng(seed)
    deal = rules.deal(params, rng, games)
    lineups = rng.choice(POOL, size=(games, players))
    recorder = Recorder(Table(kunst.players, params, lineups, None))
    state = play(engine, params, deal, recorder, rng)
    outcome = engine.outcome(params, state)
    kinds = {kind for kind, *_ in recorder.log}
    assert kinds == {"look", "keep", "slide", "slide_to", "play", "place"}  # every question was asked
    for g in range(games):
        replay = Replay(recorder.log, g)
        game = reference.play(params, take(deal, [g]), replay)
        assert replay.done()
        same_game(state, g, game, outcome.scores[g])


def test_a_batch_plays_exactly_like_its_games_played_one_at_a_time():
    params = rules.Params(players=3, chips=5)
    rng = np.random.default_rng(9)
    deal = rules.deal(params, rng, 24)
    lineups = rng.choice(POOL, size=(24, 3))
    recorder = Recorder(Table(kunst.players, params, lineups, None))
    batch = play(engine, params, deal, recorder, rng)
    scores = engine.outcome(params, batch).scores
    for g in range(24):
        answers = iter([int(choice[g]) for _, _, asked, _, choice in recorder.log if asked[g]])
        alone = play(engine, params, take(deal, [g]), lambda d, rng, answers=answers: np.array([next(answers)]), rng)
        assert next(answers, None) is None
        for name in ("board", "orient", "anchor", "chips", "spaces", "stacks", "discards", "first_look", "seen"):
            assert np.array_equal(getattr(alone, name)[0], getattr(batch, name)[g]), (g, name)
        assert engine.outcome(params, alone).scores[0].tolist() == scores[g].tolist()


@pytest.mark.parametrize(("players", "strategies", "seed"), [
    (2, ["slider", "random"], 0), (3, ["planner", "spoiler", "slider"], 1), (5, ["random"] * 5, 2)])
def test_a_trace_is_the_game_the_engine_plays_with_the_same_seed(players, strategies, seed):
    params = rules.Params(players=players)
    record = kunst.trace(params, strategies, seed)
    rng = np.random.default_rng(seed)
    deal = rules.deal(params, rng, 1)
    played = play_batch("kunst_stuecke", params, deal, np.array([strategies]), rng)
    assert record["final"]["scores"] == played.outcome.scores[0].tolist()
    assert kunst.rules.replay(record) == record["final"]["scores"]
    assert record["supplies"] == deal.supply[0].tolist()
    squares = sorted(r * rules.SIDE + c for turn in record["turns"] for a in turn["actions"] if a["act"] == "place"
                     for r, c in a["cells"])
    assert len(squares) == int((played.state.board[0] >= 0).sum())  # slides move pieces, never grow them
    assert len(record["turns"]) == players * rules.DEALT[players]
    assert sum(n for _, n in record["final"]["blocks"]) == int((played.state.orient[0] >= 0).sum())
    narration = kunst.rules.narrate(record)
    assert narration.count("\nTurn ") == len(record["turns"]) and "Winner(s): " in narration
