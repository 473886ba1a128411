//! Parity of `repoqa::scoring::bleu` with the official `repoqa.metric.
//! compute_function_similarity` (NLTK 3.8.1), run by the oracle venv on the
//! same inputs (tests/oracle/bleu.py), and of our whitespace/tokens with
//! Python's `str.isspace` / `re.split(r"\s+", s.strip())`.
//!
//! Inputs are generated deterministically (own SplitMix64, fixed seeds) from
//! synthetic code, small vocabularies that stress clipping and smoothing,
//! every Unicode whitespace, and real Python source taken from the oracle
//! venv (NLTK's translate package, pinned by scripts/setup.sh).

use repoqa_testkit as common;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use repoqa::scoring::bleu::{function_similarity, is_py_space, py_tokens};

/// SplitMix64: tiny, deterministic, good enough for test inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in 0..n (n > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn range(&mut self, lo: usize, hi_incl: usize) -> usize {
        lo + self.below(hi_incl - lo + 1)
    }
    fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
    fn pick<'a, T: ?Sized>(&mut self, xs: &[&'a T]) -> &'a T {
        xs[self.below(xs.len())]
    }
}

const CODE: &[&str] = &[
    "def",
    "fn",
    "return",
    "if",
    "else",
    "elif",
    "for",
    "in",
    "while",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    "x",
    "y",
    "z",
    "self",
    "self.x",
    "=",
    "==",
    "!=",
    "+",
    "-",
    "*",
    "/",
    "%",
    "foo(x)",
    "bar",
    "i",
    "j",
    "0",
    "1",
    "2",
    "None",
    "True",
    "let",
    "mut",
    "const",
    "int",
    "std::vector<int>",
    "//",
    "#",
    "\"str\"",
    ";",
    ",",
    ":",
    "import",
    "from",
    "class",
    "public",
    "static",
    "void",
    "x.y()",
    "a[i]",
    "=>",
    "->",
    "&&",
    "||",
    "!",
    "pass",
    "raise",
    "ValueError(msg)",
    "len(xs)",
    "n):",
    "i++)",
    "auto",
    "err",
    "nil",
    "func",
    "go",
    "string",
    "value",
    "key",
    "result",
    "Ok(())",
];

const UNI: &[&str] = &[
    "é",
    "变量",
    "名前",
    "😀",
    "ñandú",
    "Ω",
    "e\u{301}",
    "a\u{200b}b",
    "\u{200b}",
    "\u{feff}",
    "\u{180e}",
    "ß",
    "İ",
    "\u{1b}",
    "\u{0}",
    "x\u{0}y",
    "Ǆ",
    "ﬁ",
    "٣",
    "\u{10ffff}",
    "🇫🇷",
    "\u{e000}",
    "\\",
    "\"",
    "'",
    "\u{7f}",
];

/// Every character Python treats as whitespace.
const PY_SPACES: &[&str] = &[
    "\t", "\n", "\u{b}", "\u{c}", "\r", "\u{1c}", "\u{1d}", "\u{1e}", "\u{1f}", " ", "\u{85}",
    "\u{a0}", "\u{1680}", "\u{2000}", "\u{2001}", "\u{2002}", "\u{2003}", "\u{2004}", "\u{2005}",
    "\u{2006}", "\u{2007}", "\u{2008}", "\u{2009}", "\u{200a}", "\u{2028}", "\u{2029}", "\u{202f}",
    "\u{205f}", "\u{3000}",
];

/// Separators of ordinary code.
const CODE_SEPS: &[&str] =
    &[" ", " ", " ", " ", "\n", "\n    ", "\n        ", "\t", "  ", "\r\n", "\n\n"];

fn join_with(rng: &mut Rng, toks: &[&str], seps: &[&str], edge_space: bool) -> String {
    let mut s = String::new();
    if edge_space && rng.chance(0.3) {
        s.push_str(rng.pick(seps));
    }
    for (i, t) in toks.iter().enumerate() {
        if i > 0 {
            s.push_str(rng.pick(seps));
        }
        s.push_str(t);
    }
    if edge_space && rng.chance(0.3) {
        s.push_str(rng.pick(seps));
    }
    s
}

fn random_tokens<'a>(rng: &mut Rng, vocab: &[&'a str], len: usize) -> Vec<&'a str> {
    (0..len).map(|_| rng.pick(vocab)).collect()
}

/// Token-level edits of a text kept as (token, following separator) pieces,
/// so real indentation and line breaks survive.
fn edit_text(rng: &mut Rng, text: &str, rate: f64) -> String {
    let mut lead = String::new();
    let mut pieces: Vec<(String, String)> = Vec::new();
    for c in text.chars() {
        match pieces.last_mut() {
            None if is_py_space(c) => lead.push(c),
            Some(last) if is_py_space(c) => last.1.push(c),
            Some(last) if last.1.is_empty() => last.0.push(c),
            _ => pieces.push((c.to_string(), String::new())),
        }
    }
    let mut out: Vec<(String, String)> = Vec::new();
    let mut i = 0;
    while i < pieces.len() {
        if rng.chance(rate) {
            match rng.below(5) {
                0 => {} // drop
                1 if i + 1 < pieces.len() => {
                    out.push(pieces[i + 1].clone());
                    out.push(pieces[i].clone());
                    i += 1;
                }
                2 => {
                    out.push((rng.pick(CODE).to_string(), " ".into()));
                    out.push(pieces[i].clone());
                }
                3 => out.push((rng.pick(CODE).to_string(), pieces[i].1.clone())),
                _ => {
                    out.push(pieces[i].clone());
                    out.push(pieces[i].clone());
                }
            }
        } else {
            out.push(pieces[i].clone());
        }
        i += 1;
    }
    let mut s = lead;
    for (t, sp) in out {
        s.push_str(&t);
        s.push_str(&sp);
    }
    s
}

/// Function-sized chunks of real Python source (the oracle venv's NLTK).
fn real_chunks(rng: &mut Rng) -> Vec<String> {
    let site = common::tools().join("oracle/lib/python3.11/site-packages");
    let mut files: Vec<PathBuf> = Vec::new();
    for sub in ["nltk/translate", "nltk/metrics", "nltk/tokenize", "repoqa"] {
        let dir = site.join(sub);
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        files.extend(
            entries.map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == "py")),
        );
    }
    files.sort();
    let mut chunks = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let lines: Vec<&str> = text.split('\n').collect();
        let mut at = 0;
        while at < lines.len() {
            let n = rng.range(5, 60).min(lines.len() - at);
            chunks.push(lines[at..at + n].join("\n"));
            at += n;
        }
    }
    assert!(chunks.len() > 500, "too few chunks ({}) from {}", chunks.len(), site.display());
    chunks
}

fn pairs() -> Vec<(String, String)> {
    let mut rng = Rng(0x5eed_b1e0);
    let chunks = real_chunks(&mut rng);
    let mut v: Vec<(String, String)> = Vec::new();
    let rates = [0.0, 0.01, 0.03, 0.05, 0.1, 0.2, 0.4, 0.7, 1.0];

    // Real code, edited.
    for _ in 0..4000 {
        let r = &chunks[rng.below(chunks.len())];
        let rate = rates[rng.below(rates.len())];
        v.push((edit_text(&mut rng, r, rate), r.clone()));
    }
    // Real code, another function (mostly low similarity), both directions.
    for _ in 0..1000 {
        let a = &chunks[rng.below(chunks.len())];
        let b = &chunks[rng.below(chunks.len())];
        v.push((a.clone(), b.clone()));
    }
    // Synthetic code, edited, lengths 1..300.
    for _ in 0..2000 {
        let len = rng.range(1, 300);
        let toks = random_tokens(&mut rng, CODE, len);
        let r = join_with(&mut rng, &toks, CODE_SEPS, true);
        let rate = rates[rng.below(rates.len())];
        v.push((edit_text(&mut rng, &r, rate), r));
    }
    // Tiny vocabularies, short texts: clipping, every smoothing path,
    // hypotheses of 0..4 tokens.
    for _ in 0..2000 {
        let k = rng.range(1, 4);
        let vocab = &["a", "b", "c", "d"][..k];
        let (lh, lr) = (rng.range(0, 12), rng.range(0, 12));
        let h = random_tokens(&mut rng, vocab, lh);
        let r = random_tokens(&mut rng, vocab, lr);
        v.push((join_with(&mut rng, &h, &[" "], false), join_with(&mut rng, &r, &[" "], false)));
    }
    // Identical tokens, different whitespace.
    for _ in 0..300 {
        let len = rng.range(1, 120);
        let toks = random_tokens(&mut rng, CODE, len);
        v.push((
            join_with(&mut rng, &toks, CODE_SEPS, true),
            join_with(&mut rng, &toks, PY_SPACES, true),
        ));
    }
    // Disjoint vocabularies.
    for _ in 0..200 {
        let (lh, lr) = (rng.range(1, 80), rng.range(1, 80));
        let h = random_tokens(&mut rng, &CODE[..40], lh);
        let r = random_tokens(&mut rng, &CODE[40..], lr);
        v.push((
            join_with(&mut rng, &h, CODE_SEPS, true),
            join_with(&mut rng, &r, CODE_SEPS, true),
        ));
    }
    // Empty / whitespace-only / one token on either side.
    let smalls = [
        "",
        " ",
        "\n\t ",
        "\u{3000}",
        "\u{1c}\u{85}",
        "a",
        " a ",
        "\u{a0}a\u{2028}",
        "b",
        "a a",
        "\u{200b}",
    ];
    for a in smalls {
        for b in smalls {
            v.push((a.to_string(), b.to_string()));
        }
    }
    // Single tokens.
    for _ in 0..300 {
        let a = if rng.chance(0.5) { rng.pick(CODE) } else { rng.pick(UNI) };
        let b = if rng.chance(0.5) { a } else { rng.pick(CODE) };
        let len = rng.range(0, 6);
        let r = random_tokens(&mut rng, &[a, b, "x"], len);
        v.push((a.to_string(), join_with(&mut rng, &r, CODE_SEPS, true)));
        v.push((join_with(&mut rng, &r, CODE_SEPS, true), b.to_string()));
    }
    // Very long texts (thousands of tokens).
    for _ in 0..40 {
        let len = rng.range(2000, 8000);
        let toks = random_tokens(&mut rng, CODE, len);
        let r = join_with(&mut rng, &toks, CODE_SEPS, true);
        let rate = [0.0, 0.01, 0.1, 0.5][rng.below(4)];
        v.push((edit_text(&mut rng, &r, rate), r));
    }
    // Unicode whitespace between tokens, non-ASCII tokens.
    let mixed: Vec<&str> = CODE.iter().chain(UNI.iter()).copied().collect();
    for _ in 0..1000 {
        let len = rng.range(1, 60);
        let toks = random_tokens(&mut rng, &mixed, len);
        let r = join_with(&mut rng, &toks, PY_SPACES, true);
        let rate = rates[rng.below(rates.len())];
        let mut h = edit_text(&mut rng, &r, rate);
        if rng.chance(0.3) {
            h = h.replace(' ', rng.pick(PY_SPACES));
        }
        v.push((h, r));
    }
    // Prefixes / suffixes / supersets: hypothesis shorter or longer.
    for _ in 0..500 {
        let r = &chunks[rng.below(chunks.len())];
        let toks = py_tokens(r);
        let a = rng.below(toks.len());
        let b = rng.range(a, toks.len());
        let h = match rng.below(3) {
            0 => toks[a..b].join(" "),
            1 => format!("{} {}", r, toks[a..b].join(" ")),
            _ => format!("{} {}", toks[..a].join("\n"), toks[b..].join("\n")),
        };
        v.push((h, r.clone()));
    }
    v
}

fn write_jsonl<T: serde::Serialize>(path: &Path, items: &[T]) {
    let mut s = String::new();
    for it in items {
        s.push_str(&serde_json::to_string(it).unwrap());
        s.push('\n');
    }
    std::fs::write(path, s).unwrap();
}

#[test]
fn similarity_matches_official() {
    let pairs = pairs();
    assert!(pairs.len() >= 10_000, "{} pairs", pairs.len());
    let file = common::scratch("parity_bleu").join("pairs.jsonl");
    write_jsonl(&file, &pairs);
    let out = common::run_oracle("bleu.py", &["pairs", file.to_str().unwrap()], None);
    let out = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines.len(),
        pairs.len(),
        "oracle answered {} of {} pairs",
        lines.len(),
        pairs.len()
    );

    let (mut bit_equal, mut int_zero, mut ones, mut bad) = (0usize, 0usize, 0usize, 0usize);
    let mut max_diff = 0f64;
    let mut report = String::new();
    for (i, ((cand, reference), line)) in pairs.iter().zip(&lines).enumerate() {
        let ours = function_similarity(cand, reference);
        let (kind, text) = line.split_once(' ').unwrap();
        let theirs: f64 = text.parse().unwrap_or_else(|e| panic!("line {i}: {line:?}: {e}"));
        if kind == "int" {
            int_zero += 1;
            assert_eq!(theirs, 0.0, "pair {i}: int result {text}");
        }
        if theirs == 1.0 {
            ones += 1;
        }
        let diff = (ours - theirs).abs();
        max_diff = max_diff.max(diff);
        if ours.to_bits() == theirs.to_bits() {
            bit_equal += 1;
        } else if diff > 1e-12 || (kind == "int" && ours != 0.0) {
            bad += 1;
            if bad <= 10 {
                writeln!(report, "pair {i}: ours {ours:?} official {kind} {text}\n  cand {cand:?}\n  ref  {reference:?}").unwrap();
            }
        }
    }
    println!(
        "bleu parity: {} pairs, {} bit-identical, {} official int 0, {} exactly 1.0, max |diff| {:e}, {} beyond 1e-12",
        pairs.len(),
        bit_equal,
        int_zero,
        ones,
        max_diff,
        bad
    );
    assert_eq!(bad, 0, "{bad} pairs differ:\n{report}");
    // Natively on glibc, Rust's ln/exp are the very libm CPython calls, so
    // nothing less than bit-identity is expected there.
    if cfg!(all(target_os = "linux", target_env = "gnu")) {
        assert_eq!(bit_equal, pairs.len(), "not bit-identical on glibc");
    }
}

#[test]
fn whitespace_set_matches_python() {
    let out = common::run_oracle("bleu.py", &["space"], None);
    let sets: serde_json::Map<String, serde_json::Value> = serde_json::from_slice(&out).unwrap();
    let mut total = 0;
    for (name, list) in &sets {
        let list: Vec<u32> =
            list.as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as u32).collect();
        let mut python = vec![false; 0x110000];
        for &c in &list {
            python[c as usize] = true;
        }
        let mut checked = 0;
        for cp in (0..=0x10FFFFu32).filter(|c| !(0xD800..=0xDFFF).contains(c)) {
            let c = char::from_u32(cp).unwrap();
            assert_eq!(is_py_space(c), python[cp as usize], "U+{cp:04X} ({name})");
            checked += 1;
        }
        println!("whitespace {name}: {} code points are spaces, {checked} checked", list.len());
        total += 1;
    }
    assert_eq!(total, 3);
}

#[test]
fn tokens_match_re_split() {
    let mut rng = Rng(0x7e57_70c5);
    let atoms: Vec<&str> = PY_SPACES
        .iter()
        .copied()
        .chain([
            "a", "bc", "é", "\u{200b}", "\u{feff}", "\u{180e}", "\u{1b}", "\u{0}", "\r\n", "😀",
        ])
        .collect();
    let mut strings: Vec<String> = vec![
        String::new(),
        " ".into(),
        "a".into(),
        " a".into(),
        "a ".into(),
        "a  b".into(),
        "\u{1c}a\u{1f}".into(),
        "\u{85}\u{a0}".into(),
        "x\u{2029}\u{2028}y".into(),
    ];
    for &a in &atoms {
        strings.push(a.to_string());
        strings.push(format!("{a}x{a}"));
        strings.push(format!("x{a}{a}y"));
    }
    while strings.len() < 600 {
        let len = rng.range(0, 10);
        let s: String = (0..len).map(|_| rng.pick(&atoms)).collect();
        strings.push(s);
    }
    let file = common::scratch("parity_bleu").join("tokens.jsonl");
    write_jsonl(&file, &strings);
    let out = common::run_oracle("bleu.py", &["tokens", file.to_str().unwrap()], None);
    let out = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), strings.len());
    for (s, line) in strings.iter().zip(lines) {
        let python: Vec<String> = serde_json::from_str(line).unwrap();
        assert_eq!(py_tokens(s), python, "tokens of {s:?}");
    }
    println!("py_tokens: {} strings identical to re.split", strings.len());
}

/// Throughput on function-sized pairs (~200 tokens, real code, 10% edits),
/// timed the same way on both sides: best of 5 passes over 500 pairs, I/O
/// excluded. The native figure is only meaningful in an optimized build of
/// this crate, run alone (the other tests compete for the CPU):
/// `cargo test --config 'profile.test.package.repoqa-web.opt-level=3'
/// --config 'profile.test.package.repoqa-web.debug-assertions=false'
/// --test parity_bleu throughput -- --ignored --nocapture`. A benchmark
/// (it prints figures and asserts no time), so `scripts/bench.sh` runs it,
/// not the test suite.
#[test]
#[ignore = "a benchmark: scripts/bench.sh runs it"]
fn throughput() {
    let mut rng = Rng(0xbe_7c4);
    let chunks = real_chunks(&mut rng);
    let typical: Vec<&String> =
        chunks.iter().filter(|c| (150..=250).contains(&py_tokens(c).len())).collect();
    assert!(!typical.is_empty());
    let pairs: Vec<(String, String)> = (0..500)
        .map(|_| {
            let r = typical[rng.below(typical.len())];
            (edit_text(&mut rng, r, 0.1), r.clone())
        })
        .collect();
    let avg_tokens: f64 = pairs
        .iter()
        .map(|(c, r)| (py_tokens(c).len() + py_tokens(r).len()) as f64 / 2.0)
        .sum::<f64>()
        / pairs.len() as f64;
    let file = common::scratch("parity_bleu").join("bench.jsonl");
    write_jsonl(&file, &pairs);

    let mut best = f64::INFINITY;
    let mut sink = 0.0;
    for _ in 0..5 {
        let t0 = Instant::now();
        for (c, r) in &pairs {
            sink += function_similarity(c, r);
        }
        best = best.min(t0.elapsed().as_secs_f64());
    }
    std::hint::black_box(sink);
    let out = common::run_oracle_uncached(
        common::oracle_python(),
        "bleu.py",
        &["bench", file.to_str().unwrap(), "5"],
        None,
    );
    let out = String::from_utf8(out).unwrap();
    let (n, secs) = out.trim().split_once(' ').unwrap();
    let (n, secs): (f64, f64) = (n.parse().unwrap(), secs.parse().unwrap());
    let native = pairs.len() as f64 / best;
    let python = n / secs;
    println!(
        "bleu throughput ({} pairs, ~{avg_tokens:.0} tokens each, {} build): native {native:.0} pairs/s, official Python {python:.0} pairs/s, ratio {:.1}x",
        pairs.len(),
        if cfg!(debug_assertions) { "debug" } else { "release-like" },
        native / python
    );
}
