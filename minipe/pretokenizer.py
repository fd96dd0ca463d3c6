"""Chapter 1b, first part - GPT-2's pre-tokenizer: text -> the pieces BPE merges inside.

Before any merge, GPT-2 cuts text with one regular expression, and no token ever
crosses two pieces. A piece is a contraction, or a word, a number or a run of other
marks with at most one space before it, or a run of spaces:

    >>> pretokenize("I've 2 books, haven't I?")
    ['I', "'ve", ' 2', ' books', ',', ' haven', "'t", ' I', '?']
    >>> pretokenize("a  b\\n\\nc")      # a run of spaces leaves its last one to the next
    ['a', ' ', ' b', '\\n', '\\n', 'c']

    (a space joins the word after it; a newline joins no word, so it stands alone.)

GPT-2's pattern, as OpenAI's tokenizer library writes it (with the third-party
`regex` module):

    's|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+

Python's own `re` has no \\p{L} (any letter) or \\p{N} (any number), so they are
built here from `unicodedata`: every code point whose general category starts with
L, or with N. And `re`'s \\s is not Unicode's White_Space: it also matches
U+001C..U+001F (the information separators), which `regex` and GPT-2 treat as
marks, not spaces; so White_Space is spelled out below, character by character.

Exact for every character the running Python's Unicode version assigns. A character
assigned only in a later Unicode version (unassigned here, category Cn) counts as a
mark here but may be a letter or a number to a library built on that later version;
so text in a script newer than this Python's Unicode can split differently.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from minipe.checks import check_type

# Unicode's White_Space property (PropList.txt), not Python's \s (which adds U+001C..U+001F)
WHITE_SPACE = r"\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
LAST_PLANE_WITH_LETTERS = 0x3FFFF  # planes 0-3; 4-16 hold no letter or number (a test scans)


def pretokenize(text: str) -> list[str]:
    """Text -> GPT-2's pieces; joined, they give the text back exactly."""
    check_type(text, str, "pretokenize needs a str")
    return gpt2_pattern().findall(text)


@functools.cache
def gpt2_pattern() -> re.Pattern[str]:
    """GPT-2's pattern for `re`: \\p{L}, \\p{N} and \\s spelled out (built once, on first use)."""
    letters = category_class("L")  # \p{L}
    numbers = category_class("N")  # \p{N}
    space = WHITE_SPACE  # \s
    return re.compile(
        r"'s|'t|'re|'ve|'m|'ll|'d"
        rf"| ?[{letters}]+"  # a word, with the space before it
        rf"| ?[{numbers}]+"  # a number
        rf"| ?[^{space}{letters}{numbers}]+"  # punctuation, symbols, emoji
        rf"|[{space}]+(?![^{space}])"  # spaces, but not the last one before a word
        rf"|[{space}]+")  # spaces at the end


def category_class(major: str) -> str:
    """A character class body of every code point whose category starts with `major`.

    >>> category_class("N")[:18]          # 0-9, then superscript two and three, ...
    '\\\\x30-\\\\x39\\\\xb2-\\\\xb3'
    """
    ranges = []
    start = None
    for code in range(LAST_PLANE_WITH_LETTERS + 2):
        inside = unicodedata.category(chr(code)).startswith(major) and (
            code <= LAST_PLANE_WITH_LETTERS)
        if inside and start is None:
            start = code
        elif not inside and start is not None:
            ranges.append(f"{_escaped(start)}-{_escaped(code - 1)}")
            start = None
    return "".join(ranges)


def _escaped(code: int) -> str:
    """A code point as `re` reads it inside a class: \\x30, \\u0660, \\U00010107."""
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
