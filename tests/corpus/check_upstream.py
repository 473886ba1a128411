"""Cross-check build.py against upstream's own curation scripts.

Runs evalplus/repoqa's scripts/curate/function_analysis.py and
needle_selection.py (read from a git checkout given on the command line, at
HEAD, into a temporary directory; nothing is vendored) on our content and
dependency, then checks that
  - `functions` is identical, and
  - our needles are exactly a seeded sample of upstream's candidate list.
Usage: check_upstream.py <repoqa git dir> [realistic.json]
"""

import copy
import importlib
import json
import os
import random
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    git_dir = sys.argv[1]
    corpus = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "..", "..", ".tools", "corpus", "realistic.json")
    mine = json.load(open(corpus, encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("function_analysis", "needle_selection"):
            src = subprocess.check_output(["git", "-C", git_dir, "show", f"HEAD:scripts/curate/{name}.py"])
            open(os.path.join(tmp, name + ".py"), "wb").write(src)
        sys.path.insert(0, tmp)
        fa = importlib.import_module("function_analysis")
        ns = importlib.import_module("needle_selection")
        data = copy.deepcopy(mine)
        for repos in data.values():
            for r in repos:
                r.pop("functions")
                r.pop("needles")
        path = os.path.join(tmp, "ds.json")
        json.dump(data, open(path, "w"))
        fa.main(path)
        ns.sample = lambda pop, k: list(pop)  # keep every candidate, in order
        ns.main(path, max_fn_per_repo=64, num_bins=64)
        up = json.load(open(path))
    bad = 0
    for lang in mine:
        for a, b in zip(mine[lang], up[lang]):
            if json.dumps(a["functions"]) != json.dumps(b["functions"]):
                print(f"check: FUNCTIONS DIFFER {lang} {a['repo']}")
                bad += 1
            cands = b["needles"]
            pick = random.Random(zlib.crc32(a["repo"].encode())).sample(cands, min(10, len(cands)))
            ours = [{k: v for k, v in n.items() if k != "description"} for n in a["needles"]]
            if ours != pick:
                print(f"check: NEEDLES DIFFER {lang} {a['repo']}")
                bad += 1
    n = sum(len(v) for v in mine.values())
    print(f"check: {n} repos, {bad} differences from upstream curation")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
