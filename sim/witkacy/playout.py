"""Witkacy's random playout, compiled: every game of a batch played to its end with uniformly random legal answers,
the engine's steps and the random player's answers in one loop (issue 18: the random player asks about 205
questions a game, and stepping the batched engine through each cost twenty times the rules' work).

It plays the engine's questions in the engine's order (rules.CYCLE), on the engine's State arrays, in lockstep
over the batch, and draws exactly as the `random` strategy does at every seat: at each question that asks some
game of the batch, one `rng.random(B)`; a game asked takes the nth of its options in code order, n = int(draw *
options) (strategies.common.pick_any), a game with a single option takes it, a game the question does not concern
is skipped. So a batch played here ends in the State, and with the rng in the state, that stepping it with
`random` everywhere gives; tests/test_witkacy.py holds the two against each other.

The completer's playout (`completer_playout`, below) plays the same questions with strategies/witkacy.py's
completer (or popular) at every seat: at each question, the games it asks are found first, then answered as the
Completer method for that question answers them, its draws in the same order (a tie-breakers' seed per game whose
layings are sought, a pick_best draw per game asked), with what it remembers from one question to the next kept
by game (`Memory`); tests/test_witkacy_properties.py holds it against stepping completers.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.np.random.generator_core import next_uint64

from sim.bits import popcount
from sim.kernel import NO, ONE, YES, ZERO, helper, kernel
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
from sim.witkacy.layings import (
    ANY_FACE,
    COPY,
    HELPS,
    NO_OPTION,
    NO_PLAN,
    SEARCHED,
    Board,
    Found,
    Wanted,
    lay_each,
)
from sim.witkacy.rules import (
    ACTIONS,
    CARDS,
    CORRECTION,
    CYCLE,
    DECK,
    DISPLAY,
    GIFT,
    HAND,
    KEEP,
    MAX_STACK,
    NO_ACTION,
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
            if turn_started(ended, last_round, action, seat):
                return turn
        elif at == END:
            turn_ended(ended, last_round, turns, drawn, display, in_deck, players, flags)
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


# ---------------------------------------------------------------------------------------------- the completer


class Memory(NamedTuple):
    """What the completers remember from one question to the next (strategies.witkacy.Completer.memory), by game:
    one set for the table, since in a game only the seat to act thinks, and a seat reads back only what it kept at
    this turn's questions (but a Gift's where and z at a rollout's start, which read a fresh player's empty plan,
    as a seat's own would be)."""

    plan: np.ndarray  # (2, B) int64: the where and z of the laying chosen
    face: np.ndarray  # (B,) int64: the card * 2 + side it lays (NO_PLAN: none made yet)
    hand_plans: np.ndarray  # (B, 2 * HAND, 2, 2) int64: the hand's best layings, found at the action question
    hand_values: np.ndarray  # (B, 2 * HAND, 2)
    planned_at: np.ndarray  # (B,) int64: the turn they were found at
    seen_plans: np.ndarray  # (B, 2 * SEEN, 2, 2) int64: the layings of the cards looked at by the search question
    seen_values: np.ndarray  # (B, 2 * SEEN, 2)
    seen_cards: np.ndarray  # (B, SEEN) int8: those cards, the hand's first SEARCHED places then the display's
    seen_at: np.ndarray  # (B,) int64: the turn they were looked at


class Thinking(NamedTuple):
    """A question's scratch: the games asked, and Wanted's and Found's arrays for the layings sought
    (sim/witkacy/layings.py), a row a game thought about."""

    asked: np.ndarray  # (B,) int64: the games asked, in batch order
    choice: np.ndarray  # (B,) int64: each game's answer (the only option where it has one), -1 where not concerned
    mask: np.ndarray  # (B,) uint64: each game's options as bits, where every code is under 64
    some: np.ndarray  # (B,) int64: some of the asked, as indices into `asked`
    flag: np.ndarray  # (B,) bool: by index into `asked`
    draws: np.ndarray  # (B,)
    games: np.ndarray  # (B,) int64
    owner: np.ndarray  # (B,) int64
    faces: np.ndarray  # (B, FACES, 2, 2) int8
    correction: np.ndarray  # (B,) bool
    weight: np.ndarray  # (B, paintings)
    seeds: np.ndarray  # (B,) int64
    value: np.ndarray  # (B, FACES, 2)
    where: np.ndarray  # (B, FACES, 2, 2) int64
    score: np.ndarray  # (KEEP + 1,): one game's options' scores
    code: np.ndarray  # layings' scratch, apart from the rules'
    top: np.ndarray
    votes: np.ndarray
    marked: np.ndarray
    voted: np.ndarray
    support: np.ndarray
    supported: np.ndarray
    work: np.ndarray


SEEN = SEARCHED + DISPLAY  # the cards the search question looks at (and the deck's top face)
FACES = 2 * SEEN + 1
COMPLETER, POPULAR = 0, 1  # a painting's worth to the playout's players: 1, or what one more copy adds (popular)


@kernel
def completer_playout(stack, size, copies, deck, drawn, up, display, hand, tokens, played, action, pending, spot,
                      last_round, ended, turns, cards, players, flags, turn, at, rng, policy):
    """random_playout's game with strategies.witkacy's completer (or, by `policy`, popular) at every seat: their
    answers and their draws at every question, the very ones that stepping a table of them gives, from players
    that start to remember at the question the playout starts at (as a search's rollout players do)."""
    batch, paintings = len(ended), copies.shape[2]
    in_deck = ZERO
    for j in range(CARDS):
        in_deck += deck[0, j] >= 0
    (code, top), masks, rows = scratch_grids(), np.zeros(2 * GRID, np.uint64), np.empty(MAX_STACK + 2, np.uint64)
    before, after, new = np.empty(9, np.int64), np.empty(9, np.int64), np.empty(4, np.int8)
    found = np.empty(MAX_STACK * players, np.int64)
    memory = Memory(np.zeros((2, batch), np.int64), np.full(batch, NO_PLAN, np.int64),
                    np.zeros((batch, 2 * HAND, 2, 2), np.int64), np.zeros((batch, 2 * HAND, 2)),
                    np.full(batch, -1, np.int64), np.zeros((batch, 2 * SEEN, 2, 2), np.int64),
                    np.zeros((batch, 2 * SEEN, 2)), np.zeros((batch, SEEN), np.int8), np.full(batch, -1, np.int64))
    lay_code, lay_top = scratch_grids()
    thinking = Thinking(np.empty(batch, np.int64), np.empty(batch, np.int64), np.zeros(batch, np.uint64),
                        np.empty(batch, np.int64), np.zeros(batch, np.bool_), np.empty(batch),
                        np.empty(batch, np.int64), np.empty(batch, np.int64),
                        np.full((batch, FACES, 2, 2), -1, np.int8), np.zeros(batch, np.bool_),
                        np.ones((batch, paintings)), np.empty(batch, np.int64), np.empty((batch, FACES, 2)),
                        np.empty((batch, FACES, 2, 2), np.int64), np.empty(KEEP + 1), lay_code, lay_top,
                        np.zeros((GRID, GRID, paintings, 2), np.int8), np.zeros((GRID, GRID), np.bool_),
                        np.empty((4 * MAX_STACK, 2), np.int64), np.empty((4, paintings, 4 * MAX_STACK), np.int64),
                        np.empty((4, paintings), np.int64), np.empty((4, 9), np.int64))
    return complete(stack, size, copies, deck, drawn, up, display, hand, tokens, played, action, pending, spot,
                    last_round, ended, turns, cards, players, flags, turn, at, rng, in_deck, code, top, masks, rows,
                    before, after, new, found, memory, thinking, policy)


@kernel(_nrt=False)
def complete(stack, size, copies, deck, drawn, up, display, hand, tokens, played, action, pending, spot, last_round,
             ended, turns, cards, players, flags, turn, at, rng, in_deck, code, top, masks, rows, before, after, new,
             found, memory, thinking, policy):
    """completer_playout's loop, given its scratch arrays (as `play` is the random playout's)."""
    batch, t = len(ended), thinking
    while True:
        seat = turn % players
        if at == START:
            if turn_started(ended, last_round, action, seat):
                return turn
        elif at == END:
            turn_ended(ended, last_round, turns, drawn, display, in_deck, players, flags)
            turn += 1
        else:
            n = ZERO
            for g in range(batch):
                t.choice[g] = -1
                if ended[g] or not concerned(at, g, drawn, display, hand, action, pending, seat, in_deck):
                    continue
                k = codes(at, g, stack, size, copies, drawn, display, hand, tokens, action, pending, spot, cards,
                          players, flags, seat, in_deck, code, top, masks, rows, before, new, found)
                if k == 0:
                    raise RuntimeError("Witkacy: no legal option in a completer playout (a rule bug)")
                wide = at == GIFT_WHERE or at == WHERE or at == WHERE_AGAIN or at == SOLVENT_PICK
                if not wide:
                    t.mask[g] = 0
                    for i in range(k):
                        t.mask[g] |= np.uint64(1) << np.uint64(found[i])
                if k > 1:
                    t.asked[n], n = g, n + 1
                t.choice[g] = nth_spot(rows, ZERO) if wide and at != SOLVENT_PICK else found[0]
            if n > 0:
                answer(at, n, stack, size, copies, deck, drawn, up, display, hand, tokens, action, pending, spot,
                       cards, players, flags, seat, turn, in_deck, code, top, masks, rows, before, new, found, rng,
                       memory, t, policy)
            for g in range(batch):
                if t.choice[g] >= 0:
                    apply(at, g, t.choice[g], stack, size, copies, deck, drawn, up, display, hand, tokens, played,
                          action, pending, spot, cards, seat, in_deck, code, top, before, after)
        at = (at + 1) % len(CYCLE)


@helper(_nrt=False)
def codes(at, g, stack, size, copies, drawn, display, hand, tokens, action, pending, spot, cards, players, flags, seat,
          in_deck, code, top, masks, rows, before, new, out):
    """option_codes, compiled once for the completer playout's two calls (it is inlined into its callers)."""
    return option_codes(at, g, stack, size, copies, drawn, display, hand, tokens, action, pending, spot, cards,
                        players, flags, seat, in_deck, code, top, masks, rows, before, new, out)


@helper(_nrt=False)
def turn_started(ended, last_round, action, seat):
    """The question `start`: a game whose last round is over ends. Whether every game has ended."""
    over = True
    for g in range(len(ended)):
        ended[g] |= last_round[g] and seat == 0
        action[g] = 0
        over &= ended[g]
    return over


@helper(_nrt=False)
def turn_ended(ended, last_round, turns, drawn, display, in_deck, players, flags):
    """The question `end`: a game's last round begins once fewer cards are left to draw than players."""
    for g in range(len(ended)):
        if not ended[g]:
            available = in_deck - drawn[g]
            if flags[6]:
                available += (display[g, 0] >= 0) + (display[g, 1] >= 0)
            last_round[g] |= available < players
            turns[g] += 1


@helper(_nrt=False)
def answer(at, n, stack, size, copies, deck, drawn, up, display, hand, tokens, action, pending, spot, cards, players,
           flags, seat, turn, in_deck, code, top, masks, rows, before, new, found, rng, memory, t, policy):
    """The completers' answers to CYCLE[at] in the n games asked (t.asked) into t.choice, drawing as the Completer
    method that answers it does."""
    if at == SEARCH or at == STASH_DRAW or at == RUSH_DRAW:
        sources(at, n, stack, size, copies, deck, drawn, up, display, hand, tokens, cards, flags, seat, turn, in_deck,
                rng, memory, t, policy)
    elif at == ACTION:
        acted(n, stack, size, copies, hand, cards, flags, seat, turn, rng, memory, t, policy)
    elif at == STASH_DISCARD:
        discarded(n, stack, size, copies, hand, cards, flags, seat, rng, t, policy)
    elif at == EXPAND or at == EXPAND_AGAIN:
        expanded(n, stack, size, copies, hand, action, cards, flags, seat, turn, rng, memory, t, policy)
    elif at == GIFT_WHERE or at == WHERE or at == WHERE_AGAIN or at == GIFT_Z or at == Z or at == Z_AGAIN:
        planned(at, n, stack, size, copies, action, pending, cards, flags, seat, masks, rows, rng, memory, t, policy)
    else:  # solvent and gift, which a completer never chooses (a search may): at random, as Player.answer
        draw(len(t.draws), rng, t)  # pick_any draws for every game of the player
        for i in range(n):
            g = t.asked[i]
            k = codes(at, g, stack, size, copies, drawn, display, hand, tokens, action, pending, spot, cards, players,
                      flags, seat, in_deck, code, top, masks, rows, before, new, found)
            t.choice[g] = found[int(t.draws[g] * k)]


@helper(_nrt=False)
def sources(at, n, stack, size, copies, deck, drawn, up, display, hand, tokens, cards, flags, seat, turn, in_deck, rng,
            memory, t, policy):
    """Completer.search (the display's cards, the deck's top face and, kept for the action question, the hand's
    first places) and draw_choice (the display's and the deck's top): the source whose card gains most."""
    looked = SEARCHED if at == SEARCH else 0
    first = 2 * looked
    for i in range(n):
        g = t.asked[i]
        t.games[i], t.correction[i] = g, at == SEARCH and tokens[g, seat, CORRECTION - 1]
        for j in range(looked):
            put_faces(cards, hand[g, seat, j], t.faces, i, 2 * j)
        for slot in range(DISPLAY):
            put_faces(cards, display[g, slot], t.faces, i, first + 2 * slot)
        put_top(cards, deck, drawn, up, in_deck, g, t.faces, i, first + 2 * DISPLAY)
    seek(n, first + 2 * DISPLAY + 1, stack, size, copies, cards, flags, seat, rng, t, YES, NO, policy)
    if at == SEARCH:
        for i in range(n):
            g = t.asked[i]
            for f in range(2 * SEEN):
                for slot in range(2):
                    memory.seen_values[g, f, slot] = t.value[i, f, slot]
                    memory.seen_plans[g, f, slot, 0], memory.seen_plans[g, f, slot, 1] = t.where[i, f, slot, 0], \
                        t.where[i, f, slot, 1]
            for j in range(SEEN):
                memory.seen_cards[g, j] = hand[g, seat, j] if j < SEARCHED else display[g, j - SEARCHED]
            memory.seen_at[g] = turn
    draw(n, rng, t)
    for i in range(n):
        for source in range(DECK + 1):
            gain = max(t.value[i, first + 2 * source, 0], 0.0)
            if source < DECK:
                gain = max(gain, t.value[i, first + 2 * source + 1, 0])
            t.score[source] = gain
        t.choice[t.asked[i]] = best(t.score, t.mask[t.asked[i]], DECK + 1, t.draws[i])


@helper(_nrt=False)
def discarded(n, stack, size, copies, hand, cards, flags, seat, rng, t, policy):
    """Completer.stash_discard: the hand card whose best side gains least."""
    for i in range(n):
        g = t.asked[i]
        t.games[i], t.correction[i] = g, False
        for j in range(HAND):
            put_faces(cards, hand[g, seat, j], t.faces, i, 2 * j)
    seek(n, 2 * HAND, stack, size, copies, cards, flags, seat, rng, t, YES, NO, policy)
    draw(n, rng, t)
    for i in range(n):
        for j in range(HAND):
            t.score[j] = -max(max(t.value[i, 2 * j, 0], 0.0), max(t.value[i, 2 * j + 1, 0], 0.0))
        t.choice[t.asked[i]] = best(t.score, t.mask[t.asked[i]], HAND, t.draws[i])


@helper(_nrt=False)
def acted(n, stack, size, copies, hand, cards, flags, seat, turn, rng, memory, t, policy):
    """Completer.action: the hand's best layings (Completer.hand_layings), kept for the expansion; then Stash where
    no card helps, Rush where two do, Correction where it completes one painting more (the last that applies)."""
    fresh = ZERO
    for i in range(n):
        t.flag[i] = recalled(t.asked[i], hand, seat, turn, memory)
        if t.flag[i]:
            t.some[fresh], fresh = i, fresh + 1
    look(fresh, stack, size, copies, hand, cards, flags, seat, rng, memory, t, policy, YES)
    weak = ZERO
    for i in range(n):  # looked at, and nothing helps: a laying picked evenly, of one face picked evenly
        if not t.flag[i] and highest(memory.hand_values[t.asked[i]], 0) < 1:
            t.some[weak], weak = i, weak + 1
    look(weak, stack, size, copies, hand, cards, flags, seat, rng, memory, t, policy, NO)
    for i in range(n):
        g = t.asked[i]
        memory.planned_at[g] = turn
        values = memory.hand_values[g]
        plain, top_card, second = -np.inf, -np.inf, -np.inf
        for j in range(HAND):
            card = max(values[2 * j, 0], values[2 * j + 1, 0])
            plain = max(plain, card)
            if card > top_card:
                top_card, second = card, top_card
            elif card > second:
                second = card
        choice = NO_ACTION
        if allows(t.mask[g], STASH) and plain < HELPS:
            choice = STASH
        if allows(t.mask[g], RUSH) and second >= 1:
            choice = RUSH
        if allows(t.mask[g], CORRECTION) and highest(values, 1) >= plain + COPY - HELPS:
            choice = CORRECTION
        t.choice[g] = choice


@helper(_nrt=False)
def look(m, stack, size, copies, hand, cards, flags, seat, rng, memory, t, policy, candidates):
    """One of hand_layings' looks, at the hands of the m asked games listed in t.some, where better kept in the
    memory's hand layings: with `candidates`, every face's best laying; without, one face's laying picked evenly,
    the face picked first (pick_any)."""
    if m == 0:
        return
    if not candidates:
        draw(m, rng, t)
    for r in range(m):
        g = t.asked[t.some[r]]
        t.games[r], t.correction[r] = g, allows(t.mask[g], CORRECTION)
        for j in range(HAND):
            put_faces(cards, hand[g, seat, j], t.faces, r, 2 * j)
        if not candidates:
            held = 0
            for f in range(2 * HAND):
                held += t.faces[r, f, 0, 0] >= 0
            one = nth_face(t.faces, r, int(t.draws[r] * (held if held else 2 * HAND)), held == 0)
            for f in range(2 * HAND):
                if f != one:
                    t.faces[r, f, :, :] = -1
    seek(m, 2 * HAND, stack, size, copies, cards, flags, seat, rng, t, candidates, YES, policy)
    for r in range(m):
        improve(t.games[r], r, memory, t)


@helper(_nrt=False)
def recalled(g, hand, seat, turn, memory):
    """The hand's layings as the search question found them this turn (-inf where it did not look at the card)
    into the memory's hand layings. Whether some card held was not looked at."""
    unseen = False
    for j in range(HAND):
        card, m = hand[g, seat, j], -1
        if card >= 0 and memory.seen_at[g] == turn:
            for c in range(SEEN - 1, -1, -1):
                if memory.seen_cards[g, c] == card:
                    m = c
        unseen |= card >= 0 and m < 0
        for side in range(2):
            f, seen = 2 * j + side, 2 * max(m, 0) + side
            for slot in range(2):
                memory.hand_values[g, f, slot] = memory.seen_values[g, seen, slot] if m >= 0 else -np.inf
                memory.hand_plans[g, f, slot, 0] = memory.seen_plans[g, seen, slot, 0]
                memory.hand_plans[g, f, slot, 1] = memory.seen_plans[g, seen, slot, 1]
    return unseen


@helper(_nrt=False)
def improve(g, r, memory, t):
    """Row r of the layings found, where better, into game g's hand layings."""
    for f in range(2 * HAND):
        for slot in range(2):
            if t.value[r, f, slot] > memory.hand_values[g, f, slot]:
                memory.hand_values[g, f, slot] = t.value[r, f, slot]
                memory.hand_plans[g, f, slot, 0], memory.hand_plans[g, f, slot, 1] = t.where[r, f, slot, 0], \
                    t.where[r, f, slot, 1]


@helper(_nrt=False)
def expanded(n, stack, size, copies, hand, action, cards, flags, seat, turn, rng, memory, t, policy):
    """Completer.expand: the hand's best laying (or KEEP, worth HELPS), found at this turn's action question where
    nothing changed since (no action, or Correction), else now; its plan kept for where and z."""
    fresh = ZERO
    for i in range(n):
        g = t.asked[i]
        correction = action[g] == CORRECTION
        t.flag[i] = memory.planned_at[g] == turn and (action[g] == NO_ACTION or correction)
        if not t.flag[i]:
            t.games[fresh], t.correction[fresh] = g, correction
            for j in range(HAND):
                put_faces(cards, hand[g, seat, j], t.faces, fresh, 2 * j)
            fresh += 1
    seek(fresh, 2 * HAND, stack, size, copies, cards, flags, seat, rng, t, YES, YES, policy)
    draw(n, rng, t)
    r = ZERO
    for i in range(n):
        g = t.asked[i]
        slot = 0 if t.flag[i] and action[g] != CORRECTION else 1
        for f in range(2 * HAND):
            t.score[f] = memory.hand_values[g, f, slot] if t.flag[i] else t.value[r, f, 1]
        t.score[KEEP] = HELPS
        choice = best(t.score, t.mask[g], KEEP + 1, t.draws[i])
        laid = min(choice, KEEP - 1)
        for part in range(2):
            memory.plan[part, g] = memory.hand_plans[g, laid, slot, part] if t.flag[i] else t.where[r, laid, 1, part]
        memory.face[g] = 2 * np.int64(hand[g, seat, laid // 2]) + laid % 2
        t.choice[g] = choice
        r += not t.flag[i]


@helper(_nrt=False)
def planned(at, n, stack, size, copies, action, pending, cards, flags, seat, masks, rows, rng, memory, t, policy):
    """Completer.planned: the kept laying's where (or z); planned now for a card of the seat's own that another
    chose (Completer.replan), and picked at random where the plan is none or not allowed."""
    where = at == GIFT_WHERE or at == WHERE or at == WHERE_AGAIN
    part = 0 if where else 1
    if where:
        other = ZERO
        for i in range(n):
            g = t.asked[i]
            face = 2 * np.int64(pending[g, 1]) + pending[g, 2]
            if pending[g, 0] == seat and memory.face[g] != ANY_FACE and memory.face[g] != face:
                t.games[other], t.correction[other] = g, action[g] == CORRECTION
                put_faces(cards, pending[g, 1], t.faces, other, ZERO)
                other += 1
        if other:
            seek(other, 2 * ONE, stack, size, copies, cards, flags, seat, rng, t, YES, YES, policy)
            for r in range(other):
                g = t.games[r]
                side = pending[g, 2]
                for p in range(2):
                    memory.plan[p, g] = NO_OPTION if t.value[r, side, 1] == -np.inf else t.where[r, side, 1, p]
                memory.face[g] = 2 * np.int64(pending[g, 1]) + side
    width = WINDOW * WINDOW if where else MAX_STACK + 1
    stray = False
    for i in range(n):
        g = t.asked[i]
        choice = min(max(memory.plan[part, g], 0), width - 1)
        if where:
            height = where_rows(at, g, stack, size, action, pending, flags, masks, rows)
            bits = rows[choice // WINDOW] if choice // WINDOW < height else np.uint64(0)
            legal = (bits >> np.uint64(choice % WINDOW)) & np.uint64(1) == np.uint64(1)
        else:
            legal = allows(t.mask[g], choice)
        t.flag[i] = memory.plan[part, g] == NO_OPTION or not legal
        stray |= t.flag[i]
        t.choice[g] = choice
    if stray:
        draw(len(t.draws), rng, t)  # pick_any draws for every game of the player
        for i in range(n):
            g = t.asked[i]
            if t.flag[i]:
                if where:
                    height = where_rows(at, g, stack, size, action, pending, flags, masks, rows)
                    t.choice[g] = nth_spot(rows, int(t.draws[g] * spot_count(rows, height)))
                else:
                    t.choice[g] = nth_bit(t.mask[g], int(t.draws[g] * popcount(t.mask[g])))


@helper(_nrt=False)
def where_rows(at, g, stack, size, action, pending, flags, masks, rows):
    """Game g's `where` options into rows, as option_codes finds them; returns how many rows."""
    owner = pending[g, 0]
    correction = at == WHERE and action[g] == CORRECTION
    return spot_rows(stack[g, owner], size[g, owner], 2 if flags[0] else 1, flags[1], correction, masks, rows)


@helper(_nrt=False)
def seek(n, k, stack, size, copies, cards, flags, seat, rng, t, candidates, neutral, policy):
    """Completer.layings for the first n rows of t's games, faces and correction (faces 0 to k - 1): each game's
    tie-breakers' seed drawn, its weights, and the best layings found into t.value and t.where."""
    for i in range(n):
        t.seeds[i] = seed(rng)
        t.owner[i] = seat
        for p in range(t.weight.shape[1]):
            t.weight[i, p] = 1.0
            if policy == POPULAR:
                t.weight[i, p] += copies[t.games[i], seat, p]
                for other in range(copies.shape[1]):
                    t.weight[i, p] += copies[t.games[i], other, p]
        for f in range(k):
            for slot in range(2):
                t.where[i, f, slot, 0], t.where[i, f, slot, 1] = NO_OPTION, NO_OPTION
    wanted = Wanted(t.games[:n], t.owner[:n], t.faces[:n, :k], t.correction[:n], t.weight[:n], t.seeds[:n],
                    2 if flags[0] else 1, flags[1], 1.0, candidates, neutral)
    lay_each(Board(stack, size, cards), wanted, Found(t.value[:n, :k], t.where[:n, :k]), t.code, t.top, t.votes,
             t.marked, t.voted, t.support, t.supported, t.work)


@helper(_nrt=False)
def seed(rng):
    """rng.integers(0, 2**62), a tie-breakers' seed (Completer.layings): numpy draws it as one 64-bit word's top 62
    bits (Lemire's method rejects no word for a range of 2**62), and numba's Generator.integers allocates an array,
    which code compiled without the runtime cannot."""
    return np.int64(next_uint64(rng.bit_generator) >> np.uint64(2))


@helper(_nrt=False)
def put_faces(cards, card, faces, i, k):
    """Both sides of `card` as row i's faces k and k + 1 (strategies.witkacy._faces); -1 where no card is."""
    for side in range(2):
        for r in range(2):
            for c in range(2):
                faces[i, k + side, r, c] = cards[card, side, r, c] if card >= 0 else -1


@helper(_nrt=False)
def put_top(cards, deck, drawn, up, in_deck, g, faces, i, k):
    """The side up of the deck's top card as row i's face k (the Observation's top_face); -1 where the deck is
    empty."""
    card = deck[g, min(drawn[g], CARDS - 1)] if in_deck > drawn[g] else -1
    for r in range(2):
        for c in range(2):
            faces[i, k, r, c] = cards[card, up[g, card], r, c] if card >= 0 else -1


@helper(_nrt=False)
def draw(n, rng, t):
    """rng.random(n), into t.draws."""
    for i in range(n):
        t.draws[i] = rng.random()


@helper(_nrt=False, inline="always")
def best(score, mask, width, draw):
    """strategies.common.pick_best for one game: the best-scoring option of those in `mask`, ties (within 1e-9)
    picked by `draw`."""
    top, some = -np.inf, False
    for j in range(width):
        top = max(top, score[j] if allows(mask, j) else -np.inf)
        some |= allows(mask, j)
    if not some:
        return int(draw * width)
    count = 0
    for j in range(width):
        count += (score[j] if allows(mask, j) else -np.inf) >= top - 1e-9
    nth = int(draw * count)
    for j in range(width):
        if (score[j] if allows(mask, j) else -np.inf) >= top - 1e-9:
            if nth == 0:
                return j
            nth -= 1
    return -1


@helper(_nrt=False, inline="always")
def allows(mask, code):
    return (mask >> np.uint64(code)) & np.uint64(1) == np.uint64(1)


@helper(_nrt=False)
def nth_bit(mask, nth):
    """The code of the nth option (from 0) in `mask`, codes ascending."""
    for _ in range(nth):
        mask &= mask - np.uint64(1)
    return np.int64(trailing_zeros(mask))


@helper(_nrt=False)
def nth_face(faces, r, nth, every):
    """strategies.common.pick_any among row r's faces held (those not -1): the nth."""
    if every:
        return nth
    for f in range(2 * HAND):
        if faces[r, f, 0, 0] >= 0:
            if nth == 0:
                return f
            nth -= 1
    return -1


@helper(_nrt=False, inline="always")
def highest(values, slot):
    """The best value, over a hand's faces, in one slot (without Correction, or with)."""
    out = -np.inf
    for f in range(2 * HAND):
        out = max(out, values[f, slot])
    return out
