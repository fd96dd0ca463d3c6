"""Lessons 11 and 12 (RoPE by hand; absolute vs relative) run, fit 80 columns, and
print the numbers their comments promise."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WALKTHROUGHS = ROOT / "walkthroughs"


def _run(name: str, *args: str) -> str:
    done = subprocess.run([sys.executable, str(WALKTHROUGHS / name), *args], cwd=ROOT,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert len(lines) < 60  # a few dozen lines, not a dump
    return done.stdout


def test_lesson_11_rope_by_hand() -> None:
    out = _run("11_rope_by_hand.py")
    assert out.startswith("Lesson 11: RoPE by hand\n=======================\n")
    # theta_i = 10000**(-2i/4): 1 and 0.01; at position 2 the angles are 2 and 0.02
    assert "0  (0, 1)      1.0000     2.0000 rad" in out
    assert "1  (2, 3)      0.0100     0.0200 rad" in out
    # the numbers: interleaved, half, and the norm sqrt(30)
    assert "apply_rotary: [-2.2347  0.0770  2.9194  4.0592]" in out
    assert "by hand:      [-2.2347  0.0770  2.9194  4.0592]" in out
    assert "half layout:  [-3.1440  1.9196 -0.3391  4.0392]   norm 5.4772" in out
    assert "put back: [-3.1440  1.9196 -0.3391  4.0392]" in out
    assert "|R_2 q|        = 5.4772" in out
    # |q + PE(2)| = |[1 + sin 2, 2 + cos 2, 3 + sin .02, 4 + cos .02]| = 6.3461
    assert "|q + PE(2)|    = 6.3461" in out
    # the diagonal n = m holds q . k = 0.5 - 2 + 6 + 4 = 8.5, whatever m
    assert "   m=3    11.0483   8.7036   7.4561   8.5000  10.9220" in out
    assert "m=100, n=101: 10.9220" in out


def test_lesson_12_absolute_vs_relative() -> None:
    out = _run("12_absolute_vs_relative.py")
    assert out.startswith("Lesson 12: absolute vs relative positions\n")
    assert "   sinusoidal  False                       False" in out
    assert "   rope        True                        True" in out
    assert "   alibi       True                        True" in out
    # without positions both 'the's get one weight; ALiBi favours the near one
    assert "   none         0.1820  0.1390  0.1709  0.1544  0.1820  0.1717" in out
    assert "   alibi        0.0364  0.0458  0.0929  0.1383  0.2687  0.4180" in out
    # sliding the sentence 100 positions on changes only the absolute kind
    assert "sinusoidal  largest change in a weight: 0.1446" in out
    assert "rope        largest change in a weight: 0.0000" in out
    assert "alibi       largest change in a weight: 0.0000" in out
    assert "context_length=4 rows (positions 0..3)" in out
    assert "a larger penalty: -2.5 at 5" in out  # -0.5 * (5 - 0)


def test_step_without_a_terminal_runs_straight_through() -> None:
    for name in ["11_rope_by_hand.py", "12_absolute_vs_relative.py"]:
        out = _run(name, "--step")
        assert "(--step: stdin is not a terminal, so the lesson will not pause)" in out
        assert "press Enter" not in out


def test_each_lesson_follows_the_walkthrough_conventions() -> None:
    for name in ["11_rope_by_hand.py", "12_absolute_vs_relative.py"]:
        source = (WALKTHROUGHS / name).read_text()
        assert "Question:" in source and "Run: python walkthroughs/" + name in source
        assert "from lesson import Lesson" in source
        cells = source.count("# %%")
        assert cells >= 4
        assert source.count('if __name__ == "__main__":') == cells
        assert source.count("lesson.stage(") == cells
