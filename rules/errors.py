"""One small error hierarchy for everything the rules core refuses.

Every message names where the problem is (a dotted path such as ``shots[3].events[2].ball``) and
what was expected, so the CLI can print it as one line and exit 2.
"""

from __future__ import annotations


class KaisaError(ValueError):
    """Bad input for the rules core. ``where`` is a path into the input, or empty."""

    def __init__(self, message: str, where: str = "") -> None:
        self.where = where
        self.detail = message
        super().__init__(f"{where}: {message}" if where else message)

    def at(self, prefix: str) -> KaisaError:
        """The same error, located one level further out (``prefix`` + ``.`` + where)."""
        where = (
            f"{prefix}.{self.where}"
            if self.where and not self.where.startswith("[")
            else (f"{prefix}{self.where}")
        )
        return type(self)(self.detail, where)


class FactsError(KaisaError):
    """A shot record that cannot be right: unknown ids, events out of order, impossible events."""


class OptionsError(KaisaError):
    """A rules option or table specification that is not one of the allowed values."""


class StateError(KaisaError):
    """A game state that cannot be, or a shot that does not fit the state (e.g. after a win)."""
