"""Shots: the tracks cut into shots and each shot's facts (strikes, contacts, cushions, pots,
balls leaving the table: ``facts``), given out as soon as the shot's balls are at rest
(``stream``)."""
