"""Witkacy: components and set-up; a collection of overlapping double-sided cards. api.py (to come)
fulfils the game contract of sim/game.py."""
