"""What Kaleido's analyses share: the two strategies the rotation comparison pairs."""

ROTATOR, BASE = "rotator", "greedy"  # rotator plays exactly like greedy but turns the boards it scores
