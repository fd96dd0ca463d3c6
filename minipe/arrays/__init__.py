"""Appendices A and B - the arrays the chapters compute with, and how they combine.

The chapters stand on this folder; read it when a chapter's `@` or `+` makes you
curious, not before. In reading order:

    matrix.py     A    Vector, Matrix, Batch: what they are; Matrix itself
    vector.py     A.1  Vector: one token's embedding; dot(a, b), every product in minipe
    batch.py      A.2  Batch: b sequences of one shape; add, subtract, allclose
    checks.py     A.3  what the three check, and the sentences they say (their door)
    broadcast.py  B    the broadcasting rule: (8, 4, 256) + (4, 256) -> (8, 4, 256)

Every name a chapter needs is here: `from minipe.arrays import Matrix, Vector`.
Importing it defines these names and does nothing else.
"""

from minipe.arrays.broadcast import ShapeError, broadcast_shapes
from minipe.arrays.vector import Number, Vector, dot
from minipe.arrays.matrix import Matrix
from minipe.arrays.batch import Batch, add, allclose, subtract

__all__ = ["Batch", "Matrix", "Number", "ShapeError", "Vector", "add", "allclose",
           "broadcast_shapes", "dot", "subtract"]
