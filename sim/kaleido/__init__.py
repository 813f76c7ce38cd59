"""Kaleido (Japon Brand, 2014): fill triangular holes on hexagonal boards, win board majorities, turn the
boards you score to set up end-game hexagons. api.py fulfils the game contract of sim/game.py."""
