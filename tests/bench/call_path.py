"""Call-path task speed (NOT UPSTREAM; docs/call-path.md): figures, not a test.

On a 50-repository dataset (the realistic corpus widened as bench.py widens
it for SNF, 10 needles a repository), natively:

  1. call graphs and selected tasks of every repository (`repoqa call-graph
     --tasks --json`), the issue's target being 2 s;
  2. the whole build at 16,384 tokens (`repoqa prompts --task call-path`:
     graphs, selection with every candidate's window tried, the windows);
  3. the Python repositories' call graphs, ours (`call-graph --languages
     python --json`) against the independent oracle on Python's `ast`
     (tests/oracle/call_graph.py), the edges checked equal, and the ratio.

Each time is the best of --runs runs of the whole process (reading the
dataset included).

    .tools/oracle/bin/python tests/bench/call_path.py --bin target/release/repoqa
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from bench import widen  # noqa: E402


def best(cmd, runs):
    """(seconds, stdout) of the fastest of `runs` runs of `cmd`."""
    out, t_best = None, float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True)
        t = time.perf_counter() - t0
        if p.returncode != 0:
            sys.exit(f"{' '.join(cmd)} failed:\n{p.stderr}")
        if t < t_best:
            t_best, out = t, p.stdout
    return t_best, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", default=os.path.join(ROOT, ".tools/corpus/realistic.json"))
    ap.add_argument("--bin", default=os.path.join(ROOT, "target/release/repoqa"))
    ap.add_argument("--tokenizer", default=os.path.join(ROOT, ".tools/tokenizer.json"))
    ap.add_argument("--repos", type=int, default=50, help="repositories of the widened dataset")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="repoqa-bench-call-path-")
    data = os.path.join(work, f"corpus-{args.repos}.json")
    widen(args.dataset, args.repos * 10, data)
    with open(data) as f:
        repos = sum(len(r) for r in json.load(f).values())

    print(f"call-path task speed: {repos} repositories (the corpus widened), best of {args.runs}")
    t_graph, out = best([args.bin, "call-graph", "--dataset-path", data, "--tasks", "--json"], args.runs)
    tasks = sum(len(g["tasks"]["pairs"]) for g in json.loads(out))
    print(f"  graphs and selected pairs (call-graph --tasks): {t_graph:.2f} s, {tasks} pairs"
          f" (target 2 s: {'met' if t_graph <= 2 else 'NOT met'})")
    tasks_out = os.path.join(work, "tasks.jsonl")
    t_build, _ = best([args.bin, "prompts", "--task", "call-path", "--dataset-path", data,
                       "--tokenizer", args.tokenizer, "--out", tasks_out], args.runs)
    with open(tasks_out) as f:
        built = sum(1 for _ in f)
    print(f"  the whole build at 16,384 tokens (windows placed): {t_build:.2f} s, {built} tasks")

    t_ours, ours = best([args.bin, "call-graph", "--dataset-path", data, "--languages", "python",
                         "--json"], args.runs)
    t_oracle, oracle = best([sys.executable, os.path.join(ROOT, "tests/oracle/call_graph.py"), data],
                            args.runs)
    ours_edges = {g["repo"]: sorted(map(tuple, ((a, b) for a, bs in enumerate(g["edges"]) for b in bs)))
                  for g in json.loads(ours)}
    oracle = json.loads(oracle)
    same = all(sorted(map(tuple, oracle[r]["edges"])) == e for r, e in ours_edges.items()
               if not oracle[r]["unparsed"])
    n = len(ours_edges)
    print(f"  Python call graphs ({n} repositories): oracle on ast {t_oracle:.2f} s, ours {t_ours:.2f} s,"
          f" {t_oracle / t_ours:.1f}x; edges {'identical' if same else 'DIFFERENT'}")


if __name__ == "__main__":
    main()
