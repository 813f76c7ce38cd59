"""Kintsugi's matches: a match is as many games as players, each player starting once; the lowest total wins and
ties share. Who wins matches, and whether the seat held in a match's first game still matters. Intervals are
cluster-robust over matches (spec.measured)."""

import polars as pl

from reports.analysis import Analysis, GameData, groups, record
from reports.fmt import count, listing, pct, pct_ci, seat_name
from reports.render import Finding, est, table
from reports.spec import Measure, measured

MATCH_KEY = ["experiment", "players", "lineup", "match_id"]  # one match: its games under one seating
MATCH_SHARE = Measure("share", "Match win share", pl.col("win"), share=True)
TOTAL = Measure("total", "Mean total", pl.col("total"))


def match_totals(data: GameData) -> pl.DataFrame | None:
    """One row per complete match and player: the total score, the player's share of the match win (the lowest, or
    for a game where the highest score wins the highest, total wins; a k-way tie gives each 1/k), the seat it held in
    the match's first game and that game's id (`game_id`, which names the match); None without matches."""
    rows = data.rows
    if "match_id" not in rows.columns or not rows["match_id"].drop_nulls().len():
        return None
    sign = 1 if data.lowest_wins else -1
    return (rows.filter(pl.col("match_id").is_not_null()).group_by(*MATCH_KEY, "player")
            .agg(total=pl.col("score").sum(), games=pl.len(), strategy=pl.col("strategy").first(),
                 first_seat=pl.col("seat").sort_by("game_id").first(), game_id=pl.col("game_id").min())
            .filter(pl.col("games") == pl.col("players")).sort(*MATCH_KEY, "player")  # sums in one order
            .with_columns(best=sign * pl.col("total") == (sign * pl.col("total")).min().over(MATCH_KEY))
            .with_columns(win=pl.col("best").cast(pl.Float64) / pl.col("best").sum().over(MATCH_KEY)))


def match_standings(totals: pl.DataFrame) -> pl.DataFrame:
    """Per player count and strategy: the matches it played, its match win share and its mean match total, each
    with its cluster-robust interval over matches; best share first."""
    return (measured(totals, [MATCH_SHARE, TOTAL], everyone=False).rename({"n": "matches"})
            .with_columns(fair=1 / pl.col("players")).sort("players", "share", descending=[False, True]))


def first_seat_shares(totals: pl.DataFrame) -> pl.DataFrame:
    """Per player count and the seat held in a match's first game: the share of matches won from it, with its
    cluster-robust interval over matches, the matches and the fair share."""
    return (measured(totals, [MATCH_SHARE], ["players", "first_seat"], everyone=False)
            .drop("n").rename({"first_seat": "seat", "games": "matches"}).with_columns(fair=1 / pl.col("players")))


def matches(data: GameData) -> dict | None:
    """The match standings by strategy and by the seat held in the match's first game; None without matches."""
    totals = match_totals(data)
    return None if totals is None else {"strategies": match_standings(totals), "first_seat": first_seat_shares(totals)}


def match_lineup(data: GameData) -> str:
    """Who sits at a match: the whole pool when it has as many strategies as seats, else a choice from it."""
    pool = data.rows["strategy"].unique(maintain_order=True).to_list()
    seats = data.player_counts
    if len(seats) == 1 and len(pool) == seats[0]:
        return f"every match seats {listing(pool)}"
    return f"each match seats strategies of the pool {listing(pool)}"


def match_leaders(matches: pl.DataFrame) -> list[tuple[dict, dict | None]]:
    """Per player count, the strategy with the largest match win share and the runner-up (None without one)."""
    out = []
    for _, group in groups(matches, ["players"]):
        ranked = group.sort("share", "strategy", descending=[True, False])
        out.append((ranked.row(0, named=True), ranked.row(1, named=True) if ranked.height > 1 else None))
    return out


def match_phrase(leader: dict, runner_up: dict | None) -> str:
    """The leader's match win share at one player count, against the runner-up's and the fair share."""
    text = f"at {leader['players']} players {leader['strategy']} wins {pct(leader['share'])} of its matches"
    if runner_up is not None:
        ahead = "clearly more than" if leader["share_lo"] > runner_up["share_hi"] else "not clearly more than"
        text += f", {ahead} {runner_up['strategy']} ({pct(runner_up['share'])})"
    fair = "clearly above" if leader["share_lo"] > leader["fair"] else "not clearly above"
    return text + f", and {fair} the fair share of {pct(leader['fair'])}"


def first_seat_phrase(seats: pl.DataFrame) -> str:
    """At one player count: the match win share from each seat of a match's first game against the fair share, and
    whether starting that game pays, costs or neither, as the intervals say; another seat beyond fair is named."""
    seats = seats.sort("seat")
    start, *rest = seats.iter_rows(named=True)
    fair = start["fair"]
    shares = [f"the player who starts a match's first game wins {pct(start['share'])} of the matches "
              f"({pct_ci(start['share_lo'], start['share_hi'])})"]
    shares += [f"{seat_name(r['seat'])}{' of that game' if i == 0 else ''} "
               f"{pct(r['share'])} ({pct_ci(r['share_lo'], r['share_hi'])})" for i, r in enumerate(rest)]
    verdict = ("still pays" if start["share_lo"] > fair else "costs" if start["share_hi"] < fair else
               "neither clearly pays nor clearly costs")
    text = (f"at {start['players']} players {listing(shares)}, against a fair share of {pct(fair)}: starting the "
            f"first game of a match {verdict}")
    for side, beyond in (("more", lambda r: r["share_lo"] > fair), ("less", lambda r: r["share_hi"] < fair)):
        names = [f"Player {r['seat'] + 1}" for r in rest if beyond(r)]
        if names:
            wins = "wins" if len(names) == 1 else "win"
            text += f", and {listing(names)} of that game {wins} clearly {side} than fair"
    return text


def first_seat_sentence(first_seat: pl.DataFrame) -> str:
    """The match win share by the seat held in a match's first game, per player count."""
    text = "; ".join(first_seat_phrase(group) for _, group in groups(first_seat, ["players"]))
    return text[0].upper() + text[1:] + "."


def match_finding(result: dict, data: GameData) -> Finding:
    """The strongest strategy over full matches at each player count, against the runner-up and the fair share; and
    whether starting a match's first game still pays: the match win share by the seat held in that game."""
    leaders = match_leaders(result["strategies"])
    text = (f"Over full matches (each player starts once, the {'lowest' if data.lowest_wins else 'highest'} total "
            f"wins; {match_lineup(data)}), " + "; ".join(match_phrase(*pair) for pair in leaders) + ". "
            + first_seat_sentence(result["first_seat"]))
    second = ("strategy", "share", "share_lo", "share_hi")
    rows = [{**leader, **{f"second_{k}": (runner_up or {}).get(k) for k in second}} for leader, runner_up in leaders]
    numbers = [record(data, r["players"], "match_win_share", r["share"], r["share_lo"], r["share_hi"],
                      r["matches"] * r["players"], r["method"], strategy=r["strategy"], matches=r["matches"],
                      fair=r["fair"]) for pair in leaders for r in pair if r is not None]
    numbers += [record(data, r["players"], "match_win_share_by_first_seat", r["share"], r["share_lo"], r["share_hi"],
                       r["matches"] * r["players"], r["method"], seat=r["seat"], matches=r["matches"], fair=r["fair"])
                for r in result["first_seat"].iter_rows(named=True)]
    return Finding("Matches.", text, table("", rows, ("Players", "players"), ("Strongest", "strategy"),
                                           ("Matches", "matches", count), *MATCH_SHARE.columns(),
                                           ("Runner-up", "second_strategy"),
                                           *est("Its share", "second_share", pct, pct_ci),
                                           ("Fair share", "fair", pct)), tuple(numbers))


def match_table(result: dict, _) -> list:
    return [table("Match results by strategy (ties share the match win; 95% intervals clustered by match)",
                  result["strategies"], ("Players", "players"), ("Strategy", "strategy"),
                  ("Matches", "matches", count), *MATCH_SHARE.columns(), ("Fair share", "fair", pct),
                  *TOTAL.columns()),
            table("Match win share by the seat held in the match's first game (Player 1 starts it)",
                  result["first_seat"], ("Players", "players"), ("Player in the first game", "seat", seat_name),
                  ("Matches", "matches", count), *MATCH_SHARE.columns(), ("Fair share", "fair", pct))]


MATCHES = Analysis(
    "Matches", matches, tables=match_table, finding=match_finding,
    intro="The rulebook recommends a match of as many games as players, each player starting once; the lowest total "
          "score wins and ties share. Only complete matches are counted.")
