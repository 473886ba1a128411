"""Oracle for crates/repoqa/tests/it/parity_bleu.rs: the official similarity and Python's
notion of whitespace, computed by the official code itself.

Modes (argv[1]):
  pairs FILE      FILE is JSONL of [candidate, reference]; prints one line per
                  pair: "float <repr>" or "int <repr>" of
                  repoqa.metric.compute_function_similarity(candidate, reference)
  space           prints a JSON object of code-point lists (surrogates
                  excluded): "isspace" (str.isspace), "re" (re.match(r"\\s")),
                  "strip" (c.strip() == "")
  tokens FILE     FILE is JSONL of strings; prints json.dumps of
                  re.split(r"\\s+", s.strip()) per line
  bench FILE REPS times REPS passes of compute_function_similarity over the
                  pairs of FILE; prints "<pairs> <best seconds per pass>"
"""

import json
import re
import sys
import time

from repoqa.metric import compute_function_similarity


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def main():
    mode = sys.argv[1]
    out = sys.stdout
    if mode == "pairs":
        for cand, ref in read_jsonl(sys.argv[2]):
            v = compute_function_similarity(cand, ref)
            kind = "int" if isinstance(v, int) else "float"
            out.write(f"{kind} {v!r}\n")
    elif mode == "space":
        cps = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
        res = {
            "isspace": [c for c in cps if chr(c).isspace()],
            "re": [c for c in cps if re.match(r"\s", chr(c))],
            "strip": [c for c in cps if chr(c).strip() == ""],
        }
        out.write(json.dumps(res) + "\n")
    elif mode == "tokens":
        for s in read_jsonl(sys.argv[2]):
            out.write(json.dumps(re.split(r"\s+", s.strip())) + "\n")
    elif mode == "bench":
        pairs = read_jsonl(sys.argv[2])
        reps = int(sys.argv[3])
        best = float("inf")
        for _ in range(reps):
            t0 = time.perf_counter()
            for cand, ref in pairs:
                compute_function_similarity(cand, ref)
            best = min(best, time.perf_counter() - t0)
        out.write(f"{len(pairs)} {best!r}\n")
    else:
        raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main()
