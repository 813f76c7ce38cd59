"""Witkacy's random playout, compiled: every game of a batch played to its end with uniformly random legal answers,
the engine's steps and the random player's answers in one loop (issue 18: the random player asks about 205
questions a game, and stepping the batched engine through each cost twenty times the rules' work).

It plays the engine's questions in the engine's order (rules.CYCLE), on the engine's State arrays, in lockstep
over the batch, and draws exactly as the `random` strategy does at every seat: at each question that asks some
game of the batch, one `rng.random(B)`; a game asked takes the nth of its options in code order, n = int(draw *
options) (strategies.common.pick_any), a game with a single option takes it, a game the question does not concern
is skipped. So a batch played here ends in the State, and with the rng in the state, that stepping it with
`random` everywhere gives; tests/test_witkacy.py holds the two against each other.
"""

from __future__ import annotations

import numpy as np

from sim.kernel import NO, YES, ZERO, helper, kernel
from sim.witkacy.fast import (
    GRID,
    count_copies,
    depth_codes,
    lay_card,
    nth_spot,
    removal_codes,
    remove_card,
    scratch_grids,
    spot_count,
    spot_rows,
)
from sim.witkacy.rules import (
    ACTIONS,
    CARDS,
    CORRECTION,
    CYCLE,
    DECK,
    GIFT,
    HAND,
    KEEP,
    MAX_STACK,
    RUSH,
    SOLVENT,
    STASH,
    WINDOW,
)

(START, SEARCH, ACTION, STASH_DRAW, STASH_DISCARD, SOLVENT_PICK, GIFT_PICK, GIFT_WHERE, GIFT_Z, EXPAND, WHERE, Z,
 EXPAND_AGAIN, WHERE_AGAIN, Z_AGAIN, RUSH_DRAW, END) = range(len(CYCLE))
assert CYCLE[GIFT_Z] == "gift_z" and CYCLE[RUSH_DRAW] == "rush_draw" and CYCLE[END] == "end"


@kernel
def random_playout(stack, size, copies, deck, drawn, up, display, hand, tokens, played, action, pending, spot,
                   last_round, ended, turns, cards, players, flags, turn, at, rng):
    """Play from CYCLE[at] (a question not yet answered) to the end, changing the arrays in place. `flags` (bool):
    advanced, entirely == 'card', stash_draw == 'deck', rush_draw == 'deck', rush_both == 'optional', gift_from ==
    'display_and_deck', end_count == 'deck_and_display'. Returns the turn at which every game had ended."""
    in_deck = ZERO
    for j in range(CARDS):
        in_deck += deck[0, j] >= 0  # every deal leaves the same number of cards in the deck
    (code, top), masks, rows = scratch_grids(), np.zeros(2 * GRID, np.uint64), np.empty(MAX_STACK + 2, np.uint64)
    before, after, new = np.empty(9, np.int64), np.empty(9, np.int64), np.empty(4, np.int8)
    found, draws = np.empty(MAX_STACK * players, np.int64), np.empty(len(ended))
    return play(stack, size, copies, deck, drawn, up, display, hand, tokens, played, action, pending, spot, last_round,
                ended, turns, cards, players, flags, turn, at, rng, in_deck, code, top, masks, rows, before, after, new,
                found, draws)


@kernel(_nrt=False)
def play(stack, size, copies, deck, drawn, up, display, hand, tokens, played, action, pending, spot, last_round, ended,
         turns, cards, players, flags, turn, at, rng, in_deck, code, top, masks, rows, before, after, new, found,
         draws):
    """random_playout's loop, given its scratch arrays. Compiled without numba's runtime, it counts no references,
    so the per-game helpers below are inlined into it at no cost: a call that passes them the batch's ~20 arrays,
    field by field, cost more than most of the rules' work."""
    batch = len(ended)
    while True:
        seat = turn % players
        if at == START:
            over = True
            for g in range(batch):
                ended[g] |= last_round[g] and seat == 0
                action[g] = 0
                over &= ended[g]
            if over:
                return turn
        elif at == END:
            for g in range(batch):
                if not ended[g]:
                    available = in_deck - drawn[g]
                    if flags[6]:
                        available += (display[g, 0] >= 0) + (display[g, 1] >= 0)
                    last_round[g] |= available < players
                    turns[g] += 1
            turn += 1
        else:
            drew = False
            for g in range(batch):
                if ended[g] or not concerned(at, g, drawn, display, hand, action, pending, seat, in_deck):
                    continue
                k = option_codes(at, g, stack, size, copies, drawn, display, hand, tokens, action, pending, spot,
                                 cards, players, flags, seat, in_deck, code, top, masks, rows, before, new, found)
                if k == 0:
                    raise RuntimeError("Witkacy: no legal option in a random playout (a rule bug)")
                if k > 1 and not drew:
                    for h in range(batch):  # the stream rng.random(batch) draws
                        draws[h] = rng.random()
                    drew = True
                nth = 0 if k == 1 else int(draws[g] * k)
                choice = nth_spot(rows, nth) if at == GIFT_WHERE or at == WHERE or at == WHERE_AGAIN else found[nth]
                apply(at, g, choice, stack, size, copies, deck, drawn, up, display, hand, tokens, played, action,
                      pending, spot, cards, seat, in_deck, code, top, before, after)
        at = (at + 1) % len(CYCLE)


@helper(_nrt=False, inline="always")
def concerned(at, g, drawn, display, hand, action, pending, seat, in_deck):
    """Whether the question CYCLE[at] concerns game g (engine.ACTIVE)."""
    if at == SEARCH:
        return display[g, 0] >= 0 or display[g, 1] >= 0 or in_deck > drawn[g]
    if at == ACTION:
        return True
    if at == STASH_DRAW or at == STASH_DISCARD:
        return action[g] == STASH
    if at == SOLVENT_PICK:
        return action[g] == SOLVENT
    if at == GIFT_PICK or at == GIFT_WHERE or at == GIFT_Z:
        return action[g] == GIFT
    if at == EXPAND:
        return hand[g, seat, 0] >= 0
    if at == EXPAND_AGAIN:
        return action[g] == RUSH
    if at == RUSH_DRAW:
        return action[g] == RUSH and (display[g, 0] >= 0 or display[g, 1] >= 0 or in_deck > drawn[g])
    return pending[g, 0] >= 0  # where, z and their repeats


@helper(_nrt=False, inline="always")
def option_codes(at, g, stack, size, copies, drawn, display, hand, tokens, action, pending, spot, cards, players,
                 flags, seat, in_deck, code, top, masks, rows, before, new, out):
    """How many options game g has for the question CYCLE[at] (engine.LEGAL): their codes ascending in out, or for
    a `where` question as spot_rows writes them in rows."""
    left = in_deck - drawn[g]
    stack, size, display, hand, tokens = stack[g], size[g], display[g], hand[g, seat], tokens[g, seat]
    action, pending, spot = action[g], pending[g], spot[g]
    if at == SEARCH or at == STASH_DRAW or at == RUSH_DRAW:
        deck_only = (at == STASH_DRAW and flags[2]) or (at == RUSH_DRAW and flags[3])
        k = 0
        for slot in range(2):
            if display[slot] >= 0 and (not deck_only or left == 0):
                out[k], k = slot, k + 1
        if left > 0:
            out[k], k = DECK, k + 1
        return k
    if at == ACTION:
        return action_codes(stack, size, copies[g], display, hand, tokens, cards, flags, left, code, top, before, new,
                            out)
    if at == STASH_DISCARD:
        k = 0
        for j in range(HAND):
            if hand[j] >= 0:
                out[k], k = j, k + 1
        return k
    if at == SOLVENT_PICK:
        return removal_codes(stack, size, cards, NO, code, top, before, new, out)
    if at == GIFT_PICK:
        k = 0
        for owner in range(players):
            for source in range(3):
                open_ = display[source] >= 0 if source < DECK else flags[5] and left > 0
                if owner != seat and open_:
                    out[k], out[k + 1], k = 6 * owner + 2 * source, 6 * owner + 2 * source + 1, k + 2
        return k
    if at == EXPAND or at == EXPAND_AGAIN:
        k = 0
        for j in range(HAND):
            if hand[j] >= 0:
                out[k], out[k + 1], k = 2 * j, 2 * j + 1, k + 2
        if at == EXPAND_AGAIN and flags[4]:
            out[k], k = KEEP, k + 1
        return k
    owner = pending[0]
    if at == GIFT_Z:
        return depth_codes(stack[owner], size[owner], cards, pending[1], pending[2], spot[0], spot[1], code, top,
                           before, new, out)
    if at == Z or at == Z_AGAIN:
        for z in range(size[owner] + 1):
            out[z] = z
        return size[owner] + 1
    correction = at == WHERE and action == CORRECTION
    height = spot_rows(stack[owner], size[owner], 2 if flags[0] else 1, flags[1], correction, masks, rows)
    return spot_count(rows, height)


@helper(_nrt=False, inline="always")
def action_codes(stack, size, copies, display, hand, tokens, cards, flags, left, code, top, before, new, out):
    """No action, and each unused token whose action is possible (engine._action_options)."""
    out[0], k = 0, 1
    sources = display[0] >= 0 or display[1] >= 0 or left > 0
    for a in range(1, len(ACTIONS) + 1):
        if not tokens[a - 1]:
            continue
        if a == STASH:
            possible = sources
        elif a == SOLVENT:
            possible = solvent_possible(stack, size, copies, cards, code, top, before, new, out[k:])
        elif a == CORRECTION:
            possible = True
        elif a == GIFT:
            possible = display[0] >= 0 or display[1] >= 0 or (flags[5] and left > 0)
        else:
            possible = hand[1] >= 0
        if possible:
            out[k], k = a, k + 1
    return k


@helper(_nrt=False)
def solvent_possible(stack, size, copies, cards, code, top, before, new, scratch):
    """Whether some collection of 2 cards or more may lose one: at once where it holds no completed painting to
    break, else as removal_codes finds."""
    for o in range(size.shape[0]):
        if size[o] >= 2 and copies[o].sum() == 0:
            return True
    return removal_codes(stack, size, cards, YES, code, top, before, new, scratch) > 0


@helper(_nrt=False, inline="always")
def apply(at, g, choice, stack, size, copies, deck, drawn, up, display, hand, tokens, played, action, pending, spot,
          cards, seat, in_deck, code, top, before, after):
    """Game g's answer to CYCLE[at] (engine.APPLY)."""
    if at == SEARCH or at == STASH_DRAW or at == RUSH_DRAW:
        held = hand_size(hand[g, seat])
        if choice == DECK:
            hand[g, seat, held] = deck[g, min(drawn[g], CARDS - 1)]
            drawn[g] += 1
        else:
            hand[g, seat, held] = display[g, choice]
            refill(g, choice, deck, drawn, up, display, in_deck)
    elif at == ACTION:
        action[g] = choice
        if choice != 0:
            tokens[g, seat, choice - 1] = False
    elif at == STASH_DISCARD:
        discard(hand[g, seat], choice)
    elif at == SOLVENT_PICK:
        owner, position = choice // MAX_STACK, choice % MAX_STACK
        remove_card(stack[g], size[g], owner, position)
        count_copies(stack[g, owner], size[g, owner], cards, code, top, copies[g, owner])
    elif at == GIFT_PICK:
        owner, source, side = choice // 6, choice % 6 // 2, choice % 2
        card = deck[g, min(drawn[g], CARDS - 1)] if source == DECK else display[g, source]
        pending[g, 0], pending[g, 1], pending[g, 2], pending[g, 3] = owner, card, side, source
    elif at == EXPAND or at == EXPAND_AGAIN:
        if choice != KEEP:
            position = choice // 2
            pending[g, 0], pending[g, 1], pending[g, 2], pending[g, 3] = seat, hand[g, seat, position], choice % 2, \
                position
    elif at == GIFT_WHERE or at == WHERE or at == WHERE_AGAIN:
        owner = pending[g, 0]
        row, col = stack[g, owner, 0, 2], stack[g, owner, 0, 3]
        for i in range(1, size[g, owner]):
            row, col = min(row, stack[g, owner, i, 2]), min(col, stack[g, owner, i, 3])
        spot[g, 0], spot[g, 1] = row - 1 + choice // WINDOW, col - 1 + choice % WINDOW
    else:  # gift_z, z, z_again: the card goes into the stack
        owner, card, side, source = pending[g, 0], pending[g, 1], pending[g, 2], pending[g, 3]
        lay_card(stack[g], size[g], owner, card, side, spot[g, 0], spot[g, 1], choice, cards, code, top, before, after,
                 copies[g, owner])
        if at == GIFT_Z:
            if source == DECK:
                drawn[g] += 1
            else:
                refill(g, np.int64(source), deck, drawn, up, display, in_deck)
        else:
            discard(hand[g, seat], source)
            played[g, seat] += 1
        pending[g, :] = -1
        spot[g, :] = 0


@helper(_nrt=False)
def hand_size(hand):
    n = 0
    for j in range(HAND):
        n += hand[j] >= 0
    return n


@kernel(_nrt=False)
def discard(hand, position):
    """The hand card at `position` leaves; the hand keeps its order."""
    for j in range(position, HAND - 1):
        hand[j] = hand[j + 1]
    hand[HAND - 1] = -1


@kernel(_nrt=False)
def refill(g, slot, deck, drawn, up, display, in_deck):
    """A display slot refilled by the deck's top card turned over (left empty when the deck is)."""
    if in_deck - drawn[g] > 0:
        card = deck[g, min(drawn[g], CARDS - 1)]
        display[g, slot] = card
        up[g, card] ^= 1
        drawn[g] += 1
    else:
        display[g, slot] = -1
