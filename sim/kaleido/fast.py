"""Kaleido, compiled: the engine's and the strategies' hot loops as numba kernels over the batch (arrays in,
arrays out). Each gives the same answers as the numpy it replaced, which the tests keep as a twin
(engine.extra_mask_numpy, rules.majority, engine.colour_counts).

The loops are written without data-dependent branches where they can be: a tile's code indexes a small
table of counts (EMPTY is bin 0) instead of being tested. On real tables the branches are unpredictable, and
that made the first, branching versions five times slower.

The random playout (sim/kaleido/playout.py) plays with these same kernels, so that each rule is written once: the
batch kernels at the turn's boundaries, and game by game the per-game helpers that the batch kernels loop over
(place_tile, apply_game_extra, rotate_game, colour_to_play, and the conditions of extra_mask). Those that allocate
nothing are compiled without numba's runtime (`_nrt=False`, as in sim/witkacy/fast.py): no reference is counted
for the arrays they are handed, which, at every game and question, cost the playout two thirds of its time.
"""

from __future__ import annotations

import numpy as np

from sim.kaleido.rules import EMPTY, WHITE
from sim.kernel import NO, YES, helper, kernel

BINS = 8  # tile code + 1: EMPTY, five colours, WHITE, and one spare
GREEDY, MAJORITY, HOARDER = range(3)  # how a scripted player values a hole (strategies/kaleido.Player.KIND)


@helper(_nrt=False)
def _filled(slots, g, b):
    """Whether board b of game g has a tile in all six holes: EMPTY is the only negative code, so the lowest
    code says it, with no branch."""
    return min(min(slots[g, b, 0], slots[g, b, 1]), min(slots[g, b, 2], slots[g, b, 3]),
               min(slots[g, b, 4], slots[g, b, 5])) >= 0


@helper(_nrt=False)
def _tally(slots, g, b, bins):
    """bins[code + 1] = how many of board b's six holes hold each tile code (bins[0]: empty holes)."""
    bins[:] = 0
    for s in range(6):
        bins[slots[g, b, s] + 1] += 1


@kernel
def extra_mask(slots, cell, empty, offers, whites, stock, asked, seat, boards_only, before_tile):
    """The legal extra actions (B, 1 + 2H): none; a white tile in an empty hole (1 + h); a board on the free
    cell next to board b in direction k (1 + H + 6 b + k), as `offers` lists them."""
    batch, nb, _ = slots.shape
    holes = 6 * nb
    legal = np.zeros((batch, 1 + 2 * holes), np.bool_)
    for g in range(batch):
        legal[g, 0] = (not boards_only) or not asked[g]
        if not asked[g]:
            continue
        if may_place_white(whites, empty, g, seat, boards_only, before_tile):
            for b in range(nb):
                placed = cell[g, b] >= 0
                for s in range(6):
                    legal[g, 1 + 6 * b + s] = placed & (slots[g, b, s] == EMPTY)
        if may_place_board(stock, g, seat):
            for j in range(holes):
                legal[g, 1 + holes + j] = offers[g, j]
    return legal


@helper(_nrt=False)
def may_place_white(whites, empty, g, seat, boards_only, before_tile):
    """Whether game g's mover may put a white tile in an empty hole (Details of a Turn, 2.1): one of their own,
    not when every hole was full at the start of the turn (a board comes first), and before the tile not in
    the last empty hole, which the tile needs."""
    return (not boards_only) and whites[g, seat] > 0 and empty[g] >= (2 if before_tile else 1)


@helper(_nrt=False)
def may_place_board(stock, g, seat):
    """Whether game g's mover has a board to place (Details of a Turn, 2.2) on a free cell (`offers`)."""
    return stock[g, seat] > 0


@helper(_nrt=False)
def nth_empty_hole(slots, cell, g, nth):
    """The hole h of game g's nth (from 0) empty hole on the table, in hole order (tile_mask's)."""
    for b in range(slots.shape[1]):
        if cell[g, b] >= 0:
            for s in range(6):
                nth -= slots[g, b, s] == EMPTY
                if nth < 0:
                    return 6 * b + s
    raise RuntimeError("Kaleido: fewer empty holes than counted (a rule bug)")


@helper(_nrt=False)
def nth_offer(offers, g, nth):
    """The board option 6 b + k of game g's nth (from 0) offer (board_offers)."""
    for j in range(offers.shape[1]):
        nth -= offers[g, j]
        if nth < 0:
            return j
    raise RuntimeError("Kaleido: fewer board offers than counted (a rule bug)")


@helper(_nrt=False)
def offer_count(offers, g):
    """How many board options game g's `offers` lists."""
    count = 0
    for j in range(offers.shape[1]):
        count += offers[g, j]
    return count


@kernel
def board_offers(cell, cells, steps):
    """(B, H) bool: the free cells next to the table as board options 6 b + k (the cell next to board b in
    direction k), each cell once, by the first (b, k) that reaches it. The honeycomb window reaches one cell
    past the farthest a chain of every board can go, so a neighbour's index never leaves it."""
    batch, nb = cell.shape
    offers = np.zeros((batch, 6 * nb), np.bool_)
    grid, offered = np.full(cells, -1, np.int8), np.empty(6 * nb, np.int64)
    for g in range(batch):
        offer(grid, offered, cell, g, steps, offers)
    return offers


@kernel(_nrt=False)
def offer(grid, offered, cell, g, steps, offers):
    """Game g's board options into offers[g] (see board_offers); grid is a blank one-game grid, left blank, and
    offered (6 NB,) scratch."""
    nb = cell.shape[1]
    lay_boards(grid, cell, g, YES)
    found = 0
    for b in range(nb):
        if cell[g, b] >= 0:
            for k in range(6):
                c = cell[g, b] + steps[k]
                free = grid[c] == -1  # empty and not offered yet (-2): selects, not branches
                offers[g, 6 * b + k] = free
                grid[c] -= free
                offered[found] = c
                found += free
        else:
            for k in range(6):
                offers[g, 6 * b + k] = False
    for i in range(found):
        grid[offered[i]] = -1
    lay_boards(grid, cell, g, NO)


@helper(_nrt=False)
def lay_boards(grid, cell, g, on):
    """Mark game g's boards on the one-game grid (on), or clear them again."""
    for b in range(cell.shape[1]):
        if cell[g, b] >= 0:
            grid[cell[g, b]] = b if on else -1


@kernel
def touching(cell, cells, steps):
    """(B, 6 NB) int8: how many boards on the table touch the cell next to each board b in direction k
    (column 6 b + k), 0 for boards not on the table."""
    batch, nb = cell.shape
    out = np.zeros((batch, 6 * nb), np.int8)
    grid = np.full(cells, -1, np.int8)
    for g in range(batch):
        lay_boards(grid, cell, g, YES)
        for b in range(nb):
            if cell[g, b] >= 0:
                for k in range(6):
                    spot = cell[g, b] + steps[k]
                    for j in range(6):
                        out[g, 6 * b + k] += grid[spot + steps[j]] >= 0
        lay_boards(grid, cell, g, NO)
    return out

def scoring(params) -> np.ndarray:
    """The scoring Params as the kernels take them: first, second, tie_pool, monochrome, whether white tiles
    count towards a monochrome board (the majority rule's), and whether an end-game hexagon needs its three
    boards full."""
    return np.array([params.first, params.second, params.tie_pool, params.monochrome,
                     params.monochrome_with_white, params.hexagon_needs_full_boards], np.int64)


@kernel(_nrt=False)
def majority_into(counts, scoring, out):
    """rules.majority for one board or hexagon: counts (colours,) of coloured tiles -> points into out."""
    first, second, tie_pool, monochrome, with_white = scoring[0], scoring[1], scoring[2], scoring[3], scoring[4]
    top, total = 0, 0
    for c in range(len(counts)):
        top = max(top, counts[c])
        total += counts[c]
    leaders, runner = 0, 0
    for c in range(len(counts)):
        if top > 0 and counts[c] == top:
            leaders += 1
        else:
            runner = max(runner, counts[c])
    seconds = 0
    if leaders == 1 and runner > 0:
        for c in range(len(counts)):
            seconds += counts[c] == runner
    full = top == (total if with_white else 6)
    for c in range(len(counts)):
        out[c] = 0
        if top > 0 and counts[c] == top:
            if leaders > 1:
                out[c] = tie_pool // leaders
            elif full and runner == 0:
                out[c] = monochrome
            else:
                out[c] = first
        elif seconds > 0 and counts[c] == runner:
            out[c] = second // seconds


@helper(_nrt=False)
def closing_value(slots, cell, g, b, colour, white, scoring, bins, count, points):
    """The points `colour` scores at once if its tile (or a white tile) goes in an empty hole of game g's board b,
    because that fills the board: only a board on the table one hole from full scores. Leaves the board's tally
    in bins (_tally); count and points: scratch (colours,)."""
    _tally(slots, g, b, bins)
    if cell[g, b] < 0 or bins[0] != 1:
        return 0
    for c in range(len(count)):
        count[c] = bins[c + 1]
    if not white:
        count[colour] += 1
    majority_into(count, scoring, points)
    return points[colour]


@helper(_nrt=False)
def hole_value(slots, cell, g, b, own, white, kind, scoring, bins, count, points):
    """A hole's value to the player: the points `own` scores at once if its tile (or a white tile) fills the board
    (closing_value); for MAJORITY's tile 2 more where its tile and every other empty hole would reach the best
    rival's count on that board, 2 less elsewhere; for HOARDER's tile 1 less where the board has 2 empty holes
    (filling one leaves the last to the next player), and its white tile worth nothing unless it pays first place."""
    value = float(closing_value(slots, cell, g, b, own, white, scoring, bins, count, points))
    empties = bins[0] if cell[g, b] >= 0 else 0
    if kind == MAJORITY and not white:
        rivals = -1
        for c in range(len(count)):
            rivals = max(rivals, -1 if c == own else bins[c + 1])
        value += 2.0 if bins[own + 1] + empties >= rivals else -2.0
    elif kind == HOARDER and not white:
        value -= 1.0 if empties == 2 else 0.0
    elif kind == HOARDER and value < scoring[0]:  # scoring[0]: first place's points
        value = 0.0
    return value


@helper(_nrt=False, inline="always")
def choose_hole(slots, cell, g, own, white, kind, scoring, legal, row, draw, value, legal_in, bins, count, points):
    """(hole, its value): strategies.common.pick_best's choice, draw for draw, over the holes legal[row] (6 NB) allows,
    each worth hole_value to a player of `kind`: the boards are valued where they have a legal hole, and the choice
    is found board by board. value and legal_in: scratch (NB,)."""
    nb = cell.shape[1]
    best, some = -np.inf, False
    for b in range(nb):
        legal_in[b] = 0
        for s in range(6):
            legal_in[b] += legal[row, 6 * b + s]
        if legal_in[b]:
            value[b] = hole_value(slots, cell, g, b, own, white, kind, scoring, bins, count, points)
            best, some = max(best, value[b]), True
    if not some:  # every option ties: the draw picks among them all
        hole = int(draw * 6 * nb)
        return hole, hole_value(slots, cell, g, hole // 6, own, white, kind, scoring, bins, count, points)
    floor, ties = best - 1e-9, 0
    for b in range(nb):
        if legal_in[b] and value[b] >= floor:
            ties += legal_in[b]
    nth = int(draw * ties)
    for b in range(nb):
        if not legal_in[b] or value[b] < floor:
            continue
        if nth >= legal_in[b]:
            nth -= legal_in[b]
            continue
        for s in range(6):
            if legal[row, 6 * b + s]:
                if nth == 0:
                    return 6 * b + s, value[b]
                nth -= 1
    return -1, 0.0


@kernel
def tile_mask(slots, cell, asked):
    """(B, 6 NB) bool: the holes a tile may go in, the empty holes on the table; every hole where the game is
    not asked."""
    batch, nb, _ = slots.shape
    holes = np.ones((batch, 6 * nb), np.bool_)
    for g in range(batch):
        if asked[g]:
            for b in range(nb):
                placed = cell[g, b] >= 0
                for s in range(6):
                    holes[g, 6 * b + s] = placed & (slots[g, b, s] == EMPTY)
    return holes


@kernel
def filling(slots, cell, scored):
    """(B,): whether a board on the table is full and not scored yet."""
    batch, nb, _ = slots.shape
    out = np.zeros(batch, np.bool_)
    for g in range(batch):
        for b in range(nb):
            out[g] |= (cell[g, b] >= 0) & (not scored[g, b]) & _filled(slots, g, b)
    return out


@kernel
def open_holes(slots, cell):
    """(B,): empty holes on the table."""
    batch, nb, _ = slots.shape
    count = np.zeros(batch, np.int64)
    for g in range(batch):
        for b in range(nb):
            if cell[g, b] >= 0:  # boards join the table in id order: a predictable branch
                for s in range(6):
                    count[g] += slots[g, b, s] == EMPTY
    return count


@kernel
def score_boards(slots, cell, scored, filling, midgame, colours, scoring):
    """Boards on the table just filled (every hole occupied, not scored before), looked for in the games
    `filling` marks: (B, NB) bool; their majority points are added to midgame (B, colours) in place."""
    batch, nb, _ = slots.shape
    full = np.zeros((batch, nb), np.bool_)
    bins = np.zeros(BINS, np.int64)
    points = np.zeros(colours, np.int64)
    for g in range(batch):
        if not filling[g]:
            continue
        for b in range(nb):
            if _filled(slots, g, b) and cell[g, b] >= 0 and not scored[g, b]:  # rarely: predictable
                _tally(slots, g, b, bins)
                full[g, b] = True
                majority_into(bins[1 : colours + 1], scoring, points)
                for c in range(colours):
                    midgame[g, c] += points[c]
    return full


@kernel
def asked(phase, turn_kind, extra_taken, empty, pending):
    """(B,): the games a phase asks (engine.PHASE_CODES): movers who play this turn; for the extra action
    before or after the tile only those who have not taken it yet, and "forced" only where every hole is
    full; for "rotate" the games with a board still to be offered."""
    batch, nb = pending.shape
    out = np.zeros(batch, np.bool_)
    for g in range(batch):
        acting = turn_kind[g] == 0  # PLAYS
        if phase == 0:  # forced
            out[g] = acting & (empty[g] == 0)
        elif phase == 1 or phase == 3:  # before, after
            out[g] = acting & (not extra_taken[g])
        elif phase == 2:  # tile
            out[g] = acting
        else:  # rotate
            hit = False
            for b in range(nb):
                hit |= pending[g, b]
            out[g] = hit
    return out


@kernel
def start_turn(tiles, stock, empty, done, colour, seat, owner):
    """(B,) int8, what each game's turn is (engine.PLAYS, PASSES, SKIPPED, STALLS or OVER): over; out of
    tiles; every hole full and no board, skipped, or stalled when every player who still has coloured tiles
    has no board left either, so that no turn can ever open a hole again."""
    batch = len(done)
    kind = np.zeros(batch, np.int8)
    for g in range(batch):
        if done[g]:
            kind[g] = 4
        elif tiles[g, colour[g]] == 0:
            kind[g] = 1
        elif stock[g, seat] == 0 and empty[g] == 0:
            stuck = True
            for c in range(tiles.shape[1]):
                stuck &= (tiles[g, c] == 0) | (stock[g, owner[c]] == 0)
            kind[g] = 3 if stuck else 2
    return kind


@kernel
def end_turn(kind, tiles, played, passes, skips, done, stalled, seat):
    """Count the turn for the seat (in place); a game ends when every coloured tile is placed, or stalls."""
    for g in range(len(kind)):
        played[g, seat] += kind[g] == 0
        passes[g, seat] += kind[g] == 1
        skips[g, seat] += kind[g] == 2
        left = 0
        for c in range(tiles.shape[1]):
            left += tiles[g, c]
        stalled[g] |= kind[g] == 3
        done[g] |= (kind[g] == 3) | (left == 0)


@kernel
def colours_to_play(turns_played, seat, players, two_colour):
    """(B,) the colour `seat` places now in each game (colour_to_play)."""
    colour = np.empty(len(turns_played), np.int64)
    for g in range(len(turns_played)):
        colour[g] = colour_to_play(turns_played, g, seat, players, two_colour)
    return colour


@kernel(_nrt=False)
def colour_to_play(turns_played, g, seat, players, two_colour):
    """The colour `seat` places now in game g: its own; in the 2-player variant a player "cannot put 2 tiles of
    the same color successively" (Variant Rules for a 2-player Game), so their two colours alternate with the
    tiles they place, and a skipped turn changes nothing."""
    if two_colour and turns_played[g, seat] % 2 == 1:
        return seat + players
    return seat


@kernel
def place_tiles(slots, tiles, empty, filling, choice, colour, asked):
    """The mover's tile of colour[g] in hole choice[g] of each asked game (in place)."""
    for g in range(len(choice)):
        if asked[g]:
            place_tile(slots, tiles, empty, filling, g, choice[g], colour[g])


@helper(_nrt=False)
def place_tile(slots, tiles, empty, filling, g, hole, colour):
    """Placing a tile (Details of a Turn, 1): the mover's tile of `colour` in empty hole `hole` of game g (in
    place)."""
    slots[g, hole // 6, hole % 6] = colour
    tiles[g, colour] -= 1
    empty[g] -= 1
    filling[g] |= _filled(slots, g, hole // 6)


@kernel
def apply_extra(choice, seat, slots, cell, placer, whites, stock, whites_used, empty, filling, offers, cells, steps):
    """Extra actions in every game (in place), as apply_game_extra."""
    grid, offered = np.full(cells, -1, np.int8), np.empty(offers.shape[1], np.int64)
    for g in range(len(choice)):
        apply_game_extra(choice[g], g, seat, slots, cell, placer, whites, stock, whites_used, empty, filling, offers,
                         grid, offered, steps)


@helper(_nrt=False)
def apply_game_extra(code, g, seat, slots, cell, placer, whites, stock, whites_used, empty, filling, offers, grid,
                     offered, steps):
    """Game g's extra action (Details of a Turn, 2), in place: 1 + h puts one of the seat's white tiles in hole
    h; 1 + H + 6 b + k joins a board from its stock to the table next to board b in direction k, with the next
    board id; 0 does nothing. grid: a blank one-game grid, left blank; offered: offer's scratch."""
    nb = cell.shape[1]
    holes = 6 * nb
    if 1 <= code <= holes:
        slots[g, (code - 1) // 6, (code - 1) % 6] = WHITE
        whites[g, seat] -= 1
        whites_used[g, seat] += 1
        empty[g] -= 1
        filling[g] |= _filled(slots, g, (code - 1) // 6)
    elif code > holes:
        new = 0
        while new < nb and cell[g, new] >= 0:
            new += 1
        cell[g, new] = cell[g, (code - 1 - holes) // 6] + steps[(code - 1 - holes) % 6]
        placer[g, new] = seat
        stock[g, seat] -= 1
        empty[g] += 6
        offer(grid, offered, cell, g, steps, offers)


@kernel
def rotate_offered(rot, pending, asked, choice):
    """Turn the board on offer by choice[g] steps in each asked game (in place), as rotate_game."""
    for g in range(len(choice)):
        if asked[g]:
            rotate_game(rot, pending, g, choice[g])


@helper(_nrt=False)
def rotate_game(rot, pending, g, steps):
    """Rotating a game board (Details of a Turn, 4): game g's board on offer (the lowest pending id) turned by
    `steps`, and taken off offer (in place)."""
    b = 0
    while not pending[g, b]:
        b += 1
    rot[g, b] = (rot[g, b] + steps) % 6
    pending[g, b] = False


@helper(_nrt=False)
def hexagon_at(grid, cell, steps, g, x, k):
    """The boards (Y, Z) of the end-game hexagon at board X's corner k: its neighbours in directions k and k + 1,
    both above X in id (so each hexagon is found once), or (-1, -1). grid: game g's boards by cell."""
    if cell[g, x] < 0:
        return -1, -1
    y, z = grid[cell[g, x] + steps[k]], grid[cell[g, x] + steps[(k + 1) % 6]]
    return (y, z) if y > x and z > x else (-1, -1)


@helper(_nrt=False)
def tally_hexagon(slots, rot, g, x, y, z, k, bins):
    """bins[code + 1] = how many of the hexagon's triangles X[k], X[k+1], Y[k+2], Y[k+3], Z[k+4], Z[k+5] hold each
    tile code (bins[0]: empty); physical triangle t of board b shows its slot (t - rot[b]) % 6."""
    bins[:] = 0
    for i in range(6):
        board = x if i < 2 else y if i < 4 else z
        bins[slots[g, board, (k + i - rot[board]) % 6] + 1] += 1


@kernel
def endgame_scoring(slots, rot, cell, cells, steps, endgame, scoring):
    """End-game hexagons (in place into endgame (B, colours)): at each corner where board X has neighbours Y
    in direction k and Z in direction k + 1, with X below both in id, the physical triangles X[k], X[k+1],
    Y[k+2], Y[k+3], Z[k+4], Z[k+5]; physical triangle t of a board shows its slot (t - rot) % 6. Every
    hexagon with its six triangles occupied (and, where scoring[5] says so, its three boards full) scores by the
    majority rule."""
    batch, nb, _ = slots.shape
    colours = endgame.shape[1]
    bins = np.zeros(BINS, np.int64)
    points = np.zeros(colours, np.int64)
    grid = np.full(cells, -1, np.int8)
    for g in range(batch):
        lay_boards(grid, cell, g, YES)
        for x in range(nb):
            for k in range(6):
                y, z = hexagon_at(grid, cell, steps, g, x, k)
                if y < 0:
                    continue
                tally_hexagon(slots, rot[g], g, x, y, z, k, bins)
                boards_full = _filled(slots, g, x) and _filled(slots, g, y) and _filled(slots, g, z)
                if bins[0] == 0 and (boards_full or not scoring[5]):
                    majority_into(bins[1 : colours + 1], scoring, points)
                    for c in range(colours):
                        endgame[g, c] += points[c]
        lay_boards(grid, cell, g, NO)
