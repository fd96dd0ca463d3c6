"""Chapter 10, part 2 - the lab: tasks that need positions, Adam, and `train`.

Four tasks, each a seeded generator of (inputs, targets) batches:

    "previous-token"   the target at position i is the token at i - 1
                       (position 0 has none: its target is -100, skipped)
    "copy-back"        the target at i is the token at i - k, for i >= k
    "induction"        random tokens in which a stretch of 2 or more comes
                       twice in a row, at a drawn place and length: the target
                       at i, in the repeat, is the token after i's earlier copy
    "who-bites-whom"   "a man bites a dog who?": the target, at "who?", is the
                       subject. Lecture 000's sentence and its kin.

Without positions, attention sees a sequence as a bag of tokens: "a man
bites a dog who?" and "a dog bites a man who?" hold the same bag, so the
model's answer at "who?" is the same for both, and at most one is right.
Training cannot help it; the lessons show by how much positions do.

Training repeats one step: `loss_and_gradients` on a fresh batch (chapter 10,
minipe/training/model.py), then Adam (Kingma & Ba, 2015), which moves each number
by about the learning rate, whatever the scale of its gradient:

    m = beta1 m + (1 - beta1) g            a running mean of the gradient
    v = beta2 v + (1 - beta2) g**2         and of its square
    W = W - lr * m_hat / (sqrt(v_hat) + eps),  m_hat = m / (1 - beta1**t), likewise v

Plain SGD would step by lr * g: big where the gradient is big. Adam's step
m_hat / sqrt(v_hat) is about 1 in size for every number at first, so one
learning rate suits tables whose gradients differ in scale - a token's row
of E gets a gradient only in the steps where that token appears.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Callable

from minipe.arrays import Matrix
from minipe.checks import (check_choice, check_table_size, check_type, checked_number,
                           checked_size)
from minipe.training.gradients import IGNORE
from minipe.training.model import TinyModel

TASKS = ("previous-token", "copy-back", "induction", "who-bites-whom")
NOUNS = ("man", "dog", "cat", "fox")
VERBS = ("bites", "sees", "chases")
WORDS = ("a",) + NOUNS + VERBS + ("who?",)  # who-bites-whom's vocabulary: ID = index
SENTENCE_LENGTH = 6  # a man bites a dog who?
BETA1, BETA2, EPS = 0.9, 0.999, 1e-8  # Adam's usual constants
DIVERGED = 100  # a loss past 100 ln(vocab_size) (1 if that is less) means a diverged run


@dataclass(frozen=True)
class TrainingResult:
    """What `train` returns: the trained model and the loss of every step."""

    model: TinyModel
    losses: tuple[float, ...]
    task: str
    seq_len: int  # T, the length of every training sequence

    def __post_init__(self) -> None:  # a tuple of its own: no list a caller holds moves it
        object.__setattr__(self, "losses", tuple(self.losses))

    def __repr__(self) -> str:
        return (f"TrainingResult({self.model!r}, task={self.task!r}, steps={len(self.losses)}, "
                f"loss {self.losses[0]:.4g} -> {self.losses[-1]:.4g})")


def task_batch(task: str, vocab_size: int, seq_len: int, batch_size: int, *,
               seed: int = 0, k: int = 2) -> tuple[list[list[int]], list[list[int]]]:
    """batch_size sequences of the task, and their targets (-100 where there is none).

    >>> task_batch("previous-token", vocab_size=5, seq_len=6, batch_size=1, seed=0)
    ([[3, 3, 0, 2, 4, 3]], [[-100, 3, 3, 0, 2, 4]])

    The targets are the inputs moved one place right; the first has no token
    before it, so it is -100.
    """
    _check_batch(task, vocab_size, seq_len, k, batch_size, seed)
    return _make_batch(task, vocab_size, seq_len, batch_size, random.Random(seed), k)


def _make_batch(task: str, vocab_size: int, seq_len: int, batch_size: int,
                rng: random.Random, k: int) -> tuple[list[list[int]], list[list[int]]]:
    inputs, targets = [], []
    for _ in range(batch_size):
        if task == "who-bites-whom":
            subject, object_ = rng.sample(range(1, 1 + len(NOUNS)), 2)  # two different nouns
            verb = rng.randrange(1 + len(NOUNS), 1 + len(NOUNS) + len(VERBS))
            ids = [0, subject, verb, 0, object_, len(WORDS) - 1]  # a S V a O who?
            wanted = [IGNORE] * 5 + [subject]  # only "who?" is asked: the subject
        elif task == "induction":
            ids, wanted = _repeated(vocab_size, seq_len, rng)
        else:
            back = 1 if task == "previous-token" else k  # the target at i is the token at i - back
            ids = [rng.randrange(vocab_size) for _ in range(seq_len)]
            wanted = [IGNORE] * back + ids[:seq_len - back]
        inputs.append(ids)
        targets.append(wanted)
    return inputs, targets


def _repeated(vocab_size: int, seq_len: int,
              rng: random.Random) -> tuple[list[int], list[int]]:
    """seq_len random tokens where a stretch of L different tokens comes twice in a row
    (L drawn from 2 .. min(seq_len // 2, vocab_size), its start from 0 .. seq_len - 2 L);
    the target at i in the repeat, but its last, is the next token: the one after i's
    earlier copy, L back. Elsewhere -100: nothing there can be known."""
    length = rng.randint(2, min(seq_len // 2, vocab_size))
    start = rng.randint(0, seq_len - 2 * length)
    stretch = rng.sample(range(vocab_size), length)
    ids = [rng.randrange(vocab_size) for _ in range(seq_len)]
    ids[start:start + 2 * length] = stretch + stretch
    wanted = [IGNORE] * seq_len
    for i in range(start + length, start + 2 * length - 1):
        wanted[i] = ids[i + 1]  # = ids[i + 1 - length], after the earlier copy
    return ids, wanted


def step_numbers(model: TinyModel, T: int) -> int:
    """About how many numbers one sequence of T tokens holds in a step's forward and
    backward passes: per token and layer some 20 d_model (x, q, k, v, the heads' output,
    each one's gradient, and the copies between; 20 more with an MLP: its 4 d_model wide
    rows and their gradients), per token 2 vocab_size (the logits and theirs), per head
    and layer three T x T tables (scores, weights, their gradient). A batch of 10,000 at
    d 8, T 8 peaked at 518 MB, against the 497 MB this gives at 32 bytes a number."""
    per_layer = 20 * model.d_model * (2 if model.mlp else 1)
    per_token = model.num_layers * per_layer + 2 * model.vocab_size
    return T * per_token + 3 * model.num_heads * model.num_layers * T * T


def train(model: TinyModel, task: str, *, steps: int = 300, batch_size: int = 8,
          learning_rate: float = 0.05, seed: int = 0, seq_len: int | None = None,
          k: int = 2, on_step: Callable[[int, float], object] | None = None
          ) -> TrainingResult:
    """Train a copy of `model` on `task` with Adam; every batch is new, drawn from `seed`.

    seq_len is T, the training length: the model's context_length unless
    given (who-bites-whom's sentences always have 6 tokens). k is copy-back's
    distance. on_step(step, loss), if given, is called after every step
    (the command `python -m minipe train` draws its progress bar with it).
    The same arguments give the same model, on any machine. A run whose loss
    passes 100 ln(vocab_size) (a uniform guess scores ln(vocab_size)) has
    diverged: it stops with the step and a smaller learning rate to try.
    """
    T, lr = _checked_training(model, task, seq_len, k, steps, batch_size, seed, learning_rate,
                              on_step)
    rng = random.Random(seed)  # the batches' own generator
    params = {name: W.tolist() for name, W in model.parameters().items()}
    m = {name: _zeros_like(W) for name, W in params.items()}  # Adam's running means ...
    v = {name: _zeros_like(W) for name, W in params.items()}  # ... and squares
    losses = []
    limit = DIVERGED * max(math.log(model.vocab_size), 1.0)  # the loss of a diverged run
    for step in range(1, steps + 1):
        inputs, targets = _make_batch(task, model.vocab_size, T, batch_size, rng, k)
        loss, gradients = model.loss_and_gradients(inputs, targets)
        _stop_if_diverged(loss, limit, lr, step)  # a loss past the limit, or NaN
        losses.append(loss)
        if on_step is not None:
            on_step(step, loss)
        for name, gradient in gradients.items():
            params[name], m[name], v[name] = _adam(
                params[name], gradient.rows, m[name], v[name], step, lr)
        model = _with_tables(model, params, lr, step)
    return TrainingResult(model, tuple(losses), task, T)


class TrainingDiverged(ValueError):
    """A run whose loss or weights blew up: the step, what happened, the learning rate and
    a smaller one to try (the command says them in its own words: --learning-rate)."""

    def __init__(self, learning_rate: float, step: int, what: str) -> None:
        self.learning_rate, self.step, self.what = learning_rate, step, what
        self.smaller = min(learning_rate / 10, 0.05)  # ten times smaller, or the default
        super().__init__(f"training diverged at step {step}: {what}. learning_rate="
                         f"{learning_rate:g} is too large (Adam moves every weight by about "
                         f"that much a step): try learning_rate={self.smaller:g}. The model "
                         f"you passed in is unchanged.")


def _stop_if_diverged(loss: float, limit: float, lr: float, step: int) -> None:
    """A run whose loss passed `limit` (or is NaN) stops: where, why, and what to try."""
    if not loss <= limit:  # also True for NaN
        raise TrainingDiverged(lr, step, f"the loss reached {loss:.3g}, past {limit:.4g} = "
                                         f"{DIVERGED} ln(vocab_size), a uniform guess's loss "
                                         f"times {DIVERGED}")


def _with_tables(model: TinyModel, params: dict[str, list[list[float]]], lr: float,
                 step: int) -> TinyModel:
    """The model with the tables Adam moved; one whose weights blew up stops the run."""
    try:
        return model.with_parameters({name: Matrix(W) for name, W in params.items()})
    except ValueError:  # a weight grew past what the model takes, or became NaN
        raise TrainingDiverged(lr, step, "its weights grew without bound") from None


def _adam(W: list[list[float]], g: tuple[tuple[float, ...], ...], m: list[list[float]],
          v: list[list[float]], t: int, lr: float) -> tuple[list[list[float]], ...]:
    """One step of Adam for one table: the formulas of the module docstring, number by number."""
    m = [[BETA1 * m_j + (1 - BETA1) * g_j for m_j, g_j in zip(m_row, g_row)]
         for m_row, g_row in zip(m, g)]
    v = [[BETA2 * v_j + (1 - BETA2) * g_j * g_j for v_j, g_j in zip(v_row, g_row)]
         for v_row, g_row in zip(v, g)]
    m_correction, v_correction = 1 - BETA1 ** t, 1 - BETA2 ** t  # m_hat = m / m_correction
    W = [[w - lr * (m_j / m_correction) / (math.sqrt(v_j / v_correction) + EPS)
          for w, m_j, v_j in zip(W_row, m_row, v_row)]
         for W_row, m_row, v_row in zip(W, m, v)]
    return W, m, v


def _zeros_like(W: list[list[float]]) -> list[list[float]]:
    return [[0.0] * len(row) for row in W]


def accuracy(model: TinyModel, task: str, *, seq_len: int | None = None,
             samples: int = 64, seed: int = 1, k: int = 2) -> float:
    """The share of targets the model's top score gets right, on `samples` new sequences.

    seq_len defaults to the model's context_length; a learned table given a
    longer one refuses with a sentence, as its `logits` do.
    """
    T = _checked_accuracy(model, task, seq_len, k, samples, seed)
    inputs, targets = _make_batch(task, model.vocab_size, T, samples, random.Random(seed), k)
    right = total = 0
    for ids, wanted in zip(inputs, targets):
        for scores, target in zip(model.logits(ids).rows, wanted):
            if target != IGNORE:
                right += scores.index(max(scores)) == target  # the top score's ID
                total += 1
    return right / total


# The door: what the lab's functions refuse, each with its sentence


def _checked_training(model: TinyModel, task: str, seq_len: int | None, k: int, steps: int,
                      batch_size: int, seed: int, learning_rate: float,
                      on_step: object) -> tuple[int, float]:
    """_checked_run's, then a step that fits in memory, a learning rate > 0 and an on_step
    that can be called; T and the learning rate come back."""
    T = _checked_run(model, task, seq_len, k, steps=steps, batch_size=batch_size, seed=seed)
    check_table_size(steps, f"train(steps={steps:,})'s losses, one number a step,")
    check_table_size(batch_size * step_numbers(model, T),
                     f"a training step of batch_size={batch_size:,} sequences of T = {T} "
                     f"tokens at d_model={model.d_model}")
    lr = checked_number(learning_rate, "learning_rate")
    if not 0 < lr < math.inf:
        raise ValueError(f"learning_rate must be a positive number such as 0.05, got {lr}")
    if on_step is not None and not callable(on_step):
        raise TypeError(f"on_step must be a function of (step, loss) or None, "
                        f"got {type(on_step).__name__}")
    return T, lr


def _check_batch(task: str, vocab_size: int, seq_len: int, k: int, batch_size: int,
                 seed: int) -> None:
    """_check_task's, then a batch whose inputs and targets fit in memory."""
    _check_task(task, vocab_size, seq_len, k, batch_size=batch_size, seed=seed)
    check_table_size(2 * batch_size * seq_len, f"task_batch(batch_size={batch_size:,}, "
                                               f"seq_len={seq_len:,})'s inputs and targets")


def _checked_accuracy(model: TinyModel, task: str, seq_len: int | None, k: int, samples: int,
                      seed: int) -> int:
    """_checked_run's, then samples sequences, their targets and a forward pass over one of
    them that fit in memory; T comes back."""
    T = _checked_run(model, task, seq_len, k, samples=samples, seed=seed)
    check_table_size(2 * samples * T + step_numbers(model, T),
                     f"accuracy(samples={samples:,}, seq_len={T:,}): its sequences, their "
                     f"targets and a forward pass over one")
    return T


def _checked_run(model: TinyModel, task: str, seq_len: int | None, k: int,
                 **sizes: int) -> int:
    """A TinyModel, and a task it can be asked at T tokens (returned): seq_len, or unless
    given the model's context_length (who-bites-whom's sentences: 6)."""
    check_type(model, TinyModel, "model must be a TinyModel")
    T = seq_len
    if T is None:
        T = SENTENCE_LENGTH if task == "who-bites-whom" else model.context_length
    _check_task(task, model.vocab_size, T, k, **sizes)
    return T


def _check_task(task: str, vocab_size: int, seq_len: int, k: int, **sizes: int) -> None:
    """A task of TASKS that vocab_size token kinds and seq_len tokens can hold; every size
    an int >= 1 (a seed >= 0)."""
    check_choice(task, TASKS, f"task must be one of {', '.join(TASKS)}", got="; got")
    for name, size in dict(vocab_size=vocab_size, seq_len=seq_len, k=k, **sizes).items():
        checked_size(size, name, minimum=0 if name == "seed" else 1)
    if task == "who-bites-whom" and seq_len != SENTENCE_LENGTH:
        raise ValueError(f"who-bites-whom's sentences have {SENTENCE_LENGTH} tokens "
                         f"(a man bites a dog who?); seq_len must be {SENTENCE_LENGTH} "
                         f"(or None in train and accuracy), got {seq_len!r}")
    if task == "who-bites-whom" and vocab_size < len(WORDS):
        raise ValueError(f"who-bites-whom uses {len(WORDS)} words ({' '.join(WORDS)}), so the "
                         f"model needs vocab_size >= {len(WORDS)}, got {vocab_size}")
    if vocab_size < 2:  # who-bites-whom has its words; the other two draw token kinds
        raise ValueError(f"{task} needs vocab_size >= 2 token kinds, got {vocab_size}: with "
                         f"one kind every answer is that kind, and a guess is always right")
    if task == "induction" and seq_len < 4:
        raise ValueError(f"induction repeats a stretch of 2 or more tokens, and asks the "
                         f"token after the repeat's first: seq_len must be at least 4, "
                         f"got {seq_len}")
    back = {"previous-token": 1, "copy-back": k}.get(task, 0)
    if back >= seq_len:
        raise ValueError(f"{task} looks {back} token(s) back, so seq_len must be more than "
                         f"{back}, got {seq_len}: no position would have a target")
