"""The analyses every game gets, from its rows and its manifest alone: win share by seat, first-player advantage,
start-player compensation, score distributions, seat advantage by experiment, strategy strength and head-to-head.

reports/build.py reads the four lists: SEATS and STRATEGIES open every experiment's section, COMPARED compares a
game's experiments, and LADDER replaces SEATS and STRATEGIES in a skill ladder's section (whose rungs are never
pooled). Each analysis lives in the module of its topic."""

from reports.analysis import Analysis
from reports.generic import experiments, handicaps, ladder, matchups, scores, seats, strategies

HIDDEN = Analysis("What hidden information is worth", ladder.hidden_information,
                  intro="cheat@N is mcts@N, and peek@N is search@N, on the true State: it sees every hidden part, "
                        "which no fair player does. Its win share against the same search at the same budget on "
                        "worlds drawn from what its seat sees is what the hidden information is worth to that "
                        "search.",
                  finding=ladder.hidden_finding)
SEATS = [
    Analysis("Win share by seat", seats.seat_analysis, intro=seats.seat_intro, chart=seats.seat_win_share_chart,
             tables=seats.seat_tables, finding=seats.seat_finding, caveats=seats.rotation_caveats, headline=True),
    scores.TIES_AND_GAPS.analysis(),
    Analysis("Score distribution by seat", lambda data: scores.score_bin_width(data.rows),
             chart=scores.score_by_seat_chart, leading_only=True),
    Analysis("Handicaps", handicaps.handicaps, intro=handicaps.handicap_intro, chart=handicaps.handicap_chart,
             tables=handicaps.handicap_table, finding=handicaps.handicap_finding, leading_only=True),
]
COMPARED = [
    Analysis("Seat advantage by experiment", experiments.seat_by_experiment,
             intro="Each experiment's seat numbers side by side (its strategy pool in brackets); each bar comes from "
                   "its own experiment's games.",
             chart=experiments.seat_experiment_chart, tables=experiments.seat_experiment_table,
             finding=experiments.seat_experiment_finding),
]
STRATEGIES = [
    Analysis("Win share by strategy", strategies.strategy_analysis,
             intro="A strategy's win share is its share of victories per game played (ties count 1/k). Its fair share "
                   "is 1/P in a P-player game; '× fair' is the ratio of the two. Only games where at least two "
                   "strategies meet count here: a table of one strategy says nothing about strength.",
             chart=strategies.strategy_win_share_chart, tables=strategies.strategy_tables,
             finding=strategies.strategy_finding, headline=True),
    Analysis("Ratings", matchups.rating_analysis,
             intro="A Bradley–Terry rating of every strategy from the finishing order of every pair of seats with "
                   "different strategies (a tie counts half), on the Elo scale: 400 points apart means about 10 to 1 "
                   "head-to-head. Intervals are clustered by deal.",
             tables=matchups.cycle_table, finding=matchups.rating_finding),
    Analysis("Score distribution by strategy", scores.score_quantiles, chart=scores.score_by_strategy_chart,
             leading_only=True),
    Analysis("Head-to-head", matchups.head_to_head_of,
             intro="For each pair of strategies that met in a game: how often the row strategy finished ahead of the "
                   "column strategy (a tie counts 1/2). Pairs are pooled over player counts; in games of 3 or more "
                   "players a 'meeting' is one pair of players inside a larger game.",
             chart=matchups.head_to_head_chart, tables=matchups.head_to_head_table, leading_only=True),
    HIDDEN,
]
LADDER = [
    Analysis("Seat advantage along the skill ladder", ladder.symmetric_ladder, intro=ladder.ladder_intro,
             chart=ladder.ladder_chart, tables=ladder.symmetric_table, finding=ladder.symmetric_finding,
             headline=True),
    Analysis("The stronger seat along the skill ladder", ladder.one_up_ladder, tables=ladder.one_up_table,
             finding=ladder.one_up_finding),
    HIDDEN,
]
