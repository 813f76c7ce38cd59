"""Witkacy players, batched. A turn asks (sim/witkacy/reference.py): search, action and the action's own questions,
then expand (a hand card and its side), where (its top-left cell) and z (its place in the stack). A player sees
every collection, its own hand, the display, the deck's size and the side facing up on its top card, and every
seat's unused tokens.

How a laying is valued (compiled in sim/witkacy/layings.py): only the 3 x 3 blocks of 2 x 2 cells around the card
can change. A block showing a completed painting P is worth COPY * w[P], one showing three of P's four quarters in
place w[P], others nothing; a laying is worth the blocks' worth after minus before. It never breaks a completed
painting (for one's own collection the players' choice, for a Gift the rule). `w` is 1 for every painting
(completer), or what one more copy of P adds to the player's score, its own copies plus the table's plus one
(popular).
"""

from __future__ import annotations

import numpy as np

from sim.errors import AtelierError
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
    layings,
    removal_values,
)
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
        `owner` of each game (see layings)."""
        n, k = faces.shape[:2]
        found = Found(np.empty((n, k, 2)), np.full((n, k, 2, 2), NO_OPTION, np.int64))  # a plan where none is found
        wanted = Wanted(games, np.broadcast_to(owner, n).astype(np.int64), faces,
                        np.zeros(n, bool) if correction is None else correction, self.weights(obs, games),
                        rng.integers(0, 2**62, n), 2 if self.params.advanced else 1, self.params.entirely == "card",
                        sign, candidates, neutral)
        layings(Board(obs.stack, obs.size, obs.cards), wanted, found)
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
        removal_values(obs.stack, obs.size, games, leader, self.weights(obs, games), obs.cards, worth)
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
                    fused={"completer": "completer_playout", "popular": "popular_playout"},  # their answers,
                    # compiled in sim/witkacy/playout.py
                    searched=frozenset(set(PHASES.values()) - {"where", "z"}))  # the policy lays the card chosen
