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

from typing import NamedTuple

import numpy as np

from sim.kernel import NO, YES, best_allowed, helper, kernel
from sim.kunst_stuecke import fast
from sim.kunst_stuecke.rules import PIECES, SHAPES, STACK_TILES, STACKS

# engine.CYCLE's phases by index (engine.py checks the order)
START, LOOK_BEFORE, KEEP_BEFORE, SLIDE_BEFORE, SLIDE_TO_BEFORE, PLAY, PLACE, LOOK_AFTER, KEEP_AFTER, SLIDE_AFTER, \
    SLIDE_TO_AFTER, END = range(12)
LOOK_CHANCE, SLIDE_CHANCE = 0.5, 0.1  # the `random` player's chances to look and to slide (strategies/kunst_stuecke.py)


@kernel
def play_out(board, orient, anchor, owner, chips, stacks, spaces, seen, discards, first_look, looked, slid,
             start_contact, must_touch, placed, chosen, stopped, asked, sliding, turn, at, turns, again, slide_placed,
             contact_turn, corner, from_placement, geo, bonus, planner, rng):
    """Play from CYCLE[at] (a question the games `asked` are asked, not yet answered) until every turn is played
    (engine._advance's "start" then), changing the arrays in place, with `random`, or with `planner` at every seat
    (`bonus`: the score spaces' bonuses). Returns the turn then."""
    players = chips.shape[1]
    w, which, found = fast._scratch(geo.side), np.zeros(PIECES, np.bool_), np.zeros(PIECES, np.int64)
    movable, nowhere = np.zeros(PIECES, np.bool_), np.zeros(0, np.bool_)  # fast.may_slide's scratch
    rows = np.zeros(max(2 * PIECES, geo.masks.shape[1] * geo.side * geo.side), np.bool_)
    mind = Mind(np.full(PIECES, -1, np.int64), np.zeros(PIECES, np.int64), np.empty(PIECES, np.int64),
                np.empty(32, np.int64), np.zeros(len(rows)), np.zeros(len(asked), np.bool_))
    while True:
        seat = turn % players
        t = fast.Turn(board, orient, anchor, owner, chips, slid, placed, must_touch, start_contact, seat, again,
                      slide_placed, contact_turn, at < PLAY, corner)  # engine._turn
        if at == LOOK_BEFORE or at == LOOK_AFTER:
            if planner:
                look_planned(stacks, seen, first_look, looked, chosen, asked, seat, turn, rows, rng)
            else:
                look_randomly(stacks, seen, first_look, looked, chosen, asked, seat, turn, rows, rng)
        elif at == KEEP_BEFORE or at == KEEP_AFTER:
            if planner:
                keep_planned(t, stacks, spaces, chosen, asked, bonus, geo, mind, rng)
            else:
                keep_randomly(stacks, spaces, chosen, asked, seat, rows, rng)
        elif at == SLIDE_BEFORE or at == SLIDE_AFTER:
            if planner:
                slide_planned(t, sliding, chosen, stopped, asked, geo, w, which, found, nowhere, mind, rng)
            else:
                slide_randomly(t, sliding, chosen, stopped, asked, geo, w, which, found, nowhere, mind.forced, rng)
        elif at == SLIDE_TO_BEFORE or at == SLIDE_TO_AFTER:
            slide_to_randomly(t, chosen, geo, w, which, found, rows, rng)
            at -= 2  # back to the slide question (engine.step after "slide_to")
        elif at == PLAY and planner:
            play_planned(t, spaces, discards, chosen, geo, w, rows, rng)
        elif at == PLAY:
            play_randomly(t, discards, chosen, geo, w, rows, rng)
        elif planner:
            place_planned(t, spaces, chosen, from_placement, geo, w, rows, mind, rng)
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
def slide_randomly(t, sliding, chosen, stopped, asked, geo, w, which, found, nowhere, slides, rng):
    """Sliding Shapes: a random piece that may slide, chosen one time in ten, or whenever the mover may not stop;
    the mover stops otherwise (`slides`: scratch (B,))."""
    piece_draws, slide_draws = rng.random(len(asked)), rng.random(len(asked))
    for g in range(len(asked)):
        slides[g] = asked[g] and (slide_draws[g] < SLIDE_CHANCE or fast.must_slide(t, g, geo, w))
    slide_or_stop(t, sliding, chosen, stopped, asked, slides, piece_draws, geo, w, which, found, nowhere)


@helper
def slide_or_stop(t, sliding, chosen, stopped, asked, slides, piece_draws, geo, w, which, found, nowhere):
    """Each asked game's mover slides the nth piece that may slide (n drawn by its piece draw) where slides[g], and
    stops otherwise."""
    for g in range(len(asked)):
        chosen[g] = -1
        if slides[g]:
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


# ---------------------------------------------------------------------------------------------- the planner
# strategies/kunst_stuecke.py's Planner, valued here for its players (the batched kernels) and for its playout (the
# rows, game by game). How a placement is valued: laying piece p of colour c makes a block of k pieces, 1 plus the
# blocks of colour c it touches. For each of the player's own tiles of colour c still unmet: k equal to the tile's
# number (or k >= 6 for 6+) is worth most, a block still short of it is worth its size, and overgrowing a block that
# met a tile costs. Pieces of colours the player does not aim at are worth laying alone (or, `spoils`, against the
# largest block of their colour).
EXACT, BROKEN, OVERGROWN = 10.0, -10.0, -5.0
UNFIXED = np.int64(-1)  # placement_row's `fixed`: a placement, in any orientation


@kernel
def wanted_colours(tiles):
    """(n, 5): 2 for a colour the player holds a tile of, else 1."""
    wanted = np.ones((tiles.shape[0], 5))
    for g in range(tiles.shape[0]):
        for j in range(tiles.shape[1]):
            if tiles[g, j] >= 0:
                wanted[g, tiles[g, j] // STACK_TILES] = 2.0
    return wanted


@helper
def met(size, wanted):
    return size == wanted or (wanted == 6 and size >= 6)


@kernel
def placement_values(board, label, members, pieces, legal, tiles, spoils, geo, fixed):
    """(n, W): the value of each legal option of each game's piece: W = O * N^2 placements N^2 o + anchor (N = the
    board's side), or, where fixed[g] >= 0, W = N^2 slide destinations in orientation fixed[g]."""
    value = np.zeros(legal.shape)
    touched = np.empty(32, np.int64)
    for g in range(legal.shape[0]):
        if pieces[g] >= 0:
            placement_row(board[g], label[g], members[g], pieces[g], legal[g], tiles[g], spoils, geo, fixed[g],
                          value[g], touched)
    return value


@helper
def placement_row(board, label, members, piece, legal, tiles, spoils, geo, fixed, value, touched):
    """placement_values of one game, into its row `value` (its legal options only); touched is scratch (32,)."""
    squares, offsets, size, neighbours = geo.side * geo.side, geo.offsets, geo.size, geo.neighbours  # unpacked once
    colour, shape = piece // SHAPES, piece % SHAPES
    for option in range(len(legal)):
        if not legal[option]:
            continue
        o, a = (option // squares, option % squares) if fixed < 0 else (fixed, option)
        count, k, biggest = 0, np.int64(1), 0  # k typed from the start, as met takes it (sim/kernel.py)
        for i in range(size[shape]):
            for d in range(4):
                m = neighbours[a + offsets[shape, o, i], d]
                if m < 0 or board[m] < 0 or board[m] // SHAPES != colour:
                    continue
                block = label[board[m]]
                new = True
                for t in range(count):
                    new &= touched[t] != block
                if new and count < 32:
                    touched[count] = block
                    count += 1
                    k += members[block]
                    biggest = max(biggest, members[block])
        aimed, score = False, 0.0
        for j in range(len(tiles)):
            tile = tiles[j]
            if tile < 0 or tile // STACK_TILES != colour:
                continue
            aimed = True
            wanted = tile % STACK_TILES + 1
            if met(k, wanted):
                score = max(score, EXACT)
            elif k < wanted:
                score = max(score, float(k))
            else:
                score = max(score, OVERGROWN)
            for t in range(count):
                if met(members[touched[t]], wanted) and not met(k, wanted):
                    score += BROKEN
        if not aimed:
            score = float(biggest) if spoils else -float(count)
        value[option] = score


@kernel
def tile_values(tiles, label, members, owner, seat):
    """(n, 6): how likely each looked-at tile is to be met (tile_row)."""
    value = np.zeros((tiles.shape[0], STACK_TILES))
    for g in range(tiles.shape[0]):
        tile_row(tiles[g], label[g], members[g], owner[g], seat, value[g])
    return value


@helper
def tile_row(tiles, label, members, owner, seat, value):
    """Into value (6,), for one game: 3 if a block of the tile's colour already has its size, 2 if a block (or
    nothing yet) falls short and enough pieces of that colour are still to be played, 0 if every block of its colour
    is already too big; plus a tenth per piece of that colour the player holds."""
    left, mine = np.zeros(5), np.zeros(5)
    for p in range(PIECES):
        if owner[p] >= 0:
            left[p // SHAPES] += 1
            mine[p // SHAPES] += owner[p] == seat
    for i in range(STACK_TILES):
        tile = tiles[i]
        value[i] = 0.0
        if tile < 0:
            continue
        colour, wanted = tile // STACK_TILES, tile % STACK_TILES + 1
        best, short = 0.0, wanted  # short: the fewest pieces still needed
        for p in range(PIECES):
            if label[p] == p and p // SHAPES == colour:
                if met(members[p], wanted):
                    best = 3.0
                elif members[p] < wanted:
                    short = min(short, wanted - members[p])
        if best == 0.0 and left[colour] >= short:
            best = 2.0
        value[i] = best + mine[colour] / 10


class Mind(NamedTuple):
    """The playout's players' scratch: the block labels and sizes (fast.blocks_of) of the game the planner values,
    their stack, touched blocks (placement_row's), a row of option values, and which games slide."""

    label: np.ndarray  # (60,)
    members: np.ndarray  # (60,)
    stack: np.ndarray  # (60,)
    touched: np.ndarray  # (32,)
    values: np.ndarray  # (O * N * N,)
    forced: np.ndarray  # (B,)


@helper
def look_planned(stacks, seen, first_look, looked, chosen, asked, seat, turn, rows, rng):
    """Planner.look (its first look at turn 0): the stack with the most tiles, ties broken by the draw."""
    draws = rng.random(len(asked))
    offered, sizes = rows[:STACKS], np.zeros(STACKS)
    for g in range(len(asked)):
        chosen[g] = -1
        if asked[g]:
            fast.looks_of(stacks, g, offered)
            for s in range(STACKS):
                sizes[s] = 0.0
                for i in range(stacks.shape[2]):
                    sizes[s] += stacks[g, s, i] >= 0
            chosen[g] = answered(best_allowed(sizes, offered, draws[g]))
            fast.look_at(seen, first_look, stacks, g, seat, chosen[g], turn)
            looked[g] = True


@helper
def keep_planned(t, stacks, spaces, chosen, asked, bonus, geo, mind, rng):
    """Planner.keep: the tile likeliest to be met (tile_row; ties broken by the draw), on the free space of the best
    bonus if it is likely (worth 2 or more), else on the worst."""
    draws = rng.random(len(asked))
    value, present = mind.values[:STACK_TILES], np.zeros(STACK_TILES, np.bool_)
    for g in range(len(asked)):
        if asked[g]:
            fast.blocks_of(t.board, t.orient, t.anchor, geo, g, mind.label, mind.members, mind.stack)
            tiles = stacks[g, chosen[g]]
            tile_row(tiles, mind.label, mind.members, t.owner[g], t.seat, value)
            for i in range(STACK_TILES):
                present[i] = tiles[i] >= 0
            tile = answered(best_allowed(value, present, draws[g]))
            best, worst = -1, -1
            for j in range(len(bonus)):
                if spaces[g, t.seat, j] < 0:
                    best = j if best < 0 or bonus[j] > bonus[best] else best
                    worst = j if worst < 0 or bonus[j] < bonus[worst] else worst
            space = best if value[tile] >= 2 else worst
            fast.keep_one(stacks, spaces, g, t.seat, chosen[g], answered(len(bonus) * tile + space))
        chosen[g] = -1


@helper
def slide_planned(t, sliding, chosen, stopped, asked, geo, w, which, found, nowhere, mind, rng):
    """Planner.slide: it stops wherever it may; where it may not (another's slide left it a piece parted from its
    colour), a random slide, drawn as `random` draws, which it skips drawing when the mover may stop in every game
    of the batch, asked or not (the engine's slide mask allows STOP so in every game)."""
    everyone_stops = True
    for g in range(len(asked)):
        must = fast.must_slide(t, g, geo, w)
        mind.forced[g] = asked[g] and must
        everyone_stops &= not must
    piece_draws = np.zeros(0) if everyone_stops else rng.random(len(asked))
    if not everyone_stops:
        rng.random(len(asked))  # Player.slide's draws of whether to slide, which a forced slide does not read
    slide_or_stop(t, sliding, chosen, stopped, asked, mind.forced, piece_draws, geo, w, which, found, nowhere)


@helper
def play_planned(t, spaces, discards, chosen, geo, w, rows, rng):
    """Planner.play: a piece of a colour it holds a tile of, if one can be placed; else any placeable piece (ties
    broken by the draw); a random discard only when none can be placed."""
    place_draws, discard_draws = rng.random(len(chosen)), rng.random(len(chosen))
    plays, value = rows[:2 * PIECES], np.zeros(PIECES)
    for g in range(len(chosen)):
        plays[:] = False
        fast.plays_of(t, g, geo, w, plays)
        for p in range(PIECES):
            value[p] = 1.0
            for j in range(spaces.shape[2]):
                if spaces[g, t.seat, j] >= 0 and spaces[g, t.seat, j] // STACK_TILES == p // SHAPES:
                    value[p] = 2.0
        chosen[g] = best_allowed(value, plays[:PIECES], place_draws[g])
        if chosen[g] < 0:
            fast.discard_one(t.owner, discards, g, t.seat, answered(nth_allowed(plays[PIECES:], discard_draws[g])))


@helper
def place_planned(t, spaces, chosen, from_placement, geo, w, rows, mind, rng):
    """Planner.place: the legal placement valued best (placement_row), ties broken by the draw."""
    draws = rng.random(len(chosen))
    spots = rows[:geo.masks.shape[1] * geo.side * geo.side]
    value = mind.values[:len(spots)]
    for g in range(len(chosen)):
        if chosen[g] >= 0:
            spots[:] = False
            fast.placements_of(t, g, chosen[g], geo, w, spots)
            fast.blocks_of(t.board, t.orient, t.anchor, geo, g, mind.label, mind.members, mind.stack)
            placement_row(t.board[g], mind.label, mind.members, chosen[g], spots, spaces[g, t.seat], NO, geo,
                          UNFIXED, value, mind.touched)
            fast.place_one(t.board, t.orient, t.anchor, t.owner, t.start_contact, g, chosen[g],
                           answered(best_allowed(value, spots, draws[g])), from_placement, geo)
            t.placed[g] = chosen[g]
        chosen[g] = -1
