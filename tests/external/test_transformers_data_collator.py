"""Hugging Face transformers, tests/trainer/test_data_collator.py (Apache 2.0),
test_data_collator_with_flattening: DataCollatorWithFlattening packs three documents.

The collator returns tensors of shape (1, 16), a batch axis of 1; minipe's `pack_documents`
returns one row, a list of 16 ints (the source compares `batch[...][0].tolist()`).
"""

from __future__ import annotations

from minipe import pack_documents

FEATURES = [[10, 11, 12], [20, 21, 22, 23, 24, 25], [30, 31, 32, 33, 34, 35, 36]]


def test_data_collator_with_flattening() -> None:
    packed = pack_documents(FEATURES)
    assert packed.ids == [10, 11, 12, 20, 21, 22, 23, 24, 25, 30, 31, 32, 33, 34, 35, 36]
    assert packed.position_ids == [0, 1, 2, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6]
    assert len(packed.ids) == len(packed.position_ids) == 16  # shape (1, 16)
