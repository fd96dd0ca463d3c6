"""Chapter 10 - training: what positions are for, shown by a model trained in seconds.

Read bottom-up, as micrograd's engine.py sits under nn.py: the rules first, then
the passes that chain them, then the model, then the lab that trains it.

    gradients.py   the backward rules, one function each, knowing nothing of a model
    block.py       the block's rules: layer_norm, rms_norm, gelu, each forward and backward
    heads.py       several heads, positions as data (position_ids), forward and back
    passes.py      the forward and backward passes of TinyModel, chained from the rules
    layers.py      the block: layers, norms and MLPs on a residual stream, forward and back
    tables.py      what a model starts from: its tables drawn, theta_i and slopes made
    checks.py      the model's door: what TinyModel accepts, and the sentences it says
    cache.py       the KV cache: the keys and values kept, and the mark of its model
    generation.py  generating with a KV cache: one new token costs O(n d)
    model.py       TinyModel: embeddings + positions -> layers -> scores; backprop
    lab.py         tasks that need positions, Adam, train(); python -m minipe train
    probe.py       a straight line that reads a token's position from its row, or cannot

It stands on chapters 1-9 and the arrays; nothing of the input side imports it.
Importing it defines these names and does nothing else.
"""

from minipe.training.gradients import IGNORE
from minipe.training.block import gelu, layer_norm, rms_norm
from minipe.training.cache import KVCache
from minipe.training.generation import evict, next_logits
from minipe.training.model import Backprop, TinyModel
from minipe.training.lab import (TASKS, WORDS, TrainingDiverged, TrainingResult, accuracy,
                                 task_batch, train)
from minipe.training.probe import Probe, fit_probe

__all__ = ["IGNORE", "TASKS", "WORDS", "Backprop", "KVCache", "Probe", "TinyModel",
           "TrainingDiverged", "TrainingResult", "accuracy", "evict", "fit_probe", "gelu",
           "layer_norm", "next_logits", "rms_norm", "task_batch", "train"]
