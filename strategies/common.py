"""What every game's players share: the catalogue, the table that seats them, and their small helpers.

A game's players module (`strategies/<name>.py`) declares `PLAYERS = Catalogue(...)`. Its `make` builds one
player for one seat and a set of games, with the same signature in every game:

    make(name, *, seat, params, games, secret) -> player

`games` is an index array or a slice into the batch, `secret` what the seat knows privately in those games
(`GameRules.secrets`; None where the game has no secrets). A player (sim.game.Player) answers a decision of kind K
with its method `K(observation, rng)`, returning one choice per game of its own; the observation's arrays are
read-only. It may define `observe(kind, public, choices)` to watch what every seat learns from each decision
made at the table (`Decision.public`), its own included.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sim.errors import AtelierError, IllegalMove
from sim.game import Decision, evolve, read_only
from sim.kernel import helper, kernel


@dataclass(frozen=True)
class Catalogue:
    """A game's players: what each strategy does, which one `atelier bench` plays, and how to make one."""

    strategies: dict[str, str]  # strategy (or strategy part) -> one line for `atelier games`
    bench: str  # the strategy `atelier bench` seats everywhere by default
    make: Callable[..., Any]  # make(name, *, seat, params, games, secret) -> player
    check: Callable[[str], Any]  # AtelierError naming an unknown strategy (a game's parser of names: its result is
    # not used)
    uniform: frozenset[str] = frozenset()  # strategies that answer the questions of the engine's compiled
    # `random_playout` as pick_any over the legal options, drawing nothing else and watching nothing: a batch they
    # play at every seat may be played on by it, draw for draw the same games
    fused: dict[str, str] = field(default_factory=dict)  # strategy -> the name of the engine's compiled playout
    # that plays it at every seat draw for draw (Kaleido's greedy: engine.greedy_playout), where it has one; a
    # strategy that remembers from one question to the next (Witkacy's completer) begins to remember there
    searched: frozenset[str] | None = None  # the decision kinds a search player searches (None: every kind); it
    # leaves the others to its rollout policy (Kintsugi's guesses, which end the game)
    believed: Callable[[Any, Any, np.ndarray, np.random.Generator], Any] | None = None  # (player, worlds, its
    # games, rng) -> the worlds redrawn from what the player believes of the hidden parts (Kintsugi's guessers), for
    # a search whose policy holds beliefs; None: the worlds `determinize` draws, uniform among the consistent ones
    search_width: int | None = None  # a search player's default width: the options it searches at most, its rollout
    # policy's favourites (strategies/search.py); None: every option


class Table:
    """The players of a batch: at each seat, one player per distinct strategy with the games it plays."""

    def __init__(self, catalogue: Catalogue, params: Any, lineups: np.ndarray, secrets: np.ndarray | None):
        self.seats = [
            [(games, catalogue.make(name, seat=seat, params=params, games=games,
                                    secret=None if secrets is None else secrets[games, seat]))
             for name, games in strategy_groups(lineups[:, seat])]
            for seat in range(lineups.shape[1])
        ]
        self.watchers = [player for seat in self.seats for _, player in seat if hasattr(player, "observe")]
        self.uniform = bool(catalogue.uniform) and np.isin(lineups, list(catalogue.uniform)).all()
        alone = str(lineups.flat[0]) if lineups.size and (lineups == lineups.flat[0]).all() else None
        self.playout = "random_playout" if self.uniform else catalogue.fused.get(alone)  # the engine's, if any

    def choose(self, decision: Decision, rng: np.random.Generator) -> np.ndarray:
        """Ask the acting seat's players, check their choices against the rules, and show what every seat learns
        from them to every player who watches."""
        choices, observation = self._answers(decision, rng)
        self.show(decision, choices, observation)
        return choices

    def answers(self, decision: Decision, rng: np.random.Generator) -> np.ndarray:
        """The acting seat's players' choices, checked against the rules, shown to no one yet (`show`)."""
        return self._answers(decision, rng)[0]

    def show(self, decision: Decision, choices: np.ndarray, observation: Any = None) -> None:
        """Show every watching player what every seat learns from the choices made (`observation`: the decision's,
        made read-only already, where it is what every seat learns)."""
        if decision.public is not None and self.watchers:
            shared = observation is not None and decision.public is decision.observation
            public = observation if shared else read_only(decision.public)
            for player in self.watchers:
                player.observe(decision.kind, public, choices)

    def written(self, batch: int) -> dict[str, np.ndarray]:
        """The result columns the players write (a player's `written()`: name -> (games of its own, k) values), as
        (batch, P, k) float arrays, NaN where a seat's k is less than the longest."""
        out: dict[str, np.ndarray] = {}
        for seat, players in enumerate(self.seats):
            for games, player in players:
                for name, values in (player.written() if hasattr(player, "written") else {}).items():
                    shape = (batch, len(self.seats), values.shape[1])
                    column = out.setdefault(name, np.full(shape, np.nan, np.float32))
                    if column.shape[2] < values.shape[1]:  # longer rows than the seats' before: pad to the longest
                        column = out[name] = np.pad(column, ((0, 0), (0, 0), (0, values.shape[1] - column.shape[2])),
                                                    constant_values=np.nan)
                    column[games, seat, :values.shape[1]] = values
        return out

    def _answers(self, decision: Decision, rng: np.random.Generator) -> tuple[np.ndarray, Any]:
        choices, observation = np.zeros(len(decision.asked), np.intp), read_only(decision.observation)
        for games, player in self.seats[decision.seat]:
            choices[games] = checked(player.name, decision, games, answer(player, decision, observation, rng))
        return choices, observation


def answer(player: Any, decision: Decision, observation: Any, rng: np.random.Generator) -> Any:
    """A player's choices for a decision: a search player (with `decide`) is handed the whole decision, its worlds
    included; a scripted one its kind's method and the observation."""
    if hasattr(player, "decide"):
        return player.decide(evolve(decision, observation=observation), rng)
    method = getattr(player, decision.kind, None)
    if method is None:
        raise AtelierError(f"strategy '{player.name}' has no method {decision.kind}(observation, rng) to answer a "
                           f"'{decision.kind}' decision")
    return method(observation, rng)


def strategy_groups(names: np.ndarray) -> list[tuple[str, np.ndarray | slice]]:
    """(strategy, games) for each distinct strategy among a seat's games; a slice when one plays them all."""
    if len(names) and (names == names[0]).all():  # the common case, without sorting strings
        return [(str(names[0]), slice(None))]
    groups = []
    for name in np.unique(names):
        games = np.flatnonzero(names == name)
        groups.append((str(name), slice(None) if len(games) == len(names) else games))
    return groups


def checked(strategy: str, decision: Decision, games: np.ndarray | slice, answer: Any) -> np.ndarray:
    """A strategy's choices for its games: integers in range and legal wherever the decision asks."""
    legal, asked = decision.legal[games], decision.asked[games]
    choice = np.asarray(answer)
    what, where = f"{decision.kind} choice", f" {decision.where}" if decision.where else ""
    if choice.shape != asked.shape or not np.issubdtype(choice.dtype, np.integer):
        raise IllegalMove(strategy, f"{what}s{where} must be {len(asked)} integers, got shape {choice.shape} "
                                    f"{choice.dtype}")
    out, problem, at = _check(np.ascontiguousarray(legal), np.ascontiguousarray(asked), choice.astype(np.int64))
    if problem == 1:
        raise IllegalMove(strategy, f"{what} {int(choice[at])}{where} is outside 0..{legal.shape[1] - 1}")
    if problem == 2:
        raise IllegalMove(strategy, f"{what} {int(choice[at])}{where} is not allowed by the rules")
    return out


@kernel
def _check(legal, asked, choice):
    """(choices with 0 where not asked, problem, game): problem 1 = the first asked choice outside the
    options, 2 = the first asked choice the rules do not allow, 0 = none."""
    n, k = legal.shape
    out = np.zeros(n, np.intp)
    for i in range(n):
        if asked[i] and (choice[i] < 0 or choice[i] >= k):
            return out, 1, i
    for i in range(n):
        if asked[i]:
            if not legal[i, choice[i]]:
                return out, 2, i
            out[i] = choice[i]
    return out, 0, -1


def pick_best(score: np.ndarray, allowed: np.ndarray, rng: np.random.Generator, lowest: bool = False) -> np.ndarray:
    """Index of the best score (the highest, or the lowest) among allowed options per row; ties broken
    uniformly at random with one draw per row (where no option is allowed, every option ties). Compiled: the
    same draws and the same answers as its numpy twin in tests/twins.py."""
    score = np.asarray(-score if lowest else score)
    if score.shape != allowed.shape:
        score = np.broadcast_to(score, allowed.shape)
    # one layout and type, so that _pick_best compiles once (a copy where they differ costs less than a compile)
    score, allowed = np.ascontiguousarray(score, np.float64), np.ascontiguousarray(allowed, np.bool_)
    return _pick_best(score, allowed, rng.random(len(allowed)))


def pick_any(allowed: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random allowed option per row: pick_best over equal scores, draw for draw, without the
    scores."""
    return _pick_any(np.ascontiguousarray(allowed, np.bool_).view(np.uint8), rng.random(len(allowed)))


@kernel
def _pick_best(score, allowed, draws):
    """Written for speed: two passes over a row, the best masked score, then the options within 1e-9 of it
    listed with no data-dependent branch (on real scores those mispredict often)."""
    n, k = score.shape
    out = np.empty(n, np.intp)
    ties = np.empty(k, np.intp)
    for i in range(n):
        best, some = -np.inf, False
        for j in range(k):
            best = max(best, score[i, j] if allowed[i, j] else -np.inf)
            some |= allowed[i, j]
        if not some:  # every option ties: the draw picks among them all
            out[i] = int(draws[i] * k)
            continue
        floor, count = best - 1e-9, 0
        for j in range(k):
            ties[count] = j
            count += (score[i, j] if allowed[i, j] else -np.inf) >= floor
        out[i] = ties[int(draws[i] * count)]
    return out


@kernel
def _pick_any(allowed, draws):
    """allowed as uint8 (numba sums bytes faster than booleans)."""
    n, k = allowed.shape
    out = np.empty(n, np.intp)
    for i in range(n):
        count = 0
        for j in range(k):
            count += allowed[i, j]
        out[i] = nth_allowed(allowed[i], int(draws[i] * (count if count else k)), count == 0)
    return out


@helper
def nth_allowed(row, nth, every):
    """The index of the nth (from 0) allowed entry of a row (uint8), or of the nth entry when `every`."""
    if every:
        return nth
    seen, j = 0, 0
    while True:
        seen += row[j]
        if seen > nth:
            return j
        j += 1


def parse_knob(text: str, default: float | None, bounds: tuple[float, float]) -> tuple[str, float | None]:
    """`name[@knob]` -> (name, knob or None). AtelierError if a knob is given to a name that takes none
    (`default` None), or is not a number within `bounds` (nan and infinities are never within)."""
    base, with_knob, knob = text.partition("@")
    if not with_knob:
        return base, None
    if default is None:
        raise AtelierError(f"'{base}' takes no knob, got '{text}'")
    try:
        value = float(knob)
    except ValueError:
        raise AtelierError(f"knob of '{text}' must be a number") from None
    low, high = bounds
    if not low <= value <= high:
        raise AtelierError(f"knob of '{text}' must be a number from {low:g} to {high:g}")
    return base, value
