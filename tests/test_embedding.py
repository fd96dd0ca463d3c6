"""Chapter 2: the embedding lookup table."""

from __future__ import annotations

import random
import statistics
from typing import Any

import pytest

from minipe import Batch, Embedding, Matrix, ShapeError


def test_rows_are_gaussian_draws_from_the_tables_own_seeded_generator() -> None:
    table = Embedding(5, 3, seed=42)
    rng = random.Random(42)  # the same draws, made here by hand, row by row
    expected = [[rng.gauss(0.0, 1.0) for _ in range(3)] for _ in range(5)]
    assert table.weight.tolist() == expected
    assert table.weight.shape == (5, 3)
    assert (table.num_embeddings, table.dim) == (5, 3)


def test_the_same_seed_gives_the_same_table_and_another_seed_another() -> None:
    assert Embedding(4, 8, seed=1).weight == Embedding(4, 8, seed=1).weight
    assert Embedding(4, 8, seed=1).weight != Embedding(4, 8, seed=2).weight


def test_no_global_random_state_is_touched() -> None:
    random.seed(123)
    before = random.random()
    random.seed(123)
    Embedding(10, 10, seed=0)
    assert random.random() == before


def test_values_look_standard_normal() -> None:
    values = [x for row in Embedding(200, 50, seed=0).weight.tolist() for x in row]  # 10,000
    assert abs(statistics.fmean(values)) < 0.05  # mean 0, standard error 0.01
    assert abs(statistics.pstdev(values) - 1.0) < 0.05  # standard deviation 1


def test_lookup_takes_rows() -> None:
    table = Embedding(10, 4, seed=0)
    looked_up = table([3, 1, 3])
    assert isinstance(looked_up, Matrix)
    assert looked_up.shape == (3, 4)
    assert looked_up[0] == table.weight[3]
    assert looked_up[1] == table.weight[1]
    assert looked_up[2] == looked_up[0]  # the same ID gives the same vector, wherever it stands


def test_a_list_of_lists_gives_a_batch() -> None:
    # lecture 001's shapes: 8 sequences of 4 IDs -> (8, 4, 256)
    table = Embedding(50, 256, seed=0)
    ids = [[(b * 4 + t) % 50 for t in range(4)] for b in range(8)]
    batch = table(ids)
    assert isinstance(batch, Batch)
    assert batch.shape == (8, 4, 256)
    assert batch[7][3] == table.weight[(7 * 4 + 3) % 50]


@pytest.mark.parametrize("ids, error, words", [
    ([10], IndexError, r"ids\[0\] = 10 is out of range: the table has 10 rows \(num_embeddings; "
                       r".*\), so valid IDs are 0..9"),
    ([0, -1], IndexError, r"ids\[1\] = -1 is out of range.*negative IDs do not wrap around"),
    ([1.0], TypeError, r"ids\[0\] must be an int ID"),
    ([True], TypeError, "must be an int ID"),
    ([], ValueError, "ids is empty; a lookup needs at least one ID"),
    ("3", TypeError, "ids must be a list of int IDs"),
    ([[1, 2], 3], TypeError, r"ids\[1\] must be a list of int IDs"),
    ([[1, 2], [3]], ShapeError, r"ids\[0\] has 2 IDs but ids\[1\] has 1"),
    ([[1, 2], [3, 10]], IndexError, r"ids\[1\]\[1\] = 10 is out of range"),
])
def test_bad_ids_are_explained(ids: Any, error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words):
        Embedding(10, 4, seed=0)(ids)


@pytest.mark.parametrize("args, error, words", [
    ((0, 4), ValueError, "num_embeddings must be >= 1, got 0"),
    ((4, -1), ValueError, "dim must be >= 1, got -1"),
    ((4.0, 4), TypeError, "num_embeddings must be an int"),
])
def test_bad_sizes_are_explained(args: Any, error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words):
        Embedding(*args)


def test_a_lookup_cannot_change_the_table() -> None:
    table = Embedding(3, 2, seed=0)
    before = table.weight.tolist()
    ids = [0, 1]
    rows = table(ids)
    ids[0] = 2
    assert isinstance(rows, Matrix)
    rows.tolist()[0][0] = 99.0
    table.weight.tolist()[0][0] = 99.0
    assert table.weight.tolist() == before
    assert rows[0] == table.weight[0]
    with pytest.raises(AttributeError, match="cannot assign to field 'weight'"):
        table.weight = Matrix([[0.0]])  # type: ignore[misc]


def test_an_id_past_a_token_table_says_the_table_needs_vocab_size_rows() -> None:
    # Issue 17, item 11: the usual mix-up is a token table built with context_length rows.
    # A 12-token vocabulary, but the table was built with context_length = 8 rows.
    vocab_size, context_length = 12, 8
    token_table = Embedding(context_length, 4, seed=0)
    with pytest.raises(IndexError) as caught:
        token_table([[3, 9, 1]])  # ID 9 exists in the vocabulary (0..11) but not in the table
    sentence = str(caught.value)
    assert sentence.startswith("ids[0][1] = 9 is out of range: the table has 8 rows")
    assert "valid IDs are 0..7" in sentence
    assert "num_embeddings = vocab_size" in sentence
    assert "context_length rows is the usual mix-up" in sentence
    assert Embedding(vocab_size, 4, seed=0)([[3, 9, 1]]).shape == (1, 3, 4)  # the right size


def test_the_lookup_shares_the_tables_rows_and_checks_only_the_ids() -> None:
    table = Embedding(6, 3, seed=0)
    looked_up = table([5, 0, 5])
    # the very tuples of the table, not copies: nothing was read number by number
    assert looked_up.rows[0] is table.weight.rows[5]
    assert looked_up.rows[2] is table.weight.rows[5]
    assert looked_up.rows[1] is table.weight.rows[0]


def test_a_table_too_big_for_a_laptop_is_refused_before_it_is_built() -> None:
    # 10**10 rows x 8 = 8 * 10**10 numbers; at 32 bytes each, 2,560 GB (limit: about 4 GB)
    with pytest.raises(ValueError, match=r"Embedding\(num_embeddings=10000000000, dim=8\) would "
                                         r"hold 80,000,000,000 numbers, about 2,560 GB"):
        Embedding(10**10, 8)
