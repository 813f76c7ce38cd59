"""The report's numbers as data: every number the overview and the summaries state, one record each, written to
findings.json and printed by `atelier report RESULTS --json`. Each finding of the report carries the records of
the numbers it states (render.Finding.numbers, made with analysis.record); a game's `numbers` adds those its
overview row states.

A record names where it comes from and what it measures: `game`, `experiment` (one experiment: numbers never pool
unlike experiments), `players`, `seat` or `strategy` where it is about one, `metric`, `estimate`, `low` and `high`
(the 95% interval), `games` (the games it rests on) and `method` (how the interval was made), plus what a metric
needs (a handicap's `points`). Metrics: `seat_win_share`, `start_advantage`, `strategy_win_share`, `strategy_gap`
(the strongest strategy's lead over the weakest, `strategy` naming both), `rating` (Bradley–Terry, Elo scale),
`handicap`, `compensated_win_share`, and a game's own (reports/<game>.py, `numbers`).
"""

from __future__ import annotations

import json
import math
from typing import Any

from reports.render import Section


def section_numbers(sections: list[Section]) -> list[dict[str, Any]]:
    """The records of every finding of the sections, in order, each once."""
    seen, out = set(), []
    for finding in (f for section in sections for f in section.findings):
        for number in finding.numbers:
            key = json.dumps(number, sort_keys=True, default=str)
            if key not in seen:
                seen.add(key)
                out.append(number)
    return out


def json_ready(numbers: list[dict]) -> list[dict]:
    """The records with every number JSON can write: NaN (an interval from too few deals) becomes null."""
    def clean(value: Any) -> Any:
        if isinstance(value, float) and math.isnan(value):
            return None
        return [clean(v) for v in value] if isinstance(value, list) else value

    return [{key: clean(value) for key, value in n.items()} for n in numbers]


def select(numbers: list[dict], **where: Any) -> list[dict]:
    """The records whose fields equal `where`."""
    return [n for n in numbers if all(n.get(k) == v for k, v in where.items())]
