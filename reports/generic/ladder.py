"""The skill ladder: an experiment whose manifest names `ladder` rungs, weakest first (sim.experiment.ladder_lineups).
Every rung plays every seat of the same deals (the symmetric ladder), then each rung sits one up, in each seat in
turn, over the rung below (the one-up ladder). Its numbers are read rung by rung, never pooled over rungs: the start
player's edge along the symmetric ladder (and whether the edge among the weakest rung, the heuristic, survives at the
strongest), the stronger seat's win share along the one-up ladder, seat by seat, and how many games a tighter
interval takes. What hidden information is worth (`cheat@N` against `mcts@N`) is read wherever the two meet."""

from __future__ import annotations

import math
import re

import numpy as np
import polars as pl

from reports.analysis import GAME_KEY, GameData, record
from reports.charts import finished_chart, palette, panels
from reports.fmt import count, listing, pct, pct_ci, pp, pp_ci, seat_name
from reports.generic.seats import first_player_advantage, paired_shares, seat_test
from reports.render import Chart, Finding, est, share_ci, table
from reports.stats import paired_difference, paired_ratio

TIGHTER_PP = 0.03  # the half-width of a start edge, or a share, that the games-needed sentence aims at
SEAT_TEST = 0.05  # the level of the test that the stronger seat's share is the same from every seat
CHEAT = re.compile(r"(cheat|peek)@(.+)")  # cheat@N..., peek@N...: mcts@N..., search@N... on the true State
FAIR = {"cheat": "mcts", "peek": "search"}


def rungs(data: GameData) -> list[str]:
    """The ladder's rungs, weakest first, as the manifest records them; [] for an experiment that is no ladder."""
    if data.experiment is None:
        return []
    return [str(r) for r in (data.manifests[0].get("resolved") or {}).get("ladder") or ()]


def is_ladder(data: GameData) -> bool:
    return bool(rungs(data))


def ladder_rows(data: GameData) -> pl.DataFrame:
    """The rows with `rung` (the index of the row's strategy among the rungs), `top` (the game's strongest rung) and
    `kind`: 'symmetric' (one rung at every seat), 'one_up' (rung `top` at one seat, the rung below at the others) or
    null (a game of neither kind: none in a ladder's own lineups)."""
    def compute() -> pl.DataFrame:
        names = rungs(data)
        rank = pl.col("strategy").replace_strict(names, list(range(len(names))), default=-1, return_dtype=pl.Int32)
        rows = data.rows.with_columns(rung=rank).with_columns(
            top=pl.col("rung").max().over(GAME_KEY), bottom=pl.col("rung").min().over(GAME_KEY),
            at_top=(pl.col("rung") == pl.col("rung").max()).sum().over(GAME_KEY))
        kind = (pl.when(pl.col("bottom") < 0).then(None)
                .when(pl.col("top") == pl.col("bottom")).then(pl.lit("symmetric"))
                .when((pl.col("top") == pl.col("bottom") + 1) & (pl.col("at_top") == 1)).then(pl.lit("one_up")))
        return rows.with_columns(kind=kind).drop("bottom", "at_top")
    return data.computed("ladder_rows", compute)


def games_of_kind(data: GameData, kind: str) -> pl.DataFrame | None:
    """A ladder's rows of the games of one kind ('symmetric', 'one_up': ladder_rows); None for an experiment that is
    no ladder, or has no such games."""
    if not is_ladder(data):
        return None
    rows = ladder_rows(data).filter(pl.col("kind") == kind)
    return None if rows.is_empty() else rows


# ---------------------------------------------------------------- the symmetric ladder: the start player's edge


def symmetric_ladder(data: GameData) -> dict | None:
    return data.computed("symmetric_ladder", lambda: symmetric_of(data))


def symmetric_of(data: GameData) -> dict | None:
    """Per player count and rung of the symmetric ladder: each seat's win share and the start player's edge
    (first_player_advantage); and per player count the edge's change from the weakest rung to the strongest, paired
    over the deals both played."""
    rows = games_of_kind(data, "symmetric")
    if rows is None:
        return None
    shares = paired_shares(rows, ["players", "rung"], "seat")
    edges = first_player_advantage(shares).with_columns(strategy=rung_name(data))
    changes = []
    for (players,), group in sorted(rows.partition_by("players", as_dict=True).items()):
        mine = edges.filter(pl.col("players") == players).sort("rung")
        bottom, top = mine.row(0, named=True), mine.row(-1, named=True)
        if bottom["rung"] == top["rung"]:
            continue
        start = pl.col("seat") == 0
        found = paired_difference(group, start & (pl.col("rung") == top["rung"]),
                                  start & (pl.col("rung") == bottom["rung"]))
        width = top["advantage_hi"] - top["advantage_lo"]
        changes.append({"players": players, "low": bottom["rung"], "high": top["rung"], **found, "steps": mine,
                        "bottom": bottom, "top": top, "needed": games_needed(width, data, players),
                        "played": data.rows.filter(pl.col("players") == players)["game_id"].n_unique()})
    return {"shares": shares, "edges": edges, "changes": changes, "rungs": rungs(data)}


def rung_name(data: GameData) -> pl.Expr:
    """The strategy of each row's `rung`, by the ladder's rungs."""
    names = rungs(data)
    return pl.col("rung").replace_strict(list(range(len(names))), names, return_dtype=pl.String)


def edge_word(lo: float, hi: float) -> str:
    """'clear' where the interval excludes 0, 'none' where it holds it, '–' where there is none."""
    if math.isnan(lo) or math.isnan(hi):
        return "–"
    return "clear" if lo > 0 or hi < 0 else "none"


def survival(bottom: dict, top: dict) -> str:
    """What becomes of the weakest rung's start edge at the strongest rung, in a sentence."""
    low, high = bottom["strategy"], top["strategy"]
    before, after = (edge_word(r["advantage_lo"], r["advantage_hi"]) for r in (bottom, top))
    if "–" in (before, after):
        return f"Whether the edge among {low} survives at {high} cannot be judged (too few deals)."
    if before == "clear" and after == "clear":
        same = (bottom["advantage"] > 0) == (top["advantage"] > 0)
        return f"The clear edge among {low} {'survives' if same else 'reverses'} at {high}."
    if before == "clear":
        return f"The clear edge among {low} is not confirmed at {high} (its interval there holds 0)."
    if after == "clear":
        return f"Among {low} the edge is not clear; at {high} it is."
    return f"Neither {low} nor {high} shows a clear edge."


def symmetric_finding(result: dict, data: GameData) -> Finding:
    """Per player count: the start edge at every rung, its change from the weakest rung to the strongest (grows,
    shrinks, no clear change), whether the weakest rung's edge survives, and the games a tighter interval needs."""
    edges, numbers, sentences = result["edges"], symmetric_numbers(result, data), []
    for change in result["changes"]:
        steps = listing(f"{pp(r['advantage'])} ({pp_ci(r['advantage_lo'], r['advantage_hi'])}) at {r['strategy']}"
                        for r in change["steps"].iter_rows(named=True))
        bottom, top = change["bottom"], change["top"]
        grows = top["advantage"] - bottom["advantage"]
        trend = ("no clear change" if edge_word(change["lo"], change["hi"]) != "clear" else
                 "it grows" if abs(top["advantage"]) > abs(bottom["advantage"]) and grows * top["advantage"] > 0
                 else "it shrinks" if abs(top["advantage"]) < abs(bottom["advantage"]) else "it moves")
        sentences.append(
            f"At {change['players']} players the start player's edge is {steps}. From {bottom['strategy']} to "
            f"{top['strategy']} it changes by {pp(change['estimate'])} ({pp_ci(change['lo'], change['hi'])}, "
            f"paired over the same deals): {trend}. {survival(bottom, top)} {needed_sentence(change)}")
    if not sentences:
        return Finding("Seat advantage along the ladder.", "Only one rung of the ladder was played.",
                       numbers=tuple(numbers))
    return Finding("Seat advantage along the ladder.", " ".join(sentences),
                   table("", edges.sort("players", "rung"), ("Players", "players"), ("Rung", "strategy"),
                         ("Games", "games", count), *est("Start edge", "advantage", pp, pp_ci)),
                   tuple(numbers))


def games_needed(width: float, data: GameData, players: int) -> int | None:
    """The games the experiment would need at `players` (its `games`, every lineup on the same deals) for an
    interval now `width` wide to be ±TIGHTER_PP: widths shrink as one over the square root of the games."""
    if math.isnan(width) or width <= 0:
        return None
    played = data.rows.filter(pl.col("players") == players)["game_id"].n_unique()
    return math.ceil(played * (width / (2 * TIGHTER_PP)) ** 2)


def needed_sentence(change: dict) -> str:
    """The strongest rung's interval on the games played, and the games a ±TIGHTER_PP one would need."""
    needed, top, played = change["needed"], change["top"], change["played"]
    if needed is None:
        return ""
    half = (top["advantage_hi"] - top["advantage_lo"]) / 2
    if needed <= played:
        return f"Its interval at {top['strategy']} is ±{100 * half:.1f} pp on these {count(played)} games."
    return (f"Its interval at {top['strategy']} is ±{100 * half:.1f} pp on these {count(played)} games; ±"
            f"{100 * TIGHTER_PP:.0f} pp would take about {count(needed)} (`games = {needed}` in the experiment file).")


def symmetric_numbers(result: dict, data: GameData) -> list[dict]:
    """Every rung's seat shares and start edge, each change from the weakest rung to the strongest, and the games
    a ±TIGHTER_PP interval of the strongest rung's edge needs."""
    names, out = result["rungs"], []
    for r in result["shares"].iter_rows(named=True):
        out.append(record(data, r["players"], "ladder_seat_win_share", r["share"], r["lo"], r["hi"], r["games"],
                          r["method"], strategy=names[r["rung"]], rung=r["rung"], seat=r["seat"], fair=r["fair"]))
    for r in result["edges"].iter_rows(named=True):
        out.append(record(data, r["players"], "ladder_start_advantage", r["advantage"], r["advantage_lo"],
                          r["advantage_hi"], r["games"], r["method"], strategy=r["strategy"], rung=r["rung"], seat=0))
    for c in result["changes"]:
        out.append(record(data, c["players"], "ladder_edge_change", c["estimate"], c["lo"], c["hi"], c["games"],
                          c["method"], strategy=names[c["high"]], against=names[c["low"]]))
        top, needed = c["top"], c["needed"]
        if needed is not None:
            out.append(record(data, c["players"], "games_for_tighter_edge", needed, needed, needed, top["games"],
                              "count", strategy=names[c["high"]], target_half_width=TIGHTER_PP,
                              half_width=(top["advantage_hi"] - top["advantage_lo"]) / 2))
    return out


def symmetric_table(result: dict, data: GameData) -> list:
    names = result["rungs"]
    return [table("Win share by seat along the symmetric ladder (every seat at one rung; 95% cluster-robust "
                  "intervals over deals)", result["shares"].sort("players", "rung", "seat"), ("Players", "players"),
                  ("Rung", lambda r: names[r["rung"]]), ("Seat", "seat", seat_name), ("Games", "games", count),
                  *share_ci("Win share"), ("Fair share", "fair", pct))]


# ---------------------------------------------------------------- the one-up ladder: is skill rewarded, from every seat


def one_up_ladder(data: GameData) -> dict | None:
    return data.computed("one_up_ladder", lambda: one_up_of(data))


def one_up_of(data: GameData) -> dict | None:
    """Per player count and rung above the first, in the one-up games: the stronger seat's win share (all its seats
    together and seat by seat), the weaker seats' share per seat, and the χ² test that the stronger seat wins the
    same share from every seat."""
    rows = games_of_kind(data, "one_up")
    if rows is None:
        return None
    stronger, weaker = rows.filter(pl.col("rung") == pl.col("top")), rows.filter(pl.col("rung") < pl.col("top"))
    overall = paired_ratio(stronger, pl.col("win"), pl.lit(1.0), ["players", "top"]).rename({"estimate": "share"})
    below = paired_ratio(weaker, pl.col("win"), pl.lit(1.0), ["players", "top"]).select(
        "players", "top", weaker="estimate", weaker_lo="lo", weaker_hi="hi")
    by_seat = paired_shares(stronger, ["players", "top"], "seat")
    tests = [{"players": p, "top": t, "p": seat_test(g["wins"].to_numpy().astype(float),
                                                      g["games"].to_numpy().astype(float))}
             for (p, t), g in sorted(by_seat.partition_by("players", "top", as_dict=True).items())]
    overall = (overall.join(below, on=["players", "top"], maintain_order="left")
               .join(pl.DataFrame(tests, schema_overrides={"players": overall.schema["players"],
                                                           "top": overall.schema["top"]}),
                     on=["players", "top"], maintain_order="left")
               .with_columns(fair=1 / pl.col("players")).sort("players", "top"))
    return {"overall": overall, "by_seat": by_seat, "rungs": rungs(data)}


def one_up_finding(result: dict, data: GameData) -> Finding:
    """Per player count: how much one rung of skill wins over the rung below, whether it does so from every seat,
    and the weakest rung's (the heuristic's) share against the first search rung."""
    names, overall, sentences = result["rungs"], result["overall"], []
    for (players,), group in sorted(overall.partition_by("players", as_dict=True).items()):
        steps = [f"{names[r['top']]} over {names[r['top'] - 1]} {pct(r['share'])} ({pct_ci(r['lo'], r['hi'])})"
                 for r in group.iter_rows(named=True)]
        rewarded = [names[r["top"]] for r in group.iter_rows(named=True) if r["lo"] > r["fair"]]
        seats = [names[r["top"]] for r in group.iter_rows(named=True) if r["p"] < SEAT_TEST]
        first = group.row(0, named=True)
        text = (f"At {players} players one rung up wins {listing(steps)} of its games (fair {pct(1 / players)}); "
                + (f"clearly more than fair for {listing(rewarded)}" if rewarded else
                   "no rung wins clearly more than fair")
                + ("; the stronger seat's share differs from seat to seat for " + listing(seats) if seats else
                   "; no rung's share differs clearly from seat to seat")
                + f" (χ² test, {SEAT_TEST:.0%} level). Against one {names[first['top']]}, "
                f"{names[first['top'] - 1]} wins {pct(first['weaker'])} "
                f"({pct_ci(first['weaker_lo'], first['weaker_hi'])}) of its games per seat.")
        sentences.append(text)
    return Finding("The stronger seat along the ladder.", " ".join(sentences),
                   table("", overall, ("Players", "players"), ("One up", lambda r: names[r["top"]]),
                         ("Over", lambda r: names[r["top"] - 1]), ("Games", "games", count),
                         *share_ci("Stronger seat wins")),
                   tuple(one_up_numbers(result, data)))


def one_up_numbers(result: dict, data: GameData) -> list[dict]:
    names, out = result["rungs"], []
    for r in result["overall"].iter_rows(named=True):
        about = {"strategy": names[r["top"]], "against": names[r["top"] - 1], "fair": r["fair"]}
        out.append(record(data, r["players"], "stronger_seat_win_share", r["share"], r["lo"], r["hi"], r["games"],
                          r["method"], **about, p_seats=r["p"]))
        out.append(record(data, r["players"], "weaker_seat_win_share", r["weaker"], r["weaker_lo"], r["weaker_hi"],
                          r["games"], r["method"], **{**about, "strategy": about["against"],
                                                      "against": about["strategy"]}))
    for r in result["by_seat"].iter_rows(named=True):
        out.append(record(data, r["players"], "stronger_seat_win_share", r["share"], r["lo"], r["hi"], r["games"],
                          r["method"], strategy=names[r["top"]], against=names[r["top"] - 1], seat=r["seat"],
                          fair=r["fair"]))
    return out


def one_up_table(result: dict, data: GameData) -> list:
    names = result["rungs"]
    return [table("The stronger seat's win share by its seat (one rung up, the rung below at every other seat)",
                  result["by_seat"].sort("players", "top", "seat"), ("Players", "players"),
                  ("One up", lambda r: names[r["top"]]), ("Over", lambda r: names[r["top"] - 1]),
                  ("Its seat", "seat", seat_name), ("Games", "games", count), *share_ci("It wins"),
                  ("Fair share", "fair", pct))]


def ladder_chart(result: dict, data: GameData) -> Chart:
    """Two panels: the start player's edge at each rung of the symmetric ladder, and the stronger seat's win share
    minus fair at each step of the one-up ladder, a line per player count, with 95% intervals."""
    symmetric, one_up = result, one_up_ladder(data)
    names = symmetric["rungs"]
    fig, axes = panels(2, 7.3, 3.8)
    colours = palette(len(data.player_counts))
    for colour, players in zip(colours, data.player_counts):
        edge = symmetric["edges"].filter(pl.col("players") == players).sort("rung")
        line(axes[0], edge["rung"], edge["advantage"], edge["advantage_lo"], edge["advantage_hi"], colour, players)
        if one_up is not None:
            up = one_up["overall"].filter(pl.col("players") == players)
            gap = [100 * (up[c] - up["fair"]) for c in ("share", "lo", "hi")]
            line(axes[1], up["top"], gap[0] / 100, gap[1] / 100, gap[2] / 100, colour, players)
    axes[0].set(title="Start player's edge", ylabel="pp", xlabel="every seat at this rung")
    axes[1].set(title="One seat one rung up", ylabel="win share − fair (pp)", xlabel="one seat at this rung")
    for ax in axes:
        ax.set_xticks(range(len(names)), names, rotation=20, ha="right", rotation_mode="anchor")
        ax.set_xlim(-0.4, len(names) - 0.6)
    for ax in axes:
        ax.axhline(0, color="#333", linewidth=1)
    return finished_chart(fig, axes[0], f"{data.title}: seat advantage and skill along the ladder", data.out_dir,
                          f"{data.slug}_ladder.png",
                          "Left: the start player's win share minus 1/P when every seat plays the same rung, weakest "
                          "rung first. Right: the win share, minus 1/P, of one seat a rung above the others (every "
                          "seat in turn), for each step up. Bars are 95% cluster-robust intervals over deals; the "
                          "same deals are played at every rung.")


def line(ax, x, estimate, lo, hi, colour, players: int) -> None:
    """Points joined by a line, with 95% error bars, in pp."""
    x, estimate, lo, hi = (np.asarray(v, dtype=float) for v in (x, estimate, lo, hi))
    error = np.nan_to_num(100 * np.array([estimate - lo, hi - estimate]))
    ax.errorbar(x, 100 * estimate, yerr=error, color=colour, marker="o", capsize=3, label=f"{players} players")


# ---------------------------------------------------------------- what hidden information is worth


def hidden_information(data: GameData) -> dict | None:
    """Where `cheat@N...` meets `mcts@N...`, or `peek@N...` meets `search@N...` (the same search, budget and
    policy, one on the true State, the other on worlds drawn from what its seat sees) in games of one cheat and the
    rest the fair search: the cheat's win share, all its seats together and seat by seat. None where they do not
    meet so."""
    if data.experiment is None:
        return None
    strategies = set(data.rows["strategy"].unique())
    found = [CHEAT.fullmatch(s) for s in sorted(strategies)]
    pairs = [(m[0], f"{FAIR[m[1]]}@{m[2]}") for m in found if m]
    pairs = [(cheat, fair) for cheat, fair in pairs if fair in strategies]
    if not pairs:
        return None
    overall, by_seat = [], []
    for cheat, fair in pairs:
        met = data.rows.with_columns(is_cheat=(pl.col("strategy") == cheat).sum().over(GAME_KEY),
                                     is_fair=(pl.col("strategy") == fair).sum().over(GAME_KEY))
        mine = met.filter((pl.col("is_cheat") == 1) & (pl.col("is_fair") == pl.col("players") - 1)
                          & (pl.col("strategy") == cheat))
        if mine.is_empty():
            continue
        about = {"strategy": pl.lit(cheat), "against": pl.lit(fair)}
        overall.append(paired_ratio(mine, pl.col("win"), pl.lit(1.0), ["players"]).rename({"estimate": "share"})
                       .with_columns(**about, fair=1 / pl.col("players")))
        by_seat.append(paired_shares(mine, ["players"], "seat").with_columns(**about))
    if not overall:
        return None
    return {"overall": pl.concat(overall, how="diagonal_relaxed"),
            "by_seat": pl.concat(by_seat, how="diagonal_relaxed")}


def hidden_finding(result: dict, data: GameData) -> Finding:
    parts = []
    for r in result["overall"].iter_rows(named=True):
        seats = result["by_seat"].filter((pl.col("players") == r["players"]) & (pl.col("strategy") == r["strategy"]))
        by_seat = listing(f"{seat_name(s['seat'])} {pct(s['share'])}" for s in seats.iter_rows(named=True))
        worth = r["share"] - r["fair"]
        parts.append(f"at {r['players']} players {r['strategy']}, which sees every hidden part, wins {pct(r['share'])} "
                     f"({pct_ci(r['lo'], r['hi'])}) of its games against {r['against']} (fair {pct(r['fair'])}): "
                     f"seeing what its seat cannot is worth {pp(worth)} "
                     f"({pp_ci(r['lo'] - r['fair'], r['hi'] - r['fair'])}) of win share to the same search at the "
                     f"same budget; by its seat, {by_seat}")
    text = "; ".join(parts) + "."
    text = text[0].upper() + text[1:]
    return Finding("What hidden information is worth.", text,
                   table("", result["by_seat"], ("Players", "players"), ("Cheat", "strategy"), ("Against", "against"),
                         ("Its seat", "seat", seat_name), ("Games", "games", count), *share_ci("Cheat wins")),
                   tuple(hidden_numbers(result, data)))


def hidden_numbers(result: dict, data: GameData) -> list[dict]:
    out = [record(data, r["players"], "hidden_information_win_share", r["share"], r["lo"], r["hi"], r["games"],
                  r["method"], strategy=r["strategy"], against=r["against"], fair=r["fair"],
                  worth=r["share"] - r["fair"], worth_low=r["lo"] - r["fair"], worth_high=r["hi"] - r["fair"])
           for r in result["overall"].iter_rows(named=True)]
    out += [record(data, r["players"], "hidden_information_win_share", r["share"], r["lo"], r["hi"], r["games"],
                   r["method"], strategy=r["strategy"], against=r["against"], seat=r["seat"], fair=r["fair"])
            for r in result["by_seat"].iter_rows(named=True)]
    return out


def ladder_intro(_, data: GameData) -> str:
    names = rungs(data)
    return (f"A skill ladder of {len(names)} rungs, weakest first: {listing(names)}. Every rung plays every seat of "
            "the same deals (the symmetric ladder: does the start player's edge grow, shrink or vanish as play gets "
            "stronger?), then each rung sits one up over the rung below, in every seat in turn (the one-up ladder: "
            "does one step of skill win, and from every seat?). Each number comes from the games of one rung or one "
            "step; differences between rungs are paired over the deals both played.")


def top_edge(numbers: list[dict], players: int) -> dict | None:
    """The start edge at the strongest rung of the game's ladder experiment with most games at `players` (its
    ladder_start_advantage record), for the overview; None where no ladder played there."""
    edges = [n for n in numbers if n["metric"] == "ladder_start_advantage" and n["players"] == players]
    tops = [max((n for n in edges if n["experiment"] == e), key=lambda n: n["rung"])
            for e in sorted({n["experiment"] for n in edges})]
    return max(tops, key=lambda n: n["games"], default=None)
