"""Exercise 15 - the lookup's backward (see minipe/training/gradients.py).

Write lookup_backward(ids, d_X, vocab_size): the gradient of the token table.

In the forward pass x = E[id] copied row id of the table E, once per token. So

    dE[id] = the sum of the rows of d_X whose token is id     (0 for IDs never seen)

ids is a batch of sequences of IDs; d_X holds one row per token, the sequences one
after another. A token that came twice sends both of its gradients into its row:

    lookup_backward([[1, 2, 1]], [[1.0], [2.0], [3.0]], 3) -> [[0.0], [4.0], [2.0]]

Check it:   python -m minipe exercises check 15
A nudge:    python -m minipe exercises hint 15
"""

from __future__ import annotations

DONE = False  # `check 15` sets this word to True once lookup_backward() is right


def lookup_backward(ids: list[list[int]], d_X: list[list[float]],
                    vocab_size: int) -> list[list[float]]:
    raise NotImplementedError("exercise 15: write lookup_backward() here")
