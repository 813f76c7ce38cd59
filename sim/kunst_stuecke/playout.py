"""Kunst Stücke's random playout, compiled: every game of a batch played to its end with the `random` player's
answers, the engine's steps and the player's draws in one loop (a random game asks some 270 questions; most of
its time went to finding every slidable piece at every slide question, which the player answers with a stop nine
times in ten).

It plays the engine's questions in the engine's order (engine.CYCLE), on the engine's State arrays, in lockstep
over the batch, with the engine's own rule kernels (sim/kunst_stuecke/fast.py), and passes over a phase that asks
no game of the batch as engine._advance does (asking the slides after placing afresh). A slide phase asks a game
where some piece may slide (fast.may_slide, the search stopping at the first); its full mask (fast.slides_of) is
found where the game slides, and in the last turn for every game, whose masks the State keeps as the engine's.
At each phase that asks some game it draws exactly as strategies/kunst_stuecke.py's Player (the `random` strategy)
does, over the whole batch; an asked game takes its nth allowed option in code order, n = int(draw * options)
(strategies.common.pick_any):
- look: `rng.random(B)`, the stack, then `rng.random(B)`: the look is taken under 0.5, else none;
- keep, slide_to, place: `rng.random(B)`, the option;
- slide: `rng.random(B)`, the piece, then `rng.random(B)`: it slides under SLIDE_CHANCE, or where it may not stop
  (fast.must_slide), else the mover stops;
- play: `rng.random(B)`, a placeable piece, then `rng.random(B)`, a piece to discard where none is placeable.
So a batch played here ends in the State, and with the rng in the state, that stepping it with `random` at every
seat gives; tests/test_contract.py and tests/test_kunst_stuecke.py hold the two against each other.
"""

from __future__ import annotations

import numpy as np

from sim.kernel import YES, helper, kernel
from sim.kunst_stuecke import fast
from sim.kunst_stuecke.rules import PIECES, STACKS

# engine.CYCLE's phases by index (engine.py checks the order)
START, LOOK_BEFORE, KEEP_BEFORE, SLIDE_BEFORE, SLIDE_TO_BEFORE, PLAY, PLACE, LOOK_AFTER, KEEP_AFTER, SLIDE_AFTER, \
    SLIDE_TO_AFTER, END = range(12)
LOOK_CHANCE, SLIDE_CHANCE = 0.5, 0.1  # the `random` player's chances to look and to slide (strategies/kunst_stuecke.py)


@kernel
def random_playout(board, orient, anchor, owner, chips, stacks, spaces, seen, discards, first_look, looked, slid,
                   start_contact, must_touch, placed, chosen, stopped, asked, sliding, turn, at, turns, again,
                   slide_placed, contact_turn, corner, from_placement, geo, rng):
    """Play from CYCLE[at] (a question the games `asked` are asked, not yet answered) until every turn is played
    (engine._advance's "start" then), changing the arrays in place. Returns the turn then."""
    players = chips.shape[1]
    w, which, found = fast._scratch(geo.side), np.zeros(PIECES, np.bool_), np.zeros(PIECES, np.int64)
    movable, nowhere = np.zeros(PIECES, np.bool_), np.zeros(0, np.bool_)  # fast.may_slide's scratch
    rows = np.zeros(max(2 * PIECES, geo.masks.shape[1] * geo.side * geo.side), np.bool_)
    while True:
        seat = turn % players
        t = fast.Turn(board, orient, anchor, owner, chips, slid, placed, must_touch, start_contact, seat, again,
                      slide_placed, contact_turn, at < PLAY, corner)  # engine._turn
        if at == LOOK_BEFORE or at == LOOK_AFTER:
            look_randomly(stacks, seen, first_look, looked, chosen, asked, seat, turn, rows, rng)
        elif at == KEEP_BEFORE or at == KEEP_AFTER:
            keep_randomly(stacks, spaces, chosen, asked, seat, rows, rng)
        elif at == SLIDE_BEFORE or at == SLIDE_AFTER:
            slide_randomly(t, sliding, chosen, stopped, asked, geo, w, which, found, nowhere, rng)
        elif at == SLIDE_TO_BEFORE or at == SLIDE_TO_AFTER:
            slide_to_randomly(t, chosen, geo, w, which, found, rows, rng)
            at -= 2  # back to the slide question (engine.step after "slide_to")
        elif at == PLAY:
            play_randomly(t, discards, chosen, geo, w, rows, rng)
        else:
            place_randomly(t, chosen, from_placement, geo, w, rows, rng)
        at, turn = next_question(t, stacks, spaces, looked, chosen, stopped, asked, sliding, turn, at, turns, geo, w,
                                 which, found, movable, nowhere)
        if at == START:
            asked[:] = False
            return turn


@helper
def next_question(t, stacks, spaces, looked, chosen, stopped, asked, sliding, turn, at, turns, geo, w, which, found,
                  movable, nowhere):
    """engine._advance after phase `at`: the next phase that asks some game, with `asked` set (and `sliding` in
    a slide phase), and the turn; START once every turn is played."""
    players = t.chips.shape[1]
    while True:
        at = (at + 1) % 12
        seat = turn % players
        if at == START:
            if turn >= turns:
                return START, turn
            fast.start_turn(t.board, t.orient, t.anchor, geo, looked, t.slid, t.start_contact, t.must_touch,
                            t.placed, chosen, stopped)
            continue
        if at == END:
            turn += 1
            continue
        if at == LOOK_AFTER:  # the slides after placing are asked afresh
            stopped[:] = False
        slides = at == SLIDE_BEFORE or at == SLIDE_AFTER
        mover = fast.Turn(t.board, t.orient, t.anchor, t.owner, t.chips, t.slid, t.placed, t.must_touch,
                          t.start_contact, seat, t.again, t.slide_placed, t.lookahead, at < PLAY, t.corner)
        for g in range(len(asked)):
            if at == LOOK_BEFORE or at == LOOK_AFTER:
                asked[g] = fast.asks_look(looked, spaces, stacks, g, seat)
            elif slides and turn == turns - 1:  # the State keeps the last turn's slide masks
                fast.slides_of(mover, g, not stopped[g], geo, w, which, found, nowhere, sliding)
                asked[g] = sliding[g, :PIECES].any()
            elif slides:  # the masks of the games that slide are found when they do (slide_randomly)
                asked[g] = not stopped[g] and fast.may_slide(mover, g, geo, w, which, found, movable, nowhere)
            else:  # keep, slide_to and place where a stack or a piece was chosen; every game's play
                asked[g] = at == PLAY or chosen[g] >= 0
        if asked.any():
            return at, turn


@helper
def nth_allowed(row, draw):
    """pick_any's choice in one row: its nth allowed option, n = int(draw * allowed); -1 if none is allowed (the
    rules never ask a game that has no answer)."""
    count = 0
    for j in range(len(row)):
        count += row[j]
    if count == 0:
        return -1
    nth = int(draw * count)
    for j in range(len(row)):
        if row[j]:
            if nth == 0:
                return j
            nth -= 1
    return -1


@helper
def answered(choice):
    if choice < 0:
        raise RuntimeError("Kunst Stücke playout: a game asked has no legal answer")
    return choice


@helper
def look_randomly(stacks, seen, first_look, looked, chosen, asked, seat, turn, rows, rng):
    """Drawing target tiles: the asked games' movers look through a random non-empty stack half the time."""
    stack_draws, look_draws = rng.random(len(asked)), rng.random(len(asked))
    offered = rows[:STACKS]
    for g in range(len(asked)):
        chosen[g] = -1
        if asked[g] and look_draws[g] < LOOK_CHANCE:
            fast.looks_of(stacks, g, offered)
            chosen[g] = answered(nth_allowed(offered, stack_draws[g]))
            fast.look_at(seen, first_look, stacks, g, seat, chosen[g], turn)
            looked[g] = True


@helper
def keep_randomly(stacks, spaces, chosen, asked, seat, rows, rng):
    """Drawing target tiles: a random tile of the stack looked through onto a random free space."""
    draws = rng.random(len(asked))
    keeps = rows[:stacks.shape[2] * spaces.shape[2]]
    for g in range(len(asked)):
        if asked[g]:
            fast.keeps_of(stacks, spaces, g, seat, chosen[g], keeps)
            fast.keep_one(stacks, spaces, g, seat, chosen[g], answered(nth_allowed(keeps, draws[g])))
        chosen[g] = -1


@helper
def slide_randomly(t, sliding, chosen, stopped, asked, geo, w, which, found, nowhere, rng):
    """Sliding Shapes: a random piece that may slide, chosen one time in ten, or whenever the mover may not stop;
    the mover stops otherwise."""
    piece_draws, slide_draws = rng.random(len(asked)), rng.random(len(asked))
    for g in range(len(asked)):
        chosen[g] = -1
        if asked[g] and (slide_draws[g] < SLIDE_CHANCE or fast.must_slide(t, g, geo, w)):
            fast.slides_of(t, g, YES, geo, w, which, found, nowhere, sliding)
            chosen[g] = answered(nth_allowed(sliding[g, :PIECES], piece_draws[g]))
        elif asked[g]:
            stopped[g] = True


@helper
def slide_to_randomly(t, chosen, geo, w, which, found, rows, rng):
    """Sliding Shapes: the chosen piece slid to a random destination, for a chip."""
    draws = rng.random(len(chosen))
    targets = rows[:geo.side * geo.side]
    for g in range(len(chosen)):
        if chosen[g] >= 0:
            targets[:] = False
            fast.destinations_of(t, g, chosen[g], geo, w, which, found, targets)
            fast.slide_one(t, g, chosen[g], answered(nth_allowed(targets, draws[g])), geo)
        chosen[g] = -1


@helper
def play_randomly(t, discards, chosen, geo, w, rows, rng):
    """Placing Shapes: a random piece that can be placed; a random discard only where none can."""
    place_draws, discard_draws = rng.random(len(chosen)), rng.random(len(chosen))
    plays = rows[:2 * PIECES]
    for g in range(len(chosen)):
        plays[:] = False
        fast.plays_of(t, g, geo, w, plays)
        chosen[g] = nth_allowed(plays[:PIECES], place_draws[g])
        if chosen[g] < 0:
            fast.discard_one(t.owner, discards, g, t.seat, answered(nth_allowed(plays[PIECES:], discard_draws[g])))


@helper
def place_randomly(t, chosen, from_placement, geo, w, rows, rng):
    """Placing Shapes: the chosen piece laid in a random legal orientation and place."""
    draws = rng.random(len(chosen))
    spots = rows[:geo.masks.shape[1] * geo.side * geo.side]
    for g in range(len(chosen)):
        if chosen[g] >= 0:
            spots[:] = False
            fast.placements_of(t, g, chosen[g], geo, w, spots)
            fast.place_one(t.board, t.orient, t.anchor, t.owner, t.start_contact, g, chosen[g],
                           answered(nth_allowed(spots, draws[g])), from_placement, geo)
            t.placed[g] = chosen[g]
        chosen[g] = -1
