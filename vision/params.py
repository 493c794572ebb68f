"""What every stage's parameter object shares: each field checked against the range its unit
allows, read from the end of its name, and the fields as a dict for a report.

A field whose default is an ``int`` is a count (frames, samples, balls: at least 1, or more where
the stage says); every other field is a number stored as a plain float, in the range of its unit:
``_share`` (0, 1], ``_deg`` (0, 180], ``_chroma`` (0, 2] (a chromaticity distance), ``_ratio`` and
``_thresholds`` a finite factor of at least 1, anything else (mm, mm a frame, seconds,
diameters, radii, ...) positive and finite.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Mapping
from typing import Any


class ParamsError(ValueError):
    """A parameter out of its range; the one-line message names the field."""


def check_fields(params: Any, error: type[ParamsError],
                 least_counts: Mapping[str, int] | None = None) -> None:
    """Raise ``error`` naming the first field of the frozen dataclass ``params`` out of its
    unit's range; store whole numbers given for float fields (and numpy numbers) as plain
    Python numbers. ``least_counts``: counts that must be more than 1."""
    for f in dataclasses.fields(params):
        value = getattr(params, f.name)
        if isinstance(f.default, int):  # (a count)
            least = (least_counts or {}).get(f.name, 1)
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < least:
                raise error(f"{f.name}: expected a whole number of at least {least}, "
                            f"got {value!r}")
            object.__setattr__(params, f.name, int(value))
            continue
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise error(f"{f.name}: expected a number, got {value!r}")
        value = float(value)
        object.__setattr__(params, f.name, value)
        if f.name.endswith("_share"):
            ok, expected = 0 < value <= 1, "a share in (0, 1]"
        elif f.name.endswith("_deg"):
            ok, expected = 0 < value <= 180, "an angle in (0, 180] degrees"
        elif f.name.endswith("_chroma"):
            ok, expected = 0 < value <= 2, "a chromaticity distance in (0, 2]"
        elif f.name.endswith(("_ratio", "_thresholds")):
            ok, expected = math.isfinite(value) and value >= 1, "a finite factor of at least 1"
        else:
            ok, expected = math.isfinite(value) and value > 0, "a positive finite number"
        if not ok:
            raise error(f"{f.name}: expected {expected}, got {value!r}")


def check_order(params: Any, error: type[ParamsError], *pairs: tuple[str, str]) -> None:
    """Raise ``error`` where a pair's second field is below its first (a range's ends)."""
    for low, high in pairs:
        if getattr(params, low) > getattr(params, high):
            raise error(f"{high}: expected at least {low} ({getattr(params, low)!r}), "
                        f"got {getattr(params, high)!r}")


def as_dict(params: Any) -> dict[str, float | int]:
    """Every field by name (for a report: ``type(params)(**d)`` gives it back)."""
    return {f.name: getattr(params, f.name) for f in dataclasses.fields(params)}
