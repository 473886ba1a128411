"""Scheduling overhead of `repoqa run` (prints figures; not a test).

Against the project's test model server in --zero mode (every request is
answered at once with a fixed reply), 500 tasks (the demo's repos repeated
under new names, 512-token contexts), at concurrency 1, 4, 16 and 64: the
wall time of the run phase (REPOQA_TIMINGS), the time the server spent in
its handlers (summed), and the difference per task, which is what the
runner costs: building each request, HTTP on loopback, the scheduler, and
appending the outputs line and the run-log record.

    python3 tests/bench/run_overhead.py --bin target/release/repoqa
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def dataset_of(n_tasks, path):
    with open(os.path.join(ROOT, "public/demo/repoqa-demo.json"), encoding="utf-8") as f:
        demo = json.load(f)
    out = {}
    count = 0
    copy = 0
    while count < n_tasks:
        for lang, repos in demo.items():
            for repo in repos:
                if count >= n_tasks:
                    break
                r = dict(repo)
                r["repo"] = f"{repo['repo']}-{copy}"
                r["needles"] = repo["needles"][: n_tasks - count]
                count += len(r["needles"])
                out.setdefault(lang, []).append(r)
        copy += 1
    with open(path, "w", encoding="utf-8") as f:
        json.dump(out, f)
    return count


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "target/release/repoqa"))
    ap.add_argument("--tasks", type=int, default=500)
    ap.add_argument("--concurrency", default="1,4,16,64")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="repoqa-run-bench-")
    try:
        ds = os.path.join(tmp, "ds.json")
        n = dataset_of(args.tasks, ds)
        server = subprocess.Popen(
            [sys.executable, os.path.join(ROOT, "tests/oracle/model_server.py"), "--zero"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        port = int(server.stdout.readline().split()[1])
        base = f"http://127.0.0.1:{port}"
        print(f"run overhead: {n} tasks against a zero-latency server on 127.0.0.1 (the runner's cost per task)")
        print(f"{'concurrency':>11}  {'wall ms/task':>12}  {'server ms/task':>14}  {'overhead ms/task':>16}")
        for c in [int(x) for x in args.concurrency.split(",")]:
            urllib.request.urlopen(urllib.request.Request(base + "/control", data=b'{"reset": true}', method="POST")).read()
            out = os.path.join(tmp, f"out-{c}.jsonl")
            env = dict(os.environ, REPOQA_TIMINGS="1")
            env.pop("OPENAI_API_KEY", None)
            p = subprocess.run(
                [args.bin, "run", "--model", "zero", "--base-url", base + "/v1", "--dataset-path", ds,
                 "--code-context-size", "512", "--concurrency", str(c), "--model-output-path", out],
                env=env, capture_output=True, text=True,
            )
            if p.returncode != 0:
                sys.exit(f"repoqa run failed ({p.returncode}): {p.stderr[-2000:]}")
            run_s = next(float(l.split()[2]) for l in p.stderr.splitlines() if l.startswith("timing: run "))
            stats = json.load(urllib.request.urlopen(base + "/stats"))
            assert stats["requests"] == n, stats["requests"]
            wall = run_s * 1000 / n
            srv = stats["server_ms"] / n
            print(f"{c:>11}  {wall:>12.3f}  {srv:>14.3f}  {wall - srv:>16.3f}")
        server.stdin.close()
        server.wait(timeout=10)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
