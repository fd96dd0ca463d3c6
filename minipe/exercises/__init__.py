"""Exercises that check themselves: `python -m minipe exercises`.

Not a chapter: support, like minipe/plot/. Nothing in the chapters imports it.

    catalogue.py   the exercises, in the order of the chapters, and their inputs (24-26's
                   inputs: catalogue_24_26.py)
    reference.py   minipe's functions, called the way the learner's function is
    wrong.py       the known wrong solutions, one per catalogued mistake (17-21's:
                   wrong_17_21.py; 22-23's: wrong_22_23.py; 24-26's: wrong_24_26.py;
                   those found by wrong answers written from outside the checker:
                   wrong_1_8.py, wrong_9_16.py)
    mistakes.py    each mistake's sentence and the chapter line that has it right (and
                   mistakes_1_12.py, mistakes_13_23.py: the ones found from outside;
                   mistakes_24_26.py: exercises 24-26's)
    compare.py     how an answer is compared with minipe's, and the grid where they differ
    checker.py     runs a stub, compares, names the mistake
    stubs.py       where the stubs are, and the DONE line that records progress
    solutions.py   one way to solve each, in plain Python
    __main__.py    the command

The stubs the learner edits are walkthroughs/exercises/NN_name.py.
"""
