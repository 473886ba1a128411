"""Plain-text layout: wrapping paragraphs and rendering tables."""


def wrap(text, width=72):
    """Greedy word wrap: fill each line with as many words as fit in width;
    a word longer than width gets a line of its own."""
    if width < 1:
        raise ValueError("width must be at least 1")
    lines, current = [], ""
    for word in text.split():
        if not current:
            current = word
        elif len(current) + 1 + len(word) <= width:
            current += " " + word
        else:
            lines.append(current)
            current = word
    if current:
        lines.append(current)
    return lines


def justify(line, width):
    """Spread the spaces of a line so that it is exactly width wide; extra
    spaces go to the leftmost gaps first. A single word is left as is."""
    parts = line.split()
    if len(parts) < 2 or len(line) >= width:
        return line
    gaps = len(parts) - 1
    spaces = width - sum(len(p) for p in parts)
    base, extra = divmod(spaces, gaps)
    out = []
    for i, p in enumerate(parts[:-1]):
        out.append(p + " " * (base + (1 if i < extra else 0)))
    out.append(parts[-1])
    return "".join(out)


def render_table(rows, headers):
    """Render rows as a text table with a header rule; numbers are right
    aligned, everything else left aligned."""
    table = [list(map(str, headers))] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(headers))]
    numeric = [all(_is_number(r[i]) for r in table[1:]) for i in range(len(headers))]

    def line(cells):
        out = []
        for cell, w, num in zip(cells, widths, numeric):
            out.append(cell.rjust(w) if num else cell.ljust(w))
        return " | ".join(out).rstrip()

    rule = "-+-".join("-" * w for w in widths)
    return "\n".join([line(table[0]), rule] + [line(r) for r in table[1:]])


def _is_number(s):
    try:
        float(s)
    except ValueError:
        return False
    return True


def histogram(pairs, width=40, mark="#"):
    """Horizontal bar chart of (label, value) pairs scaled to width."""
    if not pairs:
        return ""
    largest = max(v for _, v in pairs) or 1
    pad = max(len(str(label)) for label, _ in pairs)
    rows = []
    for label, value in pairs:
        bar = mark * max(1 if value else 0, round(value * width / largest))
        rows.append(f"{str(label).ljust(pad)} {bar} {value}")
    return "\n".join(rows)
