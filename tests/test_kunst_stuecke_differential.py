"""Kunst Stücke: the batched engine against the readable reference, move by move.

The engine plays batches with the shipped strategies (and chips enough to slide), under every rule switch;
every game is then replayed through the reference, which must offer exactly the legal options the engine
offered at every question and end with the same board, chips, discards, score boards and stacks; the engine's
scores, ranks, win shares and own result columns must be what the reference's game gives, worked out here.
A trace must be the game the engine plays with the same seed (its winners too); a batch played like its games
one at a time is a contract test (tests/test_contract.py).
"""

from __future__ import annotations

import numpy as np
import playback
import pytest
from playback import Recorder, play_batch

from sim.kunst_stuecke import engine, reference, rules
from sim.registry import get_game

kunst = get_game("kunst_stuecke")
POOL = np.array(["random", "planner", "planner@6", "slider", "spoiler"])
CASES = [(2, 32, 1, {}), (3, 32, 2, {}), (4, 32, 3, {}), (5, 32, 4, {}),  # players, games, seed, Params:
         (3, 30, 5, {"mirror": True, "slide_again": True, "contact_from_placement": False}),
         (3, 24, 6, {"contact": "slide"}), (2, 24, 7, {"slide_again": True, "board": 12}),
         (4, 30, 8, {"rotate": False, "slide_placed": False}), (3, 24, 9, {"rotate": False, "mirror": True}),
         (2, 24, 10, {"board": 8}), (2, 6, 11, {"board": 32}),
         (3, 24, 12, {"placement_contact": "corner", "contact": "slide"})]  # 314 games in all


def same_game(state: engine.State, g: int, game: reference.Game) -> None:
    assert state.board[g].tolist() == game.board
    assert state.chips[g].tolist() == game.chips and state.discards[g].tolist() == game.discards
    assert state.spaces[g].tolist() == [[-1 if t is None else t for t in row] for row in game.spaces]
    assert [[t for t in stack if t >= 0] for stack in state.stacks[g].tolist()] == game.stacks
    assert state.first_look[g].tolist() == game.first_look


def met(blocks: list[tuple[int, int]], colour: int, size: int) -> bool:
    """Scoring: a block of the colour with exactly `size` pieces; size 6 is the 6+ tile, six or more."""
    return any(c == colour and (n == size or (size == 6 and n >= 6)) for c, n in blocks)


def own_columns(params: rules.Params, game: reference.Game) -> list[dict]:
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
    blocks = reference.blocks(game)
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


def same_outcome(outcome, g: int, params: rules.Params, game: reference.Game) -> None:
    """Scores, ranks, win shares and every own column of game g against the reference's game, worked out
    independently: rank 1 + the seats with more points; the most points wins, ties share."""
    scores = reference.scores(game)
    assert outcome.scores[g].tolist() == scores
    assert outcome.rank[g].tolist() == [1 + sum(v > mine for v in scores) for mine in scores]
    winners = [s for s, v in enumerate(scores) if v == max(scores)]
    assert outcome.win[g].tolist() == pytest.approx([1 / len(winners) if s in winners else 0
                                                     for s in range(params.players)])
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
    options, the same end and the same outcome. Returns the engine's final state and its recorded questions."""
    def check(state, outcome, g, game):
        same_game(state, g, game)
        same_outcome(outcome, g, params, game)

    return playback.against_reference("kunst_stuecke", params, deal, lineups, rng, check, kind_of=reference.kind_of)


def questions(recorder: Recorder, kind: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """(legal, choice) of the games asked, for each question of a kind."""
    return [(legal[asked], choice[asked]) for k, _, asked, legal, choice in recorder.log if k == kind]


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
    played = play_batch("kunst_stuecke", params, deal, np.array([strategies]), rng)
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
