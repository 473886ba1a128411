"""Run the corpus builder's curation steps (tests/corpus/build.py) on an
in-memory repo, for crates/repoqa/tests/it/parity_curate.rs.

    curate.py              the steps below
    curate.py parse_errors stdin {"lang", "content"} -> {path: bool}, whether
                           the official grammar (tree_sitter_languages
                           1.10.2) parses the file with an ERROR/MISSING node
    curate.py select       stdin {"repo", "content", "functions"} -> the
                           needles the builder samples from these functions

stdin: {"lang": "python", "repo": "owner/name", "entry": "src/pkg",
        "content": {path: text}}   (content as build.py's collect_content
        would return it: the language's files under entry, sorted)
stdout: {"dependency": {...}, "functions": {...}, "needles": [...],
         "candidates": n}  -- needles without descriptions; fewer than 10
        candidates is not an error here (the caller checks).
"""

import json
import os
import sys
import warnings

warnings.simplefilter("ignore", FutureWarning)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corpus"))

import build  # noqa: E402  (tests/corpus/build.py)
from repoqa.utility import topological_sort  # noqa: E402


def parse_errors(req):
    parser = build.get_parser(req["lang"])
    return {p: parser.parse(t.encode("utf-8")).root_node.has_error for p, t in req["content"].items()}


def select(req):
    needles, _ = build.select_needles(req["repo"], req["content"], req["functions"])
    return needles


def main():
    req = json.load(sys.stdin)
    mode = sys.argv[1] if len(sys.argv) > 1 else "curate"
    if mode == "parse_errors":
        json.dump(parse_errors(req), sys.stdout)
        return
    if mode == "select":
        json.dump(select(req), sys.stdout)
        return
    lang, entry, content = req["lang"], req["entry"], req["content"]
    build.log = lambda msg: print(f"oracle: {msg}", file=sys.stderr)
    dependency = build.DEPS[lang](content, entry)
    ordered = topological_sort(dependency)
    functions, _ = build.Analyzer(lang).functions(content, ordered)
    out = {"dependency": dependency, "functions": functions}
    try:
        needles, ncand = build.select_needles(req["repo"], content, functions)
        out["needles"] = needles
        out["candidates"] = ncand
    except build.CorpusError as e:
        out["error"] = str(e)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
