"""Broken and Beautiful (Left Justified Studio, 2023): draft pottery, keep it or sell it for gold, watch it
break, mend it with gold. The rules side of the game contract (sim/game.py)."""

from __future__ import annotations

import numpy as np
import polars as pl

from sim.broken_beautiful import engine, reference
from sim.broken_beautiful.engine import KEEP, SELL
from sim.broken_beautiful.rules import CONDITIONS, PLAYER_COUNTS, SCORED, Deal, Params, deal, facts
from sim.errors import AtelierError, IllegalMove
from sim.game import Decider, GameRules, shuffled_after


def record(params: Params, one: Deal, game: reference.Game) -> dict:
    """The reference's finished game of a deal as auditable data (see README)."""
    result = reference.final_result(game)
    return {
        "catalog": params.kit.catalog(),
        "rounds": game.log,
        "final": {
            "collections": [[{"card": c, "state": CONDITIONS[st]} for c, st in sorted(col.items())]
                            for col in game.collections],
            "ingots": game.ingots,
            "points_by_type": result.points,
            "scores": result.scores,
            "winners": result.winners,
        },
    }


def replay(record: dict) -> list[int]:
    """A trace's picks and repairs replayed through the reference; the scores it gives. AtelierError if the
    rounds the reference plays from those choices are not the trace's (IllegalMove if a choice breaks a rule)."""
    params = Params(**record["params"])
    one = Deal(np.array([traced_deck(record, params.kit.size)], np.int8))
    game = reference.play(params, one, replayed(record))
    for r, (replayed_round, traced) in enumerate(zip(game.log, record["rounds"]), start=1):
        if replayed_round != traced:
            keys = ", ".join(key for key in traced if replayed_round.get(key) != traced[key])
            raise AtelierError(f"round {r} of the trace does not follow from its choices: {keys} differ")
    return reference.scores(game)


def traced_deck(record: dict, size: int) -> list[int]:
    """The deck as far as the trace shows it: every round's dealt cards, then the last card showing on top; the
    cards never seen follow in id order (no rule looks at them)."""
    seen = [card for entry in record["rounds"] for card in entry["dealt"]]
    if record["rounds"] and record["rounds"][-1]["deck_top"] is not None:
        seen.append(record["rounds"][-1]["deck_top"])
    return seen + sorted(set(range(size)) - set(seen))


def replayed(record: dict) -> Decider:
    """The decider that answers with a trace's choices, naming any choice the rules refuse. The trace lists
    repairs, not passes: a seat on turn repairs the round's next listed card if that repair is its own, and passes
    otherwise. (Another seat's repairs never change what a seat may repair, so this gives the traced game.) Where
    in the round the game is, the question's own table tells: the cards gone from the drafting area, the repairs
    made this round."""

    def decider(game: reference.Game, phase: str, options: list[int]) -> int:
        asking, entry, where = game.asking, record["rounds"][game.round], f"in round {game.round + 1}"
        if phase == "draft":
            card = entry["picks"][asking.is_open.count(False)]["card"]
            if card not in asking.dealt:
                raise IllegalMove("trace", f"card {card} was not dealt {where}")
            if asking.dealt.index(card) not in options:
                raise IllegalMove("trace", f"card {card} is no longer in the drafting area")
            return asking.dealt.index(card)
        if phase == "keep":
            keep = entry["picks"][asking.is_open.count(False) - 1]["action"] == "keep"
            if keep and KEEP not in options:
                raise IllegalMove("trace", f"gold card {asking.card} must be sold")
            return KEEP if keep else SELL
        done = sum(asking.repairs)
        listed = entry["repairs"][done] if done < len(entry["repairs"]) else None
        if listed is None or listed["seat"] != asking.seat:
            return options[-1]  # pass
        if listed["card"] not in options[:-1]:
            raise IllegalMove("trace", f"seat {asking.seat} cannot repair card {listed['card']} {where}")
        return listed["card"]

    return decider


def narrate(record: dict) -> str:
    """Tell a traced game round by round."""
    catalog = record["catalog"]

    def name(card: int | None) -> str:
        if card is None:
            return "nothing (the deck is empty)"
        c = catalog[card]
        return f"{c['type'].replace('_', ' ')}#{card}" + (f" (pattern {c['pattern']})" if c["pattern"] is not None
                                                            else "")

    names = record["strategies"]
    lines = [f"Broken and Beautiful, {record['players']} players, seed {record['seed']}"]
    lines += [f"  seat {s}: {n}" for s, n in enumerate(names)]
    for r, entry in enumerate(record["rounds"], start=1):
        lines += ["", f"Round {r}: seat {entry['first']} holds the first player marker",
                  "  dealt: " + ", ".join(name(c) for c in entry["dealt"])]
        for pick in entry["picks"]:
            verb = "keeps" if pick["action"] == "keep" else f"sells for {pick['ingots_gained']} ingot(s)"
            lines.append(f"  seat {pick['seat']} drafts {name(pick['card'])} and {verb}")
        lines.append(f"  left over: {name(entry['leftover'])}; on top of the deck: {name(entry['deck_top'])}")
        lines.append("  broken: " + (", ".join(name(c) for c in entry["broken"]) or "nothing"))
        if entry["free_repair"]:
            lines.append("  a gold card shows: each player's first repair this round is free")
        lines += [f"  seat {rep['seat']} repairs {name(rep['card'])} for {rep['cost']}" for rep in entry["repairs"]]
        lines.append(f"  ingots: {entry['ingots']}, supply {entry['supply']}")
    final = record["final"]
    lines += ["", "Final collections:"]
    for seat, collection in enumerate(final["collections"]):
        cards = ", ".join(name(c["card"]) + ("" if c["state"] == "intact" else f" [{c['state']}]") for c in collection)
        points = ", ".join(f"{k} {v}" for k, v in final["points_by_type"][seat].items() if v)
        lines.append(f"  seat {seat}: {cards or 'nothing'}; {final['ingots'][seat]} ingot(s)")
        lines.append(f"    points: {points or 'none'} = {final['scores'][seat]}")
    lines.append("Winner(s): " + ", ".join(f"seat {s}" for s in final["winners"]))
    return "\n".join(lines)


def unseen(params: Params, dealt: Deal, seat: int, rng: np.random.Generator) -> Deal:
    """The deck below the first round's drafting area and the card showing on top of it, shuffled: every other
    part of the game is on the table."""
    return Deal(shuffled_after(dealt.order, engine.init(params, dealt).dealt + 1, rng))


RULES = GameRules(
    name="broken_beautiful", title="Broken and Beautiful", player_counts=PLAYER_COUNTS, lowest_wins=False,
    params=Params,
    summary=("snake-draft pottery, keep it or sell it for ingots, suffer breakage, pay to repair; most points "
             "wins. Strategies may add -no-TYPE, e.g. greedy-no-teapot"),
    columns={"rounds": pl.Int8, "ingots": pl.Int16, "repaired": pl.Int8, "broken": pl.Int8, "items": pl.Int8,
             **{f"points_{kind}": pl.Int32 for kind in SCORED}},
    tie_breakers=("repaired", "items"),  # Ending the Game: most repaired items, then most items overall
    engine=engine, reference=reference, deal=deal, record=record, replay=replay, narrate=narrate, facts=facts,
    unseen=unseen, reveals=("draft", "deck_top", "cond"),
    hidden=("order",),  # the deck below its top card (engine.determinize)
)
