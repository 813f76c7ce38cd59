"""Handful's batched, steppable engine (the contract: sim/game.py). Every game of a batch is at the same card of
the same trick, so the acting seat is the same in all of them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from sim.game import Decision, Outcome, evolve
from sim.scoring import standings

from .rules import Deal, Params, leader


class View(NamedTuple):
    """What the acting seat sees: its own hand, the cards it may play, and the cards face up in the trick."""

    hand: np.ndarray  # (B, cards) bool: the acting seat's cards
    legal: np.ndarray  # (B, cards) bool: those the rules let it play
    played: np.ndarray  # (B, P) the cards played in this trick, -1 not yet
    trick: int
    seat: int


@dataclass(frozen=True)
class State:
    dealt: np.ndarray  # (B, P, hand)
    held: np.ndarray  # (B, P, cards) bool: each seat's hand
    played: np.ndarray  # (B, P) the trick's cards, -1 not yet
    tricks: np.ndarray  # (B, P) tricks won
    card: int = 0  # cards played in the whole game


def init(params: Params, deal: Deal) -> State:
    batch = len(deal.hands)
    held = np.zeros((batch, params.players, params.cards), bool)
    np.put_along_axis(held, deal.hands, True, axis=2)
    return State(deal.hands, held, np.full((batch, params.players), -1), np.zeros((batch, params.players), np.int64))


def seat_to_play(params: Params, state: State) -> int:
    trick, at = divmod(state.card, params.players)
    return (leader(params, trick) + at) % params.players


def legal(params: Params, state: State, seat: int) -> np.ndarray:
    """(B, cards): the seat's cards, only those above the trick's highest where it holds any."""
    held = state.held[:, seat]
    above = np.arange(params.cards) > state.played.max(axis=1, keepdims=True)
    beats = held & above
    return np.where(beats.any(axis=1, keepdims=True), beats, held)


def decision(params: Params, state: State) -> Decision:
    seat, trick = seat_to_play(params, state), state.card // params.players
    view = observe(params, state, seat)
    return Decision("play", seat, view.legal, np.ones(len(view.legal), bool), view, f"in trick {trick + 1}")


def observe(params: Params, state: State, seat: int) -> View:
    return View(state.held[:, seat], legal(params, state, seat), state.played, state.card // params.players, seat)


def determinize(params: Params, state: State, seat: int, rng: np.random.Generator) -> State:
    """The cards the seat cannot see (the other hands and the cards nobody was dealt) dealt again to the other
    seats, as many to each as it holds; the cards played stay with whoever played them."""
    batch, cards = len(state.held), params.cards
    dealt_mask = np.zeros((batch, cards), bool)
    np.put_along_axis(dealt_mask, state.dealt.reshape(batch, -1), True, axis=1)
    unseen = ~state.held[:, seat] & ~(dealt_mask & ~state.held.any(axis=1))  # not its own, not played
    shuffled = np.argsort(np.where(unseen, rng.random((batch, cards)), 2.0), axis=1)
    held, dealt, at = state.held.copy(), state.dealt.copy(), 0
    for other in (s for s in range(params.players) if s != seat):
        count = int(state.held[0, other].sum())
        given = shuffled[:, at:at + count]
        at += count
        kept = ~np.take_along_axis(state.held[:, other], state.dealt[:, other], axis=1)  # the cards it played
        played = state.dealt[:, other][kept].reshape(batch, -1)
        dealt[:, other] = np.concatenate([played, given], axis=1)
        held[:, other] = False
        np.put_along_axis(held[:, other], given, True, axis=1)
    return evolve(state, held=held, dealt=dealt)


def step(params: Params, state: State, choice: np.ndarray) -> State:
    seat, games = seat_to_play(params, state), np.arange(len(choice))
    held, played, tricks = state.held.copy(), state.played.copy(), state.tricks.copy()
    held[games, seat, choice] = False
    played[:, seat] = choice
    if (state.card + 1) % params.players == 0:  # the trick is complete: the highest card takes it
        tricks[games, played.argmax(axis=1)] += 1
        played[:] = -1
    return evolve(state, held=held, played=played, tricks=tricks, card=state.card + 1)


def terminal(params: Params, state: State) -> bool:
    return state.card == state.dealt.shape[1] * state.dealt.shape[2]


def outcome(params: Params, state: State) -> Outcome:
    rank, win = standings(state.tricks, lower_wins=False)
    return Outcome(state.tricks, rank, win, {"high_card": state.dealt.max(axis=2)})
