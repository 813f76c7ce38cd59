"""A compiled scalar loop of Broken and Beautiful's `hater` (issue 18): the yardstick for the work it does.

../shared/yardsticks/limit_broken_beautiful.py plays greedy players; hater does more in each draft: it also
values every card on offer for the opponent who leads now, and takes the card worth most to that opponent when
it is worth more to them than its own best gain plus a margin of 2 points (strategies/broken_beautiful.py,
Hater). This loop plays every seat that way, with the yardstick's rules, tallies and scoring, which it imports
(not copies) from ../shared/yardsticks; keep-or-sell and repairs are the yardstick's greedy ones. Values are in
the yardstick's half points (2 x score + ingots).

    python docs/limit_hater.py [--players 3]

Prints, like the yardsticks, games/s on one core after compilation (over >= 2 s) and, to compare with
`atelier run` of hater at every seat, the mean score and ingots a player and seat 0's share of the wins.
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "shared" / "yardsticks"))
import limit_broken_beautiful as yardstick

MARGIN = 2  # points: Hater.default_knob


@njit(cache=True)
def hater_draft(cnt, seat, area, is_open, ingots, supply, players, kind, pattern, value):
    """The slot hater drafts: its own best (keep or sell, ties at random) unless spiting the leader pays."""
    now = 2 * yardstick.score(cnt, seat, ingots[seat], players) + ingots[seat]
    best, ties, slot = yardstick.NEG - 1, 0, -1
    for i in range(len(area)):
        if is_open[i]:
            k, s = yardstick.keep_sell(cnt, seat, area[i], ingots[seat], supply, players, kind, pattern, value)
            v = max(k, s)
            if v > best:
                best, ties, slot = v, 1, i
            elif v == best:
                ties += 1
                if np.random.randint(ties) == 0:
                    slot = i
    leader, lead = -1, -1
    for q in range(players):  # the first opponent with the highest score now
        if q != seat:
            points = yardstick.score(cnt, q, ingots[q], players)
            if points > lead:
                leader, lead = q, points
    harm, target = yardstick.NEG, -1
    for i in range(len(area)):  # what each card on offer would add to the leader's score
        c = area[i]
        if is_open[i] and kind[c] != yardstick.GOLD:
            yardstick.add(cnt, leader, c, 1, kind, pattern)
            gain = yardstick.score(cnt, leader, ingots[leader], players) - lead
            yardstick.add(cnt, leader, c, -1, kind, pattern)
            if gain > harm:
                harm, target = gain, i
    if target >= 0 and 2 * harm > best - now + 2 * MARGIN:
        return target
    return slot


@njit(cache=True)
def play(n_games, players, seed, kind, pattern, value, out):
    np.random.seed(seed)
    ncards = kind.shape[0]
    size = 2 * players + 1
    rounds = ncards // size
    order = np.arange(ncards)
    cond = np.empty(ncards, np.int64)
    held = np.empty((players, ncards), np.int64)
    nheld = np.empty(players, np.int64)
    cnt = np.empty((players, yardstick.NCOL), np.int64)
    ingots = np.empty(players, np.int64)
    done = np.empty(players, np.int64)
    area = np.empty(size, np.int64)
    is_open = np.empty(size, np.bool_)
    snake = np.empty(2 * players, np.int64)
    keys = np.empty(players, np.int64)
    for _ in range(n_games):
        np.random.shuffle(order)
        cond[:] = yardstick.INTACT
        nheld[:] = 0
        cnt[:, :] = 0
        ingots[:] = 0
        supply = yardstick.SUPPLY
        dealt = 0
        for r in range(rounds):
            first = r % players
            for i in range(players):
                snake[i] = (first + i) % players
                snake[2 * players - 1 - i] = snake[i]
            for i in range(size):
                area[i] = order[dealt + i]
                is_open[i] = True
            dealt += size
            for pick in range(2 * players):  # the snake draft, each card kept or sold at once
                seat = snake[pick]
                slot = hater_draft(cnt, seat, area, is_open, ingots, supply, players, kind, pattern, value)
                is_open[slot] = False
                c = area[slot]
                keep = False
                if kind[c] != yardstick.GOLD:
                    k, s = yardstick.keep_sell(cnt, seat, c, ingots[seat], supply, players, kind, pattern, value)
                    keep = k > s
                if keep:
                    cond[c] = yardstick.INTACT
                    held[seat, nheld[seat]] = c
                    nheld[seat] += 1
                    yardstick.add(cnt, seat, c, 1, kind, pattern)
                else:
                    paid = min(value[c], max(supply, 0))
                    supply -= paid
                    ingots[seat] += paid
            leftover = -1
            for i in range(size):
                if is_open[i]:
                    leftover = area[i]
            t1 = kind[leftover]
            t2 = kind[order[dealt]] if dealt < ncards else -1
            free = t1 == yardstick.GOLD or t2 == yardstick.GOLD
            for p in range(players):  # breakage
                for i in range(nheld[p]):
                    c = held[p, i]
                    t = kind[c]
                    if cond[c] == yardstick.INTACT and t <= yardstick.TEAPOT and (t == t1 or t == t2):
                        cond[c] = yardstick.BROKEN
                        yardstick.crack(cnt, p, c, kind, pattern)
            done[:] = 0
            fixed = True
            while fixed:  # repair turns round the table until a whole round passes
                fixed = False
                for i in range(players):
                    seat = (first + i) % players
                    coins = ingots[seat]
                    free_now = free and done[seat] == 0
                    best = 2 * yardstick.score(cnt, seat, coins, players) + coins
                    ties, choice, cost = 1, -1, 0
                    for h in range(nheld[seat]):
                        c = held[seat, h]
                        cc = 0 if free_now else value[c] + done[seat]
                        if cond[c] != yardstick.BROKEN or cc > coins:
                            continue
                        yardstick.mend(cnt, seat, c, 1, kind, pattern)
                        v = 2 * yardstick.score(cnt, seat, coins - cc, players) + coins - cc
                        yardstick.mend(cnt, seat, c, -1, kind, pattern)
                        if v > best:
                            best, ties, choice, cost = v, 1, c, cc
                        elif v == best:
                            ties += 1
                            if np.random.randint(ties) == 0:
                                choice, cost = c, cc
                    if choice >= 0:
                        cond[choice] = yardstick.REPAIRED
                        yardstick.mend(cnt, seat, choice, 1, kind, pattern)
                        ingots[seat] -= cost
                        supply += cost
                        done[seat] += 1
                        fixed = True
        for p in range(players):  # the end scoring; ties on repaired items, then items
            points = yardstick.score(cnt, p, ingots[p], players)
            repaired, items = 0, 0
            for t in range(10):
                repaired += cnt[p, yardstick.RP + t]
                items += cnt[p, yardstick.WH + t] + cnt[p, yardstick.BR + t]
            keys[p] = (points * 1000 + repaired) * 1000 + items
            out[0] += points
            out[1] += ingots[p]
        top = keys.max()
        if keys[0] == top:
            out[2] += 1.0 / (keys == top).sum()
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--players", type=int, default=3)
    players = parser.parse_args().players
    kind, pattern, value = yardstick.catalog()
    play(5, players, 0, kind, pattern, value, np.zeros(3))  # compile
    out, games, chunk, seed = np.zeros(3), 0, 200, 1
    start = time.perf_counter()
    while time.perf_counter() - start < 2.0:
        play(chunk, players, seed, kind, pattern, value, out)
        games, seed, chunk = games + chunk, seed + 1, min(chunk * 2, 20_000)
    seconds = time.perf_counter() - start
    print(f"compiled scalar broken_beautiful, hater {players}p: {games / seconds:,.0f} games/s on one core "
          f"({games:,} games); per player: score {out[0] / games / players:.2f}, "
          f"ingots {out[1] / games / players:.2f}; seat 0 wins {out[2] / games:.3f}")


if __name__ == "__main__":
    main()
