"""Oracle for crates/repoqa/tests/it/parity_grammar.rs: the grammars of tree-sitter-languages
1.10.2 (the parser of the official harness), as the official code loads them
(`tree_sitter_languages.get_parser(lang)`).

Modes (results on stdout):
  tables
      one JSON object per language: {language, abi, kinds: [[name, named,
      visible], ...] by kind id, fields: [name, ...] by field id (from 1)}.
  trees < JSONL of [language, text]
      one JSON line per input: the parse tree in pre-order, each node as
      [kind, start_byte, end_byte, is_missing].
"""

import json
import sys
import warnings

warnings.simplefilter("ignore")
from tree_sitter_languages import get_language, get_parser  # noqa: E402

LANGUAGES = ["python", "cpp", "java", "typescript", "rust", "go"]


def tables():
    for name in LANGUAGES:
        lang = get_language(name)
        kinds = [
            [lang.node_kind_for_id(i), lang.node_kind_is_named(i), lang.node_kind_is_visible(i)]
            for i in range(lang.node_kind_count)
        ]
        fields = [lang.field_name_for_id(i) for i in range(1, lang.field_count + 1)]
        print(json.dumps({"language": name, "abi": lang.version, "kinds": kinds, "fields": fields}))


def walk(tree):
    out = []
    cursor = tree.walk()
    while True:
        n = cursor.node
        out.append([n.type, n.start_byte, n.end_byte, n.is_missing])
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return out


def trees():
    parsers = {name: get_parser(name) for name in LANGUAGES}
    for line in sys.stdin:
        lang, text = json.loads(line)
        print(json.dumps(walk(parsers[lang].parse(text.encode("utf-8", "surrogatepass")))))


if __name__ == "__main__":
    {"tables": tables, "trees": trees}[sys.argv[1]]()
