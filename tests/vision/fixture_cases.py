"""What the fixture runners ``test_shot_fact_fixtures.py`` and ``test_tracker_fixtures.py``
share: reading a folder of cases with their variants into test parameters, and the checks of a
case's form that do not depend on what it feeds (keys, ``what``, ``origin``, ``table``,
variants)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rules.table import TableSpec

VARIANT_KEYS = {"name", "what", "expect"}
VARIANT_OPTIONAL = {"without", "with"}


def fixture_paths(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.json"))


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def fixture_cases(folder: Path, given: Callable[[dict[str, Any]], Any],
                  varied: Callable[[Any, dict[str, Any]], Any]) -> list[Any]:
    """``pytest.param(case, input, expectations, what)`` for each case of ``folder`` and each
    of its variants (id: the file's stem, ``<stem>-<variant name>``); ``given(case)`` is the
    case's input, ``varied(input, variant)`` a variant's."""
    out = []
    for path in fixture_paths(folder):
        case = load(path)
        base = given(case)
        out.append(pytest.param(case, base, case["expect"], case["what"], id=path.stem))
        for variant in case.get("variants", []):
            out.append(pytest.param(case, varied(base, variant), variant["expect"],
                                    f"{case['what']} / {variant['what']}",
                                    id=f"{path.stem}-{variant['name']}"))
    return out


def case_form_errors(case: dict[str, Any], case_keys: set[str]) -> list[str]:
    """Missing or unknown keys, ``what`` and ``origin`` not said, a table no preset or spec."""
    errors = []
    if missing := case_keys - set(case):
        errors.append(f"missing {sorted(missing)}")
    if unknown := set(case) - case_keys - {"variants"}:
        errors.append(f"unknown keys {sorted(unknown)}")
    for key in ("what", "origin"):
        if not (isinstance(case.get(key), str) and case.get(key)):
            errors.append(f"{key}: expected a non-empty string")
    try:
        TableSpec.from_value(case.get("table"))
    except Exception as err:  # (any refusal: reported as the fixture's error)
        errors.append(f"table: {err}")
    return errors


def variants_form_errors(case: dict[str, Any],
                         own_errors: Callable[[dict[str, Any], str], list[str]]) -> list[str]:
    """The variants: a list of objects with unique names, their keys, and what
    ``own_errors(variant, where)`` finds in what they change and expect."""
    variants = case.get("variants", [])
    if not isinstance(variants, list):
        return ["variants: expected a list"]
    errors = []
    names = [v.get("name") for v in variants if isinstance(v, dict)]
    if len(names) != len(set(names)):
        errors.append("variants: names not unique")
    for k, v in enumerate(variants):
        where = f"variants[{k}]"
        if not isinstance(v, dict):
            errors.append(f"{where}: not an object")
            continue
        if missing := VARIANT_KEYS - set(v):
            errors.append(f"{where}: missing {sorted(missing)}")
        if unknown := set(v) - VARIANT_KEYS - VARIANT_OPTIONAL:
            errors.append(f"{where}: unknown keys {sorted(unknown)}")
        errors += own_errors(v, where)
    return errors


def malformed(folder: Path, form_errors: Callable[[Any], list[str]]) -> str:
    """The fixtures of ``folder`` that ``form_errors`` finds fault with, as JSON (empty: none;
    a folder without fixtures is a fault too)."""
    paths = fixture_paths(folder)
    if not paths:
        return f"no fixtures in {folder}"
    bad = {p.name: errs for p in paths if (errs := form_errors(load(p)))}
    return json.dumps(bad, indent=1) if bad else ""
