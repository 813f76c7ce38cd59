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
from numba import njit

from sim.broken_beautiful.rules import (
    BOWL,
    BOX,
    BROKEN,
    CUP,
    PLATE,
    REPAIRED,
    SAUCER,
    TEA_JAR,
    TEAPOT,
    TRAY,
    TYPES,
    VASE,
    Components,
)

NT = len(TYPES)
# Positions of the scoring numbers in the int64 vector `sc` the kernels take.
(S_CUP_U, S_CUP_R, S_SAU_U, S_SAU_R, S_PLATE_PAIR, S_PLATE_REP, S_BOWL_REP, S_JAR_MOST, S_JAR_REP, S_VASE_REP,
 S_POT_REP, S_TRAY, S_BOX_CAP, S_NCUPS) = range(14)


@lru_cache(maxsize=16)
def kit_arrays(kit: Components) -> tuple[np.ndarray, ...]:
    """(type, pattern, scoring numbers, vase table, value) as int64 arrays for the kernels."""
    s = kit.scoring
    sc = np.array([s.cup[0], s.cup[1], s.saucer[0], s.saucer[1], s.plate_pair, s.plate_repaired,
                   s.bowl_repaired, s.tea_jar_most, s.tea_jar_repaired, s.vase_repaired, s.teapot_repaired,
                   s.tray, s.box_cap, int((kit.type == CUP).sum())], np.int64)
    return (kit.type.astype(np.int64), kit.pattern.astype(np.int64), sc, np.array(s.vase, np.int64),
            kit.value.astype(np.int64))


@njit(cache=True, nogil=True)
def _points(whole, rep, pat, pots, pots_rep, ingots, rival, sc, vase):
    """rules.points summed over the types, for one collection. The same arithmetic as _points_by_type, written
    out again on purpose: summing _points_by_type's row instead made greedy 2.4 times slower."""
    # cups and saucers: the most valuable cups with the strongest saucers
    if sc[S_CUP_R] >= sc[S_CUP_U]:
        cb, cbv, cwv = rep[CUP], sc[S_CUP_R], sc[S_CUP_U]
    else:
        cb, cbv, cwv = whole[CUP] - rep[CUP], sc[S_CUP_U], sc[S_CUP_R]
    if sc[S_SAU_R] >= sc[S_SAU_U]:
        sb, sbv, swv = rep[SAUCER], sc[S_SAU_R], sc[S_SAU_U]
    else:
        sb, sbv, swv = whole[SAUCER] - rep[SAUCER], sc[S_SAU_U], sc[S_SAU_R]
    total = 0
    for j in range(sc[S_NCUPS]):
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
    total += whole[BOX] * min(ingots, sc[S_BOX_CAP])
    return total


@njit(cache=True, nogil=True)
def seat_scores(owner, cond, seat, cards, coins, repaired, kind, pattern, sc, vase, patterns):
    """(n, K) end scores of `seat` in n games (owner, cond (n, C)) if each of `cards` (n, K; -1 none) joined
    its collection unbroken (`repaired`: were one of its broken cards mended) while it held `coins` (n, K)."""
    n, ncards = owner.shape
    out = np.empty(cards.shape, np.int64)
    whole = np.zeros(NT, np.int64)
    rep = np.zeros(NT, np.int64)
    pat = np.zeros(patterns, np.int64)
    pots = np.zeros(patterns, np.int64)
    pots_rep = np.zeros(patterns, np.int64)
    jars = np.zeros(128, np.int64)  # owner is int8
    for g in range(n):
        whole[:] = 0
        rep[:] = 0
        pat[:] = 0
        pots[:] = 0
        pots_rep[:] = 0
        jars[:] = 0
        for c in range(ncards):
            o = owner[g, c]
            if o < 0:
                continue
            t = kind[c]
            state = cond[g, c]
            if state == BROKEN:
                continue
            if o != seat:
                if t == TEA_JAR:
                    jars[o] += 1
                continue
            whole[t] += 1
            p = pattern[c]
            if p >= 0:
                pat[p] += 1
                if t == TEAPOT:
                    pots[p] += 1
            if state == REPAIRED:
                rep[t] += 1
                if t == TEAPOT:
                    pots_rep[p] += 1
        rival = 0
        for o in range(len(jars)):
            if o != seat and jars[o] > rival:
                rival = jars[o]
        for k in range(cards.shape[1]):
            c = cards[g, k]
            if c < 0:
                out[g, k] = _points(whole, rep, pat, pots, pots_rep, coins[g, k], rival, sc, vase)
                continue
            t, p = kind[c], pattern[c]
            whole[t] += 1
            if p >= 0:
                pat[p] += 1
            if t == TEAPOT:
                pots[p] += 1
            if repaired:
                rep[t] += 1
                if t == TEAPOT:
                    pots_rep[p] += 1
            out[g, k] = _points(whole, rep, pat, pots, pots_rep, coins[g, k], rival, sc, vase)
            whole[t] -= 1
            if p >= 0:
                pat[p] -= 1
            if t == TEAPOT:
                pots[p] -= 1
            if repaired:
                rep[t] -= 1
                if t == TEAPOT:
                    pots_rep[p] -= 1
    return out


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


@njit(cache=True, nogil=True)
def repair_legal(owner, cond, ingots, repairs, free, repairing, seat, value):
    """(B, C + 1) the repair decision's legal mask: a broken card of the seat's own that it can pay for, in
    games whose repair phase goes on; the last column, passing, is always legal. As engine.decision's numpy."""
    batch, ncards = owner.shape
    legal = np.zeros((batch, ncards + 1), np.bool_)
    for g in range(batch):
        legal[g, ncards] = True
        if not repairing[g]:
            continue
        done = repairs[g, seat]
        coins = ingots[g, seat]
        for c in range(ncards):
            if owner[g, c] == seat and cond[g, c] == BROKEN:
                cost = 0 if (free[g] and done == 0) else value[c] + done
                legal[g, c] = cost <= coins
    return legal


@njit(cache=True, nogil=True)
def _points_by_type(whole, rep, pat, pots, pots_rep, ingots, rival, sc, vase, out):
    """rules.points for one collection, by type, into out (len(SCORED),)."""
    if sc[S_CUP_R] >= sc[S_CUP_U]:
        cb, cbv, cwv = rep[CUP], sc[S_CUP_R], sc[S_CUP_U]
    else:
        cb, cbv, cwv = whole[CUP] - rep[CUP], sc[S_CUP_U], sc[S_CUP_R]
    if sc[S_SAU_R] >= sc[S_SAU_U]:
        sb, sbv, swv = rep[SAUCER], sc[S_SAU_R], sc[S_SAU_U]
    else:
        sb, sbv, swv = whole[SAUCER] - rep[SAUCER], sc[S_SAU_U], sc[S_SAU_R]
    face, extra = 0, 0
    for j in range(sc[S_NCUPS]):
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
    out[BOX] = whole[BOX] * min(ingots, sc[S_BOX_CAP])


@njit(cache=True, nogil=True)
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
            rival = 0
            for q in range(players):
                if q != s and whole[q, TEA_JAR] > rival:
                    rival = whole[q, TEA_JAR]
            _points_by_type(whole[s], rep[s], pat[s], pots[s], pots_rep[s], ingots[g, s], rival, sc, vase, row)
            for t in range(BOX + 1):
                by_type[g, s, t] = row[t]
            n_whole, n_rep = 0, 0
            for t in range(NT):
                n_whole += whole[s, t]
                n_rep += rep[s, t]
            repaired[g, s] = n_rep
            items[g, s] = n_whole + (broken[g, s] if items_count_broken else 0)
    return by_type, repaired, items, broken


@njit(cache=True, nogil=True)
def kept(owner, cond, ingots, supply, card, keep, seat, value, partial):
    """engine._kept's keep-or-sell, on copies: the card joins the seat's collection, or is sold for its value
    (with `partial`, at most what is left of the supply)."""
    owner, cond, ingots, supply = owner.copy(), cond.copy(), ingots.copy(), supply.copy()
    for g in range(len(card)):
        c = card[g]
        if keep[g]:
            owner[g, c] = seat
            cond[g, c] = 0  # INTACT
        else:
            paid = value[c]
            if partial:
                paid = min(paid, max(supply[g], 0))
            ingots[g, seat] += paid
            supply[g] -= paid
    return owner, cond, ingots, supply


@njit(cache=True, nogil=True)
def repaired(cond, ingots, supply, repairs, fixed, repairing, free, choice, seat, value):
    """engine._repaired's mend, on copies: where the repair phase goes on and the seat chose a card, it is
    repaired and paid for (engine.repair_cost); the ingots return to the supply."""
    cond, ingots, supply, repairs, fixed = cond.copy(), ingots.copy(), supply.copy(), repairs.copy(), fixed.copy()
    ncards = cond.shape[1]
    for g in range(len(choice)):
        c = choice[g]
        if repairing[g] and c < ncards:
            cond[g, c] = REPAIRED
            done = repairs[g, seat]
            cost = 0 if (free[g] and done == 0) else value[c] + done
            ingots[g, seat] -= cost
            supply[g] += cost
            repairs[g, seat] += 1
            fixed[g] = True
    return cond, ingots, supply, repairs, fixed
