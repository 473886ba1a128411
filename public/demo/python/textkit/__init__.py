"""textkit: small, dependency-free text statistics (RepoQA Web demo repo)."""

from .tokens import sentences, words
from .stats import readability, summary
from .layout import render_table, wrap

__all__ = ["sentences", "words", "readability", "summary", "render_table", "wrap"]
