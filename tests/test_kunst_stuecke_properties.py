"""Kunst Stücke's determinize (sim/kunst_stuecke/engine.py), what the generic contract test
(tests/test_determinize.py) cannot check: the 30 target tiles are neither lost nor duplicated, nothing the seat has
seen moves (its own tiles, the stack it looks through, the stacks' sizes and taken spaces, a seen tile only in the
stack where the seat saw it or on another board), and over many draws every tile that may lie in a hidden place
appears there, as often as a uniform draw puts it there."""

from __future__ import annotations

import numpy as np
import playback
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.game import evolve, games_of
from sim.kunst_stuecke import engine, rules
from sim.kunst_stuecke.rules import GONE, NO_LOOK, STACKS, TILES, Params


def played(players: int, seed: int, decisions: int) -> tuple[Params, engine.State]:
    """A batch of 8 games after `decisions` uniformly random legal answers (or at their end's last decision)."""
    params = Params(players=players)
    rng = np.random.default_rng(seed)
    state = engine.init(params, rules.deal(params, rng, 8))
    for _ in range(decisions):
        legal = engine.decision(params, state).legal
        after = engine.step(params, state, np.argmax(rng.random(legal.shape) * legal, axis=1))
        if engine.terminal(params, after):
            break
        state = after
    return params, state


def where_tiles_lie(state: engine.State) -> np.ndarray:
    """(B, 30): how many times each tile lies in a stack or on a score board."""
    places = np.concatenate([state.stacks.reshape(len(state.stacks), -1), state.spaces.reshape(len(state.spaces), -1)],
                            axis=1).astype(np.int64)
    return np.stack([(places == tile).sum(axis=1) for tile in range(TILES)], axis=1)


def looked(state: engine.State, seat: int) -> np.ndarray:
    """(B, 5): the stacks the seat has looked through."""
    return (state.seen[:, seat][:, :, None] == np.arange(STACKS)).any(axis=1)


def shown(params: Params, state: engine.State, seat: int) -> np.ndarray:
    """(B,): the games where the seat looks through a stack now."""
    mover = state.turn % params.players == seat
    return state.asked & (state.phase == "keep_before" or state.phase == "keep_after") & mover


def inconsistency(params: Params, state: engine.State, world: engine.State, seat: int) -> str | None:
    """What in the world contradicts what the seat has seen, or None."""
    if not (where_tiles_lie(world) == 1).all():
        return "a tile lost or duplicated"
    if not np.array_equal(world.spaces >= 0, state.spaces >= 0) or not np.array_equal(
            world.stacks >= 0, state.stacks >= 0):
        return "a public count"
    if not np.array_equal(world.spaces[:, seat], state.spaces[:, seat]):
        return "the seat's own tiles"
    games = np.nonzero(shown(params, state, seat))[0]
    if not np.array_equal(world.stacks[games, state.chosen[games]], state.stacks[games, state.chosen[games]]):
        return "the stack it looks through"
    seen, batch = state.seen[:, seat].astype(np.int64), len(state.stacks)
    for stack in range(STACKS):
        tiles = world.stacks[:, stack].astype(np.int64)
        where = seen[np.arange(batch)[:, None], np.maximum(tiles, 0)]
        if not np.all((where == np.where(looked(state, seat)[:, stack:stack + 1], stack, -1)) | (tiles < 0)):
            return f"stack {stack}: a tile it saw elsewhere, or never saw in a stack it looked through"
    return None


positions = st.tuples(st.integers(2, 5), st.integers(0, 2**32 - 1), st.integers(0, 400))


@settings(max_examples=25, deadline=None)
@given(positions, st.integers(0, 4), st.integers(0, 2**32 - 1))
def test_a_determinized_world_keeps_every_tile_once_and_everything_the_seat_saw(position, seat, seed):
    players, play_seed, decisions = position
    params, state = played(players, play_seed, decisions)
    seat = seat % players
    world = engine.determinize(params, state, seat, np.random.default_rng(seed))
    assert inconsistency(params, state, world, seat) is None


def swapped(state: engine.State, g: int, one: int, other: int) -> engine.State:
    """The state with two tiles of game g changing places, wherever they lie."""
    stacks, spaces = state.stacks.copy(), state.spaces.copy()
    for places in (stacks[g], spaces[g]):
        places[(places == one) | (places == other)] += np.where(places[(places == one) | (places == other)] == one,
                                                                 other - one, one - other).astype(np.int8)
    return evolve(state, stacks=stacks, spaces=spaces)


def test_a_world_that_moves_a_seen_tile_or_a_public_count_is_caught():
    params, state = played(2, 3, 60)
    seat = 0
    g, stack = np.argwhere(looked(state, seat) & (state.stacks[:, :, 1] >= 0))[0]
    top, second = state.stacks[g, stack, :2]
    assert inconsistency(params, state, swapped(state, g, top, second), seat) is None  # another order: consistent
    outsider = int(np.nonzero((state.seen[g, seat] != stack) & ~np.isin(np.arange(TILES), state.spaces[g, seat]))[0][0])
    assert inconsistency(params, state, swapped(state, g, top, outsider), seat) is not None
    fewer = state.stacks.copy()
    fewer[g, stack, 0] = -1
    assert inconsistency(params, state, evolve(state, stacks=fewer), seat) is not None
    own = state.spaces[g, seat][state.spaces[g, seat] >= 0]
    if len(own):
        assert inconsistency(params, state, swapped(state, g, own[0], top), seat) is not None


def test_the_stack_the_seat_looks_through_stays_as_it_lies():
    params, state = played(3, 5, 0)
    while not (engine._kind(state.phase) == "keep" and state.asked.any()):
        legal = engine.decision(params, state).legal
        state = engine.step(params, state, np.argmax(legal[:, :-1] if engine._kind(state.phase) == "look"
                                                     else legal, axis=1))
    mover, games = state.turn % params.players, np.nonzero(state.asked)[0]
    for draw in range(5):
        world = engine.determinize(params, state, mover, np.random.default_rng(draw))
        assert np.array_equal(world.stacks[games, state.chosen[games]], state.stacks[games, state.chosen[games]])
    other = (mover + 1) % params.players
    worlds = [engine.determinize(params, state, other, np.random.default_rng(draw)) for draw in range(5)]
    assert any(not np.array_equal(w.stacks[games, state.chosen[games]], state.stacks[games, state.chosen[games]])
               for w in worlds)


def looking(params: Params, looks: dict[int, int]) -> engine.State:
    """One game played from the deal of seed 0, where the mover of turn k looks through stack looks[k] before
    placing and keeps its top tile; every other answer the highest option allowed (no slide, no look)."""
    state = engine.init(params, rules.deal(params, np.random.default_rng(0), 1))
    while state.turn < max(looks) + 1:
        kind, legal = engine._kind(state.phase), engine.decision(params, state).legal
        if kind == "look":
            choice = looks.get(state.turn, NO_LOOK) if state.phase == "look_before" else NO_LOOK
        elif kind == "keep":
            choice = int(np.argmax(legal[0]))
        else:
            choice = legal.shape[1] - 1 - int(np.argmax(legal[0, ::-1]))
        state = engine.step(params, state, np.array([choice]))
    return state


def test_a_tile_seen_in_a_stack_and_missing_at_a_later_look_is_known_gone_in_both_engines():
    params = Params(players=2)
    first = engine.init(params, rules.deal(params, np.random.default_rng(0), 1)).stacks[0, 2]
    state = looking(params, {0: 2, 1: 2, 2: 2})  # seat 0 looks at stack 2, seat 1 takes its top, seat 0 again
    mine, theirs = first[0], first[1]
    assert state.spaces[0, 1][state.spaces[0, 1] >= 0].tolist() == [theirs]
    assert state.seen[0, 0, mine] == GONE and state.seen[0, 0, theirs] == GONE
    assert (state.seen[0, 0, first[2:]] == 2).all() and (state.seen[0, 0, first[0]] == GONE)
    assert state.seen[0, 1, theirs] == 2  # seat 1 looked once: it saw it there
    for draw in range(20):
        world = engine.determinize(params, state, 0, np.random.default_rng(draw))
        assert theirs in world.spaces[0, 1] and theirs not in world.stacks[0]


def test_both_engines_show_the_mover_the_same_looks():
    """The reference's observation of what the mover saw (GONE included) is the engine's, question by question, in
    games where random players look often."""
    params, compared = Params(players=3, chips=2), []
    deal = rules.deal(params, np.random.default_rng(4), 6)

    def watch(g):
        def same_looks(game, phase, options, ours, asked):
            assert ours.observation.seen[0].tolist() == asked.kept[g].tolist(), (g, asked.where)
            compared.append((ours.observation.seen[0] == GONE).any())
        return same_looks

    playback.against_reference("kunst_stuecke", params, deal, np.full((6, 3), "random"), np.random.default_rng(5),
                               keep=lambda decision: decision.observation.seen.copy(), watch=watch)
    assert any(compared)  # some tile was found gone


def candidates(state: engine.State, seat: int) -> tuple[dict, dict]:
    """For one game (the batch's first): the tiles that may lie in each hidden place, worked out from the seat's
    looks, and how often a uniform draw puts each there. Places: ("stack", s, i) and ("board", seat, space)."""
    seen, sizes = state.seen[0, seat], (state.stacks[0] >= 0).sum(axis=1)
    own = set(state.spaces[0, seat][state.spaces[0, seat] >= 0].tolist())
    where = {s: {t for t in range(TILES) if seen[t] == s and t not in own} for s in range(STACKS)}
    unseen = {t for t in range(TILES) if seen[t] < 0}
    looked_at = {s for s in range(STACKS) if (seen == s).any()}
    unlooked_slots = sum(sizes[s] for s in range(STACKS) if s not in looked_at)
    on_boards = {t: (len(where[s]) - sizes[s]) / len(where[s]) for s in looked_at for t in where[s]}
    on_boards |= {t: (len(unseen) - unlooked_slots) / len(unseen) for t in unseen}
    on_boards |= {t: 1.0 for t in range(TILES) if seen[t] == GONE and t not in own}
    board_places = [("board", o, j) for o in range(len(state.spaces[0])) if o != seat
                    for j in range(5) if state.spaces[0, o, j] >= 0]
    tiles, share = {}, {}
    for s in range(STACKS):
        pool = where[s] if s in looked_at else unseen
        for i in range(sizes[s]):
            tiles[("stack", s, i)] = pool
            share[("stack", s, i)] = {t: 1 / len(pool) for t in pool}
    for place in board_places:
        tiles[place] = {t for t, p in on_boards.items() if p > 0}
        share[place] = {t: p / len(board_places) for t, p in on_boards.items() if p > 0}
    return tiles, share


def test_every_tile_that_may_lie_in_a_hidden_place_appears_there_as_often_as_a_uniform_draw_puts_it():
    params, state = played(2, 11, 45)
    one, seat, draws = games_of(state, [0]), 0, 6000
    tiles, share = candidates(one, seat)
    assert any(len(pool) > 1 for place, pool in tiles.items() if place[0] == "board")  # a position worth testing
    assert any(place[0] == "stack" and len(pool) > 1 for place, pool in tiles.items())
    world = engine.determinize(params, games_of(one, np.zeros(draws, int)), seat, np.random.default_rng(1))
    for place, pool in tiles.items():
        kind, first, second = place
        drawn = world.stacks[:, first, second] if kind == "stack" else world.spaces[:, first, second]
        assert set(np.unique(drawn).tolist()) == pool, place
        for tile, expected in share[place].items():
            assert abs((drawn == tile).mean() - expected) < 4 * np.sqrt(expected * (1 - expected) / draws) + 1e-9
