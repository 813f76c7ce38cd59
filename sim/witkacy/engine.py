"""Witkacy, batched and steppable (the contract in sim/game.py): B games advance in lockstep, one question at a
time, with the questions and numbered options of reference.py (rules.PHASES). The collections' geometry is
compiled (fast.py).

Every game takes its turns in the same order, so turns stay in lockstep; a game that has ended is asked nothing
more. Within a turn each phase of rules.PHASES is a question for the games it concerns (`active`); a game with a
single option is not asked, its option is taken for it. Between the turns "start" ends the games whose last round
is over (the State's phase is "over" once all have ended) and "end" counts the turn.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sim.game import Decision, Outcome, evolve, list_column, read_only
from sim.scoring import standings
from sim.witkacy import fast, playout
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
    NO_ACTION,
    PAINTINGS,
    PHASES,
    RUSH,
    SOLVENT,
    STASH,
    WINDOW,
    Deal,
    Params,
)


@dataclass(frozen=True)
class State:
    """B games. `step` returns a new State and never changes its argument."""

    stack: np.ndarray  # (B, P, 55, 4) int8: each collection bottom to top as (card, side, row, col); -1 after
    size: np.ndarray  # (B, P) int16: cards in each collection
    copies: np.ndarray  # (B, P, 5) int8: each collection's completed copies by painting
    deck: np.ndarray  # (B, 55) int8: the deck after the set-up, top first; `drawn` of them are gone
    drawn: np.ndarray  # (B,) int16
    up: np.ndarray  # (B, 55) int8: the side facing up of each card (in the deck; shown, in the display)
    display: np.ndarray  # (B, 2) int8: -1 an empty slot
    hand: np.ndarray  # (B, P, HAND) int8: each hand in order, -1 after the last card
    tokens: np.ndarray  # (B, P, 5) bool: the unused action tokens
    played: np.ndarray  # (B, P) int16: cards each seat added to its own collection
    action: np.ndarray  # (B,) int8: this turn's action, NO_ACTION or 1 + an index in ACTIONS
    pending: np.ndarray  # (B, 4) int16: the card being laid: owner, card, side, source (hand position or slot)
    spot: np.ndarray  # (B, 2) int16: its top-left cell once chosen, else (0, 0)
    last_round: np.ndarray  # (B,) bool: fewer cards than players were left to draw during this round
    ended: np.ndarray  # (B,) bool
    turns: np.ndarray  # (B,) int16: turns played
    active: np.ndarray  # (B,) bool: the games the current phase concerns
    asked: np.ndarray  # (B,) bool: those of them with a choice to make
    legal: np.ndarray  # (B, options) bool: the current phase's options
    only: np.ndarray  # (B,): the first of them, the choice where there is no other
    secret: np.ndarray  # (B, P) int8: each seat's card dealt to its hand at the set-up, the one card another
    # seat may hold unseen (every later card is taken face up); never changes in play
    returned: np.ndarray  # (B, 55) bool: the collection cards shuffled back at the set-up, their side up seen
    phase: str = "start"
    turn: int = 0
    QUESTION = ("active", "asked", "legal", "only")  # the question being asked, not the game (sim.game.Engine)

    @property
    def left(self) -> np.ndarray:
        """(B,) cards still in the deck. Every deal leaves the same number there (55, less two a seat and the
        display's two), so the first game's count serves."""
        return (self.deck[:1] >= 0).sum() - self.drawn


@dataclass
class Observation:
    """What a seat may know: every collection, its own hand, the display, the deck's size and the side facing
    up on its top card, every seat's unused tokens, this turn's action and the card being laid, and every card's
    two sides (the deck is public); the legal options and the games asked where it is to act (None for another
    seat). Never another seat's hand, nor the deck's order."""

    phase: str
    seat: int
    turn: int
    stack: np.ndarray  # (B, P, 55, 4)
    size: np.ndarray  # (B, P)
    copies: np.ndarray  # (B, P, 5)
    hand: np.ndarray  # (B, HAND): the mover's
    display: np.ndarray  # (B, 2)
    shown: np.ndarray  # (B, 2): the side each display card shows, -1 empty
    deck_left: np.ndarray  # (B,)
    top_face: np.ndarray  # (B, 2, 2): the fragments facing up on the deck's top card, -1 none
    tokens: np.ndarray  # (B, P, 5)
    action: np.ndarray  # (B,)
    pending: np.ndarray  # (B, 4)
    spot: np.ndarray  # (B, 2)
    legal: np.ndarray | None
    asked: np.ndarray | None
    params: Params
    cards: np.ndarray  # (55, 2, 2, 2): every card's fragments (the deck is public)
    memo: dict = field(default_factory=dict)


def init(params: Params, deal: Deal) -> State:
    """Setup: each seat's starting card at (0, 0), showing the side that was up, and one card in hand."""
    batch, players = len(deal.deck), params.players
    rows = np.arange(batch)[:, None]
    stack = np.full((batch, players, MAX_STACK, 4), -1, np.int8)
    stack[:, :, 0, 0], stack[:, :, 0, 1] = deal.start, deal.up[rows, deal.start]
    stack[:, :, 0, 2:] = 0
    hand = np.full((batch, players, HAND), -1, np.int8)
    hand[:, :, 0] = deal.hand
    state = State(
        stack=stack, size=np.ones((batch, players), np.int16), copies=np.zeros((batch, players, 5), np.int8),
        deck=deal.deck.astype(np.int8), drawn=np.zeros(batch, np.int16),
        up=deal.up.astype(np.int8),
        display=deal.display.astype(np.int8), hand=hand, tokens=np.ones((batch, players, len(ACTIONS)), bool),
        played=np.zeros((batch, players), np.int16), action=np.zeros(batch, np.int8),
        pending=np.full((batch, 4), -1, np.int16), spot=np.zeros((batch, 2), np.int16),
        last_round=np.zeros(batch, bool), ended=np.zeros(batch, bool), turns=np.zeros(batch, np.int16),
        active=np.zeros(batch, bool), asked=np.zeros(batch, bool), legal=np.zeros((batch, 1), bool),
        only=np.zeros(batch, np.int64), secret=deal.hand.astype(np.int8), returned=_returned(deal), phase="start")
    return _advance(params, state, CYCLE.index("start"))


def _returned(deal: Deal) -> np.ndarray:
    """(B, 55) bool: the cards the set-up shuffled back into the deck (rules.deal's log)."""
    returned = np.zeros(deal.up.shape, bool)
    games, rows = np.nonzero(deal.dealt[:, :, 2] == 2)
    returned[games, deal.dealt[games, rows, 1]] = True
    return returned


def terminal(params: Params, state: State) -> bool:
    return state.phase == "over"


def decision(params: Params, state: State) -> Decision:
    seat = state.turn % params.players
    return Decision(PHASES[state.phase], seat, state.legal, state.asked, observe(params, state, seat),
                    f"({state.phase}) at turn {state.turn}")


def observe(params: Params, state: State, seat: int) -> Observation:
    """What `seat` may know now (the Observation's docstring); the legal options and the games asked only where it
    is to act, since they follow from the mover's hand."""
    rows = np.arange(len(state.left))
    top = np.where(state.left > 0, state.deck[rows, np.minimum(state.drawn, CARDS - 1)], -1)
    face = params.cards[np.maximum(top, 0), state.up[rows, np.maximum(top, 0)]]
    moving = seat == state.turn % params.players
    return Observation(state.phase, seat, state.turn, state.stack, state.size, state.copies, state.hand[:, seat],
                       state.display, np.where(state.display >= 0, np.take_along_axis(
                           state.up, np.maximum(state.display, 0).astype(np.int64), axis=1), -1).astype(np.int8),
                       state.left, np.where((top >= 0)[:, None, None], face, -1).astype(np.int8), state.tokens,
                       state.action, state.pending, state.spot, state.legal if moving else None,
                       state.asked if moving else None, params, params.cards)


def determinize(params: Params, state: State, seat: int, rng: np.random.Generator) -> State:
    """The games with what `seat` cannot see redrawn (rulebook, Setup and Search). A seat sees every collection, the
    display, the deck's top card by the side it shows ("players see one side of three different cards"; taken as
    known also where two cards share that side, as two pairs of our deck do), and every card taken into a hand
    after the set-up, from the display or off the deck's top face up. Cards discarded to the box (Stash, Solvent)
    are taken as shown. Unseen are the deck below its top and each other seat's hand card from the set-up while
    it holds it (not once chosen to be laid): those cards are dealt again among those places, every order alike.
    The set-up turned over a fixed count of cards, 27 of 55, so the sides up of the cards whose side the seat
    never saw (those, less the collection cards shuffled back at the set-up, plus the other seats' set-up hand
    cards laid since) are shuffled among them, the count of backs kept: each assignment with that count is as
    likely. One narrowing is not modelled: a card shuffled back at the set-up may be dealt to a seat that drew its
    hand card before the card went back."""
    below_top = (np.arange(CARDS)[None, :] > state.drawn[:, None]) & (state.deck >= 0)
    held = (state.hand == state.secret[:, :, None]) & (state.hand != state.pending[:, None, None, 1])
    held[:, seat] = False
    unseen = held.any(axis=2)
    places = np.concatenate([state.deck, np.where(unseen, state.secret, -1)], axis=1)
    redrawn = np.concatenate([below_top, unseen], axis=1)
    dealt = _permuted(places, redrawn, rng)
    secret = np.where(unseen, dealt[:, CARDS:], state.secret)
    hand = state.hand.copy()
    games, seats = np.nonzero(unseen)
    hand[games, seats, held[games, seats].argmax(axis=1)] = secret[games, seats]
    side_unseen = np.zeros_like(state.returned)
    games, at = np.nonzero(redrawn)
    side_unseen[games, places[games, at]] = True
    others = np.arange(params.players) != seat
    side_unseen[np.arange(len(hand))[:, None], state.secret[:, others]] = True
    up = _permuted(state.up, side_unseen & ~state.returned, rng)
    return evolve(state, deck=dealt[:, :CARDS], hand=hand, secret=secret, up=up)


def _permuted(values: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """`values` with those where `mask` holds shuffled among themselves, uniformly, row by row. They are sorted
    first, so that the result depends on which values the mask holds, not on where each lies (as the truth a seat
    cannot see must not show through a determinization drawn from the same stream)."""
    places = np.argsort(~mask, axis=1, kind="stable")  # each row's masked places first
    first = np.arange(mask.shape[1])[None, :] < mask.sum(axis=1)[:, None]
    chosen = np.sort(np.where(mask, values.astype(np.int64), 2**62), axis=1).astype(values.dtype)  # masked, sorted
    order = np.argsort(np.where(first, rng.random(mask.shape), 1.0 + np.arange(mask.shape[1])), axis=1)
    out = values.copy()
    np.put_along_axis(out, places, np.where(first, np.take_along_axis(chosen, order, axis=1),
                                            np.take_along_axis(values, places, axis=1)), axis=1)
    return out


def step(params: Params, state: State, choice: np.ndarray) -> State:
    """Apply the batch's choices for the question it faces (used where it asks), then advance."""
    choice = np.where(state.asked, np.asarray(choice), state.only).astype(np.int64)
    state = APPLY[PHASES[state.phase]](params, state, choice, np.flatnonzero(state.active))
    return _advance(params, state, CYCLE.index(state.phase))


def random_playout(params: Params, state: State, rng: np.random.Generator) -> State:
    """Every game played to its end with uniformly random legal answers: the State, and the rng's, that stepping the
    batch with the `random` player at every seat ends in, in one compiled loop (sim/witkacy/playout.py)."""
    return _played_out(params, state, playout.random_playout, rng)


def completer_playout(params: Params, state: State, rng: np.random.Generator) -> State:
    """Every game played to its end by strategies.witkacy's completer at every seat, from players that begin to
    remember where the playout begins (as a search's rollout players do): the State, and the rng's, that stepping
    such a table ends in (sim/witkacy/playout.py)."""
    return _played_out(params, state, playout.completer_playout, rng, playout.COMPLETER)


def popular_playout(params: Params, state: State, rng: np.random.Generator) -> State:
    """completer_playout with strategies.witkacy's popular at every seat."""
    return _played_out(params, state, playout.completer_playout, rng, playout.POPULAR)


def _played_out(params: Params, state: State, kernel, rng: np.random.Generator, *policy: int) -> State:
    if terminal(params, state):
        return state
    changed = {name: getattr(state, name).copy() for name in PLAYED}
    flags = np.array([params.advanced, params.entirely == "card", params.stash_draw == "deck",
                      params.rush_draw == "deck", params.rush_both == "optional",
                      params.gift_from == "display_and_deck", params.end_count == "deck_and_display"])
    turn = kernel(*changed.values(), params.cards, params.players, flags, state.turn, CYCLE.index(state.phase), rng,
                  *policy)
    ended = changed["ended"]
    return evolve(state, **changed, phase="over", turn=turn, active=~ended, asked=~ended)


PLAYED = ("stack", "size", "copies", "deck", "drawn", "up", "display", "hand", "tokens", "played", "action", "pending",
          "spot", "last_round", "ended", "turns")  # the State's arrays a playout changes, in its kernel's order


def _advance(params: Params, state: State, at: int) -> State:
    """The batch at its next question after CYCLE[at]; a phase whose games all have a single option is played
    for them at once."""
    while True:
        at = (at + 1) % len(CYCLE)
        phase = CYCLE[at]
        if phase == "start":
            state = _start_turn(params, state)
            if state.ended.all():
                return evolve(state, phase="over", active=~state.ended, asked=~state.ended)
        elif phase == "end":
            state = _end_turn(params, state)
        else:
            active = ACTIVE[phase](params, state) & ~state.ended
            if not active.any():
                continue
            legal = np.ascontiguousarray(LEGAL[phase](params, evolve(state, phase=phase, active=active)))
            several, first = fast.options(legal.view(np.uint8), active)
            if (first[active] < 0).any():
                raise RuntimeError(f"Witkacy: no legal option at {phase}, turn {state.turn} (a rule bug)")
            asked = active & several
            state = evolve(state, phase=phase, active=active, asked=asked, legal=legal, only=first)
            if asked.any():
                return state
            state = APPLY[PHASES[phase]](params, state, first, np.flatnonzero(active))


def _start_turn(params: Params, state: State) -> State:
    seat = state.turn % params.players
    return evolve(state, ended=state.ended | (state.last_round & (seat == 0)),
                  action=np.zeros_like(state.action))


def _end_turn(params: Params, state: State) -> State:
    available = state.left + ((state.display >= 0).sum(axis=1) if params.end_count == "deck_and_display" else 0)
    live = ~state.ended
    return evolve(state, last_round=state.last_round | (live & (available < params.players)),
                  turns=state.turns + live, turn=state.turn + 1)


# ---------------------------------------------------------------------------------------------- who is asked


def _hand_size(state: State, seat: int) -> np.ndarray:
    return (state.hand[:, seat] >= 0).sum(axis=1)


def _doing(action: int):
    return lambda params, state: state.action == action


ACTIVE = {
    "search": lambda params, state: _sources(state).any(axis=1),
    "action": lambda params, state: np.ones(len(state.ended), bool),
    "stash_draw": _doing(STASH), "stash_discard": _doing(STASH), "solvent": _doing(SOLVENT),
    "gift": _doing(GIFT), "gift_where": _doing(GIFT), "gift_z": _doing(GIFT),
    "expand": lambda params, state: _hand_size(state, state.turn % params.players) > 0,
    "where": lambda params, state: state.pending[:, 0] >= 0, "z": lambda params, state: state.pending[:, 0] >= 0,
    "expand_again": lambda params, state: state.action == RUSH,
    "where_again": lambda params, state: state.pending[:, 0] >= 0,
    "z_again": lambda params, state: state.pending[:, 0] >= 0,
    "rush_draw": lambda params, state: (state.action == RUSH) & _sources(state).any(axis=1),
}


# ---------------------------------------------------------------------------------------------- options


def _sources(state: State) -> np.ndarray:
    """(B, 3): the display slots holding a card, and the deck if it holds any."""
    return np.concatenate([state.display >= 0, (state.left > 0)[:, None]], axis=1)


def _drawable(state: State, reading: str) -> np.ndarray:
    """What Stash and Rush may draw: any source ('any'), or the deck's top card, a display card only when the deck
    is empty ('deck')."""
    sources = _sources(state)
    if reading == "deck":
        sources[:, :DECK] &= (state.left == 0)[:, None]
    return sources


def _removals(params: Params, state: State, active: np.ndarray, first: bool = False) -> np.ndarray:
    out = np.zeros((len(active), MAX_STACK * params.players), bool)
    fast.removals(read_only(state.stack), state.size, params.cards, active, out, first)
    return out


def _gifts(params: Params, state: State) -> np.ndarray:
    """(B, 6P) `6 * owner + 2 * source + side`: any display card (and with gift_from = 'display_and_deck' the deck's
    top card), either side, to any opponent. A gift always has a place: slid under the whole collection (z = 0) a
    card shows only on cells nothing covered, so it cannot break a completed painting; and a card overlapping the
    collection always fits somewhere (beside a corner)."""
    seat, batch = state.turn % params.players, len(state.ended)
    opponent = np.arange(params.players) != seat
    sources = _sources(state)
    sources[:, DECK] &= params.gift_from == "display_and_deck"
    out = opponent[None, :, None, None] & sources[:, None, :, None] & np.ones((1, 1, 1, 2), bool)
    return out.reshape(batch, 6 * params.players)


def _action_options(params: Params, state: State) -> np.ndarray:
    seat = state.turn % params.players
    tokens = state.tokens[:, seat]
    possible = np.stack([
        _sources(state).any(axis=1),
        _removals(params, state, state.active & tokens[:, SOLVENT - 1], first=True).any(axis=1),
        np.ones(len(tokens), bool),
        _gifts(params, state).any(axis=1),
        _hand_size(state, seat) >= 2], axis=1)
    return np.concatenate([np.ones((len(tokens), 1), bool), tokens & possible], axis=1)


def _cards_in_hand(params: Params, state: State) -> np.ndarray:
    """Each hand card on either side; and KEEP, the second card of a Rush kept, with rush_both = 'optional'."""
    held = state.hand[:, state.turn % params.players] >= 0
    keep = np.full((len(held), 1), state.phase == "expand_again" and params.rush_both == "optional")
    return np.concatenate([np.repeat(held, 2, axis=1), keep], axis=1)


def _where(params: Params, state: State) -> np.ndarray:
    out = np.zeros((len(state.active), WINDOW * WINDOW), bool)
    correction = (state.action == CORRECTION) & (state.phase == "where")
    fast.spots(read_only(state.stack), state.size, state.pending[:, 0].astype(np.int64), params.cards, params.advanced,
               params.entirely == "card", correction, state.active, out)
    return out


def _depths(params: Params, state: State) -> np.ndarray:
    if state.phase == "gift_z":
        out = np.zeros((len(state.active), MAX_STACK + 1), bool)
        fast.gift_depths(read_only(state.stack), state.size, params.cards, state.pending, state.spot, state.active, out)
        return out
    owner_size = state.size[np.arange(len(state.active)), np.maximum(state.pending[:, 0], 0)]
    return np.arange(MAX_STACK + 1)[None, :] <= owner_size[:, None]


LEGAL = {
    "search": lambda params, state: _sources(state),
    "stash_draw": lambda params, state: _drawable(state, params.stash_draw),
    "rush_draw": lambda params, state: _drawable(state, params.rush_draw), "action": _action_options,
    "stash_discard": lambda params, state: state.hand[:, state.turn % params.players] >= 0,
    "solvent": lambda params, state: _removals(params, state, state.active), "gift": _gifts,
    "expand": _cards_in_hand, "expand_again": _cards_in_hand,
    "gift_where": _where, "where": _where, "where_again": _where,
    "gift_z": _depths, "z": _depths, "z_again": _depths,
}


# ---------------------------------------------------------------------------------------------- moves


def _draw(params: Params, state: State, choice: np.ndarray, games: np.ndarray) -> State:
    """Search (and the draws of Stash and Rush): the deck's top card, or a display card, its slot refilled."""
    seat = state.turn % params.players
    hand, drawn = state.hand.copy(), state.drawn.copy()
    source = choice[games]
    from_deck = source == DECK
    hand[games, seat, _hand_size(state, seat)[games]] = np.where(
        from_deck, state.deck[games, np.minimum(drawn[games], CARDS - 1)], state.display[games, np.minimum(source, 1)])
    drawn[games[from_deck]] += 1
    return _refill(evolve(state, hand=hand, drawn=drawn), games[~from_deck], source[~from_deck])


def _choose_action(params: Params, state: State, choice: np.ndarray, games: np.ndarray) -> State:
    seat = state.turn % params.players
    action, tokens = state.action.copy(), state.tokens.copy()
    action[games] = choice[games]
    used = games[choice[games] != NO_ACTION]
    tokens[used, seat, choice[used] - 1] = False
    return evolve(state, action=action, tokens=tokens)


def _discard(params: Params, state: State, choice: np.ndarray, games: np.ndarray) -> State:
    """Stash: a hand card to the box; the hand keeps its order."""
    seat = state.turn % params.players
    hand = state.hand.copy()
    kept = np.arange(HAND)[None, :] != choice[games, None]
    rows = hand[games, seat]
    hand[games, seat] = -1
    hand[games, seat, : HAND - 1] = rows[kept].reshape(len(games), HAND - 1)
    return evolve(state, hand=hand)


def _recount(params: Params, state: State, stack, size, games: np.ndarray, owners: np.ndarray) -> State:
    copies = state.copies.copy()
    fast.copies(read_only(stack), size, params.cards, games, owners.astype(np.int64), copies)
    return evolve(state, stack=stack, size=size, copies=copies)


def _solvent(params: Params, state: State, choice: np.ndarray, games: np.ndarray) -> State:
    stack, size = state.stack.copy(), state.size.copy()
    owner, position = np.divmod(choice[games], MAX_STACK)
    fast.remove(stack, size, games, owner, position)
    return _recount(params, state, stack, size, games, owner)


def _give(params: Params, state: State, choice: np.ndarray, games: np.ndarray) -> State:
    """Gift: which card from the middle of the table (a display slot, or the deck's top) goes, on which side, to
    whom; laid by the where and z questions."""
    owner, rest = np.divmod(choice[games], 6)
    source, side = np.divmod(rest, 2)
    card = np.where(source == DECK, state.deck[games, np.minimum(state.drawn[games], CARDS - 1)],
                    state.display[games, np.minimum(source, DECK - 1)])
    pending = state.pending.copy()
    pending[games] = np.stack([owner, card, side, source], axis=1)
    return evolve(state, pending=pending)


def _pick_card(params: Params, state: State, choice: np.ndarray, games: np.ndarray) -> State:
    """Collection Expansion: which hand card, on which side (none: KEEP); laid by the where and z questions."""
    seat = state.turn % params.players
    games = games[choice[games] != KEEP]
    position, side = np.divmod(choice[games], 2)
    pending = state.pending.copy()
    pending[games] = np.stack([np.full(len(games), seat), state.hand[games, seat, position], side, position], axis=1)
    return evolve(state, pending=pending)


def _place_at(params: Params, state: State, choice: np.ndarray, games: np.ndarray) -> State:
    """The card's top-left cell, from the `where` option and the collection's smallest row and col."""
    owner = state.pending[games, 0]
    placed = np.arange(MAX_STACK)[None, :] < state.size[games, owner][:, None]
    rows = np.where(placed, state.stack[games, owner, :, 2], 127).min(axis=1)
    cols = np.where(placed, state.stack[games, owner, :, 3], 127).min(axis=1)
    code = choice[games]
    spot = state.spot.copy()
    spot[games, 0], spot[games, 1] = rows - 1 + code // WINDOW, cols - 1 + code % WINDOW
    return evolve(state, spot=spot)


def _lay(params: Params, state: State, choice: np.ndarray, games: np.ndarray) -> State:
    """The card goes into the stack at position z; from the hand (one more card played) or, for a Gift, from the
    display, whose slot is refilled, or the deck."""
    stack, size = state.stack.copy(), state.size.copy()
    owner, card, side, source = (state.pending[games, k].astype(np.int64) for k in range(4))
    fast.insert(stack, size, games, owner, card, side, state.spot[games, 0].astype(np.int64),
                state.spot[games, 1].astype(np.int64), choice[games])
    state = _recount(params, state, stack, size, games, owner)
    if state.phase == "gift_z":
        from_deck = source == DECK
        drawn = state.drawn.copy()
        drawn[games[from_deck]] += 1
        state = _refill(evolve(state, drawn=drawn), games[~from_deck], source[~from_deck])
    else:
        positions = np.zeros(len(choice), np.int64)
        positions[games] = source
        played = state.played.copy()
        played[games, state.turn % params.players] += 1
        state = evolve(_discard(params, state, positions, games), played=played)
    pending, spot = state.pending.copy(), state.spot.copy()
    pending[games], spot[games] = -1, 0
    return evolve(state, pending=pending, spot=spot)


def _refill(state: State, games: np.ndarray, slots: np.ndarray) -> State:
    """A display slot emptied and refilled by the deck's top card turned over (left empty when the deck is)."""
    display, up, drawn = state.display.copy(), state.up.copy(), state.drawn.copy()
    refill = state.left[games] > 0
    new = state.deck[games, np.minimum(drawn[games], CARDS - 1)]
    display[games, slots] = np.where(refill, new, -1)
    up[games[refill], new[refill]] ^= 1
    drawn[games] += refill
    return evolve(state, display=display, up=up, drawn=drawn)


APPLY = {"search": _draw, "stash_draw": _draw, "rush_draw": _draw, "action": _choose_action,
         "stash_discard": _discard, "solvent": _solvent, "gift": _give, "expand": _pick_card, "where": _place_at,
         "z": _lay}


# ---------------------------------------------------------------------------------------------- the end


def outcome(params: Params, state: State) -> Outcome:
    """Scoring: a completed painting is worth the number of its copies in all collections; the most points wins,
    a tie goes to the most completed paintings, then is shared. Own columns, by seat: completed copies, copies by
    painting, the actions used, cards played; by game: turns played and cards left in the deck."""
    copies = state.copies.astype(np.int32)
    worth = copies.sum(axis=1, keepdims=True)
    scores = (copies * worth).sum(axis=2)
    paintings = copies.sum(axis=2)
    rank, win = standings(scores.astype(np.int64) * 1000 + paintings, lower_wins=False)
    batch, players = scores.shape
    columns = {
        "paintings": paintings.astype(np.int8),
        "copies_by_painting": list_column("copies_by_painting", state.copies.reshape(batch * players, len(PAINTINGS))),
        "actions_used": list_column("actions_used", ~state.tokens.reshape(batch * players, len(ACTIONS))),
        "cards_played": state.played.astype(np.int8),
        "turns": state.turns.astype(np.int16),
        "deck_left": state.left.astype(np.int8),
    }
    return Outcome(scores, rank, win, columns)


