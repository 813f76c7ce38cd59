"""Broken and Beautiful (Left Justified Studio, 2023): draft pottery, keep it or sell it for gold, watch it
break, mend it with gold. api.py fulfils the game contract of sim/game.py."""
