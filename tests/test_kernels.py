"""Compiled kernels against their numpy twins: the same answers, and the same random draws.

The numpy twins are the readable statements of what each kernel computes (the engines and strategies call the
kernels); the differential replays against the scalar references check the kernels once more, end to end.
"""

from __future__ import annotations

import numpy as np
import twins
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from sim.broken_beautiful import fast as bb_fast
from sim.broken_beautiful import rules as bb_rules
from sim.game import play
from sim.kaleido import engine as kaleido_engine
from sim.kaleido import fast as kaleido_fast
from sim.kaleido import rules as kaleido_rules
from sim.kintsugi import engine as kintsugi_engine
from sim.kintsugi import fast as kintsugi_fast
from sim.registry import get_game
from strategies import kaleido as kaleido_strategies
from strategies.common import Table, pick_any, pick_best


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 6), st.integers(1, 9), st.integers(0, 2**32 - 1), st.booleans(), st.data())
def test_pick_best_matches_its_numpy_twin_draw_for_draw(rows: int, options: int, seed: int, lowest: bool, data):
    score = data.draw(arrays(np.float64, (rows, options), elements=st.sampled_from([-2.0, 0.0, 0.5, 1.0, 3.0])))
    allowed = data.draw(arrays(np.bool_, (rows, options)))
    compiled, twin, anyway = (np.random.default_rng(seed) for _ in range(3))
    best = pick_best(score, allowed, compiled, lowest)
    assert np.array_equal(best, twins.pick_best(score, allowed, twin, lowest))
    assert compiled.random() == twin.random()  # both consumed the generator alike
    assert (allowed[np.arange(rows), best] | ~allowed.any(axis=1)).all()
    equal = np.zeros(score.shape)
    assert np.array_equal(pick_any(allowed, anyway), pick_best(equal, allowed, np.random.default_rng(seed)))


def test_pick_best_breaks_ties_uniformly():
    allowed = np.tile([True, False, True, True, False], (30_000, 1))
    score = np.tile([1.0, 5.0, 1.0, 1.0, 0.0], (30_000, 1))
    counts = np.bincount(pick_best(score, allowed, np.random.default_rng(3)), minlength=5)
    assert counts[1] == counts[4] == 0
    assert np.all(np.abs(counts[[0, 2, 3]] - 10_000) < 400)  # about 4.5 standard deviations


def played_states(game: str, players: int, strategies: list[str], games: int, seed: int, watch):
    """Play a batch, calling `watch(params, decision)` before every choice; (params, the final state)."""
    spec = get_game(game)
    params = spec.make_params(players, {})
    rng = np.random.default_rng(seed)
    deal = spec.rules.deal(params, rng, games)
    lineups = rng.choice(strategies, size=(games, players))
    table = Table(spec.players, params, lineups, spec.rules.secrets(spec.rules.engine.init(params, deal)))

    def choose(decision, rng):
        watch(params, decision)
        return table.choose(decision, rng)

    return params, play(spec.rules.engine, params, deal, choose, rng)


def test_broken_beautiful_valuations_match_the_numpy_scoring():
    rng = np.random.default_rng(0)
    checked = []

    def watch(params, decision):
        obs, kit = decision.observation, params.kit
        if decision.kind != "draft":
            return
        t = bb_rules.tally(obs.owner, obs.cond, params.players, kit)
        for seat in range(params.players):
            cards = rng.integers(-1, kit.size, size=(len(obs.owner), 5))
            coins = rng.integers(0, 12, size=cards.shape)
            for repaired in (False, True):
                expected = twins.score_after(t, seat, cards, coins, kit, repaired)
                assert np.array_equal(bb_fast.scores(obs.owner, obs.cond, seat, cards, coins, kit, repaired), expected)
        checked.append(decision.seat)

    for players in (2, 3, 4):
        params, state = played_states("broken_beautiful", players, ["random", "greedy", "hater"], 48, players, watch)
        kind, pattern, sc, vase, _ = bb_fast.kit_arrays(params.kit)
        by_type, repaired, items, _ = bb_fast.standing(state.owner, state.cond, state.ingots, players, kind, pattern,
                                                       sc, vase, params.kit.patterns, True)
        t = bb_rules.tally(state.owner, state.cond, players, params.kit)
        jars = t.whole[..., bb_rules.TEA_JAR]
        rivals = np.stack([np.delete(jars, s, axis=1).max(axis=1) for s in range(players)], axis=1)
        assert np.array_equal(by_type, bb_rules.points(t, state.ingots, rivals, params.kit))
        assert np.array_equal(repaired, t.repaired.sum(axis=2))
        assert np.array_equal(items, t.whole.sum(axis=2) + t.broken.sum(axis=2))
    assert len(checked) > 100


def test_kintsugi_laying_and_piece_counts_match_numpy_and_scipy():
    for connectivity in (8, 4):
        spec = get_game("kintsugi")
        params = spec.make_params(3, {"connectivity": connectivity})
        rng = np.random.default_rng(connectivity)
        deal = spec.rules.deal(params, rng, 400)
        state = kintsugi_engine.init(params, deal)
        while state.turn < len(params.cards) - 1:
            actions = rng.integers(0, 16, 400)
            twin = twins.lay(params, state, actions)
            state = kintsugi_engine.step(params, state, actions)
            for compiled, expected in zip((state.board, state.pos, state.low, state.high), twin, strict=True):
                assert np.array_equal(compiled, expected)
            compiled = kintsugi_fast.count_pieces(state.board, state.low, state.high, connectivity, 4)
            assert np.array_equal(compiled, twins.count_pieces(state, connectivity))


def test_kaleido_extra_action_masks_match_the_numpy_twin():
    seen = set()

    def watch(params, decision):
        obs = decision.observation
        if decision.kind != "extra":
            return
        twin = kaleido_engine.extra_mask_numpy(params, obs.state, obs.geo, decision.seat, decision.asked,
                                               boards_only=obs.phase == "forced", before_tile=obs.phase == "before")
        assert np.array_equal(decision.legal, twin), obs.phase
        seen.add(obs.phase)

    for players in (2, 3, 5):
        played_states("kaleido", players, ["random", "greedy", "hoarder"], 24, players, watch)
    assert seen == {"forced", "before", "after"}


kaleido_points = st.builds(kaleido_rules.Params, players=st.sampled_from(kaleido_rules.PLAYER_COUNTS),
                           first=st.integers(0, 20), second=st.integers(0, 20), tie_pool=st.integers(0, 20),
                           monochrome=st.integers(0, 30), monochrome_with_white=st.booleans())


@settings(max_examples=300, deadline=None)
@given(kaleido_points, st.data())
def test_kaleido_majority_kernel_matches_the_rule(params, data):
    counts = data.draw(arrays(np.int64, params.colours, elements=st.integers(0, 6)).filter(lambda c: c.sum() <= 6))
    points = np.zeros(params.colours, np.int64)
    kaleido_fast.majority_into(counts, kaleido_fast.scoring(params), points)
    assert points.tolist() == kaleido_rules.majority(counts, params).tolist()


def kaleido_hole_values(params, obs, kind: int, white: bool) -> np.ndarray:
    """(B, 6 NB): a Kaleido player's value of each hole (strategies/kaleido._hole_choices), in numpy: the points
    the mover's colour scores at once where its tile (or a white tile) fills a board one hole from full, and
    Majority's lead bonus, Hoarder's gift and first-place rule."""
    state = obs.state
    counts = kaleido_engine.colour_counts(state.slots, params.colours)
    empties = ((state.slots == kaleido_rules.EMPTY) & state.placed[..., None]).sum(axis=2)
    gain = np.zeros(empties.shape)
    games, boards = np.nonzero(empties == 1)
    colour = obs.colour[games]
    last = counts[games, boards] + (not white) * (np.arange(params.colours) == colour[:, None])
    gain[games, boards] = kaleido_rules.majority(last, params)[np.arange(len(games)), colour]
    if kind == kaleido_strategies.MAJORITY and not white:
        own, rivals = kaleido_strategies.own_and_rest(counts, obs.colour)
        gain = gain + np.where(own + empties >= rivals, 2.0, -2.0)
    elif kind == kaleido_strategies.HOARDER and not white:
        gain = gain - (empties == 2)
    elif kind == kaleido_strategies.HOARDER:
        gain = np.where(gain >= params.first, gain, 0)
    return np.repeat(gain, 6, axis=1)


def test_kaleido_strategy_kernels_match_numpy():
    checked = []

    def watch(params, decision):
        obs, state = decision.observation, decision.observation.state
        fresh = kaleido_engine.counted(params, state)  # the running counts, kept up to date step by step
        for name, value in fresh.items():
            assert np.array_equal(getattr(state, name), value), name
        empties = ((state.slots == kaleido_rules.EMPTY) & state.placed[..., None]).sum(axis=2)
        assert np.array_equal(kaleido_engine.empty_holes(state).reshape((*empties.shape, 6)).sum(axis=2), empties)
        holes = np.ascontiguousarray(decision.legal if decision.kind == "tile" else
                                     np.ones((len(empties), 6 * params.boards), bool))
        for kind in (kaleido_strategies.GREEDY, kaleido_strategies.MAJORITY, kaleido_strategies.HOARDER):
            for white in (False, True):
                expected = kaleido_hole_values(params, obs, kind, white)
                choice, worth = kaleido_strategies._hole_choices(
                    state.slots, state.cell, obs.colour, white, kind, kaleido_fast.scoring(params), params.colours,
                    holes, np.random.default_rng(len(checked)).random(len(holes)))
                twin = twins.pick_best(expected, holes, np.random.default_rng(len(checked)))
                assert np.array_equal(choice, twin)
                assert np.array_equal(worth, expected[np.arange(len(twin)), twin])
        around = sum(np.roll(state.grid >= 0, -step, axis=1).astype(np.int8) for step in obs.geo.step)
        spots = np.where(state.placed[..., None], state.cell[..., None] + obs.geo.step, 0).reshape(len(around), -1)
        expected = np.take_along_axis(around, spots, axis=1) * state.placed.repeat(6, axis=1)
        assert np.array_equal(kaleido_fast.touching(state.cell, obs.geo.cells, obs.geo.step), expected)
        checked.append(int((empties == 1).sum()))

    for players in (2, 4):
        played_states("kaleido", players, ["random", "majority"], 16, players, watch)
    assert sum(checked) > 0  # boards one hole from full were valued


def test_kaleido_rotator_values_match_its_numpy_twin():
    checked = []

    def watch(params, decision):
        if decision.kind != "rotate":
            return
        obs = decision.observation
        rotator = kaleido_strategies.make_player("rotator", seat=decision.seat, params=params, games=slice(None))
        state = obs.state
        compiled = kaleido_strategies._rotation_values(state.slots, state.rot, state.cell, obs.geo.cells, obs.geo.step,
                                                       obs.board, obs.colour, params.colours,
                                                       kaleido_fast.scoring(params))
        assert np.array_equal(compiled, rotator.rotation_values_numpy(obs))
        checked.append(int((compiled.max(axis=1) > 0).sum()))

    for players in (2, 3, 5):
        played_states("kaleido", players, ["rotator", "random"], 24, players, watch)
    assert sum(checked) > 0  # some turns were worth something
