"""Oracle for crates/repoqa/tests/it/parity_prompts.rs: the official task dicts of a dataset.

    prompts.py DATASET [--mode none|positional_padding|no_padding] [--size N]
               [--impl pypi|head] [--head-module FILE] [--fix-suffix]
               [--languages python,go] [--ratio R]

Writes one task per line (json.dumps, official key order), then a last line
{"oracle_seconds": s} with the time spent building the tasks.

--impl pypi (default for --mode none): PyPI 0.1.2's make_code_context, driven
  by the task loop of evaluate_model. 0.1.2 has no "go" comment prefix;
  HEAD's ("//") is added so Go repos can be compared.
--ratio R: every needle at position_ratio R instead of (i + 0.5) / n (what
  `repoqa prompts --position-ratio R` and the task view's depth slider do;
  make_code_context takes any ratio).
--impl head: upstream HEAD semantics (head_context.py, ours), or the real
  HEAD search_needle_function.py given with --head-module.
"""

import argparse
import importlib.util
import json
import os
import sys
import time

import transformers

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

TOKENIZER = transformers.PreTrainedTokenizerFast(tokenizer_file=os.environ["REPOQA_TOKENIZER"])
# The hub is unreachable; the official code loads CodeLlama's tokenizer on
# every call.
transformers.AutoTokenizer.from_pretrained = lambda *a, **k: TOKENIZER

import repoqa.search_needle_function as pypi  # noqa: E402
from repoqa.utility import topological_sort  # noqa: E402


def load_module(path):
    spec = importlib.util.spec_from_file_location("head_search_needle_function", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dataset")
    ap.add_argument("--mode", default="none", choices=["none", "positional_padding", "no_padding"])
    ap.add_argument("--size", type=int, default=16 * 1024)
    ap.add_argument("--impl", default=None, choices=["pypi", "head"])
    ap.add_argument("--head-module", default=None)
    ap.add_argument("--fix-suffix", action="store_true")
    ap.add_argument("--languages", default=None)
    ap.add_argument("--ratio", type=float, default=None)
    a = ap.parse_args()
    impl = a.impl or ("pypi" if a.mode == "none" else "head")
    if impl == "pypi" and a.mode != "none":
        sys.exit("PyPI 0.1.2 has no comment cleaning: use --impl head")

    if impl == "pypi":
        pypi.COMMENT_PREFIX.setdefault("go", "//")

        def build(needle, files, ratio, lang):
            return pypi.make_code_context(needle, files, position_ratio=ratio, code_context_size=a.size, language=lang)

    elif a.head_module:
        head = load_module(a.head_module)
        mode = head.CleanComment(a.mode)

        def build(needle, files, ratio, lang):
            return head.make_code_context(
                needle, files, position_ratio=ratio, code_context_size=a.size, language=lang, clean_comments=mode
            )

    else:
        import head_context

        def build(needle, files, ratio, lang):
            return head_context.make_code_context(
                needle, files, ratio, a.size, lang, a.mode, fix_suffix=a.fix_suffix, tokenizer=TOKENIZER
            )

    with open(a.dataset, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        import gzip

        raw = gzip.decompress(raw)
    dataset = json.loads(raw)
    languages = a.languages.split(",") if a.languages else None

    out = sys.stdout
    t0 = time.perf_counter()
    # The task loop of evaluate_model (without its cache and backends).
    for lang, repos in dataset.items():
        if languages is not None and lang not in languages:
            continue
        for repo in repos:
            if "needles" not in repo:
                continue
            order = topological_sort(repo["dependency"])
            files = [(p, repo["content"][p]) for p in order]
            for i, needle in enumerate(repo["needles"]):
                ratio = (i + 0.5) / len(repo["needles"]) if a.ratio is None else a.ratio
                task = {
                    "repo": repo["repo"],
                    "name": needle["name"],
                    "language": lang,
                    "path": needle["path"],
                    "position_ratio": ratio,
                    "description": f"\nFunction Description:{needle['description']}\n",
                    "instruction": pypi.INSTRUCTION,
                    "template": pypi.TEMPLATE,
                }
                task.update(build(needle, files, ratio, lang))
                out.write(json.dumps(task) + "\n")
    elapsed = time.perf_counter() - t0
    out.write(json.dumps({"oracle_seconds": elapsed}) + "\n")


if __name__ == "__main__":
    main()
