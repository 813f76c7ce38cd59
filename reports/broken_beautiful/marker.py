"""The first player marker: which seats start more rounds than the others, from the manifest's `rounds` fact (the
marker starts with Player 1 and passes to the next player every round)."""

import polars as pl

from reports.analysis import Analysis, GameData, groups, record
from reports.fmt import at_counts
from reports.render import Finding, table


def rounds_led(rounds: pl.DataFrame) -> pl.DataFrame:
    """Per player count and seat (rounds: players, rounds): how many rounds that seat starts as first player."""
    out = [{"players": p, "seat": seat, "rounds": r, "led": len(range(seat, r, p))}
           for p, r in rounds.select("players", "rounds").unique().sort("players").iter_rows() for seat in range(p)]
    return pl.DataFrame(out)


def marker(data: GameData) -> pl.DataFrame:
    return rounds_led(pl.DataFrame({"players": data.player_counts,
                                    "rounds": [data.fact("rounds", p) for p in data.player_counts]}))


def rounds_led_sentence(led: pl.DataFrame, _=None) -> str:
    """E.g. 'At 2 players Player 1 is first player in 5 of the 9 rounds, Player 2 in 4; ...'."""
    parts = []
    for key, group in groups(led, ["players"]):
        players, counts, rounds = key["players"], group["led"].to_list(), group["rounds"][0]
        more = [s for s, n in enumerate(counts) if n == counts[0]]
        if len(more) == players:
            parts.append(f"at {players} players every player is first player in {counts[0]} of the {rounds} rounds")
            continue
        first = "Player 1" if len(more) == 1 else f"Players 1–{more[-1] + 1}"
        rest = f"Player {players}" if len(more) == players - 1 else "the others"
        parts.append(f"at {players} players {first} {'is' if len(more) == 1 else 'are'} first player in {counts[0]} "
                     f"of the {rounds} rounds, {rest} in {counts[-1]}")
    text = "; ".join(parts)
    return ("Player 1 holds the first player marker in round 1; the marker then passes to the next player every round. "
            + text[0].upper() + text[1:] + ".")


def marker_finding(led: pl.DataFrame, data: GameData) -> Finding:
    """Which seats are first player in one round more than the others, at which player counts."""
    per_count = led.group_by("players").agg(rounds=pl.col("rounds").first(), led=pl.col("led").sort_by("seat"))
    ahead: dict[str, list[int]] = {}
    for players, each in per_count.select("players", "led").sort("players").iter_rows():
        leading = each.count(max(each))
        if leading < players:
            ahead.setdefault("Player 1 is" if leading == 1 else f"Players 1–{leading} are", []).append(players)
    even = sorted(set(data.player_counts) - {p for counts in ahead.values() for p in counts})
    clauses = [f"at {at_counts(counts)} {seats} first player in one round more than the other players"
               for seats, counts in ahead.items()]
    clauses += [f"at {at_counts(even, data.player_counts)} every player is first player equally often"] if even else []
    text = "The marker starts with Player 1 and passes to the next player every round, so " + "; ".join(clauses) + "."
    led_by_seat = ("Rounds as first player, by seat", "led", lambda led: ", ".join(map(str, led)))
    return Finding("First player marker.", text, table("", per_count.sort("players"), ("Players", "players"),
                                                       ("Rounds", "rounds"), led_by_seat),
                   tuple(marker_numbers(led, data)))


def marker_numbers(led: pl.DataFrame, data: GameData) -> list[dict]:
    """The rounds at each player count and each seat's rounds as first player (counts from the manifest's rules)."""
    out = []
    for key, group in groups(led, ["players"]):
        players, rounds = key["players"], group["rounds"][0]
        games = data.rows.filter(pl.col("players") == players)["game_id"].n_unique()
        out.append(record(data, players, "rounds", rounds, rounds, rounds, games, "count"))
        out += [record(data, players, "rounds_as_first_player", n, n, n, games, "count", seat=seat)
                for seat, n in group.select("seat", "led").iter_rows()]
    return out


MARKER = Analysis("The first player marker", marker, intro=rounds_led_sentence, finding=marker_finding)
