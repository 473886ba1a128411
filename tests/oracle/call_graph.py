"""An independent call graph of a RepoQA dataset's Python repositories, on
Python's own `ast` module (the call-path task's oracle; docs/call-path.md).

The rule, as the task defines it: a node is a function record (`functions`,
files in order, records in order, numbered from 0 per repository); a call
belongs to the innermost record whose lines [start_line, end_line) hold the
call's first line; its callee's last identifier is `f` for `f(...)` and
`x.f(...)`, none for any other callee; a call to a name exactly one record
has is an edge. Files `ast` cannot parse are listed, not guessed.

Usage: call_graph.py DATASET.json  -> JSON {repo: {"edges": [[a, b], ...],
"unparsed": [path, ...]}} on stdout.
"""
import ast
import json
import sys


def callee(call):
    f = call.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        return f.attr
    return None


def graph(repo):
    records = []  # (path, name, start, end)
    for path, fs in (repo.get("functions") or {}).items():
        for f in fs:
            end = max(f["end_line"], f["start_line"] + 1)
            records.append((path, f["name"], f["start_line"], end))
    count = {}
    for r in records:
        count[r[1]] = count.get(r[1], 0) + 1
    unique = {r[1]: i for i, r in enumerate(records) if count[r[1]] == 1}
    edges = set()
    unparsed = []
    for path in (repo.get("functions") or {}):
        text = repo["content"].get(path)
        if text is None:
            continue
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            unparsed.append(path)
            continue
        mine = [i for i, r in enumerate(records) if r[0] == path]
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = callee(node)
            if name is None or name not in unique:
                continue
            line = node.lineno - 1
            holding = [i for i in mine if records[i][2] <= line < records[i][3]]
            if not holding:
                continue
            owner = max(holding, key=lambda i: (records[i][2], -records[i][3]))
            edges.add((owner, unique[name]))
    return {"edges": sorted(edges), "unparsed": unparsed}


def main():
    with open(sys.argv[1], "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        import gzip

        raw = gzip.decompress(raw)
    data = json.loads(raw)
    out = {r["repo"]: graph(r) for r in data.get("python", [])}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
