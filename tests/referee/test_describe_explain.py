"""Each shot in sentences (referee/describe.py ``explain``): real shots judged by the rules, then
told: what happened, why it scored what it did, the rule book's section, the turn."""

from __future__ import annotations

from referee.describe import explain, respot_notes, rules_in_words
from rules import Ball, Foul, GameState, RuleOptions, judge
from rules.options import Penalty
from tests.rules.builders import cushion, hit, midgame, off, pot, shot, strike

NAMES = ("Anna", "Boris")


def _told(state: GameState, facts, options: RuleOptions | None = None) -> str:
    return explain(judge(state, facts), facts, options or state.options, NAMES)


def test_a_direct_pot_names_the_first_contact_the_pocket_and_the_points():
    facts = shot(strike("W1"), hit("W1", "R1"), pot("R1", "FL"), call="R FL")
    text = _told(midgame(), facts)
    assert "Anna played W1: it hit red R1 first" in text
    assert "red R1 went into the foot-left corner pocket (FL)" in text
    assert "Called: red in FL." in text
    assert "scored directly with no carom: red in any pocket = 3 points (§4)" in text
    assert "Score 3:0; Anna plays again (§5)." in text


def test_a_bank_names_the_cushion_and_the_twelve_class_of_the_yellow():
    facts = shot(strike("W1"), hit("W1", "Y"), cushion("Y", "left"), pot("Y", "FR"),
                 call="Y FR")
    verdict = judge(midgame(), facts)
    assert verdict.bank and verdict.points == 12
    text = explain(verdict, facts, names=NAMES)
    assert "the yellow went off the left cushion into the foot-right corner pocket (FR)" in text
    assert "directly, banked" in text and "yellow banked (12 class)" in text
    assert "= 12 points (§4)" in text


def test_a_banked_red_into_a_corner_is_refused_by_the_seed_rule():
    facts = shot(strike("W1"), hit("W1", "R1"), cushion("R1", "foot"), pot("R1", "FL"),
                 call="R FL")
    text = _told(midgame(), facts)
    assert "banked red or white scores only in a middle pocket (§3, banks: seed)" in text
    assert "turn passes to Boris" in text


def test_caroms_are_listed_and_counted():
    facts = shot(strike("W1"), hit("W1", "R1"), hit("W1", "Y"), pot("R1", "FL"), call="R FL")
    verdict = judge(midgame(), facts)
    assert verdict.points == 9
    text = explain(verdict, facts, names=NAMES)
    assert "it hit red R1 first, then the yellow" in text
    assert "with caroms on the yellow: red in any pocket + Y = 9 points (§4)" in text


def test_a_scratch_tells_the_penalty_its_reason_and_who_loses_it():
    facts = shot(strike("W1"), hit("W1", "R1"), pot("W1", "HL"))
    verdict = judge(midgame(score=(10, 4)), facts)
    assert Foul.SCRATCH in verdict.fouls and verdict.penalty == 3
    text = explain(verdict, facts, names=NAMES)
    assert "W1 went into the head-left corner pocket (HL)" in text
    assert "Scratch: the cue ball W1 was pocketed (§5): nothing scores" in text
    assert "penalty 3 (the value of red R1 it touched first)" in text
    assert "deducted from Anna" in text
    assert "Score 7:4; the turn passes to Boris (§5)." in text
    assert ("W1", "W1 in hand: Anna places it in the house before their next shot (§6.4).") \
        in respot_notes(verdict, facts, NAMES)


def test_a_penalty_to_the_opponent_is_said_so():
    opts = RuleOptions(penalty=Penalty.TO_OPPONENT)
    facts = shot(strike("W1"), pot("W1", "HL"))
    text = _told(midgame(options=opts), facts)
    assert "it touched no ball" in text and "penalty 2" in text
    assert "goes to Boris" in text and "Score 0:2" in text


def test_a_wrong_cue_ball_names_the_ball_struck():
    facts = shot(strike("W2"), hit("W2", "R1"), pot("R1", "FL"), call="R FL")
    verdict = judge(midgame(), facts)
    text = explain(verdict, facts, names=NAMES)
    assert "Anna struck W2, not their own cue ball W1" in text
    assert "Wrong cue ball (§5): nothing scores, penalty 2." in text
    assert "scored" not in text


def test_an_object_ball_off_the_table_keeps_the_points_and_passes_the_turn():
    facts = shot(strike("W1"), hit("W1", "R1"), hit("R1", "Y"), pot("R1", "FL"), off("Y"),
                 call="R FL")
    verdict = judge(midgame(), facts)
    assert verdict.points == 3 and Foul.OBJECT_OFF_TABLE in verdict.fouls
    text = explain(verdict, facts, names=NAMES)
    assert "the yellow, hit by red R1, left the table" in text
    assert "An object ball left the table (§5): the points stand" in text
    assert "Score 3:0; the turn passes to Boris" in text
    notes = dict(respot_notes(verdict, facts, NAMES))
    assert notes["Y"].startswith("Y on point 2 (centre spot): off the table")


def test_the_opening_restriction_says_which_one_was_broken():
    opening = GameState(options=RuleOptions())
    facts = shot(strike("W1"), hit("W1", "Y"), call="Y ML")
    text = _told(opening, facts)
    assert "Opening shot (§5): the cue ball hit the yellow first" in text
    assert "no penalty" in text
    facts = shot(strike("W1"), hit("W1", "R2"), pot("R2", "MR"), call="R MR")
    text = _told(opening, facts)
    assert "Opening shot (§5): red R2 dropped in a middle pocket" in text


def test_extra_pots_score_nothing_and_are_put_back():
    facts = shot(strike("W1"), hit("W1", "R1"), hit("R1", "R2"), pot("R1", "FL"),
                 pot("R2", "FR"), call="R FL")
    verdict = judge(midgame(), facts)
    text = explain(verdict, facts, names=NAMES)
    assert verdict.points == 3
    assert "Red R2 also dropped: only the called ball scores, the others are put back (§4)" \
        in text
    assert "the turn is not lost by them" in text and "Anna plays again" in text
    notes = dict(respot_notes(verdict, facts, NAMES))
    assert set(notes) == {"R1", "R2"}
    # R1 went to point 1 first (yellow, R1, R2: §6.3)
    assert notes["R2"] == "R2 on point 3 (back spot): pocketed, and point 1 was taken (§6.1)."
    ends = RuleOptions(extra_pot_ends_turn=True)
    text = _told(midgame(options=ends), facts)
    assert "under extra_pot_ends_turn this ends the turn" in text and "passes to Boris" in text


def test_a_safety_a_missed_call_and_a_win():
    text = _told(midgame(), shot(strike("W1"), cushion("W1", "foot"), hit("W1", "Y")))
    assert "Anna played W1 off the foot cushion: it hit the yellow first" in text
    assert "positional (safety) shot" in text and "(§3)" in text
    text = _told(midgame(), shot(strike("W1"), hit("W1", "R1"), call="R FL"))
    assert "did not go in: no score, and a miss is not penalised (§5)" in text
    facts = shot(strike("W1"), hit("W1", "R1"), pot("R1", "FL"), call="R FL")
    assert "Anna reaches exactly 60 and wins (§5)" in _told(midgame(score=(57, 50)), facts)
    assert "above 60" in _told(midgame(score=(58, 50)), facts)


def test_an_assumed_call_is_said_to_be_assumed():
    facts = shot(strike("W1"), hit("W1", "R1"), pot("R1", "FL"))
    text = _told(midgame(), facts)
    assert "No call was given" in text and "here red in FL (§3, §7.2)" in text
    banked = shot(strike("W1"), hit("W1", "R1"), cushion("R1", "foot"), pot("R1", "FL"))
    text = _told(midgame(), banked)
    assert "no pocketed ball could score: the first one, red in FL, is taken as the call" in text
    assert "scores only in a middle pocket" in text


def test_the_rule_options_read_as_words_not_as_settings():
    words = rules_in_words(RuleOptions())
    assert "extra balls pocketed do not end the turn" in words
    assert not any("=" in w or "False" in w or "_" in w for w in words)
    other = rules_in_words(RuleOptions(extra_pot_ends_turn=True, penalty=Penalty.TO_OPPONENT))
    assert "extra balls pocketed end the turn" in other
    assert "a penalty is given to the opponent" in other


def test_a_combination_says_which_ball_sent_the_called_one():
    facts = shot(strike("W1"), hit("W1", "R1"), hit("R1", "Y"), pot("Y", "HL"), call="Y HL")
    text = _told(midgame(), facts)
    assert "the yellow, hit by red R1, went into the head-left corner pocket (HL)" in text
    assert "scored by combination with no carom" in text


def test_a_respot_past_taken_points_names_them():
    L, W = 3550.0, 1775.0
    crowded = {Ball.W1: (300.0, 500.0), Ball.W2: (L / 4, W / 2), Ball.R1: (2000.0, 300.0),
               Ball.Y: (L / 2, W / 2), Ball.R2: (3 * L / 4, W / 2)}
    facts = shot(strike("W1"), hit("W1", "R1"), pot("R1", "FL"), call="R FL")
    verdict = judge(midgame(positions=crowded), facts)
    notes = dict(respot_notes(verdict, facts, NAMES))
    assert notes["R1"].startswith("R1 on the ")
    assert ("pocketed, and point 1 and point 3 were taken: against the short cushion nearest "
            "the next striker's cue ball (§6.1).") in notes["R1"]
