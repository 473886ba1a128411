"""Check that the realistic corpus loads in the official harness.

For every needle, run repoqa 0.1.2's own topological_sort + make_code_context
(the tokenizer is the local CodeLlama file: the hub is unreachable) at 16384
tokens, as evaluate_model would, and check the needle text sits in the
context. Usage: verify.py realistic.json [context_size]
"""

import json
import os
import sys
import time

import transformers

from repoqa import search_needle_function as snf
from repoqa.utility import topological_sort

TOKENIZER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".tools", "tokenizer.json")


def main():
    path = sys.argv[1]
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 16384
    tok = transformers.PreTrainedTokenizerFast(tokenizer_file=os.path.abspath(TOKENIZER))
    snf.AutoTokenizer.from_pretrained = lambda *a, **k: tok
    # 0.1.2 has no Go comment prefix; upstream HEAD uses "//" like the other C-likes.
    snf.COMMENT_PREFIX.setdefault("go", "//")
    dataset = json.load(open(path, encoding="utf-8"))
    t0 = time.time()
    total = 0
    for lang, repos in dataset.items():
        for repo in repos:
            ordered = topological_sort(repo["dependency"])
            files = [(p, repo["content"][p]) for p in ordered]
            needles = repo["needles"]
            ntok = []
            for i, needle in enumerate(needles):
                ctx = snf.make_code_context(
                    needle, files, position_ratio=(i + 0.5) / len(needles),
                    code_context_size=size, language=lang,
                )
                code = repo["content"][needle["path"]][needle["start_byte"]:needle["end_byte"]]
                if code.replace("\0", "") not in ctx["code_context"]:
                    raise SystemExit(f"verify: FAILED: {lang} {repo['repo']} {needle['name']}: needle not in context")
                if not 0 <= ctx["needle_token_start"] <= ctx["needle_token_end"] <= ctx["code_context_ntokens"]:
                    raise SystemExit(f"verify: FAILED: {lang} {repo['repo']} {needle['name']}: bad token span {ctx}")
                ntok.append(ctx["code_context_ntokens"])
                total += 1
            print(f"verify: {lang:10} {repo['repo']:30} {len(needles)} needles ok, "
                  f"context tokens {min(ntok)}..{max(ntok)}", flush=True)
    print(f"verify: {total} needles ok at {size} tokens in {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main()
