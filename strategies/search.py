"""Search players, the same for every game: `search@N`, determinized flat Monte Carlo over the whole batch, and
`mcts@N` and `cheat@N`, tree searches (TreeSearch below).

At each decision it searches, a search player tries every legal option of each of its games in worlds drawn by the
game's `determinize` for its seat (Decision.worlds: never the true State), plays each world on to the end with a
scripted rollout policy at every seat, and picks the option with the best mean result for its seat: its win share,
the score margin breaking ties. The rollouts are spent by sequential halving over the options (Karnin, Koren and
Somekh 2013, as mctx's Gumbel root spends its simulations): ceil(log2 k) rounds over k options, each round's share
of the budget split evenly among the options left, the better half kept. Every rollout of one round, over every
game and option, is one batch through the engine (its compiled playout where the policy has one).

Names: `search@N[/K]` or `peek@N[/K]` (or `mcts`, `cheat` with `^C` after them if wanted), then `:POLICY` or
`+PART` if wanted. `cheat` is mcts, and `peek` is search, on the true State (Worlds.truth) instead of the worlds its
seat cannot tell apart: the bound no fair player reaches, so that the gap between the two at one budget is what the
hidden information is worth to that search.
- N: rollouts per option on average (1 to 4096); `search` alone is `search@64`. The budget counts rollouts, never
  time, so the games are the same on any machine.
- K: where a decision offers more options, only the K the policy likes best are searched: its choice, then its
  choice with that one ruled out, and so on (a random option where it names one ruled out). Catalogue.search_width
  gives a game's default where its options run to hundreds (Kunst Stücke's placements: 4); `/0` searches all.
- POLICY: the game's scripted strategy that plays every seat in the rollouts, and answers the decisions the search
  leaves to it (Catalogue.searched: Kintsugi's guesses); the game's bench strategy by default.
- `+PART` replaces the part after '+' of the default policy: Kintsugi's `search@64+tracker` rolls out, and guesses,
  as camouflage+tracker.
A search player draws from its own random stream, spawned from the table's at its first decision, so that the
other players' draws, and so the games they play, do not depend on the search's budget.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from sim.errors import AtelierError
from sim.game import Decision, GameRules, Outcome, Worlds, evolve, play_on, read_only
from sim.kernel import helper, kernel
from strategies.common import Catalogue, Table, answer, parse_knob, pick_any, pick_best

DEFAULT_BUDGET = 64
BUDGET = (1, 4096)
WIDTH = 1024
AT_ONCE = 4096  # rollouts played as one batch, at most: bounds the memory a decision's worlds take
SLOTS = 32  # a tree node's children at most: the first options tried there
EXPLORATION = 0.7  # about sqrt(2) / 2: UCT's constant for results in [0, 1]
MARGIN_WEIGHT, MARGIN_SCALE = 0.05, 5.0  # a tree search's value: its win share + 0.05 tanh(margin / 5 points)
TIE = 1e-9  # the weight of the mean score margin beside the mean win share: it only breaks ties


@dataclass(frozen=True)
class Knobs:
    tree: bool  # `mcts` and `cheat`: a tree search; `search` and `peek`: flat
    cheats: bool  # `cheat`, `peek`: the search plays on from the true State, not from worlds its seat cannot tell apart
    budget: int  # rollouts per option on average
    policy: str  # the scripted strategy of the rollouts
    width: int | None  # the options searched at most, the policy's favourites; None: all
    exploration: float = EXPLORATION  # a tree search's UCT constant, for win shares in [0, 1]


SEARCHES = ("search", "mcts", "cheat", "peek")
TREES, CHEATS = ("mcts", "cheat"), ("cheat", "peek")
LISTED = ("search@N[:POLICY]", "mcts@N[:POLICY]", "cheat@N[:POLICY]", "peek@N[:POLICY]")  # as `atelier games` lists


def is_search(name: str) -> bool:
    return name.partition("@")[0].partition(":")[0].partition("+")[0].partition("/")[0] in SEARCHES


def knobs(name: str, catalogue: Catalogue) -> Knobs:
    """The knobs of a search player's name; AtelierError naming what is wrong."""
    head, colon, policy = name.partition(":")
    head, plus, part = head.partition("+")
    head, hat, exploration = head.partition("^")
    head, slash, width = head.partition("/")
    kind, budget = parse_knob(head, DEFAULT_BUDGET, BUDGET)
    if hat and kind not in TREES:
        raise AtelierError(f"'{name}': only a tree search (mcts, cheat) takes an exploration constant after '^'")
    try:
        constant = float(exploration) if hat else EXPLORATION
    except ValueError:
        constant = -1.0
    if not 0 <= constant <= 10:
        raise AtelierError(f"'{name}': the exploration constant after '^' must be a number from 0 to 10")
    if hat and f"{constant:g}" != exploration:
        raise AtelierError(f"'{name}': write the exploration constant as '^{constant:g}', its one spelling")
    budget = DEFAULT_BUDGET if budget is None else budget
    if budget != int(budget):
        raise AtelierError(f"'{name}': the budget must be a whole number of rollouts")
    if slash and not (width.isdigit() and int(width) <= WIDTH):
        raise AtelierError(f"'{name}': the width after '/' must be a whole number from 0 (every option) to {WIDTH}")
    width = (int(width) or None) if slash else catalogue.search_width
    if colon and plus:
        raise AtelierError(f"'{name}': name the rollout policy after ':' or replace its part after '+', not both")
    if plus:
        policy = f"{catalogue.bench.partition('+')[0]}+{part}"
    policy = policy or catalogue.bench
    if is_search(policy):
        raise AtelierError(f"'{name}': the rollout policy must be a scripted strategy, not a search")
    catalogue.check(policy)
    return Knobs(kind in TREES, kind in CHEATS, int(budget), policy, width, constant)


def searching(rules: GameRules, catalogue: Catalogue) -> Catalogue:
    """The game's catalogue with its search players added."""

    def check(name: str) -> None:
        knobs(name, catalogue) if is_search(name) else catalogue.check(name)

    def make(name: str, *, seat: int, params: Any, games: Any, secret: Any) -> Any:
        if is_search(name):
            found = knobs(name, catalogue)
            return (TreeSearch if found.tree else Search)(name, found, rules, catalogue, seat=seat, params=params,
                                                          games=games, secret=secret)
        return catalogue.make(name, seat=seat, params=params, games=games, secret=secret)

    search = ("determinized flat Monte Carlo: N rollouts per option on average by sequential halving, played out "
              f"by POLICY at every seat ({catalogue.bench} unless named)")
    mcts = ("information-set Monte Carlo tree search (UCT), N iterations per option on average, a world drawn for "
            "each; ^C sets the exploration constant (0.7)")
    cheat = "mcts, but on the true State: it sees every hidden part, a bound no fair player reaches"
    peek = "search, but on the true State: it sees every hidden part, a bound no fair player reaches"
    listed = dict(zip(LISTED, (search, mcts, cheat, peek), strict=True))
    return dataclasses.replace(catalogue, strategies={**catalogue.strategies, **listed},
                               check=check, make=make)


class Search:
    """A search player at one seat, for a set of games."""

    def __init__(self, name: str, knobs: Knobs, rules: GameRules, catalogue: Catalogue, *, seat: int, params: Any,
                 games: Any, secret: Any):
        self.name, self.knobs, self.rules, self.catalogue = name, knobs, rules, catalogue
        self.seat, self.params, self.games = seat, params, games
        self.rest = catalogue.make(knobs.policy, seat=seat, params=params, games=games, secret=secret)
        self.history: list[tuple[str, Any, np.ndarray]] = []  # what the table has shown, where the policy watches
        self.shadow: Table | None = None  # the policy at every seat of the whole batch, watching the game so far
        if hasattr(self.rest, "observe"):
            self.observe = self.watch
        self.stream: np.random.Generator | None = None

    def watch(self, kind: str, public: Any, choices: np.ndarray) -> None:
        """Keep what every seat learns from a decision, for the rollouts' watching players, and show it to the
        policy's player that answers for this one. Where the policy's players can adopt what another watched
        (`adopt`), a shadow table of them (the policy at every seat of the whole batch, shown only what every seat
        is shown) watches it instead, once for all the rollouts to come."""
        self.rest.observe(kind, public, choices)
        if not hasattr(self.rest, "adopt"):
            self.history.append((kind, public, choices))
            return
        if self.shadow is None:
            batch, players = len(choices), self.params.players
            self.shadow = Table(self.catalogue, self.params, np.full((batch, players), self.knobs.policy),
                                np.zeros((batch, players), np.int64))  # no colour changes what they keep
        for player in self.shadow.watchers:
            player.observe(kind, public, choices)

    def decide(self, decision: Decision, rng: np.random.Generator) -> np.ndarray:
        """One choice per game of its own: searched where the decision asks and offers more than one option."""
        if self.catalogue.searched is not None and decision.kind not in self.catalogue.searched:
            return answer(self.rest, decision, decision.observation, rng)
        if decision.worlds is None:
            raise AtelierError(f"strategy '{self.name}' searches the batched engine's games, and the scalar reference "
                               "(atelier play) offers none: seat it in an experiment")
        if self.stream is None:
            self.stream = rng.spawn(1)[0]
        games = np.arange(len(decision.asked))[self.games]
        legal, asked = self.shortlist(decision, games), decision.asked[games]
        choice = np.where(asked, legal.argmax(axis=1), 0)
        searched = asked & (legal.sum(axis=1) > 1)
        if searched.any():
            choice[searched] = self.best(decision.worlds, games[searched], np.flatnonzero(searched), legal[searched])
        return choice

    def shortlist(self, decision: Decision, games: np.ndarray) -> np.ndarray:
        """(n, A) the options searched in each game of its own: the legal ones, or the `width` the policy likes
        best, found by asking it again with each answer ruled out (a random option left where it names one ruled
        out: a policy may not read its mask, as Kaleido's greedy never takes an extra action). It is asked once
        more with every option open, so that what it remembers of its answer is its own choice's."""
        legal, width = decision.legal[games], self.knobs.width
        if width is None or (legal.sum(axis=1) <= width).all():
            return legal
        ask = getattr(self.rest, decision.kind)
        kept, left, everything = np.zeros_like(legal), legal.copy(), decision.legal.copy()
        rows = np.arange(len(games))
        for _ in range(width):
            everything[games] = left
            pick = np.asarray(ask(read_only(evolve(decision.observation, legal=everything)), self.stream))
            pick = np.clip(pick, 0, legal.shape[1] - 1)
            pick = np.where(left[rows, pick], pick, pick_any(left, self.stream))  # it named a ruled-out option
            kept[rows, pick] |= left[rows, pick]
            left[rows, pick] = False
        ask(decision.observation, self.stream)
        return kept

    def best(self, worlds: Worlds, games: np.ndarray, own: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """The best option of each game (`games` of the batch, `own` among this player's) by sequential halving:
        (n,) option indices."""
        n, width = legal.shape
        count = legal.sum(axis=1)
        rounds = np.ceil(np.log2(count)).astype(np.int64)
        total = self.knobs.budget * count
        wins, margins, plays = (np.zeros(n * width) for _ in range(3))
        alive = legal.copy()
        for _ in range(rounds.max()):
            live = alive.sum(axis=1)
            going = live > 1
            rows, options = np.nonzero(alive & going[:, None])
            repeats = np.maximum(1, total // (rounds * live))[rows]
            rows, options = np.repeat(rows, repeats), np.repeat(options, repeats)
            win, margin = self.rollouts(worlds, games[rows], own[rows], options)
            cell = rows * width + options
            wins += np.bincount(cell, win, n * width)
            margins += np.bincount(cell, margin, n * width)
            plays += np.bincount(cell, minlength=n * width)
            value = self.value(wins, margins, plays).reshape(n, width)
            alive &= self.ranked(value, alive) < np.where(going, (live + 1) // 2, live)[:, None]
        return self.ranked(self.value(wins, margins, plays).reshape(n, width), alive).argmin(axis=1)

    @staticmethod
    def value(wins: np.ndarray, margins: np.ndarray, plays: np.ndarray) -> np.ndarray:
        seen = np.maximum(plays, 1)
        return wins / seen + TIE * margins / seen

    def ranked(self, value: np.ndarray, alive: np.ndarray) -> np.ndarray:
        """(n, width): each alive option's rank by value, 0 the best, ties in random order; dead ones last."""
        order = np.lexsort((self.stream.random(value.shape), np.where(alive, -value, np.inf)), axis=1)
        return np.argsort(order, axis=1)

    def rollouts(self, worlds: Worlds, games: np.ndarray, own: np.ndarray, options: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
        """(win share, score margin) of this seat in one world per (game, option), played out by the policy."""
        win, margin = np.empty(len(games)), np.empty(len(games))
        for start in range(0, len(games), AT_ONCE):
            part = slice(start, start + AT_ONCE)
            world = self.world(worlds, games[part], own[part])
            outcome = self.played_out(world, self.rollout_table(world, games[part], options[part]), options[part])
            win[part] = outcome.win[:, self.seat]
            margin[part] = margins(outcome.scores, self.rules.lowest_wins)[:, self.seat]
        return win, margin

    def written(self) -> dict[str, np.ndarray]:
        """The result columns its policy's player writes (Kintsugi's guesser, which the search leaves the guess to)."""
        return self.rest.written() if hasattr(self.rest, "written") else {}

    def world(self, worlds: Worlds, games: np.ndarray, own: np.ndarray) -> Any:
        """One world per game named: drawn for this seat (from its policy's beliefs where the game has them), or
        the true games for `cheat`."""
        if self.knobs.cheats:
            return worlds.truth(games)
        world = worlds.draw(self.seat, games, self.stream)
        if self.catalogue.believed is not None:
            world = self.catalogue.believed(self.rest, world, own, self.stream)
        return world

    def played_out(self, world: Any, table: Table, options: np.ndarray) -> Outcome:
        """The rollouts themselves: each world's option taken, then the game played to its end by the table."""
        engine, params = self.rules.engine, self.params
        return engine.outcome(params, self.finished(engine.step(params, world, options), table))

    def finished(self, world: Any, table: Table) -> Any:
        """The worlds played to their end by the table: its compiled playout first, where it has one."""
        engine, params = self.rules.engine, self.params
        if table.playout:
            world = getattr(engine, table.playout)(params, world, self.stream)
        return play_on(engine, params, world, table.choose, self.stream)

    def rollout_table(self, world: Any, games: np.ndarray, options: np.ndarray | None = None) -> Table:
        """The policy at every seat of the worlds, its watching players shown what the table has shown so far in
        the games the worlds were drawn from, then the option each world tries (if given): they play on as if they
        had sat there from the start."""
        lineups = np.full((len(games), self.params.players), self.knobs.policy)
        table = Table(self.catalogue, self.params, lineups, self.rules.secrets(world))
        if table.watchers:
            if self.shadow is not None:  # every seat one player, of all the worlds
                for seat, [(_, player)] in enumerate(table.seats):
                    player.adopt(self.shadow.seats[seat][0][1], games)
            shown = [(kind, rows_of(public, games), choices[games]) for kind, public, choices in self.history]
            now = self.rules.engine.decision(self.params, world)
            if options is not None and now.public is not None:
                shown.append((now.kind, now.public, options))
            for kind, public, choices in shown:
                for player in table.watchers:
                    player.observe(kind, read_only(public), choices)
        return table





class TreeSearch(Search):
    """`mcts@N` and `cheat@N`: single-observer information-set Monte Carlo tree search (Cowling, Powley and Whitehouse
    2012) with UCT, one tree per game of its own, N iterations per option on average (as many rollouts as
    `search@N`). Every iteration draws a new world (the true State for `cheat`), descends the tree by UCT over the
    options legal in that world (each option's availability counted for its exploration term), adds one node, plays
    on with the policy, and backs up every seat's value, its win share plus MARGIN_WEIGHT tanh(margin / MARGIN_SCALE)
    (so that where every option wins, or loses, the margin still ranks them): each node's statistics are those of the
    seat that acts there, for any number of players. Decisions the game leaves to the policy are the policy's inside
    the tree too.

    The trees are arrays of fixed capacity (game x node x slot, -1 where empty, after mctx's layout), a node keeping
    its first SLOTS options tried. Iterations run side by side, a wave of them per game filling one batch of worlds:
    within a wave each is counted as a visit as soon as it is chosen (a virtual loss), so that the next goes
    elsewhere."""

    def best(self, worlds: Worlds, games: np.ndarray, own: np.ndarray, legal: np.ndarray) -> np.ndarray:
        n = len(games)
        budget = self.knobs.budget * legal.sum(axis=1)
        tree = Tree(n, int(budget.max()) + 1)
        per_wave = max(1, min(AT_ONCE // n, int(np.sqrt(budget.max()))))  # more waves, more of them informed
        done = np.zeros(n, np.int64)
        while (done < budget).any():
            runs = np.minimum(per_wave, budget - done)
            self.wave(tree, worlds, games, own, legal, np.repeat(np.arange(n), runs))
            done += runs
        root = tree.visits[:, 0]
        slot = pick_best(root, tree.action[:, 0] >= 0, self.stream)
        return tree.action[np.arange(n), 0, slot]

    def wave(self, tree: Tree, worlds: Worlds, games: np.ndarray, own: np.ndarray, legal: np.ndarray,
             runs: np.ndarray) -> None:
        """One iteration per entry of `runs` (the game it searches), all at once."""
        engine, params, kinds = self.rules.engine, self.params, self.catalogue.searched
        world = self.world(worlds, games[runs], own[runs])
        table = self.rollout_table(world, games[runs])
        node, inside, path, first = np.zeros(len(runs), np.int64), np.ones(len(runs), bool), [], True
        while not engine.terminal(params, world):
            if not inside.any():
                world = self.finished(world, table)
                break
            decision = engine.decision(params, world)
            choices = table.answers(decision, self.stream)
            if kinds is None or decision.kind in kinds:
                at = np.flatnonzero(inside & decision.asked)
                options = legal[runs[at]] if first else decision.legal[at]
                step = self.descend(tree, runs[at], node[at], options)
                moved = at[step.moved]
                choices[moved] = step.action
                path.append((moved, runs[moved], node[moved], step.slot, decision.seat))
                node[moved] = step.child
                inside[at[~step.moved]] = False
                inside[moved[step.added]] = False
            first = False
            table.show(decision, choices)
            world = engine.step(params, world, choices)
        outcome = engine.outcome(params, world)
        value = outcome.win + MARGIN_WEIGHT * np.tanh(margins(outcome.scores, self.rules.lowest_wins) / MARGIN_SCALE)
        for rows, trees, nodes, slots, seat in path:
            np.add.at(tree.wins, (trees, nodes, slots), value[rows, seat])

    def descend(self, tree: Tree, trees: np.ndarray, nodes: np.ndarray, options: np.ndarray) -> Descent:
        """One tree step for iterations at `nodes` of `trees`, the options (m, A) legal in their worlds, in order:
        each sees the visits the earlier ones of its game counted (compiled: _descend)."""
        draws = self.stream.random((len(trees), 2))
        moved, slot, action, child, added = _descend(tree.action, tree.child, tree.visits, tree.wins, tree.available,
                                                     tree.used, trees, nodes, np.ascontiguousarray(options, np.bool_),
                                                     self.knobs.exploration, draws)
        return Descent(moved, slot[moved], action[moved], child[moved], added[moved])


class Descent(NamedTuple):
    moved: np.ndarray  # (m,) bool: the iteration chose in the tree (else it leaves it: no option fits a slot)
    slot: np.ndarray  # the slot chosen, of those moved
    action: np.ndarray  # its option
    child: np.ndarray  # the node it leads to
    added: np.ndarray  # whether that node was added now (the iteration then leaves the tree)


class Tree:
    """The trees of n games in arrays: node x slot -> the option, the node it leads to, the visits, the summed value
    (`wins`) of the seat acting at the node, and how often the option was legal there (its availability)."""

    def __init__(self, games: int, capacity: int):
        shape = (games, capacity, SLOTS)
        self.action, self.child = np.full(shape, -1, np.int64), np.full(shape, -1, np.int64)
        self.visits, self.wins, self.available = np.zeros(shape), np.zeros(shape), np.zeros(shape)
        self.used = np.ones(games, np.int64)  # nodes in use; node 0 is the root


@kernel
def _descend(action, child, visits, wins, available, used, trees, nodes, options, exploration, draws):
    """One tree step per iteration, in order (Tree's arrays updated in place): at its node, an option not tried
    there yet, picked at random (draws[i, 0]), where a slot is free, else the best of those tried by UCT among the
    options legal in its world, ties at random (draws[i, 1]); every option legal there and tried counts as
    available, and its visit is counted at once (a virtual loss for the iterations after it). Returns (moved,
    slot, action, child, added) per iteration: moved is False where no option of its world fits a slot."""
    m, k = options.shape
    slots = action.shape[2]
    moved, added = np.zeros(m, np.bool_), np.zeros(m, np.bool_)
    slot, chosen, nxt = np.zeros(m, np.int64), np.zeros(m, np.int64), np.zeros(m, np.int64)
    tried = np.zeros(k, np.bool_)
    ties, score = np.empty(slots, np.int64), np.empty(slots)
    for i in range(m):
        t, x = trees[i], nodes[i]
        tried[:] = False
        free, here_any = -1, False
        for s in range(slots):
            a = action[t, x, s]
            if a < 0:
                if free < 0:
                    free = s
                continue
            tried[a] = True
            if options[i, a]:
                available[t, x, s] += 1
                here_any = True
        untried = 0
        for a in range(k):
            untried += options[i, a] and not tried[a]
        if untried > 0 and free >= 0:
            pick = min(int(draws[i, 0] * untried), untried - 1)
            for a in range(k):
                if options[i, a] and not tried[a]:
                    if pick == 0:
                        break
                    pick -= 1
            action[t, x, free], child[t, x, free] = a, used[t]
            available[t, x, free] += 1
            used[t] += 1
            s, added[i] = free, True
        elif here_any:
            best = -np.inf
            for s in range(slots):
                a = action[t, x, s]
                score[s] = _ucb(wins[t, x, s], visits[t, x, s], available[t, x, s], exploration) \
                    if a >= 0 and options[i, a] else -np.inf
                best = max(best, score[s])
            count = 0
            for s in range(slots):
                if score[s] > -np.inf and (score[s] >= best - 1e-9 or score[s] == best):
                    ties[count] = s
                    count += 1
            s = ties[min(int(draws[i, 1] * count), count - 1)]
        else:
            continue
        moved[i], slot[i], chosen[i], nxt[i] = True, s, action[t, x, s], child[t, x, s]
        visits[t, x, s] += 1
    return moved, slot, chosen, nxt, added


@helper
def _ucb(wins, visits, available, exploration):
    """UCT's score of an option: its mean value and its exploration bonus; an option never visited comes first."""
    if visits == 0:
        return np.inf
    return wins / visits + exploration * np.sqrt(np.log(max(available, 1.0)) / visits)


def margins(scores: np.ndarray, lowest_wins: bool) -> np.ndarray:
    """(B, P) each seat's score less the best other seat's (the other way round where the lowest score wins)."""
    scores = scores.astype(np.float64) * (-1 if lowest_wins else 1)
    order = np.sort(scores, axis=1)
    best_other = np.where(scores >= order[:, -1:], order[:, -2:-1], order[:, -1:])
    return scores - best_other


def rows_of(public: Any, games: np.ndarray) -> Any:
    """What a decision showed every seat (a dataclass), for some of its games, in the order named: each array
    along its batch axis but those its class names SHARED (the same for every game), and what the strategies worked
    out from it and kept in its scratch dicts (`memo`) where that is rows of the batch too (an array or a tuple of
    arrays along its batch axis: computed game by game, so the same rows as working them out again); any other
    scratch is left out."""
    shared = getattr(public, "SHARED", ())
    arrays = {name: value for name, value in vars(public).items()
              if isinstance(value, np.ndarray) and name not in shared}
    batch = len(next(iter(arrays.values())))
    changes = {name: value[games] for name, value in arrays.items()}
    for name, memo in vars(public).items():
        if isinstance(memo, dict):
            changes[name] = {key: _rows(kept, games) for key, kept in memo.items() if _by_game(kept, batch)}
    return evolve(public, **changes)


def _by_game(kept: Any, batch: int) -> bool:
    parts = kept if isinstance(kept, tuple) else (kept,)
    return all(isinstance(part, np.ndarray) and part.ndim and len(part) == batch for part in parts)


def _rows(kept: Any, games: np.ndarray) -> Any:
    return tuple(part[games] for part in kept) if isinstance(kept, tuple) else kept[games]
