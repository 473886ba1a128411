"""Upstream HEAD's `make_code_context` (with `--clean-ctx-comments`), re-stated
on top of the installed PyPI 0.1.2 module.

PyPI 0.1.2 predates comment cleaning and CI cannot fetch upstream HEAD, so this
file states HEAD's semantics in our own words (docs/parity.md P1-P9 without the
0.1.2 NUL handling, K1-K6). It uses the same libraries HEAD uses: the
tokenizer, tree_sitter_languages' parsers and 0.1.2's COMMENT_QUERY (identical
in HEAD). It was checked against the real HEAD file task by task (see
crates/repoqa/tests/it/parity_prompts.rs, `--head-module`).

`fix_suffix=True` is NOT upstream: the corrected suffix cleaning offered by
the project (ContextOptions::fix_suffix_cleaning), stated here independently so
that the Rust version has a second implementation to agree with.
"""

from tree_sitter_languages import get_language, get_parser

from repoqa.utility import COMMENT_QUERY

MARK = {"python": "#"}  # every other language comments with "//"


def mark(language):
    return MARK.get(language, "//")


def path_line(language, path):
    return f"{mark(language)} Path: {path}"


def ntok(tokenizer, text):
    return len(tokenizer.tokenize(text))


def fill_from_bottom(lines, tokenizer, budget):
    """Lines kept from the end while they fit; returns (kept, used, stopped)."""
    kept, used = [], 0
    for line in lines[::-1]:
        cost = ntok(tokenizer, line + "\n")
        if used + cost > budget:
            return kept[::-1], used, True
        kept.append(line)
        used += cost
    return kept[::-1], used, False


def fill_from_top(lines, tokenizer, budget):
    """Lines kept from the start while they fit, "..." if one did not fit.
    Returns (kept, used, stopped); kept excludes the "..." line."""
    kept, used = [], 0
    for line in lines:
        cost = ntok(tokenizer, line + "\n")
        if used + cost > budget:
            return kept, used + ntok(tokenizer, "...\n"), True
        kept.append(line)
        used += cost
    return kept, used, False


def as_text(lines, stopped=False):
    return "".join(l + "\n" for l in lines) + ("...\n" if stopped else "")


def comment_nodes(language, data):
    tree = get_parser(language).parse(data)
    found = []
    for q in COMMENT_QUERY[language]:
        found.extend(node for node, _ in get_language(language).query(q).captures(tree.root_node))
    # Last first; equal starts keep their query order (stable sort).
    return sorted(found, key=lambda n: n.start_byte, reverse=True)


def strip_comments(language, segment, keep_paths):
    """Delete every comment capture except the synthetic path lines (K3)."""
    data = segment.encode("utf8")
    keep = {path_line(language, p).encode("utf8") for p in keep_paths}
    out = data
    for node in comment_nodes(language, data):
        if data[node.start_byte : node.end_byte] in keep:
            continue
        out = out[: node.start_byte] + out[node.end_byte :]
    return out.decode("utf8")


def blank_comments(language, whole):
    """Every comment capture of a whole file replaced by its newlines."""
    data = whole.encode("utf8")
    out = data
    for node in comment_nodes(language, data):
        gone = out[node.start_byte : node.end_byte]
        out = out[: node.start_byte] + b"\n" * gone.count(b"\n") + out[node.end_byte :]
    return out.decode("utf8")


def head_of_clean_file(language, whole, nlines, path):
    """K2: path line, the blanked file's first `nlines - 1` lines (a Python
    slice, so a negative bound counts from the end), "..." glued on."""
    rows = blank_comments(language, whole).split("\n")
    return path_line(language, path) + "\n" + "\n".join(rows[: nlines - 1]) + "...\n"


def split_at_marker(text, marker):
    """(number of lines before the first line containing marker, the text
    from that line on joined by newlines)."""
    rows = text.split("\n")
    for i, row in enumerate(rows):
        if marker in row:
            return i, "\n".join(rows[i:])
    return len(rows), ""


def make_code_context(
    needle,
    file_content_list,
    position_ratio,
    code_context_size,
    language,
    clean_comments="none",
    fix_suffix=False,
    tokenizer=None,
):
    clean_comments = getattr(clean_comments, "value", clean_comments)
    files = file_content_list
    here = [i for i, (p, _) in enumerate(files) if p == needle["path"]][0]
    text = files[here][1]
    needle_code = text[needle["start_byte"] : needle["end_byte"]]
    needle_tokens = ntok(tokenizer, needle_code)

    before = int(code_context_size * position_ratio - needle_tokens / 2)
    after = code_context_size - needle_tokens - before

    # Before the needle: its own file upwards, then whole earlier files.
    own = [path_line(language, needle["path"])] + text[: needle["start_byte"]].split("\n")
    kept, used, stopped = fill_from_bottom(own, tokenizer, before)
    prefix = as_text(kept)
    before -= used
    paths = [needle["path"]]
    top = None
    i = here - 1
    while not stopped and before > 0 and i >= 0:
        p, body = files[i]
        paths.insert(0, p)
        top = body
        kept, used, stopped = fill_from_top([path_line(language, p)] + body.split("\n"), tokenizer, before)
        prefix = as_text(kept, stopped) + prefix
        before -= used
        i -= 1

    # After the needle: the rest of its file, then later files.
    kept, used, stopped = fill_from_top(text[needle["end_byte"] :].split("\n"), tokenizer, after)
    suffix = as_text(kept, stopped)
    after -= used
    bottom = None  # (file text, where its chunk starts in suffix, lines kept, stopped)
    i = here + 1
    while not stopped and after > 0 and i < len(files):
        p, body = files[i]
        paths.append(p)
        kept, used, stopped = fill_from_top([path_line(language, p)] + body.split("\n"), tokenizer, after)
        bottom = (body, len(suffix), kept, stopped)
        suffix += as_text(kept, stopped)
        after -= used
        i += 1

    if clean_comments != "none":
        prefix, needle_code, suffix = clean(
            language, prefix, needle_code, suffix, tokenizer, paths, top, bottom,
            position_ratio, clean_comments == "positional_padding", fix_suffix,
        )

    start = ntok(tokenizer, prefix)
    end = start + ntok(tokenizer, needle_code)
    return {
        "code_context": prefix + needle_code + suffix,
        "needle_token_start": start,
        "needle_token_end": end,
        "code_context_ntokens": end + ntok(tokenizer, suffix),
    }


def clean(language, prefix, needle_code, suffix, tokenizer, paths, top, bottom, ratio, pad, fix_suffix):
    sizes = [ntok(tokenizer, s) for s in (prefix, needle_code, suffix)]

    if top:  # an empty top file counts as none (K2)
        n, rest = split_at_marker(prefix, path_line(language, paths[1]))
        new_prefix = head_of_clean_file(language, top, n, paths[0]) + strip_comments(language, rest, paths)
    else:
        new_prefix = strip_comments(language, prefix, paths)
    new_needle = strip_comments(language, needle_code, paths)

    if bottom and bottom[0] and fix_suffix:
        body, at, kept, stopped = bottom
        rows = blank_comments(language, body).split("\n")
        # kept = [path line] + file lines (possibly none of them)
        new_suffix = strip_comments(language, suffix[:at], paths) + as_text(
            kept[:1] + rows[: max(len(kept) - 1, 0)], stopped
        )
    elif bottom and bottom[0]:
        # K5 (upstream bug): the *prefix* is searched for the last path.
        n, rest = split_at_marker(prefix, path_line(language, paths[-1]))
        new_suffix = strip_comments(language, rest, paths) + head_of_clean_file(language, bottom[0], n, paths[-1])
    else:
        new_suffix = strip_comments(language, suffix, paths)

    if not pad:
        return new_prefix, new_needle, new_suffix

    # K6: refill the removed tokens with numbered comment lines.
    new_sizes = [ntok(tokenizer, s) for s in (new_prefix, new_needle, new_suffix)]
    from_needle = sizes[1] - new_sizes[1]
    to_prefix = int(from_needle * ratio)
    need = [to_prefix + sizes[0] - new_sizes[0] - 1, from_needle - to_prefix + sizes[2] - new_sizes[2] - 1]
    counter = 0
    fills = ["", ""]
    for side in (0, 1):
        while need[side] > 0:
            row = f"{mark(language)} Line Number {counter}\n"
            need[side] -= ntok(tokenizer, row)
            fills[side] += row
            counter += 1
    return fills[0] + "\n" + new_prefix, new_needle, new_suffix + fills[1] + "\n"
