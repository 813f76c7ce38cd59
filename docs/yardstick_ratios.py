"""Every shipped strategy's engine speed against the compiled scalar loops of ../shared/yardsticks, in the same minute,
on one core, 3 players (BENCHMARKS.md, "Against the compiled limit").

For each game: its yardstick, then `atelier bench` for each strategy, then the yardstick again, all pinned to one
core (`taskset -c CORE`); a ratio is the engine's games/s over the mean of the two yardstick runs of the policy it
is set against: `random` against the yardstick's random, every other strategy against its heuristic (greedy,
planner, completer), which does the least work of them. A strategy with a compiled loop of its own work under docs/
(OWN_LOOPS) gets one more row, against that loop, run before and after the benches like the yardstick. Where a
yardstick plays a reading of the rules other than the defaults (YARDSTICK_READING: Kunst Stücke's judges the contact
rule after every slide), every strategy is benched again under that reading, in rows of its own.

    python docs/yardstick_ratios.py YARDSTICK_PYTHON [--core 0] [--games kintsugi,witkacy]

YARDSTICK_PYTHON is a Python with numpy and numba (the yardsticks' README makes one). Run from the project root.
Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
YARDSTICKS = ROOT.parent / "shared" / "yardsticks"
# game -> (yardstick script, its heuristic, the strategies set against random, then the rest)
GAMES = {
    "kintsugi": ("limit_kintsugi.py", "greedy", ["random+uniform"],
                 ["greedy+tracker", "greedy+bayes", "camouflage+tracker", "camouflage+bayes", "spoiler+bayes"]),
    "broken_beautiful": ("limit_broken_beautiful.py", "greedy", ["random"],
                         ["greedy", "collector", "banker", "greedy-no-teapot", "hater"]),
    "kaleido": ("limit_kaleido.py", "greedy", ["random"], ["greedy", "majority", "rotator", "hoarder"]),
    "kunst_stuecke": ("limit_kunst.py", "planner", ["random"], ["planner", "slider", "spoiler"]),
    "witkacy": ("limit_witkacy.py", "completer", ["random"], ["completer", "popular", "saboteur"]),
}
GAMES_PER_BENCH = {"kintsugi": 8192}  # the others play the default chunk, 4,096 games
REPEATS = {"kintsugi": 9, "broken_beautiful": 9, "kaleido": 9, "witkacy": 5}  # the fast benches last 10 to 100 ms: a
# slow second of the machine (Kaleido greedy measured 52,000 to 82,000 games/s in the same minutes) must not set them
OWN_LOOPS = {"broken_beautiful": {"hater": "limit_hater.py"}}
# game -> the Params under which the yardstick plays its rules, where they are not the defaults: its strategies are
# benched under both (Kunst Stücke's yardstick judges the contact rule after every slide)
YARDSTICK_READING = {"kunst_stuecke": ["contact=slide"]}
LINE = re.compile(r"compiled scalar \S+, (\w+) 3p: ([\d,]+) games/s")


def yardstick(python: str, core: str, script: str, folder: Path = YARDSTICKS) -> dict[str, float]:
    """games/s of each policy at 3 players."""
    command = ["taskset", "-c", core, python, str(folder / script)]
    if script in ("limit_kunst.py", "limit_witkacy.py"):
        command += ["--players", "3"]
    text = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return {policy: float(rate.replace(",", "")) for policy, rate in LINE.findall(text)}


def bench(core: str, game: str, strategy: str, params: list[str] = ()) -> float:
    command = ["taskset", "-c", core, str(ROOT / ".venv" / "bin" / "atelier"), "bench", game, "--strategy", strategy,
               "--players", "3", "--games", str(GAMES_PER_BENCH.get(game, 4096)),
               "--repeats", str(REPEATS.get(game, 3)), "--json", *(f"--param={p}" for p in params)]
    text = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return json.loads(text)["engine_games_per_s"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("python")
    parser.add_argument("--core", default="0")
    parser.add_argument("--games", default=",".join(GAMES))
    args = parser.parse_args()
    print("| game | strategy | engine games/s | yardstick (policy: games/s, before / after) | engine / yardstick |")
    print("|---|---|---:|---|---:|")
    for game in args.games.split(","):
        script, heuristic, against_random, others = GAMES[game]
        own = OWN_LOOPS.get(game, {})
        before = yardstick(args.python, args.core, script)
        before_own = {name: yardstick(args.python, args.core, loop, ROOT / "docs") for name, loop in own.items()}
        rates = {strategy: bench(args.core, game, strategy) for strategy in against_random + others}
        reading = YARDSTICK_READING.get(game, [])
        if reading:
            rates |= {f"{strategy} ({', '.join(reading)})": bench(args.core, game, strategy, reading)
                      for strategy in against_random + others}
        after = yardstick(args.python, args.core, script)
        after_own = {name: yardstick(args.python, args.core, loop, ROOT / "docs") for name, loop in own.items()}
        for strategy, rate in rates.items():
            policy = "random" if strategy.split(" (")[0] in against_random else heuristic
            row(game, strategy, rate, policy, before[policy], after[policy])
            if strategy in own:
                row(game, strategy, rate, f"{strategy} (docs/{own[strategy]})", before_own[strategy][strategy],
                    after_own[strategy][strategy])


def row(game: str, strategy: str, rate: float, policy: str, before: float, after: float) -> None:
    print(f"| {game} | {strategy} | {rate:,.0f} | {policy}: {before:,.0f} / {after:,.0f} | "
          f"{rate / ((before + after) / 2):.2f} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
