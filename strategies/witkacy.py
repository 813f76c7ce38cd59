"""Witkacy players, batched. A turn asks (sim/witkacy/reference.py): search, action and the action's own questions,
then expand (a hand card and its side), where (its top-left cell) and z (its place in the stack). A player sees
every collection, its own hand, the display, the deck's size and the side facing up on its top card, and every
seat's unused tokens.

How a laying is valued (`_layings`, compiled): only the 3 x 3 blocks of 2 x 2 cells around the card can change. A
block showing a completed painting P is worth COPY * w[P], one showing three of P's four quarters in place w[P],
others nothing; a laying is worth the blocks' worth after minus before. It never breaks a completed painting (for
one's own collection the players' choice, for a Gift the rule). `w` is 1 for every painting (completer), or what
one more copy of P adds to the player's score, its own copies plus the table's plus one (popular).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim.errors import AtelierError
from sim.kernel import ZERO, helper, kernel
from sim.witkacy import fast
from sim.witkacy.fast import MARGIN
from sim.witkacy.rules import (
    ACTIONS,
    CORRECTION,
    DECK,
    DISPLAY,
    GIFT,
    HAND,
    KEEP,
    MAX_STACK,
    NO_ACTION,
    PAINTINGS,
    PHASES,
    RUSH,
    SOLVENT,
    STASH,
    WINDOW,
)
from strategies.common import Catalogue, pick_any, pick_best

STRATEGIES = {
    "random": "random legal answers to every question, actions included, so each action is used at a random moment",
    "completer": "takes and lays the card that completes the most paintings now, or else leaves the most "
                 "three-quarter blocks; never covers its own completed paintings; uses Correction to complete one, "
                 "Rush when both hand cards help and Stash when neither does; keeps a Rush's second card where that "
                 "is allowed (rush_both = 'optional') and laying it gains nothing",
    "popular": "completer, valuing a painting by what one more copy adds to its score: its own copies plus the "
               "table's, since a painting's worth is shared",
    "saboteur": "completer, plus Gift and Solvent aimed at the leader's three-quarter blocks (a Gift from the deck's "
                "top, where gift_from allows it, on the side it shows)",
}
STRATEGY_NAMES = {**STRATEGIES, "BASE-no-ACTION": "BASE that never uses that action token, e.g. completer-no-rush "
                                                  f"(actions: {', '.join(ACTIONS)})"}
BENCH_STRATEGY = "completer"
COPY = 100.0  # a completed painting's worth against a three-quarter block's
SEARCHED = 3  # the hand's places looked at, with the display's cards, at the Search, where a hand holds 2 cards
# at most (3, not 2: the faces' numbering seeds the tie-breakers)
ROW_SALT, COL_SALT = np.int64(-1), np.int64(-2)  # _jitter's, for a random spot (numpy scalars: sim/kernel.py)
HELPS = 0.5  # values are whole numbers plus a tie-breaker under 0.5: a value >= 1 helps, one < 0.5 does not
ANY_FACE, NO_PLAN = -1, -2  # what a laying plan lays: whatever card is laid (a Gift's plan); no plan made yet
NO_OPTION = -1  # a plan's where or z where no laying was found: answered at random (Completer.planned)


class Player:
    """Random play; the other strategies override the questions they think about."""

    def __init__(self, name: str, *, seat: int, idx, params, banned: int | None):
        self.name, self.seat, self.idx, self.params, self.banned = name, seat, idx, params, banned

    def answer(self, obs, rng):
        return pick_any(obs.legal[self.idx], rng)

    search = stash_draw = rush_draw = stash_discard = solvent = gift = expand = where = z = answer

    def action(self, obs, rng):
        return pick_any(self.allowed(obs.legal[self.idx]), rng)

    def allowed(self, legal: np.ndarray) -> np.ndarray:
        if self.banned is None:
            return legal
        legal = legal.copy()
        legal[:, 1 + self.banned] = False
        return legal


class Completer(Player):
    """Lays the best card (module docstring). It thinks only about the games that ask, and plans a whole laying
    at `expand` (or `gift`), answering where and z from the plan."""

    def asked(self, obs) -> tuple[np.ndarray, np.ndarray]:
        """The games asked now: their positions among this player's games, and in the batch."""
        mine = np.arange(len(obs.asked))[self.idx]
        at = np.flatnonzero(obs.asked[mine])
        return at, mine[at]

    def answers(self, obs, at: np.ndarray, choice: np.ndarray) -> np.ndarray:
        out = np.zeros(len(obs.asked[self.idx]), np.int64)
        out[at] = choice
        return out

    def weights(self, obs, games) -> np.ndarray:
        return np.ones((len(games), len(PAINTINGS)))

    def layings(self, obs, games, faces, owner, rng, correction=None, sign=1.0, neutral=True, candidates=True):
        """(value (n, K, 2), plan (n, K, 2, 2)) of the best laying of each face (n, K, 2, 2) into the collection
        `owner` of each game (see _layings)."""
        n, k = faces.shape[:2]
        found = Found(np.empty((n, k, 2)), np.full((n, k, 2, 2), NO_OPTION, np.int64))  # a plan where none is found
        wanted = Wanted(games, np.broadcast_to(owner, n).astype(np.int64), faces,
                        np.zeros(n, bool) if correction is None else correction, self.weights(obs, games),
                        rng.integers(0, 2**62, n), 2 if self.params.advanced else 1, self.params.entirely == "card",
                        sign, candidates, neutral)
        _layings(Board(obs.stack, obs.size, obs.cards), wanted, found)
        return found

    def memory(self, obs) -> None:
        """By game of the batch: the where and z of the laying chosen; the hand's best layings found at the action
        question, with the turn; the gains of the hand's and the display's cards found at the search question, with
        the turn and the cards."""
        if not hasattr(self, "plan"):
            batch = len(obs.asked)
            self.plan = np.zeros((2, batch), np.int64)
            self.plan_face = np.full(batch, NO_PLAN)  # the card * 2 + side the plan lays
            faces, seen = 2 * HAND, 2 * (SEARCHED + DISPLAY)
            self.hand_plans, self.hand_values = np.zeros((batch, faces, 2, 2), np.int64), np.zeros((batch, faces, 2))
            self.planned_at = np.full(batch, -1)
            self.seen_plans, self.seen_values = np.zeros((batch, seen, 2, 2), np.int64), np.zeros((batch, seen, 2))
            self.seen_cards, self.seen_at = np.zeros((batch, SEARCHED + DISPLAY), np.int8), np.full(batch, -1)

    def remember(self, obs, games, plans, turn: int = -1, face=ANY_FACE) -> None:
        """Keep a laying's where and z (for the questions that follow) and the face it lays, or, with the turn, the
        hand's best layings (plans, values) for the expansion."""
        self.memory(obs)
        if turn < 0:
            self.plan[:, games] = plans.T
            self.plan_face[games] = face
        else:
            self.hand_plans[games], self.hand_values[games] = plans
            self.planned_at[games] = turn

    def gains(self, obs, games, faces, rng) -> np.ndarray:
        """(n, K): what the best laying of each face into the player's own collection gains, 0 if nothing."""
        return np.maximum(self.layings(obs, games, faces, self.seat, rng, neutral=False)[0][:, :, 0], 0)

    def search(self, obs, rng):
        """The source whose card gains most; the gains of the hand's cards are found with those of the display's,
        for the action question (nothing changes the collection in between)."""
        at, games = self.asked(obs)
        hand = obs.hand[games, :SEARCHED]
        faces = np.concatenate([_faces(obs.cards, hand), _faces(obs.cards, obs.display[games]),
                                obs.top_face[games][:, None]], axis=1)
        correction = obs.tokens[games, self.seat, CORRECTION - 1] & (self.banned != CORRECTION - 1)
        value, plan = self.layings(obs, games, faces, self.seat, rng, correction, neutral=False)
        self.memory(obs)
        seen = 2 * (SEARCHED + DISPLAY)
        self.seen_values[games], self.seen_plans[games] = value[:, :seen], plan[:, :seen]
        self.seen_cards[games] = np.concatenate([hand, obs.display[games]], axis=1)
        self.seen_at[games] = obs.turn
        return self.answers(obs, at, _best_source(np.maximum(value[:, 2 * SEARCHED:, 0], 0), obs.legal[games], rng))

    def draw_choice(self, obs, rng):
        at, games = self.asked(obs)
        faces = np.concatenate([_faces(obs.cards, obs.display[games]), obs.top_face[games][:, None]], axis=1)
        return self.answers(obs, at, _best_source(self.gains(obs, games, faces, rng), obs.legal[games], rng))

    stash_draw = rush_draw = draw_choice

    def hand_layings(self, obs, games, rng, correction) -> tuple[np.ndarray, np.ndarray]:
        """(value, plan) of the hand's faces, as `layings`: those of cards seen at this turn's search from there;
        a card drawn from the deck is looked at now; and where no face gains, a laying picked evenly, of one face
        picked evenly (the others are left at -inf: they would only tie)."""
        self.memory(obs)  # empty where a search's rollout starts this player after the turn's search question
        hand, rows = obs.hand[games], np.arange(len(games))[:, None]
        match = ((hand[:, :, None] == self.seen_cards[games][:, None, :]) & (hand >= 0)[:, :, None]
                 & (self.seen_at[games] == obs.turn)[:, None, None])
        seen = np.repeat(match.any(axis=2), 2, axis=1)
        index = (2 * match.argmax(axis=2)[:, :, None] + np.arange(2)).reshape(len(games), 2 * HAND)
        value = np.where(seen[:, :, None], self.seen_values[games][rows, index], -np.inf)
        plan = self.seen_plans[games][rows, index]
        fresh = ((hand >= 0).repeat(2, axis=1) & ~seen).any(axis=1)
        for which, candidates in ((fresh, True), (~fresh & (value[:, :, 0].max(axis=1) < 1), False)):
            if which.any():
                faces = _faces(obs.cards, hand[which])
                if not candidates:
                    one = pick_any(faces[:, :, 0, 0] >= 0, rng)
                    faces[np.arange(2 * HAND)[None, :] != one[:, None]] = -1
                found, where = self.layings(obs, games[which], faces, self.seat, rng, correction[which],
                                            candidates=candidates)
                better = found > value[which]
                value[which] = np.where(better, found, value[which])
                plan[which] = np.where(better[..., None], where, plan[which])
        return value, plan

    def stash_discard(self, obs, rng):
        at, games = self.asked(obs)
        value = self.gains(obs, games, _faces(obs.cards, obs.hand[games]), rng)
        return self.answers(obs, at, pick_best(value.reshape(-1, HAND, 2).max(axis=2), obs.legal[games], rng,
                                               lowest=True))

    def expand(self, obs, rng):
        """The hand's best laying: found at this turn's action question when nothing changed since (no action, or
        Correction), else now."""
        at, games = self.asked(obs)
        correction = obs.action[games] == CORRECTION
        self.memory(obs)
        known = (self.planned_at[games] == obs.turn) & ((obs.action[games] == NO_ACTION) | correction)
        fresh = games[~known]
        value, plan = self.hand_values[games][:, :, 1].copy(), self.hand_plans[games][:, :, 1].copy()
        value[~known], plan[~known] = (part[:, :, 1] for part in self.layings(
            obs, fresh, _faces(obs.cards, obs.hand[fresh]), self.seat, rng, correction[~known]))
        plain = ~correction & known  # the action question's plan with Correction allowed is not this one's
        value[plain], plan[plain] = self.hand_values[games[plain]][:, :, 0], self.hand_plans[games[plain]][:, :, 0]
        keep = np.full((len(games), 1), HELPS)  # KEEP, where a Rush allows it, beats a laying that gains nothing
        choice = pick_best(np.concatenate([value, keep], axis=1), obs.legal[games], rng)
        laid = np.minimum(choice, KEEP - 1)  # KEEP lays nothing
        face = 2 * obs.hand[games, laid // 2].astype(np.int64) + laid % 2
        self.remember(obs, games, plan[np.arange(len(games)), laid], face=face)
        return self.answers(obs, at, choice)

    def where(self, obs, rng):
        return self.planned(obs, 0, rng)

    def z(self, obs, rng):
        return self.planned(obs, 1, rng)

    def planned(self, obs, part: int, rng) -> np.ndarray:
        """The remembered laying's where (part 0) or z (1). Where another chose the card to lay (a search player
        this one answers for, or a search's rollout that starts this player there), the plan is made now, for that
        card; a random legal answer where no plan the rules allow is left."""
        self.memory(obs)
        if part == 0:
            games = self.asked(obs)[1]
            pending = obs.pending[games].astype(np.int64)
            other = (pending[:, 0] == self.seat) & (self.plan_face[games] != ANY_FACE) & (
                self.plan_face[games] != 2 * pending[:, 1] + pending[:, 2])
            if other.any():
                self.replan(obs, games[other], pending[other], rng)
        legal, asked = obs.legal[self.idx], obs.asked[self.idx]
        plan = np.clip(self.plan[part, self.idx], 0, legal.shape[1] - 1)
        stray = asked & ((self.plan[part, self.idx] == NO_OPTION) | ~legal[np.arange(len(plan)), plan])
        if stray.any():
            plan = np.where(stray, pick_any(legal, rng), plan)
        return plan

    def replan(self, obs, games, pending, rng) -> None:
        """The best laying of the card being laid, on the side chosen, as the expansion would plan it; none (a random
        legal answer, `planned`) where that side has no laying worth keeping while the other side has one."""
        faces = _faces(obs.cards, pending[:, 1:2])
        value, plan = self.layings(obs, games, faces, self.seat, rng, obs.action[games] == CORRECTION)
        rows, side = np.arange(len(games)), pending[:, 2]
        chosen = np.where(np.isneginf(value[rows, side, 1])[:, None], NO_OPTION, plan[rows, side, 1])
        self.remember(obs, games, chosen, face=2 * pending[:, 1] + pending[:, 2])

    def action(self, obs, rng):
        at, games = self.asked(obs)
        legal = self.allowed(obs.legal[games])
        value, plan = self.hand_layings(obs, games, rng, legal[:, CORRECTION])
        self.remember(obs, games, (plan, value), obs.turn)
        plain = value[:, :, 0]
        best = plain.max(axis=1)
        by_card = np.sort(plain.reshape(-1, HAND, 2).max(axis=2), axis=1)
        choice = np.full(len(games), NO_ACTION)
        for action, wanted in ((STASH, best < HELPS), (RUSH, by_card[:, -2] >= 1),
                               *self.sabotage(obs, games, rng, legal),
                               (CORRECTION, value[:, :, 1].max(axis=1) >= best + COPY - HELPS)):  # the last wins
            choice = np.where(legal[:, action] & wanted, action, choice)
        return self.answers(obs, at, choice)

    def sabotage(self, obs, games, rng, legal) -> list:
        return []


class Popular(Completer):
    def weights(self, obs, games) -> np.ndarray:
        copies = obs.copies[games].astype(np.float64)
        return copies[:, self.seat] + copies.sum(axis=1) + 1


class Saboteur(Completer):
    """Completer, but first spoils the leader: a Gift laid over its three-quarter blocks, or Solvent on a card
    that holds one up."""

    def sabotage(self, obs, games, rng, legal) -> list:
        leader = _leader(obs.copies[games], self.seat)
        faces = _faces(obs.cards, obs.display[games])
        if self.params.gift_from == "display_and_deck":  # the deck's top card too, on the side it shows
            faces = np.concatenate([faces, obs.top_face[games][:, None]], axis=1)
        value, plan = self.layings(obs, games, faces, leader, rng, sign=-1.0, neutral=False)
        spoil = value[:, :, 0]
        worth = np.full((len(games), MAX_STACK), np.inf)
        _removal_values(obs.stack, obs.size, games, leader, self.weights(obs, games), obs.cards, worth)
        gift = spoil.argmax(axis=1)
        self.remember(obs, games, plan[np.arange(len(games)), gift, 0])
        top_side = (obs.top_face[games, 0, 0] % 4 >= 2).astype(np.int64)  # fronts show upper quarters only
        self.gifts = np.zeros(len(obs.asked), np.int64)
        self.gifts[games] = 6 * leader + np.where(gift < 2 * DECK, gift, 2 * DECK + top_side)
        self.removal = np.zeros(len(obs.asked), np.int64)
        self.removal[games] = MAX_STACK * leader + worth.argmin(axis=1)
        return [(SOLVENT, worth.min(axis=1) < 0), (GIFT, spoil.max(axis=1) >= 1)]

    def gift(self, obs, rng):
        return self.gifts[self.idx]

    def solvent(self, obs, rng):
        return self.removal[self.idx]


def _best_source(value: np.ndarray, legal: np.ndarray, rng) -> np.ndarray:
    """The display slot or the deck whose card gains most: value (n, 5) of each display card's sides, then of the
    deck's top card's side facing up."""
    by_source = np.stack([value[:, 0:2].max(axis=1), value[:, 2:4].max(axis=1), value[:, 4]], axis=1)
    return pick_best(by_source, legal, rng)


def _faces(cards: np.ndarray, held: np.ndarray) -> np.ndarray:
    """(n, 2k, 2, 2): both sides of each of k cards per game (2 * position + side); -1 where no card is."""
    faces = cards[np.maximum(held, 0)].reshape(len(held), 2 * held.shape[1], 2, 2)
    return np.where(np.repeat(held >= 0, 2, axis=1)[:, :, None, None], faces, -1).astype(np.int8)


def _leader(copies: np.ndarray, seat: int) -> np.ndarray:
    """Each game's opponent with the most points now; ties to the next seat in turn order."""
    count = copies.astype(np.int64)
    points = (count * count.sum(axis=1, keepdims=True)).sum(axis=2)
    players = points.shape[1]
    order = (seat + 1 + np.arange(players - 1)) % players
    return order[points[:, order].argmax(axis=1)]


# ---------------------------------------------------------------------------------------------- kernels


class Board(NamedTuple):
    """The collections a laying is sought in."""

    stack: np.ndarray  # (B, P, 55, 4): each collection bottom to top as (card, side, row, col)
    size: np.ndarray  # (B, P)
    cards: np.ndarray  # (55, 2, 2, 2): every card's fragments


class Wanted(NamedTuple):
    """What `_layings` looks for, in each of n games."""

    games: np.ndarray  # (n,): the game's place in the batch
    owner: np.ndarray  # (n,): the collection laid into
    faces: np.ndarray  # (n, K, 2, 2): the faces to lay, -1 where absent
    correction: np.ndarray  # (n,): whether the laying may lie entirely on or under the collection
    weight: np.ndarray  # (n, 5): each painting's worth w
    seeds: np.ndarray  # (n,): the tie-breakers' seeds
    need: int  # cells a laying must share with the collection: 1, or 2 (the Advanced Variant)
    by_card: bool  # Correction is needed only in the very place of a card (entirely = 'card'), else wherever all 4
    # cells are covered
    sign: float  # 1: the owner's gain is sought; -1: its loss (a Gift)
    candidates: bool  # try the candidates (else only a laying picked evenly)
    neutral: bool  # where no face gains, lay each where and at a stack position picked evenly


class Found(NamedTuple):
    """The best laying of each game's faces: without Correction in slot 0, with it in slot 1."""

    value: np.ndarray  # (n, K, 2): its worth, -inf where none
    plan: np.ndarray  # (n, K, 2, 2): its where option and z


class Painted(NamedTuple):
    """One collection painted into the scratch grids (fast.paint), and scratch rows for the search."""

    code: np.ndarray  # (GRID, GRID): each cell's visible fragment, -1 uncovered
    top: np.ndarray  # (GRID, GRID): the stack position of the card that shows there, -1
    work: np.ndarray  # (4, 9): scratch rows
    rows: int  # the extent of the collection's anchors
    cols: int
    n: int  # its cards
    collection: np.ndarray  # (55, 4): its cards, bottom to top
    r0: int  # its smallest row and col: grid cell (r, c) is the table's (r + r0 - MARGIN, c + c0 - MARGIN)
    c0: int


class Candidate(NamedTuple):
    """Face k of game g laid with its top-left cell at grid (gr, gc), tried from the block at (br, bc) for painting
    p (p = -1: from no block)."""

    g: int
    k: int
    gr: int
    gc: int
    br: int
    bc: int
    p: int


@helper(_nrt=False)
def _in_place(a, b, c, d, p):
    return (a == 4 * p) + (b == 4 * p + 1) + (c == 4 * p + 2) + (d == 4 * p + 3)


@kernel(_nrt=False)
def _block(code, r, c, weight):
    """(the painting the block at (r, c) completes, or -1; its worth): a completed painting COPY * w, three of a
    painting's quarters in place w (three in place include the first or the second cell)."""
    a, b, d, e = code[r, c], code[r, c + 1], code[r + 1, c], code[r + 1, c + 1]
    if a >= 0 and a % 4 == 0 and _in_place(a, b, d, e, a // 4) == 4:
        return a // 4, COPY * weight[a // 4]
    if a >= 0 and a % 4 == 0 and _in_place(a, b, d, e, a // 4) == 3:
        return -1, weight[a // 4]
    if b >= 0 and b % 4 == 1 and _in_place(a, b, d, e, b // 4) == 3:
        return -1, weight[b // 4]
    return -1, 0.0


@helper(_nrt=False)
def _around(code, gr, gc, weight, painting):
    """The 9 blocks' worth; painting[k] the painting complete in block k, or -1."""
    total = 0.0
    for k in range(9):
        painting[k], worth = _block(code, gr - 1 + k // 3, gc - 1 + k % 3, weight)
        total += worth
    return total


@helper(_nrt=False)
def _jitter(seed, a, b):
    """A tie-breaker in [0, 0.5) from a game's seed and an option, so that equal values are picked evenly."""
    x = np.uint64(seed) ^ (np.uint64(a) * np.uint64(0x9E3779B97F4A7C15))
    x ^= np.uint64(b) * np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(31)
    x *= np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(29)
    return (x >> np.uint64(11)) * (0.5 / 2.0**53)


@kernel
def _layings(board, wanted, found):
    """For each game g (of the batch: wanted.games[g]) and face k, the best laying into collection owner[g]:
    value[g, k, 0] and plan[g, k, 0] (its where option and z) without Correction, value[g, k, 1] and plan[g, k, 1]
    with it where correction[g]; value -inf where the face is absent (`found`; the other names are `wanted`'s).

    Only candidates are tried, yet the best is found. A gain (sign 1) needs a block that shows, after the card, 3
    or 4 quarters of one painting in place: the card brings 1 of them (2 with a whole half), so the block already
    shows the rest (`votes`); a laying is tried from each block where it would gain. A loss to the owner (sign -1,
    a Gift) needs the card over a cell of a three-quarter block, and is tried from each such block. Any other
    laying changes nothing or loses. With `neutral`, where no face gains without Correction, each face is laid
    where and at a stack position picked evenly (_anywhere), so that equal worth goes to a laying picked evenly, not
    to a candidate that gains nothing. Otherwise a face that gains nothing keeps value -inf. Without `candidates`
    only that laying picked evenly is tried."""
    code, top = fast.scratch_grids()
    paintings = wanted.weight.shape[1]
    votes = np.zeros((fast.GRID, fast.GRID, paintings, 2), np.int8)
    marked = np.zeros((fast.GRID, fast.GRID), np.bool_)
    voted = np.empty((4 * MAX_STACK, 2), np.int64)
    support = np.empty((4, paintings, 4 * MAX_STACK), np.int64)  # blocks that may gain, by painting (_supports)
    supported = np.empty((4, paintings), np.int64)
    _lay_each(board, wanted, found, code, top, votes, marked, voted, support, supported, np.empty((4, 9), np.int64))


@helper(_nrt=False)
def _lay_each(board, wanted, found, code, top, votes, marked, voted, support, supported, work):
    """_layings' loop, given its scratch arrays. Compiled without numba's runtime, it counts no references to the
    named tuples' arrays and the rows it takes (as in sim/witkacy/fast.py): they were a fifth of completer's time."""
    games, owner, faces, _, weight, seeds, need, _, sign, candidates, neutral = wanted
    value = found.value
    paintings = weight.shape[1]
    for g in range(len(owner)):
        o = owner[g]
        n = board.size[games[g], o]
        collection = board.stack[games[g], o]
        r0, c0, rows, cols = fast.paint(collection, n, board.cards, code, top)
        painted = Painted(code, top, work, rows, cols, n, collection, r0, c0)
        count = _vote(collection, n, r0, c0, code, top, votes, marked, voted) if candidates else 0
        _supports(votes, voted, count, support, supported)
        for k in range(faces.shape[1]):
            value[g, k, 0], value[g, k, 1] = -np.inf, -np.inf
            if faces[g, k, 0, 0] < 0 or not candidates:
                continue
            if sign < 0:  # a cell of a three-quarter block covered
                for p in range(paintings):
                    for i in range(supported[3, p]):
                        v = support[3, p, i]
                        for corner in range(9):
                            _try(Candidate(g, k, voted[v, 0] - 1 + corner // 3, voted[v, 1] - 1 + corner % 3,
                                           voted[v, 0], voted[v, 1], p), painted, wanted, found)
                continue
            for j in range(4):  # face cell j in place in a block that shows enough of its painting
                f = faces[g, k, j // 2, j % 2]
                p, q = f // 4, f % 4
                half = faces[g, k, j // 2, 1 - j % 2] == f + (1 if j % 2 == 0 else -1) and q % 2 == j % 2
                if half and j % 2 == 1:
                    continue  # a half is tried from its left quarter
                level = q // 2 if half else 2
                for i in range(supported[level, p]):
                    v = support[level, p, i]
                    _try(Candidate(g, k, voted[v, 0] + q // 2 - j // 2, voted[v, 1] + q % 2 - j % 2, voted[v, 0],
                                   voted[v, 1], p), painted, wanted, found)
        gains = False
        for k in range(faces.shape[1]):
            gains |= value[g, k, 0] >= 1
        if neutral and not gains:  # no face gains: one laying picked evenly, for each
            anywhere = _random_spot(top, rows, cols, need, seeds[g])
            for k in range(faces.shape[1]):
                if faces[g, k, 0, 0] >= 0:
                    _anywhere(Candidate(g, k, anywhere // fast.GRID, anywhere % fast.GRID, -1, -1, -1), painted,
                              wanted, found)
        for v in range(count):
            votes[voted[v, 0], voted[v, 1]] = 0
            marked[voted[v, 0], voted[v, 1]] = False
        fast.wipe(collection, n, r0, c0, code, top)


@helper(_nrt=False)
def _supports(votes, voted, count, support, supported):
    """support[level, p]: the voted blocks (indices into voted) short of complete where painting p may gain: level
    0, an upper half (a front's) needs one of p's lower quarters in place; level 1, a lower half one of its upper
    quarters; level 2, a single quarter two others; level 3 lists the three-quarter blocks."""
    supported[:] = 0
    for v in range(count):
        for p in range(votes.shape[2]):
            upper, lower = votes[voted[v, 0], voted[v, 1], p, 0], votes[voted[v, 0], voted[v, 1], p, 1]
            shown = upper + lower
            if shown == 0 or shown == 4:
                continue
            for level, gains in enumerate((lower >= 1, upper >= 1, shown >= 2, shown == 3)):
                if gains:
                    support[level, p, supported[level, p]] = v
                    supported[level, p] += 1


@helper(_nrt=False)
def _vote(stack, n, r0, c0, code, top, votes, marked, voted):
    """Each showing cell's fragment votes for the block where it would be in place, under its painting and the
    block's row it belongs in; the blocks voted for are listed in `voted`. Returns how many."""
    count = 0
    for i in range(n):
        gr, gc = stack[i, 2] - r0 + MARGIN, stack[i, 3] - c0 + MARGIN
        for j in range(4):
            r, c = gr + j // 2, gc + j % 2
            if top[r, c] != i:
                continue
            f = code[r, c]
            br, bc = r - f % 4 // 2, c - f % 4 % 2
            if not marked[br, bc]:
                marked[br, bc] = True
                voted[count, 0], voted[count, 1] = br, bc
                count += 1
            votes[br, bc, f // 4, f % 4 // 2] += 1
    return count


@helper(_nrt=False)
def _overlap(top, gr, gc, rows, cols):
    """How many cells a card at grid (gr, gc) shares with the collection."""
    if gr < MARGIN - 1 or gc < MARGIN - 1 or gr > MARGIN + rows or gc > MARGIN + cols:
        return 0
    shared = 0
    for j in range(4):
        shared += top[gr + j // 2, gc + j % 2] >= 0
    return shared


@helper(_nrt=False)
def _random_spot(top, rows, cols, need, seed):
    """A cell where the overlap rule lets a card go without Correction (grid row * GRID + col), picked evenly by
    the seed: drawn among the cells around the collection until one fits (most do), or else counted out."""
    for attempt in range(32):
        gr = MARGIN - 1 + int(_jitter(seed, attempt, ROW_SALT) * 2 * (rows + 2))
        gc = MARGIN - 1 + int(_jitter(seed, attempt, COL_SALT) * 2 * (cols + 2))
        if need <= _overlap(top, gr, gc, rows, cols) < 4:
            return gr * fast.GRID + gc
    count, nth = 0, -1
    for _ in range(2):  # count them, then find the nth
        for gr in range(MARGIN - 1, MARGIN + rows + 1):
            for gc in range(MARGIN - 1, MARGIN + cols + 1):
                if need <= _overlap(top, gr, gc, rows, cols) < 4:
                    if nth == 0:
                        return gr * fast.GRID + gc
                    count += 1
                    nth -= 1
        nth = int(_jitter(seed, ROW_SALT, ROW_SALT) * 2 * count)
    return -1


@helper(_nrt=False)
def _change(code, top, face, gr, gc, start, weight, before, painting, after_p, old):
    """(worth after minus before, broken): the face laid at (gr, gc) from stack position `start`; broken if a
    completed painting around (painting, 9) would not be complete after. The grid is restored."""
    for j in range(4):
        old[j] = code[gr + j // 2, gc + j % 2]
        if top[gr + j // 2, gc + j % 2] < start:
            code[gr + j // 2, gc + j % 2] = face[j // 2, j % 2]
    after = _around(code, gr, gc, weight, after_p)
    for j in range(4):
        code[gr + j // 2, gc + j % 2] = old[j]
    broken = False
    for b in range(9):
        broken |= painting[b] >= 0 and after_p[b] != painting[b]
    return after - before, broken


@helper(_nrt=False)
def _keep(g, k, first, v, spot, starts, i, count, n, seeds, value, plan):
    """Keep a laying worth v (with its tie-breaker) in the slots from `first` on where it is the best so far: its
    where option, and a stack position picked evenly within its range."""
    last = starts[i + 1] - 1 if i + 1 < count else n
    for slot in range(first, 2):
        if v > value[g, k, slot]:
            value[g, k, slot], plan[g, k, slot, 0] = v, spot
            plan[g, k, slot, 1] = starts[i] + int(_jitter(seeds[g], spot, k) * 2 * (last - starts[i] + 1))


@helper(inline="always")  # inlined: a call passing named tuples of arrays cost 16%
def _try(at, painted, wanted, found):
    """The candidate `at`, if the overlap rule allows (lying entirely on or under the collection only with
    correction[g]): each range of stack positions that shows the same cells, the best kept in `found` as _layings
    tells. A candidate from the block at (br, bc) (p >= 0) counts only where it changes that block the right way:
    painting p shown there 3 or 4 times (sign 1; 4 for a card lying entirely on the collection, which only
    Correction allows and which is wanted only to complete a painting), or fewer (sign -1). A card lies entirely
    on the collection where all 4 of its cells are covered, or with `by_card` only in the very place of a card."""
    g, k, gr, gc, br, bc, p = at
    shared = _overlap(painted.top, gr, gc, painted.rows, painted.cols)
    whole = shared == 4 and (not wanted.by_card or fast.on_a_card(painted.collection, painted.n, gr - MARGIN +
                                                                  painted.r0, gc - MARGIN + painted.c0))
    if shared < wanted.need or (whole and not wanted.correction[g]):
        return
    code, top, work, n = painted.code, painted.top, painted.work, painted.n
    faces, weight, seeds, sign = wanted.faces, wanted.weight, wanted.seeds, wanted.sign
    value, plan = found
    enough = 4 if whole else 3
    if p >= 0 and sign > 0 and _at_most(code, faces[g, k], gr, gc, br, bc, p) < enough:
        return
    painting, after_p, starts, old = work[0], work[1], work[2], work[3]
    count = _depth_starts(top, gr, gc, starts)
    spot = (gr - MARGIN + 1) * WINDOW + gc - MARGIN + 1
    before = np.nan
    for i in range(count):
        if p >= 0 and (_shown_after(code, top, faces[g, k], gr, gc, starts[i], br, bc, p) >= enough) != (sign > 0):
            continue
        if before != before:
            before = _around(code, gr, gc, weight[g], painting)
        change, broken = _change(code, top, faces[g, k], gr, gc, starts[i], weight[g], before, painting, after_p, old)
        if broken or (p >= 0 and sign * change < 1):
            continue
        v = sign * change + _jitter(seeds[g], k * WINDOW * WINDOW + spot, starts[i])
        _keep(g, k, 1 if whole else 0, v, spot, starts, i, count, n, seeds, value, plan)


@helper(inline="always")  # inlined: a call passing named tuples of arrays cost 16%
def _anywhere(at, painted, wanted, found):
    """The candidate `at`, where the overlap rule allows it without Correction: a range of stack positions picked
    evenly, or z = 0 where that one loses worth (slid under everything, the card covers nothing that shows, so it
    loses nothing). Kept in both slots of `found`."""
    g, k, gr, gc = at.g, at.k, at.gr, at.gc
    code, top, work, n = painted.code, painted.top, painted.work, painted.n
    faces, weight, seeds = wanted.faces, wanted.weight, wanted.seeds
    value, plan = found
    painting, after_p, starts, old = work[0], work[1], work[2], work[3]
    count = _depth_starts(top, gr, gc, starts)
    spot = (gr - MARGIN + 1) * WINDOW + gc - MARGIN + 1
    before = _around(code, gr, gc, weight[g], painting)
    i = int(_jitter(seeds[g], spot, -1 - k) * 2 * count)
    change, broken = _change(code, top, faces[g, k], gr, gc, starts[i], weight[g], before, painting, after_p, old)
    if broken or change < 0:
        i = 0
        change, _ = _change(code, top, faces[g, k], gr, gc, ZERO, weight[g], before, painting, after_p, old)
    _keep(g, k, ZERO, change + _jitter(seeds[g], k * WINDOW * WINDOW + spot, starts[i]), spot, starts, i, count,
          n, seeds, value, plan)


@helper(_nrt=False)
def _at_most(code, face, gr, gc, br, bc, p):
    """The most quarters of painting p the block at (br, bc) can show in place with the face at (gr, gc), whatever
    its stack position: each cell in place now, or in place on the card where the card covers it."""
    shown = 0
    for s in range(4):
        r, c = br + s // 2, bc + s % 2
        on_card = 0 <= r - gr < 2 and 0 <= c - gc < 2
        shown += code[r, c] == 4 * p + s or (on_card and face[r - gr, c - gc] == 4 * p + s)
    return shown


@helper(_nrt=False)
def _shown_after(code, top, face, gr, gc, start, br, bc, p):
    """How many quarters of painting p the block at (br, bc) shows in place once the face lies at (gr, gc) from
    stack position `start`."""
    shown = 0
    for s in range(4):
        r, c = br + s // 2, bc + s % 2
        f = code[r, c]
        if 0 <= r - gr < 2 and 0 <= c - gc < 2 and top[r, c] < start:
            f = face[r - gr, c - gc]
        shown += f == 4 * p + s
    return shown


@helper(_nrt=False)
def _depth_starts(top, gr, gc, starts):
    """The smallest z of each range of stack positions that shows the same cells of a card at (gr, gc): 0, and
    one above each covering card. Returns how many, sorted into starts."""
    count = 1
    starts[0] = 0
    for j in range(4):
        t = top[gr + j // 2, gc + j % 2] + 1
        at = count
        while at > 0 and starts[at - 1] > t:  # insertion, keeping them sorted and distinct
            at -= 1
        if t <= 0 or starts[at - 1] == t:
            continue
        for i in range(count, at, -1):
            starts[i] = starts[i - 1]
        starts[at] = t
        count += 1
    return count


@kernel
def _removal_values(stack, size, games, owner, weight, cards, out):
    """out[g, i]: the change in worth of collection owner[g] of game games[g] without its card i, where Solvent may
    remove it (left as it was elsewhere)."""
    code, top = fast.scratch_grids()
    painting, after_p, new = np.empty(9, np.int64), np.empty(9, np.int64), np.empty(4, np.int8)
    old = np.empty(4, np.int8)
    for g in range(len(owner)):
        o = owner[g]
        n = size[games[g], o]
        collection = stack[games[g], o]
        if n < 2:
            continue
        r0, c0, _, _ = fast.paint(collection, n, cards, code, top)
        for i in range(n):
            gr, gc = collection[i, 2] - r0 + MARGIN, collection[i, 3] - c0 + MARGIN
            fast.beneath(collection, i, r0, c0, cards, top, new)
            before = _around(code, gr, gc, weight[g], painting)
            for j in range(4):
                old[j] = code[gr + j // 2, gc + j % 2]
                if new[j] != -2:
                    code[gr + j // 2, gc + j % 2] = new[j]
            after = _around(code, gr, gc, weight[g], after_p)
            for j in range(4):
                code[gr + j // 2, gc + j % 2] = old[j]
            broken = False
            for b in range(9):
                broken |= painting[b] >= 0 and after_p[b] != painting[b]
            if not broken:
                out[g, i] = after - before
        fast.wipe(collection, n, r0, c0, code, top)


# ---------------------------------------------------------------------------------------------- the catalogue


CLASSES = {"random": Player, "completer": Completer, "popular": Popular, "saboteur": Saboteur}


def parse_strategy(name: str) -> tuple[str, int | None]:
    """`base[-no-ACTION]` -> (base, banned action index); AtelierError if unknown."""
    base, restricted, banned = name.partition("-no-")
    if base not in CLASSES:
        raise AtelierError(f"unknown Witkacy strategy '{name}'; known: {', '.join(CLASSES)}, each optionally with "
                           "-no-ACTION")
    if restricted and banned not in ACTIONS:
        raise AtelierError(f"'{name}': no action '{banned}'; actions: {', '.join(ACTIONS)}")
    return base, ACTIONS.index(banned) if restricted else None


def make_player(name: str, *, seat: int, params, games, secret=None) -> Player:
    """A Witkacy player for one seat in `games`; hands are in the observations, so `secret` is None."""
    base, banned = parse_strategy(name)
    return CLASSES[base](name, seat=seat, idx=games, params=params, banned=banned)


PLAYERS = Catalogue(STRATEGY_NAMES, BENCH_STRATEGY, make_player, parse_strategy, uniform=frozenset({"random"}),
                    searched=frozenset(set(PHASES.values()) - {"where", "z"}))  # the policy lays the card chosen
