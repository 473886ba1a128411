"""Speed benchmark (issue 3): ours (native `repoqa` CLI) against the official
Python harness on the same inputs, on the same machine, in one run.

Prints wall time, the ratio official/ours and the peak memory of each side for
  1. building every prompt of the realistic corpus at 16,384 tokens, and
  2. scoring one output per task.

Run with the oracle venv's Python (scripts/bench.sh does it):
    .tools/oracle/bin/python tests/bench/bench.py [--dataset D] [--size 16384]

The official side gets every advantage we can give it: the tokenizer is loaded
once (upstream reloads it with `AutoTokenizer.from_pretrained` per task) and
nothing is written to its cache.
"""

import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def official_side(dataset_path, size, outputs_path, tokenizer_path):
    """Runs in a child process so its peak RSS is its own."""
    import transformers

    from repoqa import search_needle_function as snf
    from repoqa import compute_score as cs

    tok = transformers.PreTrainedTokenizerFast(tokenizer_file=tokenizer_path)
    # PyPI 0.1.2 predates Go; upstream HEAD uses "//" for it.
    snf.COMMENT_PREFIX.setdefault("go", "//")
    snf.AutoTokenizer.from_pretrained = staticmethod(lambda *a, **k: tok)
    cs.fetch_hf_context = lambda name: "N/A"

    with open(dataset_path) as f:
        dataset = json.load(f)

    t0 = time.perf_counter()
    tasks = []
    for lang, repos in dataset.items():
        for repo in repos:
            order = snf.topological_sort(repo["dependency"])
            files = [(p, repo["content"][p]) for p in order]
            for i, needle in enumerate(repo["needles"]):
                ratio = (i + 0.5) / len(repo["needles"])
                info = snf.make_code_context(needle, files, position_ratio=ratio,
                                             code_context_size=size, language=lang)
                tasks.append(len(info["code_context"]))
    t_prompts = time.perf_counter() - t0

    with open(outputs_path) as f:
        outputs = [json.loads(line) for line in f]
    import contextlib
    import io

    t0 = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        cs.compute_score("bench", dataset, outputs, False)
    t_score = time.perf_counter() - t0
    print(json.dumps({"tasks": len(tasks), "prompts_s": t_prompts, "score_s": t_score}))


def widen(dataset_path, tasks, out_path):
    """A dataset of `tasks` needles made by repeating the corpus's repos
    under new names ("owner/name#2"), languages in turn, like the official
    500-task dataset (50 repos of 10 needles; the real one is not reachable
    offline). Same work per repo as the originals."""
    with open(dataset_path) as f:
        dataset = json.load(f)
    pools = {lang: list(repos) for lang, repos in dataset.items() if repos}
    out = {lang: [] for lang in pools}
    count, round_ = 0, 0
    while count < tasks:
        for lang, repos in pools.items():
            repo = dict(repos[round_ % len(repos)])
            copy = round_ // len(repos)
            if copy:
                repo["repo"] = f"{repo['repo']}#{copy + 1}"
            take = min(len(repo["needles"]), tasks - count)
            repo["needles"] = repo["needles"][:take]
            if take:
                out[lang].append(repo)
                count += take
            if count >= tasks:
                break
        round_ += 1
    with open(out_path, "w") as f:
        json.dump(out, f)


def make_outputs(dataset_path, tasks_path, outputs_path):
    """One output per task: the needle itself for even tasks, a shortened
    needle for odd ones (so both passing and failing paths are timed)."""
    with open(dataset_path) as f:
        dataset = json.load(f)
    needles = {}
    for lang, repos in dataset.items():
        for repo in repos:
            for n in repo["needles"]:
                lines = repo["content"][n["path"]].split("\n")[n["start_line"]:n["end_line"]]
                needles[(lang, repo["repo"], n["name"])] = "\n".join(lines)
    with open(tasks_path) as f, open(outputs_path, "w") as out:
        for i, line in enumerate(f):
            task = json.loads(line)
            code = needles[(task["language"], task["repo"], task["name"])]
            if i % 2:
                code = "\n".join(code.split("\n")[: max(1, len(code.split("\n")) // 2)])
            task["output"] = [f"Here it is:\n```{task['language']}\n{code}\n```\n"]
            out.write(json.dumps(task) + "\n")


def phase_times(stderr):
    """`timing: <phase> <seconds>` lines printed by the CLI with REPOQA_TIMINGS=1."""
    out = {}
    for line in stderr.splitlines():
        if line.startswith("timing: "):
            _, phase, secs = line.split()
            out[phase] = float(secs)
    return out


def timed_child(cmd, env=None):
    """Run cmd; return (wall seconds, peak RSS KiB of that process, stdout)."""
    import tempfile

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            sys.exit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{err.read().decode()}")
        return wall, usage.ru_maxrss, out.read().decode(), err.read().decode()


def comment_run(args, work, env):
    """Issue 32, cases 18 and 19: a Python file ending in 40,000 comment
    lines (the demo's first Python repo, its first needle's file), with
    comment cleaning on, against the official harness; and curating a
    folder holding it."""
    with open(os.path.join(ROOT, "public/demo/repoqa-demo.json")) as f:
        demo = json.load(f)
    repo = demo["python"][0]
    path = repo["needles"][0]["path"]
    repo["content"][path] += "".join(f"# comment line {i}\n" for i in range(40000))
    dataset = os.path.join(work, "comment-run.json")
    with open(dataset, "w") as f:
        json.dump({"python": [repo]}, f)
    out = os.path.join(work, "comment-run-tasks.jsonl")
    _, _, _, err = timed_child([args.bin, "prompts", "--dataset-path", dataset, "--clean-ctx-comments",
                                "positional_padding", "--code-context-size", str(args.size),
                                "--tokenizer", args.tokenizer, "--out", out], env)
    ours = phase_times(err)["build-prompts"]
    oracle_env = dict(os.environ, REPOQA_TOKENIZER=args.tokenizer)
    _, _, off_out, _ = timed_child([sys.executable, os.path.join(ROOT, "tests/oracle/prompts.py"), dataset,
                                    "--mode", "positional_padding", "--size", str(args.size)], oracle_env)
    off_lines = off_out.strip().splitlines()
    official = json.loads(off_lines[-1])["oracle_seconds"]
    with open(out) as f:
        same = [json.loads(l) for l in f] == [json.loads(l) for l in off_lines[:-1]]
    src = os.path.join(work, "comment-run-src", "pkg")
    os.makedirs(src, exist_ok=True)
    with open(os.path.join(src, "mod.py"), "w") as f:
        f.write(repo["content"][path])
    t0 = time.perf_counter()
    subprocess.run([args.bin, "curate", "--language", "python", "--repo", "a/b", "--source",
                    os.path.dirname(src), "--out", os.path.join(work, "comment-run-curated.json")],
                   capture_output=True)
    curate_s = time.perf_counter() - t0
    print(f"comment run (40,000 comment lines, positional_padding): official {official:.3f} s, "
          f"ours {ours:.3f} s, {official / ours:.1f}x; tasks {'identical' if same else 'DIFFERENT'}; "
          f"curate of a folder holding it {curate_s:.2f} s")


LADDER = [4096, 8192, 16384, 32768, 65536, 131072]


def ladder_run(args, work, env):
    """Issue 51: the length ladder's build time per length, ours
    (`repoqa prompts --code-context-size N`, the build loop) against the
    official builder (PyPI 0.1.2's make_code_context, tests/oracle/prompts.py,
    its loop) on the same dataset, each length's tasks checked identical."""
    oracle_env = dict(os.environ, REPOQA_TOKENIZER=args.tokenizer)
    print(f"length ladder: build time per length ({'the dataset widened' if args.tasks else 'the dataset'} above)")
    print(f"{'tokens':>8}{'tasks':>7}{'official (s)':>14}{'ours (s)':>12}{'speed-up':>11}  tasks")
    for n in args.ladder:
        out = os.path.join(work, f"ladder-{n}.jsonl")
        _, _, _, err = timed_child([args.bin, "prompts", "--dataset-path", args.dataset,
                                    "--code-context-size", str(n), "--tokenizer", args.tokenizer,
                                    "--out", out], env)
        ours = phase_times(err)["build-prompts"]
        _, _, off_out, _ = timed_child([sys.executable, os.path.join(ROOT, "tests/oracle/prompts.py"),
                                        args.dataset, "--size", str(n)], oracle_env)
        off_lines = off_out.strip().splitlines()
        official = json.loads(off_lines[-1])["oracle_seconds"]
        with open(out) as f:
            mine = [json.loads(l) for l in f]
        same = mine == [json.loads(l) for l in off_lines[:-1]]
        print(f"{n:>8}{len(mine):>7}{official:>14.3f}{ours:>12.3f}{official / ours:>10.1f}x  "
              f"{'identical' if same else 'DIFFERENT'}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", default=os.path.join(ROOT, ".tools/corpus/realistic.json"))
    ap.add_argument("--size", type=int, default=16384)
    ap.add_argument("--bin", default=os.path.join(ROOT, "target/release/repoqa"))
    ap.add_argument("--tokenizer", default=os.path.join(ROOT, ".tools/tokenizer.json"))
    ap.add_argument("--tasks", type=int, default=0,
                    help="widen the dataset to this many tasks by repeating its repos (e.g. 500)")
    ap.add_argument("--ladder", type=lambda t: [int(x) for x in t.split(",")], default=LADDER,
                    help="the lengths of the ladder's timing (comma-separated; default 4096,…,131072)")
    ap.add_argument("--ladder-only", action="store_true", help="only the length ladder's timing")
    ap.add_argument("--official-child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--outputs", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.official_child:
        official_side(args.dataset, args.size, args.outputs, args.tokenizer)
        return

    work = os.path.join(ROOT, "target/bench")
    os.makedirs(work, exist_ok=True)
    if args.tasks:
        widened = os.path.join(work, f"corpus-{args.tasks}.json")
        widen(args.dataset, args.tasks, widened)
        args.dataset = widened
    tasks_path = os.path.join(work, "tasks.jsonl")
    outputs_path = os.path.join(work, "bench.jsonl")
    scores_path = os.path.join(work, "bench-SCORES.json")

    env = dict(os.environ, REPOQA_TIMINGS="1")
    if args.ladder_only:
        ladder_run(args, work, env)
        return
    # Ours: prompts, then scoring (one process each; peak RSS per process).
    ours_prompts, rss_p, _, err_p = timed_child([args.bin, "prompts", "--dataset-path", args.dataset,
                                                 "--code-context-size", str(args.size),
                                                 "--tokenizer", args.tokenizer, "--out", tasks_path], env)
    make_outputs(args.dataset, tasks_path, outputs_path)
    if os.path.exists(scores_path):
        os.remove(scores_path)
    ours_score, rss_s, _, err_s = timed_child([args.bin, "score", "--model-output-path", outputs_path,
                                               "--dataset-path", args.dataset, "--out", scores_path], env)
    ours_rss = max(rss_p, rss_s)
    loop_p = phase_times(err_p)["build-prompts"]
    loop_s = phase_times(err_s)["score"]

    # Official, in a child process of its own (imports, loading, both loops).
    official_wall, rss_o, out, _ = timed_child([sys.executable, __file__, "--official-child",
                                                "--dataset", args.dataset, "--size", str(args.size),
                                                "--outputs", outputs_path, "--tokenizer", args.tokenizer])
    off = json.loads(out.strip().splitlines()[-1])

    n = off["tasks"]
    print(f"RepoQA speed benchmark: {n} tasks, {args.size} tokens, dataset {os.path.relpath(args.dataset, ROOT)}")
    print(f"{'':<40}{'official (s)':>14}{'ours (s)':>12}{'speed-up':>11}")
    rows = [
        ("build all prompts (loop)", off["prompts_s"], loop_p),
        ("score one output per task (loop)", off["score_s"], loop_s),
        ("whole run (processes, start to exit)", official_wall, ours_prompts + ours_score),
    ]
    for name, o, u in rows:
        print(f"{name:<40}{o:>14.3f}{u:>12.3f}{o / u:>10.1f}x")
    print(f"peak memory: official {rss_o / 1024:.0f} MiB, ours {ours_rss / 1024:.0f} MiB (largest of the two CLI processes)")
    print("loop = the same work on both sides, timed inside the process; whole run adds start-up,")
    print("imports, reading the dataset and tokenizer and writing files (ours: two CLI runs).")
    comment_run(args, work, env)
    ladder_run(args, work, env)
    # For the browser benchmark (tests/browser/bench.mjs): the same inputs
    # and the official figures to compare with.
    with open(os.path.join(work, "official.json"), "w") as f:
        json.dump({"dataset": args.dataset, "outputs": outputs_path, "tasks": n, "size": args.size,
                   "official": off, "official_wall_s": official_wall,
                   "native": {"prompts_s": loop_p, "score_s": loop_s}}, f)


if __name__ == "__main__":
    main()
