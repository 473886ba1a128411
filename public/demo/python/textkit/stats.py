"""Statistics over words and sentences."""

from collections import Counter

from .tokens import content_words, count_syllables, ngrams, sentences, words


def frequencies(text, top=10):
    """The most frequent content words with their counts, most frequent
    first; ties are broken alphabetically so the result is stable."""
    counts = Counter(content_words(text))
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return ranked[:top]


def type_token_ratio(text):
    """Distinct words over all words (0.0 for an empty text)."""
    tokens = words(text)
    if not tokens:
        return 0.0
    return len(set(tokens)) / len(tokens)


def average_sentence_length(text):
    """Mean number of words per sentence."""
    parts = sentences(text)
    if not parts:
        return 0.0
    return sum(len(words(s)) for s in parts) / len(parts)


def readability(text):
    """Flesch reading ease: higher is easier, 60-70 is plain English.

    206.835 - 1.015 * (words / sentences) - 84.6 * (syllables / words)
    """
    tokens = words(text)
    parts = sentences(text)
    if not tokens or not parts:
        return None
    syllables = sum(count_syllables(t) for t in tokens)
    score = 206.835 - 1.015 * (len(tokens) / len(parts)) - 84.6 * (syllables / len(tokens))
    return round(score, 1)


def repeated_phrases(text, n=3, minimum=2):
    """Phrases of n words that occur at least `minimum` times, with counts,
    most frequent first."""
    grams = Counter(ngrams(words(text), n))
    found = [(" ".join(g), c) for g, c in grams.items() if c >= minimum]
    found.sort(key=lambda gc: (-gc[1], gc[0]))
    return found


def longest_words(text, k=5):
    """The k longest distinct words, longest first, then alphabetically."""
    unique = set(words(text))
    return sorted(unique, key=lambda w: (-len(w), w))[:k]


def summary(text):
    """A dict of every statistic of this module for one text."""
    return {
        "sentences": len(sentences(text)),
        "words": len(words(text)),
        "type_token_ratio": round(type_token_ratio(text), 3),
        "average_sentence_length": round(average_sentence_length(text), 2),
        "readability": readability(text),
        "top_words": frequencies(text, 5),
        "longest_words": longest_words(text, 3),
    }
