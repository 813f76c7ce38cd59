"""Kintsugi (Button Shy): lay broken-pottery cards so your secret colour forms few pieces, then guess your
left neighbour's colour. api.py fulfils the game contract of sim/game.py."""
