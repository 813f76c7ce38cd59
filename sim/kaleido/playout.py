"""Kaleido's random playout, compiled: every game of a batch played to its end with the `random` player's answers,
the engine's steps and the player's draws in one loop (the random player asks about a hundred questions a game,
and stepping the batched engine through each one cost most of a random game's time).

It plays the engine's questions in the engine's order (engine.CYCLE), on the engine's State arrays, in lockstep
over the batch, with the engine's own rule kernels (sim/kaleido/fast.py), and passes over a phase that asks no
game of the batch as the engine does. At each phase that asks some game it draws exactly as strategies/kaleido.py's
Random does over the whole batch:
- an extra action ("forced", "before", "after"): `rng.random(B)`, whether to act (under 0.5, or always when
  forced), then `rng.random(rows)`, one draw for each game that acts and has an option; such a game takes its nth
  option in code order, n = int(draw * options) (Random.extra, strategies.common.pick_any);
- "tile": `rng.random(B)`, and an asked game takes its nth empty hole, n = int(draw * empty holes) (pick_any);
  the State's running count `empty` numbers the empty holes that tile_mask (and extra_mask) list;
- "rotate": `rng.integers(0, 6, B)`, the steps each asked game turns its board on offer. numba's
  Generator.integers gives numpy's values from numpy's bounded 32-bit draws, and leaves the bit generator (with its
  buffered half of a 64-bit draw) as numpy does, so the whole game is played here.
So a batch played here ends in the State, and with the rng in the state, that stepping it with `random` at every
seat gives; tests/test_contract.py and tests/test_kaleido_properties.py hold the two against each other.
"""

from __future__ import annotations

import numpy as np

from sim.kaleido import fast
from sim.kaleido.rules import EMPTY
from sim.kernel import NO, YES, ZERO, helper, kernel

# engine.CYCLE's phases by index (engine.py checks the order), and engine.PHASE_CODES of those that ask
START, FORCED, BEFORE, TILE, AFTER, SCORE, ROTATE, END = range(8)
ASKING = np.array([-1, 0, 1, 2, 3, -1, 4, -1], np.int64)
OVER = 4  # engine.OVER


@kernel
def play_out(slots, cell, placer, rot, scored, tiles, whites, stock, midgame, endgame, whites_used, turns_played,
             passes, skips, done, stalled, turn_kind, extra_taken, pending, asked, empty, filling, offers, owner,
             two_colour, scoring, cells, steps, turn, at, longest, greedy, rng):
    """Play from CYCLE[at] (a question not yet answered) until every game has ended and the end-game hexagons are
    scored (engine._advance's "start" once every game is done; `scoring` is fast.scoring's, which says whether a
    hexagon needs its boards full), changing the arrays in place, with `random`, or with `greedy` at every seat.
    Returns the turn then."""
    grid, offered = np.full(cells, -1, np.int8), np.empty(offers.shape[1], np.int64)
    options, whites_offered = np.zeros(len(done), np.int64), np.zeros(len(done), np.int64)
    nb, colours = slots.shape[1], tiles.shape[1]
    scratch = (np.zeros(fast.BINS, np.int64), np.zeros(colours, np.int64), np.zeros(colours, np.int64), np.empty(nb),
               np.empty(nb, np.int64), np.empty((1, 6 * nb), np.bool_))  # closing_hole's
    while True:
        seat = turn % whites.shape[1]
        if at == START and done.all():
            fast.endgame_scoring(slots, rot, cell, cells, steps, endgame, scoring)
            turn_kind[:] = OVER
            asked[:] = False
            return turn
        if at == START:  # engine._start_turn
            if turn > longest:
                raise RuntimeError("Kaleido playout: games neither progress nor stall")
            colour = fast.colours_to_play(turns_played, seat, whites.shape[1], two_colour)
            _copy(fast.start_turn(tiles, stock, empty, done, colour, seat, owner), turn_kind)
            extra_taken[:] = False
        elif at == SCORE:  # engine.score_boards
            _copy(fast.score_boards(slots, cell, scored, filling, midgame, midgame.shape[1], scoring).ravel(),
                  pending.ravel())
            scored |= pending
            filling[:] = False
        elif at == END:  # engine._end_turn
            fast.end_turn(turn_kind, tiles, turns_played, passes, skips, done, stalled, seat)
            turn += 1
        else:
            _copy(fast.asked(ASKING[at], turn_kind, extra_taken, empty, pending), asked)
            if not asked.any():
                pass  # a phase that asks no game is passed over (engine._advance)
            elif at == TILE and greedy:
                place_greedy_tiles(slots, cell, tiles, empty, filling, turns_played, asked, seat, two_colour, scoring,
                                   scratch, rng)
            elif at == TILE:
                place_random_tiles(slots, cell, tiles, empty, filling, turns_played, asked, seat, two_colour, rng)
            elif at == ROTATE:
                for g in range(len(asked)):  # greedy leaves the board as it is
                    if greedy and asked[g]:
                        fast.rotate_game(rot, pending, g, ZERO)
                if not greedy:
                    rotate_randomly(rot, pending, asked, rng)
                continue  # the next board just scored, if any (engine.step after "rotate")
            elif greedy and at != BEFORE:  # greedy takes no extra action before its tile, and draws nothing there
                take_greedy_extras(slots, cell, placer, whites, stock, whites_used, empty, filling, offers,
                                   extra_taken, asked, seat, at == FORCED, grid, offered, steps, turns_played,
                                   two_colour, scoring, scratch, rng)
            elif not greedy:
                take_random_extras(slots, cell, placer, whites, stock, whites_used, empty, filling, offers,
                                   extra_taken, asked, seat, at == FORCED, at == BEFORE, grid, offered, steps,
                                   options, whites_offered, rng)
        at = (at + 1) % 8


@helper
def rotate_randomly(rot, pending, asked, rng):
    """Rotating a game board (Details of a Turn, 4) in each asked game: the board on offer turned by 0 to 5 steps,
    Random.rotate's `rng.integers(0, 6, B)`."""
    turns = rng.integers(0, 6, len(asked))
    for g in range(len(asked)):
        if asked[g]:
            fast.rotate_game(rot, pending, g, turns[g])


@helper
def place_random_tiles(slots, cell, tiles, empty, filling, turns_played, asked, seat, two_colour, rng):
    """Placing a tile (Details of a Turn, 1) in each asked game: its nth empty hole, Random.tile's pick."""
    draws = rng.random(len(asked))
    for g in range(len(asked)):
        if asked[g]:
            hole = fast.nth_empty_hole(slots, cell, g, int(draws[g] * empty[g]))
            colour = fast.colour_to_play(turns_played, g, seat, turns_played.shape[1], two_colour)
            fast.place_tile(slots, tiles, empty, filling, g, hole, colour)


@helper
def take_random_extras(slots, cell, placer, whites, stock, whites_used, empty, filling, offers, extra_taken, asked,
                       seat, forced, before_tile, grid, offered, steps, options, whites_offered, rng):
    """The additional action (Details of a Turn, 2) in each asked game, Random.extra's: with a draw under 0.5, or
    always when forced, the nth of its options in code order (white tiles in empty holes, then boards on free
    cells); none otherwise."""
    batch, nb, _ = slots.shape
    act = rng.random(batch)
    rows = 0
    for g in range(batch):
        options[g] = whites_offered[g] = 0
        if asked[g] and (forced or act[g] < 0.5):
            if fast.may_place_white(whites, empty, g, seat, forced, before_tile):
                whites_offered[g] = empty[g]
            options[g] = whites_offered[g]
            if fast.may_place_board(stock, g, seat):
                options[g] += fast.offer_count(offers, g)
            rows += options[g] > 0
    draws = rng.random(rows)
    r = 0
    for g in range(batch):
        if options[g] > 0:
            nth = int(draws[r] * options[g])
            r += 1
            if nth < whites_offered[g]:
                code = 1 + fast.nth_empty_hole(slots, cell, g, nth)
            else:
                code = 1 + 6 * nb + fast.nth_offer(offers, g, nth - whites_offered[g])
            fast.apply_game_extra(code, g, seat, slots, cell, placer, whites, stock, whites_used, empty, filling,
                                  offers, grid, offered, steps)
            extra_taken[g] = True


# ---------------------------------------------------------------------------------------------- greedy
# strategies/kaleido.Player's answers, game by game: its hole choice (fast.choose_hole) and its board's place
# (fast.touching's count), each with pick_best's one draw a game (strategies.common._pick_best: the best value, ties
# within 1e-9 picked by int(draw * ties) in option order).


@helper(_nrt=False)
def _copy(values, out):
    """out[:] = values, written out: numba compiles an array assigned to a slice with its shape check's error
    message, a second or two of string formatting code."""
    for i in range(len(out)):
        out[i] = values[i]


@helper
def place_greedy_tiles(slots, cell, tiles, empty, filling, turns_played, asked, seat, two_colour, scoring, scratch,
                       rng):
    """Placing a tile (Details of a Turn, 1) in each asked game: in the empty hole that fills its board for the
    most points, Player.tile's."""
    draws = rng.random(len(asked))
    for g in range(len(asked)):
        if asked[g]:
            colour = fast.colour_to_play(turns_played, g, seat, turns_played.shape[1], two_colour)
            hole, _ = closing_hole(slots, cell, g, colour, NO, scoring, draws[g], scratch)
            if hole < 0:
                raise RuntimeError("Kaleido playout: a tile asked for where no hole is empty")
            fast.place_tile(slots, tiles, empty, filling, g, hole, colour)


@helper
def take_greedy_extras(slots, cell, placer, whites, stock, whites_used, empty, filling, offers, extra_taken, asked,
                       seat, forced, grid, offered, steps, turns_played, two_colour, scoring, scratch, rng):
    """The additional action (Details of a Turn, 2) in each asked game, Player.extra's: when forced, a board on
    the free cell the most boards touch; after the tile, a white tile that fills a board for points, if any."""
    batch, nb, _ = slots.shape
    draws = rng.random(batch)
    for g in range(batch):
        if not asked[g]:
            continue
        if forced:
            if not fast.may_place_board(stock, g, seat):
                raise RuntimeError("Kaleido playout: a board asked for where the mover has none")
            code = 1 + 6 * nb + most_touched_offer(grid, cell, offers, g, steps, draws[g])
        else:
            if not fast.may_place_white(whites, empty, g, seat, NO, NO):
                continue
            colour = fast.colour_to_play(turns_played, g, seat, turns_played.shape[1], two_colour)
            hole, gain = closing_hole(slots, cell, g, colour, YES, scoring, draws[g], scratch)
            if gain <= 0:
                continue
            code = 1 + hole
        fast.apply_game_extra(code, g, seat, slots, cell, placer, whites, stock, whites_used, empty, filling, offers,
                              grid, offered, steps)
        extra_taken[g] = True


@helper(_nrt=False)
def closing_hole(slots, cell, g, colour, white, scoring, draw, scratch):
    """(hole, its points): among game g's empty holes, greedy's (fast.choose_hole over them, with its draw); (-1, 0)
    if none is empty."""
    bins, count, points, value, legal_in, holes = scratch
    empty = 0
    for b in range(slots.shape[1]):
        for s in range(6):
            holes[0, 6 * b + s] = cell[g, b] >= 0 and slots[g, b, s] == EMPTY
            empty += holes[0, 6 * b + s]
    if empty == 0:
        return -1, 0.0
    return fast.choose_hole(slots, cell, g, colour, white, fast.GREEDY, scoring, holes, 0, draw, value, legal_in, bins,
                            count, points)


@helper(_nrt=False)
def most_touched_offer(grid, cell, offers, g, steps, draw):
    """The board option 6 b + k (`offers`) whose cell the most boards on the table touch (fast.touching), ties
    picked by the draw. grid: a blank one-game grid, left blank."""
    nb = cell.shape[1]
    fast.lay_boards(grid, cell, g, YES)
    best, ties, nth = -1, 0, -1
    for rounds in range(3):  # the best, its ties, then the nth of them
        for b in range(nb):
            for k in range(6):
                if not offers[g, 6 * b + k]:
                    continue
                spot, touched = cell[g, b] + steps[k], 0
                for j in range(6):
                    touched += grid[spot + steps[j]] >= 0
                if rounds == 0:
                    best = max(best, touched)
                elif touched == best and rounds == 1:
                    ties += 1
                elif touched == best:
                    if nth == 0:
                        fast.lay_boards(grid, cell, g, NO)
                        return 6 * b + k
                    nth -= 1
        if rounds == 1:
            nth = int(draw * ties)
    fast.lay_boards(grid, cell, g, NO)
    raise RuntimeError("Kaleido playout: a board asked for where no cell is free")
