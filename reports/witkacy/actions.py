"""Action tokens: how often each strategy uses each one (each player holds one of each and may use it once a
game)."""

import polars as pl

from reports.analysis import Analysis, GameData, groups
from reports.charts import new_figure, save_chart
from reports.fmt import count, listing, num, pct
from reports.render import Chart, Finding, est, share_ci, table
from reports.spec import EVERYONE, Measure, measure_records, measured
from reports.witkacy.common import by_strength, heatmap, names, ranked_shares, share_columns


def token_measures(actions: list[str]) -> list[Measure]:
    """Tokens used per game, and for each action the share of games in which it was used."""
    used = {action: pl.col("actions_used").list.get(i).cast(pl.Int64) for i, action in enumerate(actions)}
    return [Measure("tokens", "Tokens", pl.sum_horizontal(used.values()), metric="tokens_per_game"),
            *(Measure(action, action, value, metric="token_use_share", share=True) for action, value in used.items())]


def action_use(data: GameData) -> dict:
    """How often each strategy uses each action token, per player count and every player count together (every
    experiment, the Advanced Variant's too)."""
    actions = names(data, "actions")
    measures = token_measures(actions)
    return {"actions": actions, "measures": measures,
            "pooled": by_strength(measured(data.rows, measures, ("strategy",)), data),
            "by_count": by_strength(measured(data.rows, measures), data, "players")}


def use_sentence(group: pl.DataFrame, actions: list[str]) -> str:
    """At one player count: how often every player together uses each action, and which strategy uses most and
    fewest tokens."""
    everyone = group.filter(pl.col("strategy") == EVERYONE).row(0, named=True)
    uses = listing(f"{r['name']} in {pct(r['share'])}" for r in ranked_shares(everyone, actions))
    text = f"At {everyone['players']} players, all strategies together use {uses} of their games."
    strategies = group.filter(pl.col("strategy") != EVERYONE)
    if strategies.height > 1:
        most = strategies.sort("tokens", "strategy", descending=[True, False]).row(0, named=True)
        fewest = strategies.sort("tokens", "strategy").row(0, named=True)
        text += (f" {most['strategy'].capitalize()} uses the most tokens, {num(most['tokens'])} a game, and "
                 f"{fewest['strategy']} the fewest, {num(fewest['tokens'])}.")
    return text


def use_finding(result: dict, data: GameData) -> Finding:
    """At each player count, how often each action is used by every player together, and which strategy uses most
    and fewest tokens."""
    actions, by_count = result["actions"], result["by_count"]
    text = " ".join(use_sentence(group, actions) for _, group in groups(by_count, ["players"]))
    everyone = by_count.filter(pl.col("strategy") == EVERYONE)
    rows = [{"players": r["players"], **s} for r in everyone.iter_rows(named=True) for s in ranked_shares(r, actions)]
    numbers = [{**n, **({"action": m.name} if m.share else {})} for m in result["measures"]
               for n in measure_records(data, by_count, [m], strategy="strategy")]
    return Finding("Action tokens used.", text, table("", rows, ("Players", "players"), ("Action", "name"),
                                                      *share_ci("Used in")), tuple(numbers))


def use_tables(result: dict, _) -> list:
    actions = result["actions"]
    return [
        table("Share of games in which each strategy uses each action token by player count ('all' = every player; "
              "95% intervals in brackets clustered by deal), and tokens used per game", result["by_count"],
              ("Players", "players"), ("Strategy", "strategy"), ("Player results", "n", count),
              *est("Tokens", "tokens"), *share_columns(actions)),
        table("The same, every player count together", result["pooled"], ("Strategy", "strategy"),
              ("Player results", "n", count), *est("Tokens", "tokens"), *share_columns(actions)),
    ]


def use_chart(result: dict, data: GameData) -> Chart:
    """Heat map: the share of games in which each strategy (row) uses each action token (column)."""
    actions, pooled = result["actions"], result["pooled"]
    fig = new_figure(3.2 + 1.1 * len(actions), 1.8 + 0.42 * pooled.height)
    ax = fig.subplots()
    heatmap(fig, ax, pooled.select(actions).to_numpy().astype(float), pooled["strategy"].to_list(), actions,
            "Games in which the token is used")
    ax.set(xlabel="Action token", ylabel="Strategy")
    ax.set_title(f"{data.title}: how often each strategy uses each action token")
    return save_chart(fig, data.out_dir, f"{data.slug}_action_use.png",
                      "The percentage of its games in which each strategy uses each action token (each may be used "
                      "once a game), every player count of the experiment together; 'all' is every player, strategies "
                      "in order of win share. Intervals, and the shares at each player count, are in the tables.")


def use_intro(result: dict, _) -> str:
    return (f"Each player holds one token of each action ({listing(result['actions'])}) and may use each once per "
            "game. The share of a strategy's games in which it used each token, with 95% intervals clustered "
            "by deal; every experiment counts here, the Advanced Variant's too.")


ACTION_USE = Analysis("Action tokens: how often they are used", action_use, intro=use_intro, chart=use_chart,
                      tables=use_tables, finding=use_finding, leading_only=True)
