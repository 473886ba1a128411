"""Write public/demo/sample-ladder/ntoken_<N>/SAMPLE-ladder-not-a-model-SCORES.json:
a SAMPLE length ladder for the demo dataset, written by this project (NOT a
model's replies), so a visitor with no API key sees the Leaderboard's ladder
(pass@1 by length, the depth x length heatmap, the effective length).

For each length N the demo's tasks are built by `repoqa prompts`, each task is
answered by a fixed rule, and `repoqa score` writes the SCORES file. The rule:
a task is answered with its needle verbatim (it passes) when a number drawn
from its id (SHA-256, stable) is below a pass chance that falls with the
length and with the needle's depth; otherwise with another needle of its
repository (it fails: the best match is that other function). So the ladder
looks like one a model might make, and plainly is not one.
crates/repoqa-cli/tests/it/sample_ladder.rs rebuilds the files with this script
and holds them to what is shipped.

    python3 scripts/sample_ladder.py REPOQA_BIN TOKENIZER OUT_DIR
"""
import hashlib, json, os, subprocess, sys, tempfile

MODEL = "SAMPLE-ladder-not-a-model"
LENGTHS = [1024, 2048, 4096]
# pass chance at depth 0 by length, and what the deepest needle loses.
BASE = {1024: 0.95, 2048: 0.93, 4096: 0.6}
DEPTH_LOSS = 0.35
EVAL_DATE = "2026-12-07 00:00:00"
FENCE = {"python": "python", "cpp": "cpp", "java": "java", "typescript": "typescript", "rust": "rust", "go": "go"}


def needle_code(d, lang, repo, name):
    r = next(r for r in d[lang] if r["repo"] == repo)
    n = next(n for n in r["needles"] if n["name"] == name)
    return "\n".join(r["content"][n["path"]].split("\n")[n["start_line"]:n["end_line"]]), r


def draw(n, task):
    h = hashlib.sha256(f"{n}::{task['language']}::{task['repo']}::{task['name']}".encode()).hexdigest()
    return int(h[:8], 16) / 0x100000000


def main(bin_, tokenizer, out_dir):
    dataset = os.path.join(os.path.dirname(__file__), "..", "public", "demo", "repoqa-demo.json")
    d = json.load(open(dataset))
    with tempfile.TemporaryDirectory() as tmp:
        for n in LENGTHS:
            tasks_path = os.path.join(tmp, f"tasks-{n}.jsonl")
            subprocess.run([bin_, "prompts", "--dataset-path", dataset, "--code-context-size", str(n),
                            "--tokenizer", tokenizer, "--out", tasks_path], check=True, capture_output=True)
            outputs = []
            for line in open(tasks_path):
                t = json.loads(line)
                code, repo = needle_code(d, t["language"], t["repo"], t["name"])
                passes = draw(n, t) < BASE[n] - DEPTH_LOSS * t["position_ratio"]
                if not passes:
                    other = next(x["name"] for x in repo["needles"] if x["name"] != t["name"])
                    code, _ = needle_code(d, t["language"], t["repo"], other)
                t["output"] = [f"```{FENCE[t['language']]}\n{code}\n```"]
                outputs.append(json.dumps(t))
            out_path = os.path.join(tmp, f"{MODEL}-{n}.jsonl")
            with open(out_path, "w") as f:
                f.write("\n".join(outputs) + "\n")
            target = os.path.join(out_dir, f"ntoken_{n}")
            os.makedirs(target, exist_ok=True)
            scores = os.path.join(target, f"{MODEL}-SCORES.json")
            if os.path.exists(scores):
                os.remove(scores)  # no .bak of the old one beside it
            subprocess.run([bin_, "score", "--model-output-path", out_path, "--dataset-path", dataset,
                            "--model", MODEL, "--eval-date", EVAL_DATE,
                            "--out", scores], check=True, capture_output=True)


if __name__ == "__main__":
    main(*sys.argv[1:4])
