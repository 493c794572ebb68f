"""The referee application: the `kaisa` command, game files, reports."""
