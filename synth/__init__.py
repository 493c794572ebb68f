"""Labelled synthetic clips: event-driven 2D physics, overhead-camera renderer, labels.

Kept free of imports so that ``import synth`` is cheap; import the submodules you need
(``synth.physics``).
"""
