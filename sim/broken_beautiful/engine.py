"""Broken and Beautiful, batched: B games advance in lockstep with numpy, with no Python loop over the batch.

Every game of a batch deals the same number of rounds and drafts the same number of cards per round, so
the batch moves one pick at a time. Repair phases last a different number of turns in each game: the
batch keeps going until every game has finished its phase, and finished games can only pass. The scalar,
rule-by-rule twin is reference.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from sim.batch import check_choice, strategy_groups
from sim.broken_beautiful.rules import (
    BROKEN,
    GOLD,
    INTACT,
    REPAIRED,
    TEA_JAR,
    TEAPOT,
    Params,
    points,
    tally,
)
from sim.errors import IllegalMove
from sim.scoring import standings

SELL, KEEP = 0, 1


@dataclass(frozen=True)
class State:
    order: np.ndarray  # (B, C) int8: card ids from the top of the deck
    owner: np.ndarray  # (B, C) int8: seat whose collection holds the card, -1 if none
    cond: np.ndarray  # (B, C) int8: INTACT, BROKEN or REPAIRED, for cards in a collection
    ingots: np.ndarray  # (B, P) int16
    supply: np.ndarray  # (B,) int16: ingots left in the supply (below 0 only with supply_shortfall = unlimited)
    dealt: int = 0  # cards dealt from the deck so far, the same in every game
    round: int = 0  # rounds finished


@dataclass
class Observation:
    """Everything on the table, which is all public: collections, ingots, the drafting area and the top
    card of the deck. Hidden: the order of the rest of the deck. `legal` is the mask of the decision asked
    for: draft -> (B, D) slots of the drafting area; keep -> (B, 2) [sell, keep]; repair -> (B, C + 1)
    card ids plus pass (the last column)."""

    decision: str  # "draft", "keep" or "repair"
    seat: int
    round: int
    first: int  # seat holding the first player marker
    owner: np.ndarray
    cond: np.ndarray
    ingots: np.ndarray
    supply: np.ndarray
    draft: np.ndarray  # (B, D) card ids dealt to the drafting area this round
    open: np.ndarray  # (B, D) bool: still in the drafting area
    deck_top: np.ndarray  # (B,) the card showing on top of the deck, -1 if the deck is empty
    rounds_left: int  # rounds after this one
    card: np.ndarray  # (B,) the card just drafted (keep decisions), else -1
    repairs: np.ndarray  # (B, P) repairs each player made this round
    free: np.ndarray  # (B,) bool: a gold card showed, so each player's first repair this round is free
    legal: np.ndarray
    memo: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Record:
    """A finished batch: every decision in order (to replay it) and the final standing."""

    order: np.ndarray
    picks: np.ndarray  # (B, R, 2P) drafting-area slot taken at each pick
    keeps: np.ndarray  # (B, R, 2P) KEEP or SELL
    repairs: list  # per round, (B, S) card repaired at each repair turn, C = pass
    state: State
    points: np.ndarray  # (B, P, len(SCORED))
    scores: np.ndarray  # (B, P)
    repaired: np.ndarray  # (B, P) repaired items
    items: np.ndarray  # (B, P) items in the collection (broken ones too, unless tie_items_count_broken is off)
    rank: np.ndarray
    win: np.ndarray


def init(params: Params, order: np.ndarray) -> State:
    """Setup: empty collections; each player takes params.new_player_ingots from the supply."""
    batch, cards = order.shape
    ingots = np.full((batch, params.players), params.new_player_ingots, np.int16)
    supply = np.full(batch, params.kit.supply - params.new_player_ingots * params.players, np.int16)
    return State(order, np.full((batch, cards), -1, np.int8), np.zeros((batch, cards), np.int8), ingots, supply)


def pick_order(first: int, players: int) -> list[int]:
    """The snake draft: from the first player to the left, then back, so the first player also picks last."""
    seats = [(first + i) % players for i in range(players)]
    return seats + seats[::-1]


def repair_cost(params: Params, cards: np.ndarray, repairs: np.ndarray, free: np.ndarray) -> np.ndarray:
    """Repairing Pottery: the card's value, plus one per repair already made this round; the first repair
    of a round in which a gold card showed is free."""
    cost = params.kit.value[cards].astype(np.int16) + repairs[..., None]
    return np.where((free & (repairs == 0))[..., None], 0, cost)


def play(params: Params, order: np.ndarray, lineups: np.ndarray, rng: np.random.Generator, make_player) -> Record:
    """Play a batch to the end. lineups: (B, P) strategy names by seat."""
    state = init(params, order)
    seats = [_seat_players(params, s, lineups[:, s], make_player) for s in range(params.players)]
    rounds = params.kit.rounds(params.players)
    picks = np.zeros((len(order), rounds, 2 * params.players), np.int8)
    keeps = np.zeros_like(picks)
    repairs = []
    for r in range(rounds):
        state, picks[:, r], keeps[:, r], repaired = play_round(params, state, seats, rng)
        repairs.append(repaired)
    return _finish(params, state, picks, keeps, repairs)


def play_round(params: Params, state: State, seats, rng):
    """Deal, draft, break, repair; then the first player marker passes to the left."""
    batch, players = state.ingots.shape
    size = params.kit.draft_size(players)
    draft = state.order[:, state.dealt : state.dealt + size].astype(np.intp)
    state = replace(state, dealt=state.dealt + size)
    is_open = np.ones(draft.shape, bool)
    first = state.round % players
    picks, keeps = [], []
    for seat in pick_order(first, players):
        obs = _observe(params, state, "draft", seat, draft, is_open, is_open)
        slot = _decide(seats[seat], obs, rng, "draft")
        card = draft[np.arange(batch), slot]
        is_open = is_open.copy()
        is_open[np.arange(batch), slot] = False
        can_keep = params.kit.type[card] != GOLD  # gold cards must be sold
        obs = _observe(params, state, "keep", seat, draft, is_open, np.stack([np.ones(batch, bool), can_keep], 1),
                       card=card)
        keep = _decide(seats[seat], obs, rng, "keep") == KEEP
        state = _take(params, state, seat, card, keep)
        picks.append(slot)
        keeps.append(keep)
    leftover = draft[np.arange(batch), is_open.argmax(axis=1)]
    state, free = _break(params, state, leftover)
    state, repaired = _repair_phase(params, state, seats, rng, first, draft, free)
    state = replace(state, round=state.round + 1)
    return state, np.stack(picks, 1), np.stack(keeps, 1), repaired


def deck_top(params: Params, state: State) -> np.ndarray:
    """The card showing on top of the deck, -1 once the deck is empty."""
    if state.dealt >= params.kit.size:
        return np.full(len(state.order), -1, np.intp)
    return state.order[:, state.dealt].astype(np.intp)


def _take(params: Params, state: State, seat: int, card: np.ndarray, keep: np.ndarray) -> State:
    """Choices After Drafting: add the card to the collection, or sell it for its value in ingots."""
    games = np.arange(len(card))
    owner, cond = state.owner.copy(), state.cond.copy()
    owner[games[keep], card[keep]] = seat
    cond[games[keep], card[keep]] = INTACT
    value = np.where(keep, 0, params.kit.value[card]).astype(np.int16)
    if params.supply_shortfall == "partial":
        value = np.minimum(value, np.maximum(state.supply, 0))
    ingots = state.ingots.copy()
    ingots[:, seat] += value
    return replace(state, owner=owner, cond=cond, ingots=ingots, supply=state.supply - value)


def _break(params: Params, state: State, leftover: np.ndarray) -> tuple[State, np.ndarray]:
    """Pottery Breaks: every unbroken, never-repaired card in any collection whose type matches the leftover
    card or the top of the deck breaks. Trays, boxes and gold break nothing; a showing gold card gives a free
    repair instead. With the deck empty, only the leftover card counts."""
    kind = params.kit.type
    top = deck_top(params, state)
    showing = np.stack([kind[leftover], np.where(top >= 0, kind[top], -1)], axis=1)  # (B, 2)
    breaks = showing[:, :, None] == kind[None, None, :]  # (B, 2, C)
    breaks &= (showing <= TEAPOT)[:, :, None]
    hit = breaks.any(axis=1) & (state.owner >= 0) & (state.cond == INTACT)
    cond = np.where(hit, BROKEN, state.cond).astype(np.int8)
    return replace(state, cond=cond), (showing == GOLD).any(axis=1)


def _repair_phase(params, state, seats, rng, first, draft, free):
    """In turn from the first player, each player repairs one broken card or passes, round after round of
    turns, until every player passes in the same round of turns."""
    batch, players = state.ingots.shape
    cards = params.kit.size
    done = np.zeros((batch, players), np.int16)
    active = np.ones(batch, bool)
    cleared = np.zeros(draft.shape, bool)  # the leftover card was discarded once breakage was resolved
    choices = []
    while active.any():
        repaired_any = np.zeros(batch, bool)
        for k in range(players):
            seat = (first + k) % players
            cost = repair_cost(params, np.arange(cards), done[:, seat], free)  # (B, C)
            can = (state.owner == seat) & (state.cond == BROKEN) & (cost <= state.ingots[:, seat, None])
            legal = np.concatenate([can & active[:, None], np.ones((batch, 1), bool)], axis=1)
            obs = _observe(params, state, "repair", seat, draft, cleared, legal, repairs=done, free=free)
            choice = _decide(seats[seat], obs, rng, "repair")
            fixing = choice < cards
            state = _fix(state, seat, choice, fixing, cost)
            done[:, seat] += fixing
            repaired_any |= fixing
            choices.append(choice)
        active &= repaired_any
    return state, np.stack(choices, 1).astype(np.int8)


def _fix(state: State, seat: int, choice: np.ndarray, fixing: np.ndarray, cost: np.ndarray) -> State:
    games = np.flatnonzero(fixing)
    cards = choice[games]
    cond = state.cond.copy()
    cond[games, cards] = REPAIRED
    paid = np.zeros(len(choice), np.int16)
    paid[games] = cost[games, cards]
    ingots = state.ingots.copy()
    ingots[:, seat] -= paid
    return replace(state, cond=cond, ingots=ingots, supply=state.supply + paid)


def standing(params: Params, state: State):
    """Final points by type, scores, repaired items, items, ranks and win shares of every seat.

    Ending the Game: most points wins; ties go to the most repaired items, then the most items overall;
    players still tied share the win."""
    kit, players = params.kit, params.players
    counts = tally(state.owner, state.cond, players, kit)
    jars = counts.whole[..., TEA_JAR]
    rivals = np.stack([np.delete(jars, s, axis=1).max(axis=1) for s in range(players)], axis=1)
    by_type = points(counts, state.ingots, rivals, kit)
    scores = by_type.sum(axis=2)
    repaired = counts.repaired.sum(axis=2)
    items = counts.whole.sum(axis=2) + (counts.broken.sum(axis=2) if params.tie_items_count_broken else 0)
    key = (scores.astype(np.int64) * 1000 + repaired) * 1000 + items
    rank, win = standings(key, lower_wins=False)
    return by_type, scores, repaired, items, rank, win


def _finish(params, state, picks, keeps, repairs) -> Record:
    by_type, scores, repaired, items, rank, win = standing(params, state)
    return Record(state.order, picks, keeps, repairs, state, by_type, scores, repaired, items, rank, win)


def _observe(params, state, decision, seat, draft, is_open, legal, card=None, repairs=None, free=None):
    batch, players = state.ingots.shape
    return Observation(
        decision=decision, seat=seat, round=state.round, first=state.round % players,
        owner=state.owner, cond=state.cond, ingots=state.ingots, supply=state.supply,
        draft=draft, open=is_open, deck_top=deck_top(params, state),
        rounds_left=params.kit.rounds(players) - state.round - 1,
        card=np.full(batch, -1, np.intp) if card is None else card,
        repairs=np.zeros((batch, players), np.int16) if repairs is None else repairs,
        free=np.zeros(batch, bool) if free is None else free,
        legal=legal,
    )


def _seat_players(params, seat, names, make_player):
    """One player object per distinct strategy at this seat, with the games (index or slice) it plays."""
    return [(idx, make_player(name, seat=seat, players=params.players, idx=idx, params=params))
            for name, idx in strategy_groups(names)]


def _decide(group, obs: Observation, rng: np.random.Generator, decision: str) -> np.ndarray:
    choices = np.zeros(len(obs.legal), np.intp)
    for idx, player in group:
        legal = obs.legal[idx]
        choice = check_choice(player, np.asarray(getattr(player, decision)(obs, rng)), len(legal), legal.shape[1],
                              f"{decision} in round {obs.round + 1}")
        if not legal[np.arange(len(legal)), choice].all():
            raise IllegalMove(player.name, f"{decision} in round {obs.round + 1} is not allowed")
        choices[idx] = choice
    return choices
