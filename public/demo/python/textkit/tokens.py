"""Splitting text into sentences, words and n-grams.

Handles a little Unicode: "naïve café" is two words, and curly quotes
(“like these”) are stripped like straight ones.
"""

import re

STOPWORDS = frozenset(
    "a an and are as at be but by for from has have in is it its of on or that the this to was were will with".split()
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9“\"'])")
_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*", re.UNICODE)
_QUOTES = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'"})


def normalize_quotes(text):
    """Replace typographic quotes with their ASCII counterparts."""
    return text.translate(_QUOTES)


def sentences(text):
    """Split text into sentences at ., ! or ? followed by a capital."""
    text = " ".join(text.split())
    if not text:
        return []
    parts = _SENTENCE_END.split(text)
    return [p.strip() for p in parts if p.strip()]


def words(text, lower=True):
    """All words of the text; apostrophes and hyphens stay inside words."""
    found = _WORD.findall(normalize_quotes(text))
    return [w.lower() for w in found] if lower else found


def content_words(text):
    """Words that are not stopwords and not pure numbers."""
    return [w for w in words(text) if w not in STOPWORDS and not w.isdigit()]


def ngrams(tokens, n):
    """Consecutive n-token tuples; empty when there are fewer than n tokens."""
    if n <= 0:
        raise ValueError("n must be positive")
    return [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]


def count_syllables(word):
    """Estimate English syllables by counting vowel groups.

    A silent final "e" is dropped ("make" has one syllable) unless the word
    ends in "le" after a consonant ("table" has two). Every word has at
    least one syllable.
    """
    w = word.lower().strip(".,;:!?\"'")
    if not w:
        return 0
    vowels = "aeiouy"
    groups = 0
    previous_vowel = False
    for ch in w:
        is_vowel = ch in vowels
        if is_vowel and not previous_vowel:
            groups += 1
        previous_vowel = is_vowel
    if w.endswith("e") and not (w.endswith("le") and len(w) > 2 and w[-3] not in vowels):
        groups -= 1
    return max(groups, 1)
