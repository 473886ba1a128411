"""Oracle for crates/repoqa-cli/tests/it/coreqa_retrieval.rs: CoReQA's retrieval
by the references the issue names, LangChain's RecursiveCharacterTextSplitter
(langchain-text-splitters) and rank-bm25's BM25Okapi.

    coreqa_retrieval.py chunk DIR SIZE OVERLAP
        JSON list of {"path", "index", "text"}: every text file of DIR (a
        regular file, not under a ".git" folder, whose bytes are UTF-8 without
        NUL), in sorted path order ("/"-separated, compared as UTF-8 bytes),
        split by RecursiveCharacterTextSplitter(chunk_size=SIZE,
        chunk_overlap=OVERLAP).split_text(text) with the default separators.
    coreqa_retrieval.py retrieve DIR SIZE OVERLAP TOP < queries.json
        For each query of the JSON list on stdin: the TOP best chunks as
        {"path", "index", "score"}, scores from
        BM25Okapi([c.split() for c in chunks]).get_scores(query.split()),
        best first, ties in chunk order. One JSON list per query.
"""

import json
import os
import sys

from langchain_text_splitters import RecursiveCharacterTextSplitter
from rank_bm25 import BM25Okapi


def text_files(root):
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            full = os.path.join(dirpath, name)
            if os.path.islink(full) or not os.path.isfile(full):
                continue
            data = open(full, "rb").read()
            if b"\0" in data:
                continue
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                continue
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            out.append((rel, text))
    out.sort(key=lambda f: f[0].encode("utf-8"))
    return out


def chunks(root, size, overlap):
    splitter = RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=overlap)
    out = []
    for path, text in text_files(root):
        for i, c in enumerate(splitter.split_text(text)):
            out.append({"path": path, "index": i, "text": c})
    return out


def main():
    cmd, root, size, overlap = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    cs = chunks(root, size, overlap)
    if cmd == "chunk":
        json.dump(cs, sys.stdout, ensure_ascii=False)
        return
    top = int(sys.argv[5])
    bm25 = BM25Okapi([c["text"].split() for c in cs])
    results = []
    for query in json.load(sys.stdin):
        scores = bm25.get_scores(query.split())
        order = sorted(range(len(cs)), key=lambda i: (-scores[i], i))[:top]
        results.append([{"path": cs[i]["path"], "index": cs[i]["index"], "score": float(scores[i])}
                        for i in order])
    json.dump(results, sys.stdout)


main()
