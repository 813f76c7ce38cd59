"""Broken and Beautiful, batched: B games advance in lockstep with numpy, with no Python loop over the batch.

Every game of a batch deals the same number of rounds and drafts the same number of cards per round, so
the batch moves one pick at a time. Repair phases last a different number of turns in each game: the
batch keeps going until every game has finished its phase, and finished games are not asked (they can only
pass). The engine is steppable (the contract in sim/game.py); a round goes through three phases:

- "draft": the seat on turn takes a card from the drafting area (2. Drafting, the snake draft);
- "keep": the same seat keeps that card or sells it (Choices After Drafting); after the last pick the
  pottery breaks (3. Pottery Breaks) inside `step`;
- "repair": in turn from the first player, each seat repairs one broken card or passes (4. Repairing
  Pottery), round after round of turns, until every seat of a game passes in the same round of turns.
When the last game's repair phase ends, the first player marker passes and the next round is dealt, or the
game ends ("over") when a full draft can no longer be dealt. The scalar, rule-by-rule twin is reference.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sim.broken_beautiful import fast
from sim.broken_beautiful.rules import (
    BROKEN,
    GOLD,
    SCORED,
    Deal,
    Params,
)
from sim.game import Decision, Outcome, evolve, shuffled_after
from sim.scoring import standings

SELL, KEEP = 0, 1
DRAFT, KEEP_OR_SELL, REPAIR, OVER = "draft", "keep", "repair", "over"  # the phases; the first three name decisions
PHASES = (DRAFT, KEEP_OR_SELL, REPAIR, OVER)  # as fast.play_out numbers them
PLAYED = ("owner", "cond", "ingots", "supply", "draft", "open", "card", "repairs", "free", "repairing", "fixed")


@dataclass(frozen=True)
class State:
    """B games between two decisions. Counters shared by the batch are Python ints; `step` returns a new State
    and never changes the arrays of its argument."""

    order: np.ndarray  # (B, C) int8: card ids from the top of the deck
    owner: np.ndarray  # (B, C) int8: seat whose collection holds the card, -1 if none
    cond: np.ndarray  # (B, C) int8: INTACT, BROKEN or REPAIRED, for cards in a collection
    ingots: np.ndarray  # (B, P) int16
    supply: np.ndarray  # (B,) int16: ingots left in the supply (below 0 only with supply_shortfall = unlimited)
    draft: np.ndarray  # (B, D) intp: the cards dealt to the drafting area this round
    open: np.ndarray  # (B, D) bool: still in the drafting area (none once the leftover card is discarded)
    card: np.ndarray  # (B,) intp: the card just drafted, to be kept or sold; -1 at other decisions
    repairs: np.ndarray  # (B, P) int16: repairs each player made this round
    free: np.ndarray  # (B,) bool: a gold card showed at breakage, so each player's first repair is free
    repairing: np.ndarray  # (B,) bool: the game's repair phase goes on (someone repaired in the last round of turns)
    fixed: np.ndarray  # (B,) bool: someone repaired in the current round of turns
    dealt: int = 0  # cards dealt from the deck so far, the same in every game
    round: int = 0  # rounds finished
    phase: str = DRAFT  # DRAFT, KEEP_OR_SELL, REPAIR or OVER
    turn: int = 0  # draft and keep: picks made this round; repair: repair turns taken this round


@dataclass
class Observation:
    """Everything on the table, which is all public: collections, ingots, the drafting area and the top
    card of the deck. Hidden: the order of the rest of the deck. `legal` is the mask of the phase's decision,
    were `seat` the one asked: draft -> (B, D) slots of the drafting area; keep -> (B, 2) [sell, keep]; repair ->
    (B, C + 1) card ids plus pass (the last column); (B, 0) once the game is over."""

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


def init(params: Params, deal: Deal) -> State:
    """Setup: empty collections; each player takes params.new_player_ingots from the supply (New Player).
    Then the first round is dealt (1. Starting a Round); seat 0 holds the first player marker."""
    (order,) = deal
    batch, cards = order.shape
    ingots = np.full((batch, params.players), params.new_player_ingots, np.int16)
    supply = np.full(batch, params.kit.supply - params.new_player_ingots * params.players, np.int16)
    none = np.zeros(batch, bool)
    state = State(order, np.full((batch, cards), -1, np.int8), np.zeros((batch, cards), np.int8), ingots, supply,
                  np.zeros((batch, 0), np.intp), np.zeros((batch, 0), bool), np.full(batch, -1, np.intp),
                  np.zeros((batch, params.players), np.int16), none, none, none)
    return _start_round(params, state)


def pick_order(first: int, players: int) -> list[int]:
    """The snake draft: from the first player to the left, then back, so the first player also picks last."""
    seats = [(first + i) % players for i in range(players)]
    return seats + seats[::-1]


def seat_on_turn(state: State) -> int:
    """The seat that decides now: the snake draft's pick, or the repair turn counted from the first player."""
    players = state.ingots.shape[1]
    first = state.round % players
    if state.phase == REPAIR:
        return (first + state.turn) % players
    return pick_order(first, players)[state.turn]


def repair_cost(params: Params, cards: np.ndarray, repairs: np.ndarray, free: np.ndarray) -> np.ndarray:
    """Repairing Pottery: the card's value, plus one per repair already made this round; the first repair
    of a round in which a gold card showed is free. cards (..., K), repairs and free (...) -> (..., K) ingots."""
    cost = params.kit.value[cards].astype(np.int16) + repairs[..., None]
    return np.where((free & (repairs == 0))[..., None], 0, cost)


def deck_top(params: Params, state: State) -> np.ndarray:
    """The card showing on top of the deck, -1 once the deck is empty."""
    if state.dealt >= params.kit.size:
        return np.full(len(state.order), -1, np.intp)
    return state.order[:, state.dealt].astype(np.intp)


def decision(params: Params, state: State) -> Decision:
    """The decision the batch faces now: a draft, a keep-or-sell or a repair, by the seat on turn."""
    if state.phase == OVER:
        raise ValueError("the game is over: no decision is left")
    seat = seat_on_turn(state)
    asked = state.repairing if state.phase == REPAIR else np.ones(len(state.order), bool)
    seen = observe(params, state, seat)
    return Decision(state.phase, seat, seen.legal, asked, seen, f"in round {state.round + 1}")


def legal(params: Params, state: State, seat: int) -> np.ndarray:
    """The mask of the phase's decision, were `seat` the one asked; it reads only what lies on the table."""
    batch = len(state.order)
    if state.phase == DRAFT:  # Drafting: any card still in the drafting area
        return state.open
    if state.phase == KEEP_OR_SELL:  # Choices After Drafting: gold cards must be sold
        return np.stack([np.ones(batch, bool), params.kit.type[state.card] != GOLD], 1)
    if state.phase == REPAIR:  # Repairing Pottery: a broken card of one's own that one can pay for, or pass
        return fast.repair_legal(state.owner, state.cond, state.ingots, state.repairs, state.free, state.repairing,
                                 seat, fast.kit_arrays(params.kit)[4])  # compiled repair_cost and masks
    return np.zeros((batch, 0), bool)  # the game is over


def observe(params: Params, state: State, seat: int) -> Observation:
    """What `seat` may know, whether or not it is on turn: the whole table, which every seat sees alike (the
    collections, ingots, the drafting area, the card just drafted and the card showing on top of the deck), and
    the options it would have in the phase's decision."""
    players = state.ingots.shape[1]
    return Observation(
        decision=state.phase, seat=seat, round=state.round, first=state.round % players,
        owner=state.owner, cond=state.cond, ingots=state.ingots, supply=state.supply,
        draft=state.draft, open=state.open, deck_top=deck_top(params, state),
        rounds_left=params.kit.rounds(players) - state.round - 1,
        card=state.card, repairs=state.repairs, free=state.free, legal=legal(params, state, seat),
    )


def determinize(params: Params, state: State, seat: int, rng: np.random.Generator) -> State:
    """The games with the deck below its top card shuffled again, each game on its own, drawn from `rng` alone.

    The deck is dealt face down except its top card, which shows (3. Pottery Breaks: "one card visible on the top
    of the deck"); every card dealt before it went to the drafting area face up, and every other part of the game
    lies on the table (Setup; Choices After Drafting). No seat holds a secret, so every seat knows the same: which
    cards are still below the top card, not their order. The deck was shuffled uniformly (Setup, 2. Shuffle the
    Deck), so given all that was seen every order of those cards is equally likely, and a uniform permutation of
    them is an exact draw from what `seat` cannot tell apart. Nothing else changes."""
    return evolve(state, order=shuffled_after(state.order, state.dealt + 1, rng))


def step(params: Params, state: State, choice: np.ndarray) -> State:
    """Apply one choice per game (ignored where the decision did not ask) and advance to the next decision."""
    choice = np.asarray(choice).astype(np.intp)
    if state.phase == DRAFT:
        games = np.arange(len(choice))
        is_open = state.open.copy()
        is_open[games, choice] = False
        return evolve(state, open=is_open, card=state.draft[games, choice], phase=KEEP_OR_SELL)
    if state.phase == KEEP_OR_SELL:
        return _kept(params, state, choice == KEEP)
    if state.phase == REPAIR:
        return _repaired(params, state, choice)
    raise ValueError("the game is over: no decision is left")


def random_playout(params: Params, state: State, rng: np.random.Generator) -> State:
    """The games played to their end by uniformly random players (strategies.broken_beautiful.Random), in one
    compiled loop: the State, and the rng's, that stepping a table of them gives, question for question and draw for
    draw (fast.play_out)."""
    return _played_out(params, state, rng, greedy=False)


def greedy_playout(params: Params, state: State, rng: np.random.Generator) -> State:
    """The games played to their end by the `greedy` player at every seat (strategies.broken_beautiful.Player), in
    the same compiled loop: the State, and the rng's, that stepping a table of them gives."""
    return _played_out(params, state, rng, greedy=True)


def _played_out(params: Params, state: State, rng: np.random.Generator, greedy: bool) -> State:
    if state.phase == OVER:
        return state
    new = {name: getattr(state, name).copy() for name in PLAYED}
    kind, pattern, sc, vase, value = fast.kit_arrays(params.kit)
    dealt, rounds_done, phase, turn = fast.play_out(
        state.order, *new.values(), state.dealt, state.round, PHASES.index(state.phase), state.turn,
        params.kit.rounds(state.ingots.shape[1]), kind, pattern, sc, vase, params.kit.patterns, value,
        params.supply_shortfall == "partial", greedy, rng)
    return evolve(state, **new, dealt=int(dealt), round=int(rounds_done), phase=PHASES[phase], turn=int(turn))


def terminal(params: Params, state: State) -> bool:
    """Ending the Game: a full draft can no longer be dealt."""
    return state.phase == OVER


def _start_round(params: Params, state: State) -> State:
    """Starting a Round: deal two cards per player, plus one, to the drafting area; the game ends instead
    when the deck cannot deal that many (Ending the Game)."""
    batch, players = state.ingots.shape
    if state.round >= params.kit.rounds(players):
        return evolve(state, phase=OVER, turn=0)
    size = params.kit.draft_size(players)
    none = np.zeros(batch, bool)
    return evolve(state, draft=state.order[:, state.dealt : state.dealt + size].astype(np.intp),
                   open=np.ones((batch, size), bool), card=np.full(batch, -1, np.intp),
                   repairs=np.zeros((batch, players), np.int16), free=none, repairing=none, fixed=none,
                   dealt=state.dealt + size, phase=DRAFT, turn=0)


def _kept(params: Params, state: State, keep: np.ndarray) -> State:
    """Choices After Drafting: add the card to the collection, or sell it for its value in ingots. After the
    last pick of the snake draft the pottery breaks and the repair phase begins."""
    seat, card = seat_on_turn(state), state.card
    games = np.arange(len(card))
    # compiled: the seller takes what is left of the supply with "partial"
    owner, cond, ingots, supply = fast.kept(state.owner, state.cond, state.ingots, state.supply, card, keep, seat,
                                            fast.kit_arrays(params.kit)[4], params.supply_shortfall == "partial")
    state = evolve(state, owner=owner, cond=cond, ingots=ingots, supply=supply,
                    card=np.full(len(card), -1, np.intp), phase=DRAFT, turn=state.turn + 1)
    if state.turn < 2 * state.ingots.shape[1]:  # every player drafts two cards; one is left over
        return state
    leftover = state.draft[games, state.open.argmax(axis=1)]
    state, free = _break(params, state, leftover)
    # The leftover card is discarded once breakage is resolved: the drafting area is empty.
    return evolve(state, open=np.zeros(state.open.shape, bool), free=free, repairing=np.ones(len(card), bool),
                   fixed=np.zeros(len(card), bool), phase=REPAIR, turn=0)


def _break(params: Params, state: State, leftover: np.ndarray) -> tuple[State, np.ndarray]:
    """Pottery Breaks (fast.break_pottery, compiled): the cards whose type shows break, and whether a gold card
    shows, game by game."""
    cond = state.cond.copy()
    free = fast.break_all(state.owner, cond, state.order, state.dealt, fast.kit_arrays(params.kit)[0], leftover)
    return evolve(state, cond=cond), free


def _repaired(params: Params, state: State, choice: np.ndarray) -> State:
    """Repairing Pottery: the seat on turn pays for the card it mends (or passes). After each round of turns,
    a game whose players all passed ends its repair phase; when every game has, the round ends."""
    seat, players = seat_on_turn(state), state.ingots.shape[1]
    cond, ingots, supply, repairs, fixed = fast.repaired(  # compiled; spent ingots return to the supply
        state.cond, state.ingots, state.supply, state.repairs, state.fixed, state.repairing, state.free, choice, seat,
        fast.kit_arrays(params.kit)[4])
    state = evolve(state, cond=cond, ingots=ingots, supply=supply, repairs=repairs, fixed=fixed,
                    turn=state.turn + 1)
    if state.turn % players:
        return state
    # A round of turns is over: repair continues until all players pass in turn.
    state = evolve(state, repairing=state.repairing & state.fixed, fixed=np.zeros(len(choice), bool))
    if state.repairing.any():
        return state
    # The first player marker passes clockwise (to the left) and the next round begins.
    return _start_round(params, evolve(state, round=state.round + 1))


def standing(params: Params, state: State):
    """Final points by type, scores, repaired items, items, ranks and win shares of every seat.

    Ending the Game: most points wins; ties go to the most repaired items, then the most items overall;
    players still tied share the win."""
    kit, players = params.kit, params.players
    kind, pattern, sc, vase, _ = fast.kit_arrays(kit)
    by_type, repaired, items, _ = fast.standing(state.owner, state.cond, state.ingots, players, kind, pattern, sc,
                                                vase, kit.patterns, params.tie_items_count_broken)  # compiled
    scores = by_type.sum(axis=2)
    key = (scores.astype(np.int64) * 1000 + repaired) * 1000 + items
    rank, win = standings(key, lower_wins=False)
    return by_type, scores, repaired, items, rank, win


def outcome(params: Params, state: State) -> Outcome:
    """The standings, and each seat's ingots, repaired, broken and whole items and points by type."""
    by_type, scores, repaired, items, rank, win = standing(params, state)
    batch, players = state.ingots.shape
    held = state.owner[:, None, :] == np.arange(players)[:, None]  # (B, P, C)
    broken = (held & (state.cond == BROKEN)[:, None, :]).sum(axis=2)
    columns = {
        "rounds": np.full(batch, params.kit.rounds(players), np.int8),
        "ingots": state.ingots,
        "repaired": repaired.astype(np.int8),
        "broken": broken.astype(np.int8),
        "items": items.astype(np.int8),
        **{f"points_{kind}": by_type[:, :, t].astype(np.int32) for t, kind in enumerate(SCORED)},
    }
    return Outcome(scores, rank, win, columns)
