"""Every option RULES.md names, read from TOML and JSON, with defaults as written."""

from __future__ import annotations

import pytest

from rules import (
    PRESETS,
    Banks,
    Calls,
    Finish,
    OptionsError,
    Penalty,
    RuleOptions,
    YellowTwice,
    parse_rules_text,
)


def test_defaults_are_the_first_values():
    o = RuleOptions()
    assert (o.calls, o.banks, o.extra_pot_ends_turn, o.penalty, o.yellow_twice, o.finish) == (
        Calls.ASSUME, Banks.SEED, False, Penalty.DEDUCT, YellowTwice.VOID, Finish.EXACT)
    assert (o.target, o.table) == (60, PRESETS["russian-12ft"])


TOML = """
calls = "strict"
banks = "finnish"
extra_pot_ends_turn = true
penalty = "to_opponent"
yellow_twice = "counts"
finish = "reach"
table = "kaisa-10ft"
"""


def test_all_options_from_toml_and_json_agree():
    from_toml = parse_rules_text(TOML, "toml")
    from_json = parse_rules_text(
        '{"calls": "strict", "banks": "finnish", "extra_pot_ends_turn": true, "penalty": '
        '"to_opponent", "yellow_twice": "counts", "finish": "reach", "table": "kaisa-10ft"}',
        "json")
    assert from_toml == from_json
    assert (from_toml.calls, from_toml.banks, from_toml.extra_pot_ends_turn, from_toml.penalty,
            from_toml.yellow_twice, from_toml.finish) == (
        Calls.STRICT, Banks.FINNISH, True, Penalty.TO_OPPONENT, YellowTwice.COUNTS, Finish.REACH)
    assert from_toml.table == PRESETS["kaisa-10ft"]


def test_toml_rules_table_and_custom_table():
    o = parse_rules_text('[rules]\nfinish = "reach"\n[rules.table]\nlength_mm = 3000\n'
                         "width_mm = 1500\n", "toml")
    assert o.finish is Finish.REACH and o.table.length_mm == 3000


def test_round_trip():
    o = parse_rules_text(TOML, "toml")
    assert RuleOptions.from_mapping(o.to_dict()) == o


@pytest.mark.parametrize(("text", "fmt", "where", "message"), [
    ('finish = "sudden"', "toml", "rules.finish", "expected exact|reach, got 'sudden'"),
    ('banks = "any"', "toml", "rules.banks", "expected seed|finnish"),
    ("extra_pot_ends_turn = 1", "toml", "rules.extra_pot_ends_turn", "true|false"),
    ('callz = "strict"', "toml", "rules.callz", "unknown option 'callz'"),
    ("target = -5", "toml", "rules.target", "positive whole number"),
    ('table = "snooker"', "toml", "rules.table", "unknown table preset"),
    ("finish = ", "toml", "rules", "not valid TOML"),
    ("{", "json", "rules", "not valid JSON"),
    ("[1, 2]", "json", "rules", "expected an object"),
])
def test_bad_options(text: str, fmt: str, where: str, message: str):
    with pytest.raises(OptionsError) as err:
        parse_rules_text(text, fmt)
    assert err.value.where == where
    assert message in str(err.value)
