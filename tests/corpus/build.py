"""Turn the fetched third-party sources into a RepoQA dataset file.

Run by tests/corpus/build.sh with the oracle python (it needs
tree_sitter_languages 1.10.2, the official repoqa package for the
FUNCTION_QUERY / COMMENT_QUERY / topological_sort it curates with, and
transformers for the token counts).

The steps follow the upstream curation semantics (scripts/curate in
evalplus/repoqa) with our own, simpler dependency analysis:

  content     files of the language under the entry dir, relative paths, sorted
  dependency  {file: [files it imports]} by a per-language import scan
  functions   FUNCTION_QUERY captures in topological order with global offsets
              (C1) and code_ratio (C4)
  needles     unique names, <= 2000 bytes, first-come per bin of 64 (C2),
              10 sampled with a fixed seed, plus a synthetic description
"""

import argparse
import ast
import hashlib
import json
import os
import random
import re
import sys
import time
import zlib
from collections import Counter

from tree_sitter_languages import get_language, get_parser

from repoqa.utility import COMMENT_QUERY, FUNCTION_QUERY, topological_sort

LANG_SUFFIX = {  # upstream scripts/curate/utility.py lang2suffix
    "python": (".py",),
    "go": (".go",),
    "cpp": (".cpp", ".hpp", ".cc", ".hh", ".cxx", ".hxx", ".c", ".h"),
    "java": (".java",),
    "typescript": (".ts", ".js"),
    "rust": (".rs",),
}
MAX_NEEDLE_BYTES = 2000
NUM_BINS = 64
NEEDLES_PER_REPO = 10
MIN_TOKENS, MAX_TOKENS = 30_000, 300_000
TOKENIZER = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", ".tools", "tokenizer.json"
)


def log(msg):
    print(f"corpus: {msg}", flush=True)


class CorpusError(Exception):
    pass


# --------------------------------------------------------------------------
# sources.txt


def read_sources(path):
    repos = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            cols = line.split()
            if len(cols) != 8:
                raise CorpusError(f"{path}:{lineno}: expected 8 columns, got {len(cols)}")
            lang, rid, registry, spec, root, repo, entry, topic = cols
            if lang not in LANG_SUFFIX:
                raise CorpusError(f"{path}:{lineno}: unknown language {lang}")
            repos.append(
                dict(lang=lang, id=rid, registry=registry, spec=spec, root=root,
                     repo=repo, entry=entry, topic=topic)
            )
    return repos


# --------------------------------------------------------------------------
# content


def collect_content(base, entry, lang):
    """{relative path: text} of the language's files under base/entry, sorted.

    Files are read without newline translation (the dataset keeps \\r\\n as
    is); a file that is not UTF-8 is skipped with a note, like a binary blob.
    """
    top = base if entry == "." else os.path.join(base, entry)
    if not os.path.isdir(top):
        raise CorpusError(f"entry directory {top} missing (fetch incomplete?)")
    paths = []
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames.sort()
        for name in filenames:
            if name.endswith(LANG_SUFFIX[lang]):
                paths.append(os.path.relpath(os.path.join(dirpath, name), base))
    content = {}
    for rel in sorted(p.replace(os.sep, "/") for p in paths):
        raw = open(os.path.join(base, rel), "rb").read()
        try:
            content[rel] = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            log(f"  skip {rel}: not UTF-8 ({e})")
    if not content:
        raise CorpusError(f"no {lang} files under {top}")
    return content


# --------------------------------------------------------------------------
# dependency analysis (one function per language; values keep first-seen order)


def _uniq(items, self_path):
    seen, out = set(), []
    for x in items:
        if x and x != self_path and x not in seen:
            seen.add(x)
            out.append(x)
    return out


def deps_python(content, entry):
    # Module names are relative to the entry's parent (src/black -> black.*).
    pkg_root = os.path.dirname(entry) if entry != "." else ""
    mod2path = {}
    for path in content:
        rel = os.path.relpath(path, pkg_root) if pkg_root else path
        mod = rel[:-3].replace("/", ".")
        if mod.endswith(".__init__"):
            mod = mod[: -len(".__init__")]
        mod2path[mod] = path

    def longest(mod):
        parts = mod.split(".")
        for k in range(len(parts), 0, -1):
            cand = ".".join(parts[:k])
            if cand in mod2path:
                return mod2path[cand]
        return None

    deps = {}
    for path, text in content.items():
        try:
            tree = ast.parse(text)
        except SyntaxError as e:
            log(f"  {path}: python syntax error ({e.msg}); no dependencies recorded")
            deps[path] = []
            continue
        rel = os.path.relpath(path, pkg_root) if pkg_root else path
        # The importing module's package: drop the module name (or "__init__").
        package = rel[:-3].replace("/", ".").split(".")[:-1]
        nodes = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
        nodes.sort(key=lambda n: (n.lineno, n.col_offset))
        found = []
        for node in nodes:
            if isinstance(node, ast.Import):
                found.extend(longest(a.name) for a in node.names)
                continue
            if node.level:
                base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
                base = ".".join(base + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            for a in node.names:
                sub = f"{base}.{a.name}" if base else a.name
                found.append(mod2path.get(sub) or (longest(base) if base else None))
        deps[path] = _uniq(found, path)
    return deps


_RS_PATH = re.compile(r"\b(crate|super|self)((?:::\w+)+)")
_RS_GROUP = re.compile(r"\b(crate|super|self)((?:::\w+)*)::\{([^{}]*)\}")
_RS_MOD = re.compile(r"^\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", re.M)


def deps_rust(content, entry):
    src = "" if entry == "." else entry
    mod2path, path2mod = {}, {}
    for path in content:
        rel = os.path.relpath(path, src) if src else path
        parts = rel[:-3].split("/")
        if parts[-1] in ("mod", "lib", "main"):
            parts = parts[:-1]
        mod2path.setdefault(tuple(parts), path)
        path2mod[path] = tuple(parts)

    def resolve(base, comps):
        comps = [c for c in comps if c]
        for k in range(len(comps), -1, -1):
            cand = tuple(base) + tuple(comps[:k])
            if cand in mod2path:
                return mod2path[cand]
        return None

    def base_of(kw, mod):
        if kw == "crate":
            return ()
        if kw == "super":
            return mod[:-1]
        return mod

    deps = {}
    for path, text in content.items():
        mod = path2mod[path]
        found = []
        for m in _RS_MOD.finditer(text):
            found.append(mod2path.get(mod + (m.group(1),)))
        for m in _RS_GROUP.finditer(text):
            head = m.group(2).split("::")
            for item in m.group(3).split(","):
                item = item.strip().split(" as ")[0]
                found.append(resolve(base_of(m.group(1), mod), head + item.split("::")))
        for m in _RS_PATH.finditer(text):
            found.append(resolve(base_of(m.group(1), mod), m.group(2).split("::")))
        deps[path] = _uniq(found, path)
    return deps


_TS_SPECS = [
    re.compile(r"""\bfrom\s*['"](\.{1,2}/[^'"]*|\.{1,2})['"]"""),
    re.compile(r"""\bimport\s*['"](\.{1,2}/[^'"]*)['"]"""),
    re.compile(r"""\bimport\(\s*['"](\.{1,2}/[^'"]*)['"]\s*\)"""),
    re.compile(r"""\brequire\(\s*['"](\.{1,2}/[^'"]*)['"]\s*\)"""),
]


def deps_typescript(content, entry):
    deps = {}
    for path, text in content.items():
        hits = []
        for rx in _TS_SPECS:
            hits.extend((m.start(), m.group(1)) for m in rx.finditer(text))
        found = []
        for _, spec in sorted(hits):
            base = os.path.normpath(os.path.join(os.path.dirname(path), spec))
            stem = re.sub(r"\.(m|c)?js$", "", base)
            for cand in (base, stem + ".ts", stem + ".js", stem + "/index.ts",
                         stem + "/index.js", stem + ".d.ts"):
                if cand in content:
                    found.append(cand)
                    break
        deps[path] = _uniq(found, path)
    return deps


_GO_DECL = re.compile(r"^(?:func\s+(?:\([^)]*\)\s*)?(\w+)|type\s+(\w+)|(?:var|const)\s+(\w+))", re.M)
_GO_GROUP = re.compile(r"^(?:var|const|type)\s*\(\n(.*?)^\)", re.M | re.S)
_GO_IMPORT_BLOCK = re.compile(r"^import\s*\((.*?)\)", re.M | re.S)
_GO_IMPORT_LINE = re.compile(r"^import\s+(\w+\s+)?\"([^\"]+)\"", re.M)
_GO_IMPORT_SPEC = re.compile(r"^\s*(\w+\s+)?\"([^\"]+)\"", re.M)
_WORD = re.compile(r"[A-Za-z_]\w*")


def deps_go(content, entry):
    # Files of one directory form a package; a file depends on the files of
    # its package that declare identifiers it uses, and on files of imported
    # packages inside the entry dir that declare the `pkg.Name`s it uses.
    decls = {}  # dir -> {identifier: [files]}
    for path, text in content.items():
        names = [next(g for g in m.groups() if g) for m in _GO_DECL.finditer(text)]
        for m in _GO_GROUP.finditer(text):
            names += re.findall(r"^\t(\w+)", m.group(1), re.M)
        table = decls.setdefault(os.path.dirname(path), {})
        for n in names:
            if n != "_" and n != "init" and path not in table.setdefault(n, []):
                table[n].append(path)
    dirs = sorted(decls)

    def dir_of_import(ipath):
        for d in dirs:
            if d and (ipath == d or ipath.endswith("/" + d) or d.endswith("/" + ipath)):
                return d
        return None

    deps = {}
    for path, text in content.items():
        own = decls[os.path.dirname(path)]
        found = []
        words = _WORD.findall(text)
        for w in words:
            found.extend(own.get(w, []))
        if not path.endswith("_test.go"):
            # Only tests see _test.go declarations.
            found = [f for f in found if not f.endswith("_test.go")]
        imports = [(a, p) for a, p in _GO_IMPORT_LINE.findall(text)]
        for block in _GO_IMPORT_BLOCK.findall(text):
            imports += _GO_IMPORT_SPEC.findall(block)
        for alias, ipath in imports:
            d = dir_of_import(ipath)
            if d is None or d == os.path.dirname(path):
                continue
            name = alias.strip() or ipath.rsplit("/", 1)[-1]
            for ident in re.findall(r"\b" + re.escape(name) + r"\.(\w+)", text):
                found.extend(decls[d].get(ident, []))
        deps[path] = _uniq(found, path)
    return deps


_JAVA_PKG = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.M)
_JAVA_IMPORT = re.compile(r"^\s*import\s+(static\s+)?([\w.]+)(\.\*)?\s*;", re.M)


def deps_java(content, entry):
    fq2path, pkg_of, by_pkg = {}, {}, {}
    for path, text in content.items():
        m = _JAVA_PKG.search(text)
        pkg = m.group(1) if m else ""
        cls = os.path.basename(path)[:-5]
        fq2path[f"{pkg}.{cls}" if pkg else cls] = path
        pkg_of[path] = pkg
        by_pkg.setdefault(pkg, {})[cls] = path
    deps = {}
    for path, text in content.items():
        words = set(_WORD.findall(text))
        found = []
        for static, name, star in _JAVA_IMPORT.findall(text):
            if star and name in by_pkg:
                found.extend(p for c, p in sorted(by_pkg[name].items()) if c in words)
                continue
            parts = name.split(".")
            for k in range(len(parts), 0, -1):  # a static import names a member
                if ".".join(parts[:k]) in fq2path:
                    found.append(fq2path[".".join(parts[:k])])
                    break
        for cls, p in sorted(by_pkg[pkg_of[path]].items()):
            if cls in words:
                found.append(p)
        deps[path] = _uniq(found, path)
    return deps


_CPP_INCLUDE = re.compile(r"^\s*#\s*include\s*([<\"])([^>\"]+)[>\"]", re.M)
_CPP_INCLUDE_DIRS = ("include", "src", "lib", "libs", "library", "libraries", "inc")


def deps_cpp(content, entry):
    top = "" if entry == "." else entry
    roots = [top] + sorted(
        {d for p in content for d in _parents(p) if os.path.basename(d) in _CPP_INCLUDE_DIRS}
    )
    if top:
        roots.append(os.path.dirname(top))  # <fmt/core.h> style, relative to the parent
    deps = {}
    for path, text in content.items():
        found = []
        for _, inc in _CPP_INCLUDE.findall(text):
            if "." not in inc:
                continue
            for d in [os.path.dirname(path)] + roots:
                cand = os.path.normpath(os.path.join(d, inc)) if d else os.path.normpath(inc)
                if cand in content:
                    found.append(cand)
                    break
        deps[path] = _uniq(found, path)
    return deps


def _parents(path):
    d = os.path.dirname(path)
    while d:
        yield d
        d = os.path.dirname(d)


DEPS = {
    "python": deps_python,
    "rust": deps_rust,
    "typescript": deps_typescript,
    "go": deps_go,
    "java": deps_java,
    "cpp": deps_cpp,
}


# --------------------------------------------------------------------------
# function analysis (C1, C3, C4)


class Analyzer:
    def __init__(self, lang):
        self.lang = lang
        self.parser = get_parser(lang)
        language = get_language(lang)
        self.fn_query = language.query(FUNCTION_QUERY[lang])
        self.comment_queries = [language.query(q) for q in COMMENT_QUERY[lang]]

    def name(self, node):
        if self.lang == "cpp":  # C3: declarator.declarator
            return node.child_by_field_name("declarator").child_by_field_name("declarator").text.decode()
        return node.child_by_field_name("name").text.decode()

    def code_ratio(self, code):
        # C4: comment bytes over function bytes, the function parsed on its own.
        tree = self.parser.parse(code)
        chars = 0
        for q in self.comment_queries:
            for node, _ in q.captures(tree.root_node):
                chars += node.end_byte - node.start_byte
        return chars / len(code)

    def functions(self, content, ordered_paths):
        gbyte = gline = 0
        out = {}
        nodes = {}
        for path in ordered_paths:
            code = content[path]
            data = code.encode("utf-8")
            tree = self.parser.parse(data)
            fns = []
            for node, _ in self.fn_query.captures(tree.root_node):
                fns.append({
                    "name": self.name(node),
                    "start_line": node.start_point[0],
                    "end_line": node.end_point[0] + 1,
                    "start_byte": node.start_byte,
                    "end_byte": node.end_byte,
                    "global_start_line": gline + node.start_point[0],
                    "global_end_line": gline + node.end_point[0] + 1,
                    # C1: code points of earlier files + UTF-8 bytes in this one
                    "global_start_byte": gbyte + node.start_byte,
                    "global_end_byte": gbyte + node.end_byte,
                    "code_ratio": self.code_ratio(data[node.start_byte:node.end_byte]),
                })
                nodes[(path, node.start_byte, node.end_byte)] = node
            out[path] = fns
            gbyte += len(code)
            gline += code.count("\n") + 1
        return out, nodes


# --------------------------------------------------------------------------
# needle selection (C2) and descriptions


def select_needles(repo_name, content, functions):
    bin_size = sum(len(c) for c in content.values()) // NUM_BINS
    if bin_size == 0:
        raise CorpusError(f"{repo_name}: content too small for {NUM_BINS} bins")
    counts = Counter(fn["name"] for fns in functions.values() for fn in fns)
    unique = {k for k, v in counts.items() if v == 1}
    taken, candidates = set(), []
    for path, fns in functions.items():
        for fn in fns:
            if fn["name"] not in unique:
                continue
            if fn["end_byte"] - fn["start_byte"] > MAX_NEEDLE_BYTES:
                continue
            b = fn["global_start_byte"] // bin_size
            if b in taken:
                continue
            taken.add(b)
            candidates.append((path, fn))
    # Fixed seed per repo: the selection does not depend on other repos.
    rng = random.Random(zlib.crc32(repo_name.encode("utf-8")))
    picked = rng.sample(candidates, min(NEEDLES_PER_REPO, len(candidates)))
    return [{**fn, "path": path} for path, fn in picked], len(candidates)


_KEYWORDS = {
    "if", "for", "while", "switch", "match", "return", "sizeof", "catch", "loop",
    "function", "typeof", "new", "delete", "assert", "print", "super", "this", "self",
    "await", "yield", "lambda", "not", "and", "or", "in", "is", "else", "elif",
    "defer", "go", "func", "fn", "let", "mut", "const", "static", "try", "throw",
    "with", "def", "class", "struct", "impl", "where", "as", "case", "do",
}
_LANG_NAMES = {
    "python": "Python", "cpp": "C++", "java": "Java", "typescript": "TypeScript",
    "rust": "Rust", "go": "Go",
}
_CALL = re.compile(r"([A-Za-z_]\w*)\s*(?:::<[^>]*>)?\s*\(")


def _params(node, lang):
    holder = node
    if lang == "cpp":
        holder = node.child_by_field_name("declarator")
    params = holder.child_by_field_name("parameters") if holder is not None else None
    if params is None:
        return []
    names = []
    for child in params.named_children:
        if child.type in ("comment", "line_comment", "block_comment"):
            continue
        ids = [m for m in _WORD.findall(child.text.decode("utf-8", "replace"))]
        if not ids:
            continue
        # The declared name is the last identifier for C-like / Java, the first
        # for Python / Rust / TS / Go patterns like `name: Type`.
        if lang in ("cpp", "java"):
            names.append(ids[-1])
        else:
            names.append(ids[0])
    return names


def describe(needle, node, lang, content):
    """A deterministic English description that never spells the name."""
    name = needle["name"]
    text = content[needle["path"]].encode("utf-8")[needle["start_byte"]:needle["end_byte"]].decode("utf-8", "replace")
    nlines = needle["end_line"] - needle["start_line"]
    params = [p for p in _params(node, lang) if p not in ("self", "cls", "this")]
    body = node.child_by_field_name("body")
    body_text = body.text.decode("utf-8", "replace") if body is not None else text
    calls = []
    for m in _CALL.finditer(body_text):
        w = m.group(1)
        if w in _KEYWORDS or w == name or name.lower() in w.lower() or w in calls:
            continue
        calls.append(w)
    words = Counter(w for w in _WORD.findall(body_text)
                    if len(w) > 3 and w not in _KEYWORDS and name.lower() not in w.lower())
    topics = [w for w, _ in words.most_common(6) if w not in calls][:3]
    features = []
    if re.search(r"\b(if|switch|match)\b", body_text):
        features.append("branches on conditions")
    if re.search(r"\b(for|while|loop)\b", body_text):
        features.append("iterates in a loop")
    if re.search(r"\b(try|catch|except|Err|panic|throw|raise)\b", body_text):
        features.append("handles error cases")
    returns = re.search(r"\breturn\b", body_text) is not None
    lang_name = _LANG_NAMES[lang]
    where = f"`{os.path.basename(needle['path'])}`"
    if re.search(r"\b" + re.escape(name) + r"\b", where):
        where = f"a file under `{os.path.dirname(needle['path']) or '.'}`"
    if params:
        plist = ", ".join(f"`{p}`" for p in params[:5])
        inputs = f"Takes {len(params)} parameter{'s' if len(params) != 1 else ''} ({plist}{', ...' if len(params) > 5 else ''})."
    else:
        inputs = "Takes no explicit parameters besides its receiver or context."
    output = ("Returns a value computed from its inputs and local state." if returns
              else "Produces its effect through side effects rather than an explicit return.")
    about = ", ".join(f"`{t}`" for t in topics) if topics else "local state"
    steps = []
    if calls:
        steps.append("calls " + ", ".join(f"`{c}`" for c in calls[:4]))
    steps.extend(features)
    procedure = (", ".join(steps) if steps else "performs a short straight-line computation")
    desc = (
        f"\n1. **Purpose**: A {lang_name} function from {where} that deals with {about}."
        f"\n2. **Input**: {inputs}"
        f"\n3. **Output**: {output}"
        f"\n4. **Procedure**: Over about {nlines} line{'s' if nlines != 1 else ''}, it {procedure}.\n"
    )
    # The model must find the function from what it does, never from its name.
    desc = re.sub(r"`[^`]*\b" + re.escape(name) + r"\b[^`]*`(, )?", "", desc)
    if re.search(r"\b" + re.escape(name) + r"\b", desc):
        raise CorpusError(f"description of {needle['path']}:{name} spells the name: {desc!r}")
    return desc


# --------------------------------------------------------------------------


def build_repo(src, tok, lang):
    t0 = time.time()
    base = os.path.join(src["_src_dir"], src["id"])
    if not os.path.isfile(os.path.join(base, ".complete")):
        raise CorpusError(f"{src['id']}: {base} not fetched (run tests/corpus/build.sh)")
    stamp = open(os.path.join(base, ".complete"), encoding="utf-8").read().strip()
    if stamp != src["spec"]:
        raise CorpusError(f"{src['id']}: cache holds {stamp}, sources.txt pins {src['spec']}; delete {base}")
    content = collect_content(base, src["entry"], lang)
    ntokens = sum(len(tok.tokenize(t)) for t in content.values())
    if not MIN_TOKENS <= ntokens <= MAX_TOKENS:
        raise CorpusError(f"{src['repo']}: {ntokens} tokens, outside [{MIN_TOKENS}, {MAX_TOKENS}]")
    dependency = DEPS[lang](content, src["entry"])
    ordered = topological_sort(dependency)
    analyzer = Analyzer(lang)
    functions, nodes = analyzer.functions(content, ordered)
    needles, ncand = select_needles(src["repo"], content, functions)
    if len(needles) < NEEDLES_PER_REPO:
        raise CorpusError(f"{src['repo']}: only {len(needles)} needle candidates")
    for n in needles:
        node = nodes[(n["path"], n["start_byte"], n["end_byte"])]
        n["description"] = describe(n, node, lang, content)
    digest = hashlib.sha1()
    for p, t in content.items():
        digest.update(p.encode() + b"\0" + t.encode() + b"\0")
    repo = {
        "repo": src["repo"],
        "commit_sha": digest.hexdigest(),
        "entrypoint_path": src["entry"],
        "topic": src["topic"],
        "content": content,
        "dependency": dependency,
        "functions": functions,
        "needles": needles,
    }
    nonascii = sum(
        1 for n in needles
        if any(ord(c) > 127 for c in content[n["path"]][: n["start_byte"]])
    )
    nfn = sum(len(v) for v in functions.values())
    ndep = sum(len(v) for v in dependency.values())
    log(
        f"  {lang:10} {src['repo']:30} {src['spec']:40} files={len(content):3} "
        f"tokens={ntokens:6} edges={ndep:4} functions={nfn:4} candidates={ncand:2} "
        f"needles={len(needles)} non-ascii-before-needle={nonascii} ({time.time() - t0:.1f}s)"
    )
    return repo, dict(tokens=ntokens, needles=len(needles), nonascii=nonascii)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sources", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    t0 = time.time()
    import transformers

    tok = transformers.PreTrainedTokenizerFast(tokenizer_file=os.path.abspath(TOKENIZER))
    dataset = {}
    stats = []
    for src in read_sources(args.sources):
        src["_src_dir"] = args.src
        repo, st = build_repo(src, tok, src["lang"])
        dataset.setdefault(src["lang"], []).append(repo)
        stats.append(st)
    missing = [l for l in LANG_SUFFIX if l not in dataset]
    if missing:
        raise CorpusError(f"no repos for {missing}")
    text = json.dumps(dataset)
    old = open(args.out, encoding="utf-8").read() if os.path.exists(args.out) else None
    if old == text:
        log(f"{args.out} unchanged")
    else:
        tmp = args.out + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, args.out)
        log(f"wrote {args.out} ({len(text)} bytes)")
    log(
        f"{sum(len(v) for v in dataset.values())} repos, {sum(s['needles'] for s in stats)} needles, "
        f"{sum(s['nonascii'] for s in stats)} needles with non-ASCII text before them, "
        f"{time.time() - t0:.1f}s"
    )


if __name__ == "__main__":
    try:
        main()
    except CorpusError as e:
        print(f"corpus: FAILED: {e}", file=sys.stderr)
        sys.exit(1)
