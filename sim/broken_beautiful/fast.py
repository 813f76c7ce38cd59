"""Broken and Beautiful, compiled: the "Pottery Scores" table of rules.points for one seat of many games,
with hypothetical cards added (or mended), as numba kernels over the batch (arrays in, arrays out).

`seat_scores` is what every scripted player's valuation asks: a seat's end score if each of K cards joined
its collection (or, `repaired`, were mended), while it held the given ingots. It gives the same integers as
`score_after` in tests/twins.py (the numpy twin, rules.points on a rules.tally), which tests/test_kernels.py
compares it with.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from sim.bits import popcount
from sim.broken_beautiful.rules import (
    BOWL,
    BOX,
    BROKEN,
    CUP,
    GOLD,
    INTACT,
    PLATE,
    PLAYER_COUNTS,
    REPAIRED,
    SAUCER,
    TEA_JAR,
    TEAPOT,
    TRAY,
    TYPES,
    VASE,
    Components,
)
from sim.kernel import NO, YES, ZERO, best_allowed, helper, kernel

NT = len(TYPES)
INGOT_WORTH = 0.5  # a held ingot, to the scripted players (strategies/broken_beautiful.py)
EVERY = NO_CARD = np.int64(-1)  # _mendable's nth: count them all; no card (numpy scalars: sim/kernel.py)
MAX_SEATS = max(PLAYER_COUNTS)
# Positions of the scoring numbers in the int64 vector `sc` the kernels take.
(S_CUP_U, S_CUP_R, S_SAU_U, S_SAU_R, S_PLATE_PAIR, S_PLATE_REP, S_BOWL_REP, S_JAR_MOST, S_JAR_REP, S_VASE_REP,
 S_POT_REP, S_TRAY, S_BOX_CAP) = range(13)


@lru_cache(maxsize=16)
def kit_arrays(kit: Components) -> tuple[np.ndarray, ...]:
    """(type, pattern, scoring numbers, vase table, value) as int64 arrays for the kernels."""
    s = kit.scoring
    sc = np.array([s.cup[0], s.cup[1], s.saucer[0], s.saucer[1], s.plate_pair, s.plate_repaired,
                   s.bowl_repaired, s.tea_jar_most, s.tea_jar_repaired, s.vase_repaired, s.teapot_repaired,
                   s.tray, s.box_cap], np.int64)
    return (kit.type.astype(np.int64), kit.pattern.astype(np.int64), sc, np.array(s.vase, np.int64),
            kit.value.astype(np.int64))


@helper(inline="always")
def _points(whole, rep, pat, pots, pots_rep, ingots, rival, sc, vase):
    """rules.points summed over the types, for one collection. The same arithmetic as _points_by_type, written
    out again on purpose: summing _points_by_type's row instead made greedy 2.4 times slower."""
    cb, cbv, cwv, sb, sbv, swv = _cups_and_saucers(whole, rep, sc)
    total = 0
    for j in range(whole[CUP]):  # a cup beyond the last scores nothing
        value = cbv if j < cb else (cwv if j < whole[CUP] else 0)
        mult = sbv if j < sb else (swv if j < whole[SAUCER] else 1)
        total += value * mult
    total += whole[PLATE] // 2 * sc[S_PLATE_PAIR] + sc[S_PLATE_REP] * rep[PLATE]
    total += whole[BOWL] * whole[BOWL] + sc[S_BOWL_REP] * rep[BOWL]
    jars = whole[TEA_JAR]
    if jars > 0 and jars >= rival:
        total += sc[S_JAR_MOST]
    total += sc[S_JAR_REP] * rep[TEA_JAR]
    total += vase[min(whole[VASE], len(vase) - 1)] + sc[S_VASE_REP] * rep[VASE]
    for k in range(len(pat)):
        total += pat[k] * (pots[k] + (sc[S_POT_REP] - 1) * pots_rep[k])
    total += sc[S_TRAY] * whole[TRAY]
    return total + _boxes(whole, ingots, sc)


@helper
def _cups_and_saucers(whole, rep, sc):
    """Cups and saucers: the most valuable cups go with the strongest saucers. How many cups are of the kind
    (repaired or not) that scores more, that kind's value and the other's; the same for saucers and multipliers."""
    if sc[S_CUP_R] >= sc[S_CUP_U]:
        cb, cbv, cwv = rep[CUP], sc[S_CUP_R], sc[S_CUP_U]
    else:
        cb, cbv, cwv = whole[CUP] - rep[CUP], sc[S_CUP_U], sc[S_CUP_R]
    if sc[S_SAU_R] >= sc[S_SAU_U]:
        sb, sbv, swv = rep[SAUCER], sc[S_SAU_R], sc[S_SAU_U]
    else:
        sb, sbv, swv = whole[SAUCER] - rep[SAUCER], sc[S_SAU_U], sc[S_SAU_R]
    return cb, cbv, cwv, sb, sbv, swv


@helper
def _boxes(whole, ingots, sc):
    return whole[BOX] * min(ingots, sc[S_BOX_CAP])


@kernel
def seat_scores(owner, cond, seat, cards, coins, repaired, kind, pattern, sc, vase, patterns):
    """(n, K) end scores of `seat` in n games (owner, cond (n, C)) if each of `cards` (n, K; -1 none) joined
    its collection unbroken (`repaired`: were one of its broken cards mended) while it held `coins` (n, K)."""
    out = np.empty(cards.shape, np.int64)
    counts, bits, jar_cards = _tally_scratch(kind, pattern, patterns, owner.shape[1])
    for g in range(owner.shape[0]):
        rival = _tally(owner, cond, g, seat, counts, bits, jar_cards)
        unchanged = -1  # the collection's points without its boxes, once a candidate with no card asks
        for k in range(cards.shape[1]):
            c = cards[g, k]
            if c < 0:  # only the boxes' points depend on the ingots
                if unchanged < 0:
                    unchanged = _points_with(counts, rival, c, coins[g, k], repaired, kind, pattern, sc, vase)
                    unchanged -= _boxes(counts[WHOLE], coins[g, k], sc)
                out[g, k] = unchanged + _boxes(counts[WHOLE], coins[g, k], sc)
            else:
                out[g, k] = _points_with(counts, rival, c, coins[g, k], repaired, kind, pattern, sc, vase)
    return out


# The rows of a tally's counts (one seat's collection in one game): unbroken cards by type, repaired by type, unbroken
# by pattern, teapots by pattern unbroken and repaired, unbroken tea jars by seat.
WHOLE, REP, PAT, POTS, POTS_REP, JARS = range(6)


@helper
def _tally_scratch(kind, pattern, patterns, ncards):
    """(counts (6, width) int64 (rows WHOLE to JARS; a pattern's columns past the last stay 0), the kit's bit masks
    (_kit_masks' by type, by pattern, the teapots, then two rows for the held and the mended cards), the tea jars)."""
    words = (ncards + 63) // 64
    of_type, of_pattern, teapots, jar_cards = _kit_masks(kind, pattern, patterns, words)
    masks = np.zeros((NT + patterns + 3, words), np.uint64)
    masks[:NT], masks[NT:NT + patterns], masks[NT + patterns] = of_type, of_pattern, teapots
    counts = np.zeros((6, max(NT, patterns, MAX_SEATS)), np.int64)
    return counts, masks, jar_cards


@helper(inline="always")
def _tally(owner, cond, g, seat, counts, bits, jar_cards):
    """Count game g's collection of `seat` into counts (the rows WHOLE to JARS), from bit masks of its cards (bit
    c % 64 of word c // 64): which are held unbroken, which repaired; each count is the bits a mask of the kit shares
    with them, with no branch on whose card each is. Returns the most tea jars another seat holds unbroken."""
    ncards, patterns = owner.shape[1], len(bits) - NT - 3
    held, mended, teapots = bits[-2], bits[-1], bits[NT + patterns]
    for w in range(bits.shape[1]):
        mine, fixed = np.uint64(0), np.uint64(0)
        for c in range(64 * w, min(64 * w + 64, ncards)):
            state = cond[g, c]
            bit = np.uint64((owner[g, c] == seat) & (state != BROKEN)) << np.uint64(c & 63)
            mine |= bit
            fixed |= bit & (np.uint64(0) - np.uint64(state == REPAIRED))
        held[w], mended[w] = mine, fixed
    for k in range(NT):
        counts[WHOLE, k], counts[REP, k] = _shared(held, bits, k), _shared(mended, bits, k)
    for p in range(patterns):
        counts[PAT, p] = _shared(held, bits, NT + p)
        counts[POTS, p], counts[POTS_REP, p] = 0, 0
        for w in range(bits.shape[1]):
            counts[POTS, p] += popcount(held[w] & bits[NT + p, w] & teapots[w])
            counts[POTS_REP, p] += popcount(mended[w] & bits[NT + p, w] & teapots[w])
    counts[JARS, :] = 0
    for c in jar_cards:
        o = owner[g, c]
        if o >= 0 and o != seat and cond[g, c] != BROKEN:
            counts[JARS, o] += 1
    rival = ZERO
    for o in range(MAX_SEATS):
        if o != seat and counts[JARS, o] > rival:
            rival = counts[JARS, o]
    return rival


@helper(inline="always")
def _points_with(counts, rival, c, ingots, repaired, kind, pattern, sc, vase):
    """The tallied collection's points with card c (-1: none) joining it unbroken (`repaired`: mended), holding
    `ingots`; counts are left as they were."""
    if c >= 0:
        _add(counts, kind[c], pattern[c], repaired, 1)
    total = _points(counts[WHOLE], counts[REP], counts[PAT], counts[POTS], counts[POTS_REP], ingots, rival, sc, vase)
    if c >= 0:
        _add(counts, kind[c], pattern[c], repaired, -1)
    return total


@helper(inline="always")
def _add(counts, k, p, repaired, sign):
    counts[WHOLE, k] += sign
    if p >= 0:
        counts[PAT, p] += sign
    if k == TEAPOT:
        counts[POTS, p] += sign
    if repaired:
        counts[REP, k] += sign
        if k == TEAPOT:
            counts[POTS_REP, p] += sign


@helper
def _kit_masks(kind, pattern, patterns, words):
    """The kit's cards as bit masks (words uint64 each): by type, by pattern, the teapots; and the tea jars' ids."""
    of_type, of_pattern = np.zeros((NT, words), np.uint64), np.zeros((patterns, words), np.uint64)
    teapots = np.zeros(words, np.uint64)
    jars = 0
    for c in range(len(kind)):
        bit = np.uint64(1) << np.uint64(c & 63)
        of_type[kind[c], c >> 6] |= bit
        if pattern[c] >= 0:
            of_pattern[pattern[c], c >> 6] |= bit
        if kind[c] == TEAPOT:
            teapots[c >> 6] |= bit
        jars += kind[c] == TEA_JAR
    jar_cards = np.empty(jars, np.int64)
    jars = 0
    for c in range(len(kind)):
        if kind[c] == TEA_JAR:
            jar_cards[jars], jars = c, jars + 1
    return of_type, of_pattern, teapots, jar_cards


@helper(_nrt=False)
def _shared(cards, masks, row):
    """How many cards the bit mask `cards` shares with masks[row]."""
    count = 0
    for w in range(len(cards)):
        count += popcount(cards[w] & masks[row, w])
    return count


def scores(owner: np.ndarray, cond: np.ndarray, seat: int, cards: np.ndarray, coins: np.ndarray, kit: Components,
           repaired: bool = False) -> np.ndarray:
    """The batch wrapper of seat_scores: fixed dtypes and layouts, so the kernel compiles once."""
    kind, pattern, sc, vase, _ = kit_arrays(kit)
    cards = np.ascontiguousarray(cards, np.int64)
    # A broadcast view is read-only, and numba compiles read-only arrays as a type of their own: copy it.
    coins = np.array(np.broadcast_to(coins, cards.shape), np.int64) if np.shape(coins) != cards.shape \
        else np.ascontiguousarray(coins, np.int64)
    if not coins.flags.writeable:
        coins = coins.copy()
    return seat_scores(np.ascontiguousarray(owner, np.int8), np.ascontiguousarray(cond, np.int8), seat, cards,
                       coins, repaired, kind, pattern, sc, vase, kit.patterns)


@kernel
def repair_legal(owner, cond, ingots, repairs, free, repairing, seat, value):
    """(B, C + 1) the repair decision's legal mask: a broken card of the seat's own that it can pay for, in
    games whose repair phase goes on; the last column, passing, is always legal. As engine.decision's numpy."""
    batch, ncards = owner.shape
    legal = np.zeros((batch, ncards + 1), np.bool_)
    for g in range(batch):
        legal[g, ncards] = True
        if repairing[g]:
            done, coins = repairs[g, seat], ingots[g, seat]
            for c in range(ncards):
                if owner[g, c] == seat and cond[g, c] == BROKEN:
                    legal[g, c] = _repair_cost(free, done, value, g, c) <= coins
    return legal


@helper
def _repair_cost(free, done, value, g, c):
    """Repairing Pottery: the card's value plus one per repair already made this round; free as the first repair
    of a round in which a gold card showed (engine.repair_cost)."""
    return 0 if (free[g] and done == 0) else value[c] + done


@helper
def _points_by_type(whole, rep, pat, pots, pots_rep, ingots, rival, sc, vase, out):
    """rules.points for one collection, by type, into out (len(SCORED),)."""
    cb, cbv, cwv, sb, sbv, swv = _cups_and_saucers(whole, rep, sc)
    face, extra = 0, 0
    for j in range(whole[CUP]):  # a cup beyond the last scores nothing
        value = cbv if j < cb else (cwv if j < whole[CUP] else 0)
        mult = sbv if j < sb else (swv if j < whole[SAUCER] else 1)
        face += value
        extra += value * (mult - 1)
    out[CUP], out[SAUCER] = face, extra
    out[PLATE] = whole[PLATE] // 2 * sc[S_PLATE_PAIR] + sc[S_PLATE_REP] * rep[PLATE]
    out[BOWL] = whole[BOWL] * whole[BOWL] + sc[S_BOWL_REP] * rep[BOWL]
    jars = whole[TEA_JAR]
    out[TEA_JAR] = (sc[S_JAR_MOST] if jars > 0 and jars >= rival else 0) + sc[S_JAR_REP] * rep[TEA_JAR]
    out[VASE] = vase[min(whole[VASE], len(vase) - 1)] + sc[S_VASE_REP] * rep[VASE]
    pot = 0
    for k in range(len(pat)):
        pot += pat[k] * (pots[k] + (sc[S_POT_REP] - 1) * pots_rep[k])
    out[TEAPOT] = pot
    out[TRAY] = sc[S_TRAY] * whole[TRAY]
    out[BOX] = _boxes(whole, ingots, sc)


@kernel
def standing(owner, cond, ingots, players, kind, pattern, sc, vase, patterns, items_count_broken):
    """The end of the game for a batch: points by type (B, P, BOX + 1), repaired and items (B, P), broken
    (B, P), as engine.standing and engine.outcome compute them with rules.tally and rules.points."""
    batch, ncards = owner.shape
    by_type = np.zeros((batch, players, BOX + 1), np.int32)
    repaired = np.zeros((batch, players), np.int64)
    items = np.zeros((batch, players), np.int64)
    broken = np.zeros((batch, players), np.int64)
    whole = np.zeros((players, NT), np.int64)
    rep = np.zeros((players, NT), np.int64)
    pat = np.zeros((players, patterns), np.int64)
    pots = np.zeros((players, patterns), np.int64)
    pots_rep = np.zeros((players, patterns), np.int64)
    row = np.zeros(BOX + 1, np.int64)
    for g in range(batch):
        whole[:] = 0
        rep[:] = 0
        pat[:] = 0
        pots[:] = 0
        pots_rep[:] = 0
        for c in range(ncards):
            o = owner[g, c]
            if o < 0:
                continue
            if cond[g, c] == BROKEN:
                broken[g, o] += 1
                continue
            t, p = kind[c], pattern[c]
            whole[o, t] += 1
            if p >= 0:
                pat[o, p] += 1
                if t == TEAPOT:
                    pots[o, p] += 1
            if cond[g, c] == REPAIRED:
                rep[o, t] += 1
                if t == TEAPOT:
                    pots_rep[o, p] += 1
        for s in range(players):
            rival = ZERO
            for q in range(players):
                if q != s and whole[q, TEA_JAR] > rival:
                    rival = whole[q, TEA_JAR]
            held = np.int64(ingots[g, s])
            _points_by_type(whole[s], rep[s], pat[s], pots[s], pots_rep[s], held, rival, sc, vase, row)
            for t in range(BOX + 1):
                by_type[g, s, t] = row[t]
            n_whole, n_rep = 0, 0
            for t in range(NT):
                n_whole += whole[s, t]
                n_rep += rep[s, t]
            repaired[g, s] = n_rep
            items[g, s] = n_whole + (broken[g, s] if items_count_broken else 0)
    return by_type, repaired, items, broken


@kernel
def kept(owner, cond, ingots, supply, card, keep, seat, value, partial):
    """engine._kept's keep-or-sell, on copies: the card joins the seat's collection, or is sold for its value
    (with `partial`, at most what is left of the supply)."""
    owner, cond, ingots, supply = owner.copy(), cond.copy(), ingots.copy(), supply.copy()
    for g in range(len(card)):
        _keep_or_sell(owner, cond, ingots, supply, g, card[g], keep[g], seat, value, partial)
    return owner, cond, ingots, supply


@helper
def _keep_or_sell(owner, cond, ingots, supply, g, c, keep, seat, value, partial):
    if keep:
        owner[g, c] = seat
        cond[g, c] = INTACT
    else:
        paid = value[c]
        if partial:
            paid = min(paid, max(supply[g], 0))
        ingots[g, seat] += paid
        supply[g] -= paid


@kernel
def repaired(cond, ingots, supply, repairs, fixed, repairing, free, choice, seat, value):
    """engine._repaired's mend, on copies: where the repair phase goes on and the seat chose a card, it is
    repaired and paid for (engine.repair_cost); the ingots return to the supply."""
    cond, ingots, supply, repairs, fixed = cond.copy(), ingots.copy(), supply.copy(), repairs.copy(), fixed.copy()
    for g in range(len(choice)):
        if repairing[g] and choice[g] < cond.shape[1]:
            _mend(cond, ingots, supply, repairs, fixed, free, g, choice[g], seat, value)
    return cond, ingots, supply, repairs, fixed


@helper
def _mend(cond, ingots, supply, repairs, fixed, free, g, c, seat, value):
    cost = _repair_cost(free, repairs[g, seat], value, g, c)
    cond[g, c] = REPAIRED
    ingots[g, seat] -= cost
    supply[g] += cost
    repairs[g, seat] += 1
    fixed[g] = True


@kernel
def break_all(owner, cond, order, dealt, kind, leftover):
    """break_pottery in every game (cond in place); (B,) whether a gold card shows."""
    free = np.zeros(len(leftover), np.bool_)
    for g in range(len(leftover)):
        free[g] = break_pottery(owner, cond, order, dealt, kind, g, leftover[g])
    return free


@helper
def break_pottery(owner, cond, order, dealt, kind, g, leftover):
    """Pottery Breaks, for game g: every unbroken, never-repaired card in a collection whose type matches the
    leftover card or the card on top of the deck (none once it is empty) breaks; trays, boxes and gold break
    nothing. Returns whether a gold card shows (Gold Cards: each player's first repair this round is free)."""
    showing = (kind[leftover], kind[order[g, dealt]] if dealt < order.shape[1] else -1)
    for c in range(owner.shape[1]):
        if owner[g, c] >= 0 and cond[g, c] == INTACT:
            for shown in showing:
                if shown == kind[c] and shown <= TEAPOT:
                    cond[g, c] = BROKEN
    return showing[0] == GOLD or showing[1] == GOLD


DRAFTING, KEEPING, REPAIRING, OVER = 0, 1, 2, 3  # engine's phases, as the playout numbers them


@kernel
def play_out(order, owner, cond, ingots, supply, draft, is_open, card, repairs, free, repairing, fixed,
             dealt, rounds_done, phase, turn, rounds, kind, pattern, sc, vase, patterns, value, partial, greedy, rng):
    """The games played on to their end, in place (the arrays of engine.PLAYED, in that order, after the deck
    `order`), in the engine's order and in lockstep, by the same player at every seat, draw for draw as stepping
    them with it (strategies/broken_beautiful.py):
    - `random` (greedy False): each draft and each keep draws rng.random(B) (the nth open card, n = int(draw * open
      cards); keep where the draw is under 0.5 and the card is not gold), each repair turn draws one number per game
      with a card its seat may mend, and picks the nth of those options and passing;
    - `greedy`: each draft draws rng.random(B), the open card worth most kept or sold (pick_best's tie-break), and
      keeps it where keeping is worth more than selling; each repair turn draws as random does, and mends the card
      worth most, or passes (`_greedy_draft`, `_greedy_repair`).
    Returns the scalars (dealt, rounds done, phase, turn); phase is OVER at the end."""
    batch, players = ingots.shape
    size = draft.shape[1]
    broken, n_broken = np.empty(owner.shape, np.int64), np.zeros(batch, np.int64)  # each game's broken cards
    for g in range(batch):
        n_broken[g] = _list_broken(owner, cond, g, broken[g])
    counts, bits, jar_cards = _tally_scratch(kind, pattern, patterns, owner.shape[1])
    keeps = np.zeros(batch, np.bool_)  # greedy's keep-or-sell, found with its draft
    options = np.empty(max(size, owner.shape[1] + 1), np.float64)  # greedy's values of one game's options
    kept, sold = np.empty(size), np.empty(size)  # greedy's worth of each card of the draft kept, and sold
    if greedy and phase == KEEPING:  # the draft was stepped: greedy's keep-or-sell of each game's drafted card
        seat = _snake(rounds_done % players, players, turn)
        for g in range(batch):
            rival = _tally(owner, cond, g, seat, counts, bits, jar_cards)
            _greedy_draft(counts, rival, ingots[g, seat], supply[g], card[g:g + 1], card[g:g + 1] >= 0, kind, pattern,
                          sc, vase, value, partial, 0.0, options, kept, sold)  # a draft of that card alone
            keeps[g] = kept[0] > sold[0]
    while phase != OVER:
        first = rounds_done % players
        if phase == DRAFTING:
            seat = _snake(first, players, turn)
            draws = rng.random(batch)
            for g in range(batch):
                if greedy:
                    rival = _tally(owner, cond, g, seat, counts, bits, jar_cards)
                    slot = _greedy_draft(counts, rival, ingots[g, seat], supply[g], draft[g], is_open[g], kind,
                                         pattern, sc, vase, value, partial, draws[g], options, kept, sold)
                    keeps[g] = kept[slot] > sold[slot]
                else:
                    count = 0
                    for j in range(size):
                        count += is_open[g, j]
                    slot = _nth_true(is_open[g], int(draws[g] * count))
                is_open[g, slot] = False
                card[g] = draft[g, slot]
            phase = KEEPING
        elif phase == KEEPING:
            seat = _snake(first, players, turn)
            if not greedy:
                draws = rng.random(batch)
                for g in range(batch):
                    keeps[g] = kind[card[g]] != GOLD and draws[g] < 0.5
            for g in range(batch):
                _keep_or_sell(owner, cond, ingots, supply, g, card[g], keeps[g], seat, value, partial)
                card[g] = -1
            phase, turn = DRAFTING, turn + 1
            if turn == 2 * players:  # every player drafted two cards: the pottery breaks
                for g in range(batch):
                    free[g] = break_pottery(owner, cond, order, dealt, kind, g, draft[g, _nth_true(is_open[g], ZERO)])
                    n_broken[g] = _list_broken(owner, cond, g, broken[g])
                    is_open[g, :] = False
                    repairing[g], fixed[g] = True, False
                phase, turn = REPAIRING, 0
        else:
            seat = (first + turn) % players
            mending = np.zeros(batch, np.int64)
            for g in range(batch):
                if repairing[g]:
                    mending[g] = _mendable(owner, ingots, repairs, free, seat, value, g, broken[g], n_broken[g], EVERY)
            draws = rng.random(np.count_nonzero(mending))
            drawn = 0
            for g in range(batch):
                if mending[g]:
                    if greedy:
                        rival = _tally(owner, cond, g, seat, counts, bits, jar_cards)
                        nth = _greedy_repair(counts, rival, owner, ingots, repairs, free, g, seat, broken[g],
                                             n_broken[g], kind, pattern, sc, vase, value, draws[drawn], options)
                    else:
                        nth = int(draws[drawn] * (mending[g] + 1))  # the last option is passing
                    drawn += 1
                    if nth < mending[g]:
                        k = _mendable(owner, ingots, repairs, free, seat, value, g, broken[g], n_broken[g], nth)
                        _mend(cond, ingots, supply, repairs, fixed, free, g, broken[g, k], seat, value)
                        for j in range(k, n_broken[g] - 1):  # not a slice: its shape check's message compiles
                            broken[g, j] = broken[g, j + 1]
                        n_broken[g] -= 1
            turn += 1
            if turn % players == 0:  # a round of turns ends: repairing goes on where someone mended
                some = False
                for g in range(batch):
                    repairing[g] = repairing[g] and fixed[g]
                    fixed[g] = False
                    some |= repairing[g]
                if not some:  # the first player marker passes, and the next round is dealt or the game ends
                    rounds_done += 1
                    if rounds_done >= rounds:
                        phase, turn = OVER, 0
                    else:
                        for g in range(batch):  # not a slice: its shape check's message compiles
                            for j in range(size):
                                draft[g, j] = order[g, dealt + j]
                        is_open[:] = True
                        card[:] = -1
                        repairs[:] = 0
                        free[:], repairing[:], fixed[:] = False, False, False
                        dealt += size
                        phase, turn = DRAFTING, 0
    return dealt, rounds_done, phase, turn


@helper
def _worth(counts, rival, c, ingots, repaired, kind, pattern, sc, vase):
    """strategies/broken_beautiful.Player.score: the end score with card c (-1 none), plus INGOT_WORTH an ingot."""
    return _points_with(counts, rival, c, ingots, repaired, kind, pattern, sc, vase) + INGOT_WORTH * ingots


@helper
def _greedy_draft(counts, rival, coins, supply, draft, is_open, kind, pattern, sc, vase, value, partial, draw,
                  options, kept, sold):
    """Player.draft of the tallied seat in one game (its draft row and open slots): the open slot whose card is
    worth most kept (never gold) or sold; kept and sold hold each slot's worth either way (Player.keep's)."""
    whole = counts[WHOLE]
    unchanged = _points_with(counts, rival, NO_CARD, coins, NO, kind, pattern, sc, vase) - _boxes(whole, coins, sc)
    for j in range(len(draft)):
        c = draft[j]
        paid = min(value[c], max(supply, 0)) if partial else value[c]
        kept[j] = -np.inf if kind[c] == GOLD else _worth(counts, rival, c, coins, NO, kind, pattern, sc, vase)
        sold[j] = unchanged + _boxes(whole, coins + paid, sc) + INGOT_WORTH * (coins + paid)
        options[j] = max(kept[j], sold[j])
    return best_allowed(options[:len(draft)], is_open, draw)


@helper
def _greedy_repair(counts, rival, owner, ingots, repairs, free, g, seat, broken, n_broken, kind, pattern, sc, vase,
                   value, draw, options):
    """Player.repair of the tallied seat in game g: which of the cards it may mend (nth, in id order) is worth most
    mended and paid for, or passing (nth = how many it may mend)."""
    coins, done, count = ingots[g, seat], repairs[g, seat], 0
    for k in range(n_broken):
        c = broken[k]
        cost = _repair_cost(free, done, value, g, c)
        if owner[g, c] == seat and cost <= coins:
            options[count] = _worth(counts, rival, c, coins - cost, YES, kind, pattern, sc, vase)
            count += 1
    options[count] = _worth(counts, rival, NO_CARD, coins, NO, kind, pattern, sc, vase)
    return best_allowed(options[:count + 1], np.ones(count + 1, np.bool_), draw)


@helper
def _list_broken(owner, cond, g, into):
    """Game g's broken cards, in id order (the order of the repair options), into `into`; returns how many."""
    count = 0
    for c in range(owner.shape[1]):
        if owner[g, c] >= 0 and cond[g, c] == BROKEN:
            into[count] = c
            count += 1
    return count


@helper
def _mendable(owner, ingots, repairs, free, seat, value, g, broken, n_broken, nth):
    """How many of game g's broken cards the seat may mend (repair_legal's row without passing); with nth >= 0,
    the index in `broken` of the nth of them."""
    done, coins, count = repairs[g, seat], ingots[g, seat], 0
    for k in range(n_broken):
        c = broken[k]
        if owner[g, c] == seat and _repair_cost(free, done, value, g, c) <= coins:
            if count == nth:
                return k
            count += 1
    return count


@helper
def _snake(first, players, turn):
    """engine.pick_order's seat for pick `turn`: from the first player to the left, then back."""
    return (first + (turn if turn < players else 2 * players - 1 - turn)) % players


@helper
def _nth_true(row, nth):
    seen = -1
    for j in range(len(row)):
        seen += row[j]
        if seen == nth:
            return j
    return -1
