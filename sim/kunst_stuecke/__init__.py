"""Kunst Stücke: lay polyominoes on a shared canvas, slide them with chips, and aim at hidden targets:
blocks of one colour and an exact number of pieces. api.py fulfils the game contract of sim/game.py."""
