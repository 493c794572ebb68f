"""Verdicts in words, for the operator's screen and the reports (prose lives at the edge)."""

from __future__ import annotations

from collections.abc import Sequence

from rules import (
    Ball,
    Banks,
    Call,
    Calls,
    Colour,
    Event,
    EventType,
    Finish,
    Flag,
    Foul,
    Penalty,
    Pocket,
    RuleOptions,
    ShotFacts,
    Verdict,
    YellowTwice,
)
from rules.events import contacts_of, first_contact, leaving_event
from rules.table import Spot

_BALL_WORDS = {Ball.W1: "white W1", Ball.W2: "white W2", Ball.R1: "red", Ball.R2: "red",
               Ball.Y: "yellow"}
_FOUL_WORDS = {
    Foul.SCRATCH: "scratch",
    Foul.WRONG_CUE_BALL: "wrong cue ball",
    Foul.OPENING_SHOT: "forbidden on the opening shot",
    Foul.YELLOW_MIDDLE_TWICE: "yellow in a middle pocket twice",
    Foul.BUST: "would pass 60: does not count",
    Foul.OBJECT_OFF_TABLE: "object ball off the table",
    Foul.CHAIN_TOO_LONG: "chain of two or more balls",
    Foul.BANK_NOT_ALLOWED: "banked into a corner",
}
_SPOT_WORDS = {Spot.POINT1: "point 1", Spot.POINT2: "point 2", Spot.POINT3: "point 3",
               Spot.CUSHION_HEAD: "the head cushion", Spot.CUSHION_FOOT: "the foot cushion"}


def describe(verdict: Verdict) -> str:
    """One line: what happened, the points, the score and what to put where."""
    parts: list[str] = []
    if Flag.NOT_JUDGED in verdict.flags:
        parts.append("NOT JUDGED: the camera's facts contradict the game state")
    elif verdict.scored_ball is not None:
        how = " (combination)" if verdict.combination else ""
        how += " banked" if verdict.bank else ""
        caroms = ", caroms " + "+".join(b.value for b in verdict.caroms) if verdict.caroms else ""
        parts.append(f"{_BALL_WORDS[verdict.scored_ball]} in {verdict.pocket}{how}{caroms}"
                     f": +{verdict.points}")
    elif verdict.called is not None and not verdict.fouls:
        parts.append(f"called {verdict.called.target.value} in {verdict.called.pocket.value}: "
                     "missed")
    elif not verdict.fouls:
        parts.append("safety" if Flag.UNCALLED in verdict.flags else "no score")
    if verdict.fouls:
        parts.append("; ".join(_FOUL_WORDS[f] for f in verdict.fouls))
    if verdict.penalty:
        parts.append(f"penalty {verdict.penalty}")
    line = ", ".join(parts)
    line += f"  score {verdict.score[0]}:{verdict.score[1]}"
    if verdict.winner is not None:
        line += f"  player {verdict.winner} WINS"
    elif verdict.turn_passes:
        line += f"  -> player {verdict.next_shooter}"
    todo = [f"{r.ball.value} on {_SPOT_WORDS[r.spot]}" for r in verdict.respots]
    todo += [f"{b.value} in hand" for b in verdict.in_hand]
    if todo:
        line += "  [" + ", ".join(todo) + "]"
    if Flag.UNCALLED in verdict.flags and verdict.scored_ball is not None:
        line += "  (uncalled)"
    if Flag.CAMERA_CONFLICT in verdict.flags:
        line += "  (camera conflict: the operator checks it)"
    return line


# --- the referee's sheet: each shot in sentences, with the rule that decided it ----------------
# (section numbers are those of the rule book, docs/rules.md, which follows RULES.md's sections)
DEFAULT_PLAYERS = ("Player 1", "Player 2")

POCKET_WORDS = {
    Pocket.HR: "the head-right corner pocket (HR)",
    Pocket.HL: "the head-left corner pocket (HL)",
    Pocket.MR: "the right middle pocket (MR)",
    Pocket.ML: "the left middle pocket (ML)",
    Pocket.FR: "the foot-right corner pocket (FR)",
    Pocket.FL: "the foot-left corner pocket (FL)",
}
SPOT_NAMES = {Spot.POINT1: "point 1 (front spot)", Spot.POINT2: "point 2 (centre spot)",
              Spot.POINT3: "point 3 (back spot)", Spot.CUSHION_HEAD: "the head cushion's middle",
              Spot.CUSHION_FOOT: "the foot cushion's middle"}
_SHORT_SPOT = {spot: name.split(" (")[0] for spot, name in SPOT_NAMES.items()}
_YELLOW_ORDER = (Spot.POINT2, Spot.POINT1, Spot.POINT3)  # §6.2, then as a red
_RED_ORDER = (Spot.POINT1, Spot.POINT3)  # §6.1, then the short cushion
_NAME = {Ball.W1: "W1", Ball.W2: "W2", Ball.R1: "red R1", Ball.R2: "red R2", Ball.Y: "the yellow"}
_COLOUR_WORDS = {Colour.WHITE: "white", Colour.RED: "red", Colour.YELLOW: "yellow"}


def _list(items: Sequence[str]) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _called_words(call: Call) -> str:
    target = call.target
    ball = (_COLOUR_WORDS[target] if isinstance(target, Colour)
            else _NAME[target].removeprefix("the "))
    return f"{ball} in {call.pocket.value}"


def _player(names: Sequence[str], player: int) -> str:
    return names[player - 1] if 0 < player <= len(names) else f"player {player}"


def _what_happened(facts: ShotFacts, verdict: Verdict, names: Sequence[str]) -> str:
    """The facts of the shot, in time order where it matters: first contact, caroms, cushions
    before the first contact, pots (banked or not), balls off the table."""
    events = facts.events
    cue = verdict.cue_ball
    struck = facts.strike.ball
    who = _player(names, verdict.shooter)
    if struck != cue:
        head = f"{who} struck {struck.value}, not their own cue ball {cue.value}"
        mover = struck
    else:
        head = f"{who} played {cue.value}"
        mover = cue
    contacts = contacts_of(events, mover)
    first_at = events.index(contacts[0]) if contacts else len(events)
    cushions_before = [e for e in events[:first_at]
                       if e.type is EventType.CUSHION and e.ball == mover]
    if cushions_before:
        n = len(cushions_before)
        first_cushion = cushions_before[0].cushion
        head += (f" off the {first_cushion} cushion" if n == 1
                 else f" off {n} cushions (the {first_cushion} first)")
    if contacts:
        hit = [c.other(mover) for c in contacts]
        seen: list[Ball] = []
        for b in hit:
            if b not in seen:
                seen.append(b)
        head += f": it hit {_NAME[seen[0]]} first"
        if len(seen) > 1:
            head += ", then " + _list([_NAME[b] for b in seen[1:]])
    else:
        head += ": it touched no ball"
    parts = [head]
    for e in events:
        if e.type not in (EventType.POCKET, EventType.OFF_TABLE):
            continue
        # an object ball first touched by another ball than the one struck: say by which
        first = first_contact(events, e.ball)
        by = (f", hit by {_NAME[first.other(e.ball)]}," if e.ball != mover and first is not None
              and first.other(e.ball) != mover else "")
        if e.type is EventType.POCKET and e.pocket is not None:
            banked = _bank_cushion(events, e)
            how = f" off the {banked} cushion" if banked else ""
            parts.append(f"{_NAME[e.ball]}{by} went{how} into {POCKET_WORDS[e.pocket]}")
        else:
            parts.append(f"{_NAME[e.ball]}{by} left the table")
    return _cap("; ".join(parts)) + "."


def _bank_cushion(events: Sequence[Event], pot_event: Event) -> str | None:
    """The cushion a pocketed ball touched between its last ball contact and dropping (§3)."""
    end = events.index(pot_event)
    start = 0
    for i, e in enumerate(events[:end]):
        if e.type is EventType.CONTACT and e.involves(pot_event.ball):
            start = i
    touched = [e.cushion for e in events[start:end]
               if e.type is EventType.CUSHION and e.ball == pot_event.ball]
    return touched[-1].value if touched and touched[-1] is not None else None


def _pot_class(verdict: Verdict) -> str:
    ball, pocket = verdict.scored_ball, verdict.pocket
    if ball is None or pocket is None:
        return ""
    if ball is Ball.Y:
        if pocket.is_middle:
            return "yellow in a middle pocket (12 class)"
        return "yellow banked (12 class)" if verdict.bank else "yellow in a corner, direct"
    return f"{_COLOUR_WORDS[ball.colour]} in any pocket"


def _opening_reason(facts: ShotFacts, verdict: Verdict) -> str:
    events = facts.events
    first = first_contact(events, verdict.cue_ball)
    middle = [e for e in events if e.type is EventType.POCKET and e.pocket is not None
              and e.pocket.is_middle]
    if middle:
        return f"{_NAME[middle[0].ball]} dropped in a middle pocket"
    if first is not None and first.other(verdict.cue_ball) is Ball.Y:
        return "the cue ball hit the yellow first"
    return "the red from point 1 was pocketed"


def explain(verdict: Verdict, facts: ShotFacts, options: RuleOptions | None = None,
            names: Sequence[str] = DEFAULT_PLAYERS) -> str:
    """The referee's sheet for one shot: what happened (first contact, caroms, cushions, the
    pocket, a ball off the table), why it scored what it did with the rule book's section, any
    foul and its penalty, and who plays next. Plain text, a few sentences."""
    options = options or RuleOptions()
    who = _player(names, verdict.shooter)
    other = _player(names, verdict.opponent)
    if Flag.NOT_JUDGED in verdict.flags:
        return (f"{who} played {facts.strike.ball.value}, but what the camera saw contradicts "
                "the game state and no repair made it judgeable (the notes say why): nothing "
                f"is scored, no foul is called, and the turn passes to {other} (§5: only a "
                "shot known to have scored keeps it). The operator judges this shot (kaisa "
                f"journal undo, then kaisa journal override). Score {verdict.score[0]}:"
                f"{verdict.score[1]}.")
    fouls = set(verdict.fouls)
    flags = set(verdict.flags)
    said = [_what_happened(facts, verdict, names)]

    # the call
    if verdict.called is not None and Flag.UNCALLED in flags:
        spoilt = bool({Foul.CHAIN_TOO_LONG, Foul.BANK_NOT_ALLOWED} & fouls) or Flag.NOT_HIT in flags
        said.append(
            f"No call was given and no pocketed ball could score: the first one, "
            f"{_called_words(verdict.called)}, is taken as the call (§3, §7.2)." if spoilt else
            f"No call was given: the first pocketed ball that would score counts as called, "
            f"here {_called_words(verdict.called)} (§3, §7.2).")
    elif verdict.called is not None:
        said.append(f"Called: {_called_words(verdict.called)}.")
    elif Flag.UNCALLED in flags and options.calls is Calls.STRICT and any(
            e.type is EventType.POCKET and e.ball != verdict.cue_ball for e in facts.events):
        said.append("No call was given, and under strict calls nothing scores without one (§3).")

    # the points, or why none
    if verdict.scored_ball is not None and verdict.pocket is not None:
        how = "by combination" if verdict.combination else "directly"
        if verdict.bank:
            how += ", banked"
        carom = (f" with caroms on {_list([_NAME[b] for b in verdict.caroms])}"
                 if verdict.caroms else " with no carom")
        said.append(f"{_cap(_NAME[verdict.scored_ball])} scored {how}{carom}: "
                    f"{_pot_class(verdict)}"
                    + (f" + {'+'.join(b.colour.value for b in verdict.caroms)}"
                       if verdict.caroms else "")
                    + f" = {verdict.points} points (§4).")
        if verdict.combination:
            said.append("In a combination the cue ball's caroms do not count (§3).")
    if Foul.WRONG_CUE_BALL in fouls:
        said.append(f"Wrong cue ball (§5): nothing scores, penalty {verdict.penalty}.")
    if Foul.SCRATCH in fouls:
        first = first_contact(facts.events, verdict.cue_ball)
        value = (f"the value of {_NAME[first.other(verdict.cue_ball)]} it touched first"
                 if first else "it touched no ball")
        gone = leaving_event(facts.events, verdict.cue_ball)
        where = ("was pocketed" if gone is not None and gone.type is EventType.POCKET
                 else "left the table")
        said.append(f"Scratch: the cue ball {verdict.cue_ball.value} {where} (§5): nothing "
                    f"scores; penalty {verdict.penalty} ({value}).")
    if Foul.OPENING_SHOT in fouls:
        said.append(f"Opening shot (§5): {_opening_reason(facts, verdict)}, which the first "
                    "shot of the game may not do: nothing scores, no penalty.")
    if Foul.CHAIN_TOO_LONG in fouls:
        said.append("The called ball was reached through two or more other balls: a chain "
                    "does not score (§3).")
    if Foul.BANK_NOT_ALLOWED in fouls:
        said.append("The called ball was banked into a corner pocket: a banked red or white "
                    "scores only in a middle pocket (§3, banks: seed).")
    if Foul.YELLOW_MIDDLE_TWICE in fouls:
        said.append("The yellow went into a middle pocket on a second shot running (§5): "
                    + ("it keeps its points, but the turn passes (yellow_twice: counts)."
                       if options.yellow_twice is YellowTwice.COUNTS
                       else "it scores nothing and the turn passes."))
    if Foul.BUST in fouls:
        said.append(f"Its points would take {who} above {options.target}: under the exact "
                    "finish a shot that passes the target scores nothing (§5).")
    if Foul.OBJECT_OFF_TABLE in fouls:
        white = any(e.type is EventType.OFF_TABLE and e.ball.is_white for e in facts.events)
        said.append("An object ball left the table (§5): "
                    + ("the points stand, " if verdict.points else "")
                    + "no penalty, the ball is put back "
                    + ("(a white goes into its owner's hand) " if white else "")
                    + "and the turn passes.")
    if Flag.WRONG_POCKET in flags:
        said.append("The called ball dropped, but into another pocket: no score (§3).")
    if Flag.NOT_HIT in flags:
        said.append("The called ball dropped with no ball touching it: no score (§3).")
    if (verdict.scored_ball is None and not fouls and verdict.called is not None
            and Flag.WRONG_POCKET not in flags and Flag.NOT_HIT not in flags):
        said.append("The called ball did not go in: no score, and a miss is not penalised "
                    "(§5).")
    if verdict.called is None and verdict.scored_ball is None and not fouls:
        said.append("With no call it is a positional (safety) shot: it scores nothing and "
                    "is not penalised (§3).")
    if Flag.EXTRA_POT in flags:
        extra = [e.ball for e in facts.events if e.type is EventType.POCKET
                 and e.ball != verdict.cue_ball and e.ball != verdict.scored_ball]
        said.append(f"{_cap(_list([_NAME[b] for b in extra]))} also dropped: only the called "
                    "ball scores, the others are put back (§4)"
                    + ("; under extra_pot_ends_turn this ends the turn." if
                       options.extra_pot_ends_turn else ", and the turn is not lost by them."))

    # the penalty's destination
    if verdict.penalty:
        if Flag.PENALTY_BUST in flags:
            said.append(f"The penalty of {verdict.penalty} would take {other} above "
                        f"{options.target}, so it is not given (§7.5).")
        elif options.penalty is Penalty.TO_OPPONENT:
            said.append(f"The penalty of {verdict.penalty} goes to {other} (penalty: "
                        "to_opponent).")
        else:
            said.append(f"The penalty of {verdict.penalty} is deducted from {who} (§5).")

    if Flag.CAMERA_CONFLICT in flags:
        said.append("What the camera saw contradicted the game state: the shot is judged as "
                    "well as its facts allow (the notes say what was changed); the operator "
                    "confirms it or corrects it.")

    # the turn
    score = f"{verdict.score[0]}:{verdict.score[1]}"
    if verdict.winner is not None:
        winner = _player(names, verdict.winner)
        reach = ("exactly " if options.finish is Finish.EXACT else "")
        said.append(f"Score {score}: {winner} reaches {reach}{options.target} and wins (§5).")
    elif verdict.turn_passes:
        said.append(f"Score {score}; the turn passes to {other} (§5).")
    else:
        said.append(f"Score {score}; {who} plays again (§5).")
    return " ".join(said)


def respot_notes(verdict: Verdict, facts: ShotFacts,
                 names: Sequence[str] = DEFAULT_PLAYERS) -> list[tuple[str, str]]:
    """What the operator puts back and why (§6): (ball id, sentence) for each respot, then each
    white in hand."""
    left = {e.ball for e in facts.events if e.type in (EventType.POCKET, EventType.OFF_TABLE)}
    notes: list[tuple[str, str]] = []
    for r in verdict.respots:
        where = SPOT_NAMES[r.spot]
        if r.ball is Ball.Y and r.ball not in left:
            why = ("it lies off point 2 and the inning ends, so it goes back there "
                   "(§6.2)")
        else:
            order = _YELLOW_ORDER if r.ball is Ball.Y else _RED_ORDER
            gone = "pocketed" if any(e.ball == r.ball and e.type is EventType.POCKET
                                     for e in facts.events) else "off the table"
            taken = list(order[:order.index(r.spot)] if r.spot in order else order)
            if not taken:
                why = f"{gone}: it goes to {_SHORT_SPOT[r.spot]}"
            else:
                why = (f"{gone}, and {_list([_SHORT_SPOT[t] for t in taken])} "
                       f"{'was' if len(taken) == 1 else 'were'} taken")
                if r.spot not in order:
                    why += (": against the short cushion nearest the next striker's cue "
                            "ball")
            why += " (§6.2)" if r.ball is Ball.Y else " (§6.1)"
        notes.append((r.ball.value, f"{r.ball.value} on {where}: {why}."))
    for b in verdict.in_hand:
        owner = _player(names, 1 if b is Ball.W1 else 2)
        notes.append((b.value, f"{b.value} in hand: {owner} places it in the house before "
                               "their next shot (§6.4)."))
    return notes


def rules_in_words(options: RuleOptions) -> list[str]:
    """The rule options of a match as a person reads them (one phrase per option)."""
    table = options.table
    return [
        (f"play to exactly {options.target} (a shot that would pass it scores nothing)"
         if options.finish is Finish.EXACT else f"first to {options.target} or more wins"),
        ("no call known: the first pocketed ball that would score counts"
         if options.calls is Calls.ASSUME else "strict calls: nothing scores without a call"),
        ("a banked red or white scores only in a middle pocket" if options.banks is Banks.SEED
         else "banked reds and whites score in any pocket"),
        ("a penalty is deducted from the offender" if options.penalty is Penalty.DEDUCT
         else "a penalty is given to the opponent"),
        ("the yellow in a middle pocket twice running scores nothing the second time"
         if options.yellow_twice is YellowTwice.VOID
         else "the yellow in a middle pocket twice running keeps its points (turn passes)"),
        ("extra balls pocketed end the turn" if options.extra_pot_ends_turn
         else "extra balls pocketed do not end the turn"),
        f"table {table.name}, {table.length_mm:g} x {table.width_mm:g} mm, "
        f"balls {table.ball_diameter_mm:g} mm",
    ]
