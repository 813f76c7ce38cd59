"""Standings shared by every game: ranks and win shares from final scores."""

from __future__ import annotations

import numpy as np


def standings(scores: np.ndarray, lower_wins: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Competition ranks and win shares for a batch of games.

    scores: (B, P). Returns rank (B, P) int8, 1 = best, tied seats share the better rank; and win (B, P)
    float32: 1/k for each of the k seats tied for first, 0 otherwise, so every game's shares sum to 1.
    """
    key = scores if lower_wins else -scores
    rank = 1 + (key[:, None, :] < key[:, :, None]).sum(axis=2)
    first = key == key.min(axis=1, keepdims=True)
    win = first / first.sum(axis=1, keepdims=True)
    return rank.astype(np.int8), win.astype(np.float32)
