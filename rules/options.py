"""Every option RULES.md names, with its defaults, read from a rules file's text (TOML or JSON).

The caller reads the file; this module only parses text, so ``rules`` stays free of I/O.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import Enum, StrEnum
from typing import Any

from rules.errors import OptionsError
from rules.table import TableSpec


class Calls(StrEnum):
    ASSUME = "assume"  # no call known: the first pocketed ball that would score counts as called
    STRICT = "strict"  # no call: nothing scores


class Banks(StrEnum):
    SEED = "seed"  # a banked red or white scores only into a middle pocket
    FINNISH = "finnish"  # banked reds and whites score in any pocket


class Penalty(StrEnum):
    DEDUCT = "deduct"  # taken from the offender (a score may go below zero)
    TO_OPPONENT = "to_opponent"  # given to the opponent


class YellowTwice(StrEnum):
    VOID = "void"  # the second yellow-in-middle scores nothing, turn passes
    COUNTS = "counts"  # it keeps its points, but the turn still passes


class Finish(StrEnum):
    EXACT = "exact"  # going above the target scores nothing ("bust"); exactly the target wins
    REACH = "reach"  # the first to reach the target or more wins


@dataclass(frozen=True)
class RuleOptions:
    """The rule set's switches (RULES.md §3-§5); defaults are the first value of each."""

    calls: Calls = Calls.ASSUME
    banks: Banks = Banks.SEED
    extra_pot_ends_turn: bool = False
    penalty: Penalty = Penalty.DEDUCT
    yellow_twice: YellowTwice = YellowTwice.VOID
    finish: Finish = Finish.EXACT
    target: int = 60
    table: TableSpec = field(default_factory=TableSpec)

    def reached(self, score: int) -> bool:
        """Whether ``score`` wins the game under the finish option."""
        return score == self.target if self.finish is Finish.EXACT else score >= self.target

    def to_dict(self) -> dict[str, Any]:
        return {
            "calls": self.calls.value,
            "banks": self.banks.value,
            "extra_pot_ends_turn": self.extra_pot_ends_turn,
            "penalty": self.penalty.value,
            "yellow_twice": self.yellow_twice.value,
            "finish": self.finish.value,
            "target": self.target,
            "table": self.table.to_dict(),
        }

    @classmethod
    def from_mapping(cls, data: object, where: str = "rules") -> RuleOptions:
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise OptionsError(
                f"expected an object of rule options, got {type(data).__name__}", where
            )
        options = cls()
        enums: dict[str, type[Enum]] = {
            "calls": Calls,
            "banks": Banks,
            "penalty": Penalty,
            "yellow_twice": YellowTwice,
            "finish": Finish,
        }
        for key, value in data.items():
            path = f"{where}.{key}"
            if key in enums:
                kind = enums[key]
                try:
                    options = replace(options, **{key: kind(value)})  # type: ignore[arg-type]
                except ValueError:
                    allowed = "|".join(str(m.value) for m in kind)
                    raise OptionsError(f"expected {allowed}, got {value!r}", path) from None
            elif key == "extra_pot_ends_turn":
                if not isinstance(value, bool):
                    raise OptionsError(f"expected true|false, got {value!r}", path)
                options = replace(options, extra_pot_ends_turn=value)
            elif key == "target":
                if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                    raise OptionsError(
                        f"expected a positive whole number of points, got {value!r}", path
                    )
                options = replace(options, target=value)
            elif key == "table":
                options = replace(options, table=TableSpec.from_value(value, path))
            else:
                known = ", ".join([*enums, "extra_pot_ends_turn", "target", "table"])
                raise OptionsError(f"unknown option {key!r} (expected one of {known})", path)
        return options


def parse_rules_text(text: str, fmt: str, where: str = "rules") -> RuleOptions:
    """Rule options from the text of a rules file; ``fmt`` is ``"toml"`` or ``"json"``.

    A TOML file may hold the options at the top level or under a ``[rules]`` table.
    """
    try:
        data: Any = tomllib.loads(text) if fmt == "toml" else json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as err:
        raise OptionsError(f"not valid {fmt.upper()}: {err}", where) from None
    if isinstance(data, Mapping) and isinstance(data.get("rules"), Mapping) and len(data) == 1:
        data = data["rules"]
    return RuleOptions.from_mapping(data, where)
