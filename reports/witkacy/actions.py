"""Action tokens: how often each strategy uses each one (each player holds one of each and may use it once a
game)."""

import polars as pl

from reports.analysis import GameData, groups
from reports.charts import new_figure, save_chart
from reports.fmt import listing, num, pct
from reports.render import Chart
from reports.spec import EVERYONE, Measure, Metrics
from reports.witkacy.common import by_strength, defined, heatmap, names, ranked_shares, strategy_labels


def token_measures(data: GameData) -> tuple[Measure, ...]:
    """Tokens used per game, and for each action the share of games in which it was used."""
    used = {action: pl.col("actions_used").list.get(i).cast(pl.Int64)
            for i, action in enumerate(names(data, "actions"))}
    return (Measure("tokens", "Tokens", pl.sum_horizontal(used.values()), metric="tokens_per_game"),
            *(Measure(action, action, value, metric="token_use_share", share=True) for action, value in used.items()))


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


def uses_sentence(frame: pl.DataFrame, data: GameData) -> str:
    """At each player count, how often each action is used by every player together, and which strategy uses most
    and fewest tokens."""
    return " ".join(use_sentence(group, names(data, "actions")) for _, group in groups(frame, ["players"]))


def use_intro(_, data: GameData) -> str:
    return (f"Each player holds one token of each action ({listing(names(data, 'actions'))}) and may use each once "
            "per game. The share of a strategy's games in which it used each token, with 95% intervals clustered "
            "by deal; every experiment counts here, the Advanced Variant's too.")


def use_chart(frame: pl.DataFrame, data: GameData) -> Chart:
    """Heat map: the share of games in which each strategy (row, at each player count) uses each action token."""
    actions, strategies = names(data, "actions"), by_strength(frame, data)
    fig = new_figure(3.2 + 1.1 * len(actions), 1.8 + 0.42 * strategies.height)
    ax = fig.subplots()
    heatmap(fig, ax, strategies.select(actions).to_numpy().astype(float), strategy_labels(strategies), actions,
            "Games in which the token is used")
    ax.set(xlabel="Action token", ylabel="Strategy")
    ax.set_title(f"{data.title}: how often each strategy uses each action token")
    return save_chart(fig, data.out_dir, f"{data.slug}_action_use.png",
                      "The percentage of its games in which each strategy uses each action token (each may be used "
                      "once a game), by player count; strategies in order of win share. Intervals, and every player "
                      "together, are in the tables.")


ACTION_USE = Metrics(
    "Action tokens: how often they are used", token_measures, uses_sentence, label="Action tokens used.",
    overall=True, recorded=defined, named="action",
    caption="Share of games in which each strategy uses each action token by player count ('all' = every player; "
            "95% intervals clustered by deal), and tokens used per game",
    draw=use_chart, leading_only=True,
    intro=use_intro).analysis()
