"""Handful: a small hidden-hand card game that only the tests play, added as any new game is (README, "Adding a
game"): its own files (rules, engine, reference, api, players; it declares no test data, sim/checks.py, so the
shared tests use their defaults) and one registry line (tests/testgames.py).

The deck holds the cards 0 to `cards - 1`. Each seat is dealt `hand` cards that only it sees. The game is `hand`
tricks; in each, every seat plays one card face up, the leader first (seat 0 leads the first trick, then the
seat after the last leader). A seat that holds a card higher than every card already played in the trick must
play one of those. The highest card wins the trick; the most tricks wins the game, ties share.
"""
