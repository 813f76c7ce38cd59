"""Broken and Beautiful players, batched. Drafting, keep-or-sell and repairing are separate decisions.

Names: `base[@knob][-no-TYPE]`, e.g. `greedy`, `hater@3`, `greedy-no-teapot`. The `-no-TYPE` variants
never keep cards of that type, so a designer can see how much the type matters. A knob is a number from -1e6
to 1e6 (KNOB_RANGE). A player answers each decision the engine asks with the method named by its kind: `draft`,
`keep` and `repair` (strategies/common.py).

Players value a position by its end score as if the game ended now (the rulebook's table applied to the
table as it stands), plus INGOT_WORTH points per ingot held, since ingots pay for repairs. Breakage risk
is not modelled: these are simple heuristics, not optimal play.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from sim.broken_beautiful import fast
from sim.broken_beautiful.fast import INGOT_WORTH
from sim.broken_beautiful.rules import GOLD, TYPES
from sim.errors import AtelierError
from strategies.common import Catalogue, parse_knob, pick_any, pick_best

BASES = {
    "random": "drafts, keeps or sells, and repairs uniformly at random among the legal choices",
    "greedy": "the largest immediate gain in its own end score, counting an ingot as half a point",
    "collector": "commits at its first pick to the set with most on offer (tea set: cup, saucer, teapot; "
                 "tableware: plate, bowl; display: vase, tea jar), keeps that set and sells the rest",
    "banker": "sells everything in the first half of the game, then drafts greedily; repairs only in the "
              "last two rounds",
    "hater": "takes the card worth most to the leading opponent when that beats its own best gain by a "
             "margin (knob: the margin in points, 2)",
}
STRATEGIES = {**BASES, "BASE-no-TYPE": "BASE that never keeps cards of TYPE, e.g. greedy-no-teapot"}
BENCH_STRATEGY = "greedy"
KNOB_RANGE = (-1e6, 1e6)  # the hater's margin in points: a negative one spites even at a loss; 1e6 never spites
SETS = (("cup", "saucer", "teapot"), ("plate", "bowl"), ("vase", "tea_jar"))


class Player:
    """Greedy play; the other strategies change what a kept card is worth, the draft, or when to repair."""

    default_knob: float | None = None

    def __init__(self, name: str, *, seat: int, params, games, knob=None, banned: int | None = None):
        self.name, self.seat, self.players, self.idx, self.params = name, seat, params.players, games, params
        self.kit = params.kit
        self.knob = self.default_knob if knob is None else knob
        self.banned = banned

    # The three decisions the engine asks for.
    def draft(self, obs, rng):
        view = self.view(obs)
        keep, sell = self.values(view, view.draft)
        return pick_best(self.draft_value(view, keep, sell, rng), view.open, rng)

    def keep(self, obs, rng):
        view = self.view(obs)
        keep, sell = self.values(view, view.card[:, None])
        return (keep[:, 0] > sell[:, 0]).astype(np.intp)

    def repair(self, obs, rng):
        legal = obs.legal[self.idx]
        choice = np.full(len(legal), legal.shape[1] - 1)  # pass where nothing can be mended
        open_ = legal[:, :-1].any(axis=1)
        if open_.any():
            view = self.view(obs, open_)
            choice[open_] = pick_best(self.repair_value(view), view.legal, rng)
        return choice

    # What the heuristics share.
    def view(self, obs, rows: np.ndarray | None = None) -> SimpleNamespace:
        """This player's games (or those of them picked by the mask `rows`), sliced out of the batch, with
        the collections' tally."""
        idx = self.idx
        if rows is not None:
            idx = (np.flatnonzero(rows) if isinstance(idx, slice) else idx[rows])
        names = ("owner", "cond", "ingots", "supply", "draft", "open", "card", "repairs", "free", "legal")
        view = SimpleNamespace(**{k: getattr(obs, k)[idx] for k in names})
        view.rows = slice(None) if rows is None else np.flatnonzero(rows)  # within this player's games
        view.round, view.rounds_left = obs.round, obs.rounds_left
        view.coins = view.ingots[:, self.seat, None]
        return view

    def score(self, view, cards, ingots, repaired=False) -> np.ndarray:
        """Own end score plus INGOT_WORTH per ingot, (n, K)."""
        return fast.scores(view.owner, view.cond, self.seat, cards, ingots, self.kit, repaired) + INGOT_WORTH * ingots

    def values(self, view, cards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Value after keeping (-inf where it may not) and after selling each of `cards` (n, K)."""
        value = self.kit.value[cards].astype(np.int64)
        if self.params.supply_shortfall == "partial":
            value = np.minimum(value, np.maximum(view.supply[:, None], 0))
        # One kernel call values the position now, after keeping and after selling each card.
        n, k = cards.shape
        none = np.full((n, 1 + k), -1)
        both = self.score(view, np.concatenate([none[:, :1], cards, none[:, 1:]], axis=1),
                          np.concatenate([view.coins, np.broadcast_to(view.coins, cards.shape), view.coins + value],
                                         axis=1))
        view.now, keep, sell = both[:, 0], both[:, 1 : 1 + k], both[:, 1 + k :]
        return np.where(self.may_keep(view, cards), keep, -np.inf), sell

    def may_keep(self, view, cards: np.ndarray) -> np.ndarray:
        kind = self.kit.type[cards]
        return (kind != GOLD) & (kind != (-1 if self.banned is None else self.banned))

    def draft_value(self, view, keep, sell, rng) -> np.ndarray:
        return np.maximum(keep, sell)

    def repair_value(self, view) -> np.ndarray:
        """Value after mending each card (columns 0..C-1) or passing (column C); only the cards it may mend are
        valued (the others' columns hold the value of passing with the card's cost paid, never chosen)."""
        cards = np.where(view.legal[:, :-1], np.arange(view.legal.shape[1] - 1), -1)
        cost = self.kit.value[cards] + view.repairs[:, self.seat, None]
        cost = np.where((view.free & (view.repairs[:, self.seat] == 0))[:, None], 0, cost)
        # One kernel call values each mend and, in the last column, passing (no card, ingots kept).
        both = self.score(view, np.concatenate([cards, np.full((len(cost), 1), -1)], axis=1),
                          np.concatenate([view.coins - cost, view.coins], axis=1), repaired=True)
        view.now = both[:, -1]
        return both


class Random(Player):
    def draft(self, obs, rng):  # no valuation: the same draws as pick_best over zeros
        return pick_any(self.view(obs).open, rng)

    def draft_value(self, view, keep, sell, rng):
        return np.zeros(keep.shape)

    def keep(self, obs, rng):
        view = self.view(obs)
        allowed = self.may_keep(view, view.card)
        return (allowed & (rng.random(len(allowed)) < 0.5)).astype(np.intp)

    def repair(self, obs, rng):  # no view and no valuation: the same draws as Player.repair over zeros
        legal = obs.legal[self.idx]
        choice = np.full(len(legal), legal.shape[1] - 1)  # pass where nothing can be mended
        can = legal[:, :-1].any(axis=1)
        choice[can] = pick_any(legal[can], rng)
        return choice

    def repair_value(self, view):
        return np.zeros(view.legal.shape)


class Collector(Player):
    BONUS = 3.0  # points of preference for a card of its set when drafting

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.sets = np.array([[name in group for name in TYPES] for group in SETS])  # (S, T)
        self.chosen = None  # (n,) the set each game committed to

    def draft_value(self, view, keep, sell, rng):
        if self.chosen is None:  # first pick: the set with most cards on offer
            offered = (self.sets[:, self.kit.type[view.draft]] & view.open[None]).sum(axis=2).T  # (n, S)
            self.chosen = pick_best(offered.astype(float), np.ones(offered.shape, bool), rng)
        return np.maximum(keep, sell) + self.BONUS * np.isfinite(keep)

    def may_keep(self, view, cards):
        if self.chosen is None:
            return super().may_keep(view, cards)
        return super().may_keep(view, cards) & self.sets[self.chosen[view.rows, None], self.kit.type[cards]]

    def repair_value(self, view):
        value = super().repair_value(view)
        mine = self.sets[self.chosen[view.rows]][:, self.kit.type] if self.chosen is not None else True
        value[:, :-1] = np.where(mine, value[:, :-1], -np.inf)
        return value


class Banker(Player):
    def may_keep(self, view, cards):
        early = view.round < (view.round + view.rounds_left + 1) / 2  # the first half of the rounds
        return super().may_keep(view, cards) & (not early)

    def repair_value(self, view):
        value = super().repair_value(view)
        if view.rounds_left > 1:
            value[:, :-1] = -np.inf
        return value


class Hater(Player):
    default_knob = 2.0

    def draft_value(self, view, keep, sell, rng):
        own = np.where(view.open, np.maximum(keep, sell), -np.inf)  # the cards still on offer
        harm = self.leader_gains(view)
        target = harm.argmax(axis=1)
        spite = harm.max(axis=1) > own.max(axis=1) - view.now + self.knob
        chosen = np.zeros(own.shape, bool)
        chosen[np.arange(len(own)), target] = True
        return np.where(spite[:, None], np.where(chosen, 1.0, 0.0), own)

    def leader_gains(self, view):
        """What each drafting-area card would add to the end score of the opponent who leads now, (n, D)."""
        offered = view.open & (self.kit.type[view.draft] != GOLD)
        cards = np.concatenate([np.full((len(view.coins), 1), -1), np.where(offered, view.draft, -1)], axis=1)
        rivals = [s for s in range(view.ingots.shape[1]) if s != self.seat]
        scores = np.stack([self.rival_score(view, s, cards) for s in rivals], 1)  # (n, R, 1 + D): now, with each card
        leader = scores[np.arange(len(scores)), scores[:, :, 0].argmax(axis=1)]
        return np.where(offered, leader[:, 1:] - leader[:, :1], -np.inf)

    def rival_score(self, view, seat, cards):
        coins = np.broadcast_to(view.ingots[:, seat, None], cards.shape)
        return fast.scores(view.owner, view.cond, seat, cards, coins, self.kit)


CLASSES = {"random": Random, "greedy": Player, "collector": Collector, "banker": Banker, "hater": Hater}


def parse_strategy(name: str) -> tuple[str, float | None, int | None]:
    """`base[@knob][-no-TYPE]` -> (base, knob, banned type index); AtelierError if unknown."""
    head, restricted, banned = name.partition("-no-")
    base = head.partition("@")[0]
    if base not in CLASSES:
        raise AtelierError(f"unknown Broken and Beautiful strategy '{name}'; known: {', '.join(CLASSES)}, "
                           "each optionally with -no-TYPE")
    if restricted and banned not in TYPES[:-1]:
        raise AtelierError(f"'{name}': no card type '{banned}'; types: {', '.join(TYPES[:-1])}")
    _, knob = parse_knob(head, CLASSES[base].default_knob, KNOB_RANGE)
    return base, knob, TYPES.index(banned) if restricted else None


def make_player(name: str, *, seat: int, params, games, secret=None) -> Player:
    """A Broken and Beautiful player for one seat in `games` (an index array or a slice); the game has no
    secrets, so `secret` is None."""
    base, knob, banned = parse_strategy(name)
    return CLASSES[base](name, seat=seat, params=params, games=games, knob=knob, banned=banned)


PLAYERS = Catalogue(STRATEGIES, BENCH_STRATEGY, make_player, parse_strategy,
                    uniform=frozenset({"random"}),  # Random's draws are fast.play_out's
                    fused={"greedy": "greedy_playout"})  # Player's answers, compiled in fast.play_out
