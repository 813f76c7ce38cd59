"""Kintsugi players, batched: a player is a placement policy plus a guesser, named `policy+guesser`.

A component may carry a knob after `@`, a number from 0 to 100, e.g. `camouflage@0.8+bayes@2`. Players see
only what the engine's Observation shows (the table, the card in hand, legal placements) and their own secret
colour.

Piece changes are estimated, not counted: the Euler number of a binary grid (pieces minus holes) is a sum
over its 2x2 windows, and a placement changes only the 9 windows around it. Holes are rare, so the change in
Euler number is a cheap, nearly exact estimate of the change in pieces. The official score is the engine's.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from sim.errors import AtelierError
from sim.game import evolve
from strategies.common import Catalogue, parse_knob, pick_any, pick_best

N_COLORS = 4
KNOB_RANGE = (0.0, 100.0)  # knobs weigh pieces: a negative one turns a heuristic around; 100 is already extreme

POLICIES = {
    "random": "places uniformly at random among the legal placements",
    "greedy": "places to make the fewest pieces of its own colour",
    "camouflage": "few own pieces, and also joins up to two decoy colours (knob: weight of a decoy join, 0.5)",
    "spoiler": "few own pieces, and splits the colour it believes its critic (right neighbour) holds (knob: 0.5)",
}
GUESSERS = {
    "uniform": "guesses one of the three colours that are not its own, uniformly",
    "tracker": "guesses the colour whose pieces the left player's own placements reduced most",
    "bayes": "posterior over the left player's colour, assuming they pick each placement with probability "
             "proportional to exp(-beta * change in their own pieces) (knob: beta, 1.0)",
}
STRATEGIES = {**{f"{k} (policy)": v for k, v in POLICIES.items()},
              **{f"{k} (guesser)": v for k, v in GUESSERS.items()}}
BENCH_STRATEGY = "camouflage+bayes"


def _window_table(connectivity: int) -> np.ndarray:
    """4 x Euler contribution of each 2x2 window pattern (bits: top-left 1, top-right 2, bottom-left 4,
    bottom-right 8). Gray's quad counts: E = (Q1 - Q3 -/+ 2 QD) / 4 for 8- / 4-connected pieces."""
    ones = np.array([bin(code).count("1") for code in range(16)])
    table = (ones == 1).astype(np.int16) - (ones == 3)
    table[[6, 9]] = -2 if connectivity == 8 else 2
    return table


def _patch_table(connectivity: int) -> np.ndarray:
    """4 x Euler number of every 4x4 binary patch, by its 16-bit code (bit 4 * row + col): the sum over its
    nine 2x2 windows. A card laid in the patch's centre changes only those windows."""
    bits = (np.arange(1 << 16)[:, None] >> np.arange(16)) & 1
    grid = bits.reshape(-1, 4, 4)
    codes = grid[:, :-1, :-1] | grid[:, :-1, 1:] << 1 | grid[:, 1:, :-1] << 2 | grid[:, 1:, 1:] << 3
    return _window_table(connectivity)[codes].sum(axis=(1, 2)).astype(np.int8)


PATCH_EULER = {8: _patch_table(8), 4: _patch_table(4)}
def _bit_lut(positions) -> np.ndarray:
    """lut[i, v]: the bit that cell i holding value v (colour + 1; 0 = no card) sets in a 64-bit word made
    of four 16-bit masks, one per colour: bit 16 * colour + positions[i]."""
    lut = np.zeros((len(positions), N_COLORS + 1), np.uint64)
    for i, bit in enumerate(positions):
        lut[i, 1:] = [1 << (16 * colour + bit) for colour in range(N_COLORS)]
    return lut


PATCH_LUT = _bit_lut(range(16))  # a 4x4 patch, cells in reading order
CENTRE_LUT = _bit_lut((5, 6, 9, 10))  # a 2x2 card at the centre of a 4x4 patch
CENTRE = np.uint16(sum(1 << bit for bit in (5, 6, 9, 10)))


def _colour_codes(cells: np.ndarray, lut: np.ndarray) -> np.ndarray:
    """(..., k) colours -> (..., 4) uint16 bit masks of where each colour lies."""
    flat = np.arange(cells.shape[-1]) * (N_COLORS + 1) + 1 + cells  # index into lut.ravel()
    words = lut.ravel()[flat]
    while words.shape[-1] > 1:  # halving adds run faster than a reduction along a short axis
        half = words.shape[-1] // 2
        words = words[..., :half] + words[..., half:]
    return words.view(np.uint16).reshape(*cells.shape[:-1], N_COLORS)


def piece_deltas(obs, connectivity: int) -> np.ndarray:
    """Estimated change in pieces of each colour for every candidate placement, (B, A, 4) int8.

    Each spot's 4x4 neighbourhood, one bit-plane per colour, is looked up in a table of Euler numbers
    before and after the card. Computed once per observation and shared by every strategy reading it."""
    key = ("deltas", connectivity)
    if key not in obs.memo:
        batch = len(obs.board)
        low = obs.offsets.min(axis=0)
        size = tuple(obs.offsets.max(axis=0) - low + 4)
        corner = obs.pos + low - 1  # the block holding every spot's 4x4 neighbourhood
        block = sliding_window_view(obs.board, size, axis=(1, 2))[np.arange(batch), corner[:, 0], corner[:, 1]]
        around = np.stack([block[:, r : r + 4, c : c + 4] for r, c in obs.offsets - low], axis=1)
        before = _colour_codes(around.reshape(batch, len(obs.offsets), 16), PATCH_LUT)[:, obs.spot]
        card = _colour_codes(obs.layouts.reshape(batch, -1, 4), CENTRE_LUT)[:, obs.rotation]
        table = PATCH_EULER[connectivity]
        obs.memo[key] = (table[(before & ~CENTRE) | card] - table[before]) >> 2  # both are 4 x Euler numbers
    return obs.memo[key]


class Component:
    """Shared context of a policy or guesser: its seat, its games (index or slice) and its own colour."""

    default_knob: float | None = None  # None: the component takes no knob

    def __init__(self, *, seat: int, players: int, colors: np.ndarray, idx, connectivity: int, knob=None):
        self.seat, self.players, self.colors, self.idx = seat, players, colors.astype(np.int64), idx
        self.connectivity = connectivity
        self.knob = self.default_knob if knob is None else knob
        self.n = len(self.colors)

    def deltas(self, obs) -> np.ndarray:
        return piece_deltas(obs, self.connectivity)[self.idx]

    def own(self, values: np.ndarray) -> np.ndarray:
        """Pick each game's own-colour entry from (n, A, 4) values -> (n, A)."""
        return np.take_along_axis(values, self.colors[:, None, None], axis=2)[..., 0]

    def observe(self, obs, actions: np.ndarray) -> None:
        """Called after every placement by any seat; obs is the table before it."""

    def adopt(self, other: Component, games: np.ndarray) -> None:
        """Take what `other` (of the same kind) made of the placements it watched in its games `games`, as if this
        one had watched them: nothing a component keeps of them depends on its own colour."""


class Belief(Component):
    """Posterior over one seat's colour from its placements, under a noisy-greedy opponent model."""

    default_knob = 1.0

    def __init__(self, *, target: int, **context):
        super().__init__(**context)
        self.target = target
        self.evidence = np.zeros((self.n, N_COLORS))  # the log-likelihood of the target's placements, by colour

    @property
    def log_post(self) -> np.ndarray:
        """The log-posterior (up to a constant): the evidence, its own colour ruled out (colours are all different)."""
        log_post = self.evidence.copy()
        log_post[np.arange(self.n), self.colors] = -np.inf
        return log_post

    def observe(self, obs, actions):
        if obs.seat != self.target:
            return
        deltas = self.deltas(obs)
        chosen = deltas[np.arange(self.n), actions[self.idx]]
        # Log-sum-exp from each colour's best placement: every weight is at most 1 and the best is exactly 1,
        # so no beta overflows the exponential (deltas lie in -16..16, their excess over the best in 0..32).
        best = deltas.min(axis=1)
        weights = np.exp(-self.knob * np.arange(33, dtype=np.float32))[deltas - best[:, None, :]]
        self.evidence += -self.knob * (chosen - best) - np.log(weights.sum(axis=1))

    def adopt(self, other: Belief, games: np.ndarray) -> None:
        self.evidence = other.evidence[games]

    def probabilities(self) -> np.ndarray:
        log_post = self.log_post
        post = np.exp(log_post - log_post.max(axis=1, keepdims=True))
        return post / post.sum(axis=1, keepdims=True)


# Policies: place(obs, rng) -> (n,) candidate indices.

class RandomPolicy(Component):
    def place(self, obs, rng):
        legal = obs.legal[self.idx]
        return pick_any(legal, rng)


class GreedyPolicy(Component):
    def place(self, obs, rng):
        return pick_best(self.own(self.deltas(obs)), obs.legal[self.idx], rng, lowest=True)


class CamouflagePolicy(Component):
    default_knob = 0.5

    def place(self, obs, rng):
        deltas = self.deltas(obs)
        others = np.ones((self.n, 1, N_COLORS), bool)
        np.put_along_axis(others, self.colors[:, None, None], False, axis=2)
        decoys = np.minimum(((deltas < 0) & others).sum(axis=2), 2)
        return pick_best(self.own(deltas) - self.knob * decoys, obs.legal[self.idx], rng, lowest=True)


class SpoilerPolicy(Component):
    default_knob = 0.5

    def __init__(self, **context):
        super().__init__(**context)
        critic = (self.seat - 1) % self.players
        self.belief = Belief(**{**context, "knob": None}, target=critic)

    def observe(self, obs, actions):
        self.belief.observe(obs, actions)

    def adopt(self, other: SpoilerPolicy, games: np.ndarray) -> None:
        self.belief.adopt(other.belief, games)

    def place(self, obs, rng):
        deltas = self.deltas(obs)
        critic_gain = (deltas * self.belief.probabilities()[:, None, :]).sum(axis=2)
        return pick_best(self.own(deltas) - self.knob * critic_gain, obs.legal[self.idx], rng, lowest=True)


# Guessers: guess(rng) -> (n,) colours for the left neighbour, the next seat.

class UniformGuesser(Component):
    def guess(self, rng):
        pick = rng.integers(0, N_COLORS - 1, self.n)
        return pick + (pick >= self.colors)

    def probabilities(self) -> np.ndarray:
        """Its belief: each colour but its own alike."""
        return (np.arange(N_COLORS) != self.colors[:, None]) / (N_COLORS - 1)


class TrackerGuesser(Component):
    def __init__(self, **context):
        super().__init__(**context)
        self.reduced = np.zeros((self.n, N_COLORS))

    def observe(self, obs, actions):
        if obs.seat == (self.seat + 1) % self.players:
            self.reduced -= self.deltas(obs)[np.arange(self.n), actions[self.idx]]

    def adopt(self, other: TrackerGuesser, games: np.ndarray) -> None:
        self.reduced = other.reduced[games]

    def guess(self, rng):
        allowed = np.arange(N_COLORS) != self.colors[:, None]
        return pick_best(-self.reduced, allowed, rng, lowest=True)

    def probabilities(self) -> np.ndarray:
        """Its belief, as it holds no probabilities: how likely it is to name each colour, all on the colour the
        placements reduced most (shared among ties), its own colour ruled out."""
        reduced = np.where(np.arange(N_COLORS) != self.colors[:, None], self.reduced, -np.inf)
        top = reduced >= reduced.max(axis=1, keepdims=True) - 1e-9
        return top / top.sum(axis=1, keepdims=True)


class BayesGuesser(Belief):
    def __init__(self, **context):
        super().__init__(**context, target=(context["seat"] + 1) % context["players"])

    def guess(self, rng):
        log_post = self.log_post
        return pick_best(-log_post, np.isfinite(log_post), rng, lowest=True)


POLICY_CLASSES = {"random": RandomPolicy, "greedy": GreedyPolicy, "camouflage": CamouflagePolicy,
                  "spoiler": SpoilerPolicy}
GUESSER_CLASSES = {"uniform": UniformGuesser, "tracker": TrackerGuesser, "bayes": BayesGuesser}


class Player:
    """A placement policy and a guesser playing one seat in a set of games. It writes two result columns
    (`written`): `belief`, its guesser's belief over the left neighbour's colour as it guesses, and
    `belief_entropy`, that belief's entropy in bits after each of the neighbour's placements."""

    def __init__(self, name: str, policy: Component, guesser: Component):
        self.name, self.policy, self.guesser = name, policy, guesser
        self.entropy: list[np.ndarray] = []

    def place(self, obs, rng):
        return self.policy.place(obs, rng)

    def observe(self, kind, public, choices):
        if kind == "place":
            self.policy.observe(public, choices)
            self.guesser.observe(public, choices)
            if public.seat == (self.guesser.seat + 1) % self.guesser.players:
                self.entropy.append(entropy_bits(self.guesser.probabilities()))

    def guess(self, obs, rng):
        return self.guesser.guess(rng)

    def adopt(self, other: Player, games: np.ndarray) -> None:
        """Take what another player of the same strategy (at the same seat, of other colours) made of the placements
        it watched in its games `games`: a search's rollouts start from it instead of watching the game so far again."""
        self.policy.adopt(other.policy, games)
        self.guesser.adopt(other.guesser, games)

    def written(self) -> dict[str, np.ndarray]:
        entropy = np.stack(self.entropy, axis=1) if self.entropy else np.zeros((self.guesser.n, 0))
        return {"belief": self.guesser.probabilities(), "belief_entropy": entropy}


def entropy_bits(probabilities: np.ndarray) -> np.ndarray:
    """(n,) the entropy in bits of each row's distribution."""
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(probabilities > 0, -probabilities * np.log2(probabilities), 0.0)
    return terms.sum(axis=1)


def parse_strategy(name: str) -> tuple[tuple[str, float | None], tuple[str, float | None]]:
    """`policy[@knob]+guesser[@knob]` -> ((policy, knob), (guesser, knob)); AtelierError if unknown."""
    parts = name.split("+")
    if len(parts) != 2:
        raise AtelierError(f"unknown Kintsugi strategy '{name}': a player is POLICY+GUESSER, e.g. greedy+bayes")
    parsed = [_component(part, table) for part, table in zip(parts, (POLICY_CLASSES, GUESSER_CLASSES))]
    return parsed[0], parsed[1]


def _component(text: str, table: dict) -> tuple[str, float | None]:
    base = text.partition("@")[0]
    if base not in table:
        kind = "policy" if table is POLICY_CLASSES else "guesser"
        raise AtelierError(f"unknown Kintsugi {kind} '{base}'; known: {', '.join(table)}")
    return parse_knob(text, table[base].default_knob, KNOB_RANGE)


def make_player(name: str, *, seat: int, params, games, secret: np.ndarray) -> Player:
    """A Kintsugi player; `secret` is its own colour in each of its games."""
    (policy, p_knob), (guesser, g_knob) = parse_strategy(name)
    context = {"seat": seat, "players": params.players, "colors": secret, "idx": games,
               "connectivity": params.connectivity}
    return Player(name, POLICY_CLASSES[policy](**context, knob=p_knob),
                  GUESSER_CLASSES[guesser](**context, knob=g_knob))


def believed(player: Player, world, games: np.ndarray, rng: np.random.Generator):
    """Worlds whose colour of the seat the player's guesser reads (its left neighbour) is drawn from the guesser's
    belief, where it holds one (bayes), rather than uniformly: a search then plays on in the worlds its guesser
    finds likely. The seat that held the colour drawn, if any, takes the neighbour's; every assignment stays one
    of distinct colours, the search's own kept."""
    belief = player.guesser
    if not isinstance(belief, Belief):
        return world
    colors, rows = world.colors.astype(np.int64), np.arange(len(games))
    total = np.cumsum(belief.probabilities()[games], axis=1)
    drawn = (rng.random(len(games))[:, None] * total[:, -1:] >= total).sum(axis=1)  # never a colour it rules out
    holder = colors == drawn[:, None]
    colors[holder] = np.broadcast_to(colors[:, belief.target, None], colors.shape)[holder]
    colors[rows, belief.target] = drawn
    return evolve(world, colors=colors.astype(world.colors.dtype))


PLAYERS = Catalogue(STRATEGIES, BENCH_STRATEGY, make_player, parse_strategy,
                    uniform=frozenset({"random+uniform"}),  # the random placer watches nothing
                    searched=frozenset({"place"}),  # a guess ends the game: a guesser's judgement, not a search's
                    believed=believed)
