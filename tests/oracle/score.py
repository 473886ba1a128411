"""Oracle for crates/repoqa-cli/tests/it/parity_score.rs: runs the official scorer (PyPI repoqa
0.1.2, `repoqa.compute_score`) on the same inputs as the Rust code.

Modes (results on stdout):
  score DATASET OUTPUTS MODEL IGNORE_COMMENTS EVAL_DATE
      the SCORES file text exactly as `compute_score` + `save_json` write it
      (`json.dump(output_json, f)`), with eval_date set to EVAL_DATE.
  sanitize IGNORE_COMMENTS < JSONL of [language, reply]
      one JSON line per input: [sanitize_output(reply, language),
      remove_comments(that, language) if IGNORE_COMMENTS == "1" else null].
  remove_comments < JSONL of [language, source]
      one JSON string per input: remove_comments(source, language).
  parse_errors < JSONL of [language, text]
      one JSON line per input: whether the official grammar's parse tree of
      the text has an error (`tree.root_node.has_error`).
  pyword
      the code points matched by Python's `\\w`, as JSON [[lo, hi], ...].
  redump FILE...
      json.dumps(json.load(open(FILE))) for each FILE, one line each (the
      text holds no newline of its own): Python's own layout of any JSON file.
  names < JSONL of paths
      one JSON line per path: [get_model_name(path), splitext(path)[0] + "-SCORES.json"].
"""

import contextlib
import io
import json
import os
import re
import sys

from repoqa import compute_score as cs

# compute_score asks the Hugging Face hub for the train size of models whose
# name has a "/"; there is no network here, and on any failure the official
# function itself returns "N/A". Return that directly instead of waiting.
cs.fetch_hf_context = lambda model_name: "N/A"

# remove_comments/sanitize_output compile their tree-sitter queries on every
# call, which makes --ignore-comments runs take minutes. Compiled queries are
# immutable, so caching them changes nothing but the speed.
_official_get_language = cs.get_language


class _QueryCache:
    def __init__(self, language):
        self._language = language
        self._queries = {}

    def query(self, source):
        if source not in self._queries:
            self._queries[source] = self._language.query(source)
        return self._queries[source]


_languages = {}


def _cached_get_language(name):
    if name not in _languages:
        _languages[name] = _QueryCache(_official_get_language(name))
    return _languages[name]


cs.get_language = _cached_get_language


def read_jsonl(stream):
    return [json.loads(line) for line in stream if line.strip()]


def main():
    mode = sys.argv[1]
    out = sys.stdout
    if mode == "score":
        dataset_path, outputs_path, model, ignore, eval_date = sys.argv[2:7]
        with open(dataset_path) as f:
            dataset = json.load(f)
        with open(outputs_path) as f:
            outputs = [json.loads(line) for line in f]
        # compute_score prints a rich table and a progress bar to stdout.
        with contextlib.redirect_stdout(sys.stderr):
            result = cs.compute_score(model, dataset, outputs, ignore == "1")
        for entry in result.values():
            entry["eval_date"] = eval_date
        buf = io.StringIO()
        json.dump(result, buf)
        out.write(buf.getvalue())
    elif mode == "sanitize":
        ignore = sys.argv[2] == "1"
        for lang, reply in read_jsonl(sys.stdin):
            s = cs.sanitize_output(reply, lang)
            nc = cs.remove_comments(s, lang) if ignore else None
            out.write(json.dumps([s, nc]) + "\n")
    elif mode == "remove_comments":
        for lang, src in read_jsonl(sys.stdin):
            out.write(json.dumps(cs.remove_comments(src, lang)) + "\n")
    elif mode == "parse_errors":
        from tree_sitter_languages import get_parser

        for lang, text in read_jsonl(sys.stdin):
            tree = get_parser(lang).parse(bytes(text, "utf8"))
            out.write(json.dumps(tree.root_node.has_error) + "\n")
    elif mode == "pyword":
        w = re.compile(r"\w")
        ranges, start = [], None
        for c in range(0x110001):
            ok = c < 0x110000 and w.match(chr(c)) is not None
            if ok and start is None:
                start = c
            elif not ok and start is not None:
                ranges.append([start, c - 1])
                start = None
        out.write(json.dumps(ranges))
    elif mode == "redump":
        for path in sys.argv[2:]:
            with open(path) as f:
                out.write(json.dumps(json.load(f)) + "\n")
    elif mode == "names":
        for path in read_jsonl(sys.stdin):
            base, _ = os.path.splitext(path)
            out.write(json.dumps([cs.get_model_name(path), base + "-SCORES.json"]) + "\n")
    else:
        sys.exit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
