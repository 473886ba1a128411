//! Property-based fuzzing on stable Rust (proptest): every parser and every
//! function that sees user text, fed mutated valid files and arbitrary
//! Unicode. The property: no panic, bounded work, and an error that names
//! the file (and, where the format has one, the place).
//!
//! A short deterministic pass runs in `cargo test` (a fixed seed,
//! `REPOQA_FUZZ_CASES` cases per target, 256 by default); the longer pass of
//! `scripts/bench.sh` sets `REPOQA_FUZZ_CASES` higher and
//! `REPOQA_FUZZ_SEED` to a new seed each run. Each target prints its
//! cases, the slowest case and the largest input. A crash found becomes a
//! test in `regressions` below, with its input.
//!
//!     REPOQA_FUZZ_CASES=20000 cargo test --release -p repoqa --test it fuzz:: -- --nocapture

use std::io::Write;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use repoqa::code::lang::Language;
use repoqa::curate::{
    curate_repo, read_archive, ArchiveLimits, CurateOptions, Descriptions, EntryMatch, SourceFile,
};
use repoqa::input::dataset::{Dataset, DatasetLoader};
use repoqa::report::{read_model_outputs, ScoresFile};
use repoqa::step::{Step, Stepper};

const DEMO: &str = include_str!("../../../../public/demo/repoqa-demo.json");

fn cases() -> u32 {
    std::env::var("REPOQA_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256)
}

fn seed() -> [u8; 32] {
    let n: u64 = std::env::var("REPOQA_FUZZ_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(13);
    let mut s = [0u8; 32];
    s[..8].copy_from_slice(&n.to_le_bytes());
    s
}

/// Run `test` on `cases()` values of `strategy` with a fixed seed; print
/// what was run. A failure is shrunk by proptest and reported with its
/// input.
fn fuzz<S: Strategy>(target: &str, strategy: S, test: impl Fn(S::Value) -> Result<(), String>)
where
    S::Value: std::fmt::Debug,
{
    let config = Config { cases: cases(), failure_persistence: None, ..Config::default() };
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed());
    let mut runner = TestRunner::new_with_rng(config, rng);
    let slowest = std::cell::Cell::new(Duration::ZERO);
    let count = std::cell::Cell::new(0u64);
    let errors = std::cell::Cell::new(0u64);
    let samples = std::cell::RefCell::new(Vec::<String>::new());
    let start = Instant::now();
    let result = runner.run(&strategy, |value| {
        let t = Instant::now();
        let r = test(value);
        slowest.set(slowest.get().max(t.elapsed()));
        count.set(count.get() + 1);
        match r {
            Ok(()) => Ok(()),
            Err(e) if e.starts_with("rejected input: ") => {
                errors.set(errors.get() + 1);
                let mut s = samples.borrow_mut();
                if s.len() < 3 {
                    s.push(e.chars().skip(16).take(160).collect());
                }
                Ok(())
            }
            Err(e) => Err(TestCaseError::fail(e)),
        }
    });
    println!(
        "fuzz {target}: {} cases ({} refused with a message) in {:.2?}, slowest {:.2?}",
        count.get(),
        errors.get(),
        start.elapsed(),
        slowest.get()
    );
    if std::env::var_os("REPOQA_FUZZ_VERBOSE").is_some() {
        for e in samples.borrow().iter() {
            println!("  e.g. {e}");
        }
    }
    if let Err(e) = result {
        panic!("fuzz {target}: {e}");
    }
}

/// One edit of a byte string.
#[derive(Clone, Debug)]
enum Edit {
    Set(usize, u8),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    /// Copy `len` bytes from `from` to `to` (repeats structure).
    Copy {
        from: usize,
        len: usize,
        to: usize,
    },
    Truncate(usize),
}

/// Tokens that matter to JSON and to the formats around it.
const TOKENS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b"\"",
    b"\\",
    b",",
    b":",
    b"0",
    b"-1",
    b"1e999",
    b"true",
    b"null",
    b"\"\\ud800\"",
    b"\"\\u0000\"",
    b"\xef\xbb\xbf",
    b"\xff",
    b"\n",
    b"\r",
    b"\t",
    b"```",
    b"```python\n",
    b"def f():\n",
    b"../",
    b"/",
    b"\x00",
    b"\xe2\x80\xa8",
    b"[[[[[[[[[[[[[[[[",
];

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(p, b)| Edit::Set(p, b)),
        (any::<usize>(), prop::sample::select(TOKENS))
            .prop_map(|(p, t)| Edit::Insert(p, t.to_vec())),
        (any::<usize>(), prop::collection::vec(any::<u8>(), 1..8))
            .prop_map(|(p, b)| Edit::Insert(p, b)),
        (any::<usize>(), 1usize..64).prop_map(|(p, n)| Edit::Delete(p, n)),
        (any::<usize>(), 1usize..256, any::<usize>()).prop_map(|(from, len, to)| Edit::Copy {
            from,
            len,
            to
        }),
        any::<usize>().prop_map(Edit::Truncate),
    ]
}

fn apply(mut bytes: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for e in edits {
        let n = bytes.len();
        let at = |p: usize| if n == 0 { 0 } else { p % (n + 1) };
        match e {
            Edit::Set(p, b) if n > 0 => bytes[p % n] = *b,
            Edit::Set(..) => {}
            Edit::Insert(p, b) => {
                let p = at(*p);
                bytes.splice(p..p, b.iter().copied());
            }
            Edit::Delete(p, len) => {
                let p = at(*p);
                let end = (p + len).min(n);
                bytes.drain(p..end);
            }
            Edit::Copy { from, len, to } => {
                if n == 0 {
                    continue;
                }
                let from = from % n;
                let piece = bytes[from..(from + len).min(n)].to_vec();
                let to = at(*to);
                bytes.splice(to..to, piece);
            }
            Edit::Truncate(p) => bytes.truncate(at(*p)),
        }
    }
    bytes
}

/// Seeds mutated by up to `max` edits.
fn mutated(seeds: Vec<Vec<u8>>, max: usize) -> impl Strategy<Value = Vec<u8>> {
    (prop::sample::select(seeds), prop::collection::vec(edit(), 0..=max))
        .prop_map(|(seed, edits)| apply(seed, &edits))
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// Small datasets: one demo repo per language, compact and pretty.
fn dataset_seeds() -> Vec<Vec<u8>> {
    let demo: serde_json::Value = serde_json::from_str(DEMO).unwrap();
    let mut out = Vec::new();
    for (lang, repos) in demo.as_object().unwrap() {
        let mut repo = repos[0].clone();
        // Keep the seeds small: the needle files and two more.
        let needles: Vec<String> = repo["needles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["path"].as_str().unwrap().to_string())
            .collect();
        let content = repo["content"].as_object_mut().unwrap();
        let keep: Vec<String> =
            content.keys().filter(|k| needles.contains(k)).take(2).cloned().collect();
        content.retain(|k, _| keep.contains(k));
        repo["needles"].as_array_mut().unwrap().retain(|n| keep.iter().any(|k| n["path"] == **k));
        let doc = serde_json::json!({ lang.clone(): [repo] });
        out.push(serde_json::to_vec(&doc).unwrap());
        if out.len() == 1 {
            out.push(serde_json::to_vec_pretty(&doc).unwrap());
        }
    }
    out
}

fn named(message: &str, origin: &str) -> Result<(), String> {
    if message.contains(origin) {
        Err(format!("rejected input: {message}"))
    } else {
        Err(format!("the error does not name {origin}: {message}"))
    }
}

/// The stepped loader with a small budget gives what one call gives.
fn load_both(bytes: &[u8], origin: &str, budget: usize) -> Result<(), String> {
    let whole = Dataset::from_bytes(bytes, origin).map_err(|e| e.to_string());
    let mut loader = DatasetLoader::new(bytes, origin);
    let mut steps = 0u64;
    while loader.step(budget).map_err(|e| e.to_string())? == Step::More {
        steps += 1;
        if steps > 50_000_000 {
            return Err("the stepped loader makes no progress".into());
        }
    }
    let stepped = loader.finish().map_err(|e| e.to_string());
    if whole != stepped {
        return Err(format!("stepped {stepped:?} != whole {whole:?}"));
    }
    match whole {
        Ok(_) => Ok(()),
        Err(e) => named(&e, origin),
    }
}

#[test]
fn fuzz_dataset_json() {
    fuzz("dataset JSON", (mutated(dataset_seeds(), 6), 1usize..5000), |(bytes, budget)| {
        load_both(&bytes, "fuzz.json", budget)
    });
}

#[test]
fn fuzz_dataset_gzip() {
    let seeds: Vec<Vec<u8>> = dataset_seeds().iter().map(|s| gzip(s)).collect();
    fuzz("dataset gzip", (mutated(seeds, 4), 1usize..5000), |(bytes, budget)| {
        load_both(&bytes, "fuzz.json.gz", budget)
    });
}

fn outputs_seed() -> Vec<u8> {
    let line = serde_json::json!({
        "repo": "repoqa-web/demo-textkit", "name": "wrap", "language": "python",
        "position_ratio": 0.5, "needle_token_start": 10, "needle_token_end": 20,
        "description": "d", "code_context": "def wrap(x):\n    return x\n",
        "output": ["Here:\n```python\ndef wrap(text, width):\n    return text\n```"],
    });
    let mut s = serde_json::to_vec(&line).unwrap();
    s.push(b'\n');
    let again = s.clone();
    s.extend(again);
    s
}

#[test]
fn fuzz_outputs_importer() {
    let demo = Dataset::from_bytes(DEMO.as_bytes(), "demo").unwrap();
    fuzz("outputs JSONL", mutated(vec![outputs_seed()], 8), |bytes| {
        let text = String::from_utf8_lossy(&bytes);
        let lines = text.split(['\n', '\r']).count();
        let file = read_model_outputs(&text);
        if let Some(e) = file.errors.iter().find(|e| e.line == 0 || e.line > lines) {
            return Err(format!("error at a line that is not in the file: {e}"));
        }
        // Score what was read: sanitize, tree-sitter and BLEU on the reply.
        let mut scorer = repoqa::scoring::score::Scorer::new(&demo, Default::default());
        for o in &file.outputs {
            let _ = scorer.evaluate(o);
        }
        Ok(())
    });
}

fn scores_seed() -> Vec<u8> {
    let path = repoqa_testkit::root()
        .join("tests/fixtures/published-scores/gpt-4o-2024-05-13-SCORES.json.gz");
    let gz = std::fs::read(&path).unwrap();
    let mut text = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&gz[..]), &mut text).unwrap();
    // Two tasks per language keep the seed small.
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    for model in v.as_object_mut().unwrap().values_mut() {
        for tasks in model["results"].as_object_mut().unwrap().values_mut() {
            tasks.as_array_mut().unwrap().truncate(2);
        }
    }
    serde_json::to_vec(&v).unwrap()
}

#[test]
fn fuzz_scores_reader() {
    fuzz("SCORES", mutated(vec![scores_seed()], 6), |bytes| {
        let text = String::from_utf8_lossy(&bytes);
        match ScoresFile::parse(&text, "fuzz-SCORES.json") {
            Ok(_) => Ok(()),
            Err(e) => named(&e.to_string(), "fuzz-SCORES.json"),
        }
    });
}

fn archive_seeds() -> Vec<Vec<u8>> {
    let files: &[(&str, &[u8])] = &[
        ("pkg/", b""),
        ("pkg/a.py", b"def a():\n    return 1\n"),
        ("pkg/b.py", b"from .a import a\n\ndef b():\n    return a()\n"),
        ("pkg/data.bin", b"\x00\x01\x02"),
    ];
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, data) in files {
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        if name.ends_with('/') {
            zip.add_directory(*name, opts).unwrap();
        } else {
            zip.start_file(*name, opts).unwrap();
            zip.write_all(data).unwrap();
        }
    }
    let zip = zip.finish().unwrap().into_inner();
    let mut tar = tar::Builder::new(Vec::new());
    for (name, data) in files {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_entry_type(if name.ends_with('/') {
            tar::EntryType::Directory
        } else {
            tar::EntryType::Regular
        });
        tar.append_data(&mut h, name, *data).unwrap();
    }
    let tar = tar.into_inner().unwrap();
    let tgz = gzip(&tar);
    vec![zip, tar, tgz]
}

#[test]
fn fuzz_archive_reader() {
    let limits = ArchiveLimits::default();
    fuzz("archive (zip, tar, tar.gz)", mutated(archive_seeds(), 4), |bytes| {
        match read_archive("fuzz.archive", &bytes, &[Language::Python], &limits) {
            Ok(c) => {
                if c.files.iter().any(|f| f.path.split('/').any(|p| p == "..")) {
                    return Err("a path leaves the root".into());
                }
                Ok(())
            }
            Err(e) => named(&e.to_string(), "fuzz.archive"),
        }
    });
}

/// A tiny but complete HF tokenizer (word level), mutated.
fn tokenizer_seed() -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "version": "1.0", "truncation": null, "padding": null, "added_tokens": [],
        "normalizer": null,
        "pre_tokenizer": {"type": "Whitespace"},
        "post_processor": null, "decoder": null,
        "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "def": 1, "f": 2, "(": 3},
                  "unk_token": "[UNK]"}
    }))
    .unwrap()
}

#[test]
fn fuzz_tokenizer_file() {
    fuzz("tokenizer.json", mutated(vec![tokenizer_seed()], 6), |bytes| {
        match repoqa::code::tokenize::Tokenizer::from_json_bytes(&bytes, "fuzz-tokenizer.json") {
            Ok(t) => {
                let _ = t.count("def f(x):\n    return x\n");
                Ok(())
            }
            Err(e) => named(&e.to_string(), "fuzz-tokenizer.json"),
        }
    });
}

/// Arbitrary file trees: paths from a small alphabet of parts (with "..",
/// ".", empty parts, backslashes, non-ASCII) and Python-ish or random text.
fn file_tree() -> impl Strategy<Value = (Vec<SourceFile>, Option<String>, bool)> {
    let part = prop_oneof![
        12 => prop::sample::select(vec![
            "pkg", "src", "black", "blackd", "a.py", "b.py", "é.py", "c.txt", "__init__.py",
        ]),
        1 => prop::sample::select(vec!["..", ".", "", "x\\y.py"]),
    ];
    let path = prop::collection::vec(part, 1..5).prop_map(|p| p.join("/"));
    // Python-ish files of up to 40 functions (unique names, so needles can
    // be sampled), or arbitrary text.
    let function = (
        0u32..5000,
        prop::sample::select(vec![
            "def f{n}(x):\n    return x + {n}\n\n",
            "class C{n}:\n    def m{n}(self):\n        return {n}\n\n",
            "from . import a\nfrom .b import g{n}\nimport os\n\n",
            "async def h{n}(y):\n    # comment {n}\n    await y\n\n",
        ]),
    )
        .prop_map(|(n, t)| t.replace("{n}", &n.to_string()));
    let text = prop_oneof![
        3 => prop::collection::vec(function, 1..40).prop_map(|v| v.concat()),
        1 => ".*".prop_map(|s: String| s),
    ]
    .prop_map(String::into_bytes);
    let bytes = prop_oneof![text, prop::collection::vec(any::<u8>(), 0..64)];
    let files =
        prop::collection::vec((path, bytes).prop_map(|(p, b)| SourceFile::new(p, b)), 0..12);
    let entry = prop::option::of(prop::sample::select(vec![
        "src".to_string(),
        "src/black".to_string(),
        "pkg/".to_string(),
        "..".to_string(),
        ".".to_string(),
    ]));
    (files, entry, any::<bool>())
}

#[test]
fn fuzz_curation_over_file_trees() {
    fuzz("curation over file trees", file_tree(), |(files, entry, prefix)| {
        let mut o = CurateOptions::new(Language::Python, "fuzz/tree");
        o.entry = entry;
        o.entry_match = if prefix { EntryMatch::Prefix } else { EntryMatch::Directory };
        match curate_repo(&files, &o, &Descriptions::new()) {
            Ok(r) => {
                // What curation writes must read back as a dataset.
                let mut d = Dataset::default();
                d.languages.insert("python".into(), vec![r.repo]);
                Dataset::from_bytes(d.to_json_string().as_bytes(), "curated")
                    .map(|_| ())
                    .map_err(|e| format!("the curated repo does not read back: {e}"))
            }
            Err(e) => Err(format!("rejected input: {e}")),
        }
    });
}

/// Text with the characters that matter to sanitizing and BLEU: fences,
/// newlines of every kind, Python whitespace, word characters, code.
fn unicode_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        prop::sample::select(vec![
            "```",
            "```python\n",
            "```\n",
            "\n",
            "\r\n",
            "\r",
            "\u{2028}",
            "\u{85}",
            "\u{a0}",
            "\u{3000}",
            "\u{1c}",
            " ",
            "\t",
            "def f(x):\n",
            "    return x\n",
            "fn g() {}\n",
            "func H() {}\n",
            "int f() { return 1; }\n",
            "/* c */",
            "// c\n",
            "# c\n",
            "\u{feff}",
            "é",
            "\u{301}",
            "一",
            "\u{0}",
        ])
        .prop_map(str::to_string),
        any::<String>(),
    ];
    prop::collection::vec(piece, 0..24).prop_map(|v| v.concat())
}

#[test]
fn fuzz_sanitize_and_bleu() {
    let strategy = (unicode_text(), unicode_text(), prop::sample::select(Language::ALL.to_vec()));
    fuzz("sanitize, comments and BLEU", strategy, |(reply, reference, lang)| {
        let s = repoqa::scoring::sanitize::sanitize_output(&reply, lang);
        let c = repoqa::scoring::sanitize::remove_comments(&s, lang);
        let b = repoqa::scoring::bleu::function_similarity(&c, &reference);
        if !(0.0..=1.0).contains(&b) {
            return Err(format!("BLEU {b} out of [0, 1]"));
        }
        // The streaming path (scoring's) and the interning path agree to the bit.
        let interned = repoqa::scoring::bleu::Hypothesis::from_text(&c).similarity(&reference);
        if interned.to_bits() != b.to_bits() {
            return Err(format!("streamed BLEU {b} != interned {interned}"));
        }
        let many =
            repoqa::scoring::bleu::References::new(&[&reference, &c, &reply]).similarities(&reply);
        let one = repoqa::scoring::bleu::Hypothesis::from_text(&reply);
        for (r, got) in [&reference, &c, &reply].iter().zip(&many) {
            if one.similarity(r).to_bits() != got.to_bits() {
                return Err(format!("several references: {got} != {}", one.similarity(r)));
            }
        }
        if repoqa::scoring::bleu::function_similarity(&reference, &reference) != 1.0
            && !reference.trim().is_empty()
            && repoqa::scoring::bleu::py_tokens(&reference).len() >= 4
        {
            return Err("a text is not identical to itself".into());
        }
        Ok(())
    });
}

#[test]
fn fuzz_model_reply_parsers() {
    let settings = repoqa::llm::Endpoint {
        base_url: "http://127.0.0.1:9/v1".into(),
        model: "m".into(),
        sampling: repoqa::llm::describe_sampling(),
        ..repoqa::llm::Endpoint::default()
    };
    let seed = serde_json::to_vec(&serde_json::json!({
        "choices": [{"message": {"content": "1. **Purpose**: sums.\n2. **Input**: x"},
                     "finish_reason": "stop"}]
    }))
    .unwrap();
    let strategy = (mutated(vec![seed], 6), prop::sample::select(vec![200u16, 401, 404, 429, 500]));
    fuzz("model replies", strategy, |(body, status)| {
        let reply = repoqa::llm::HttpReply {
            status,
            retry_after: None,
            body: String::from_utf8_lossy(&body).into_owned(),
        };
        match repoqa::llm::description_of(&settings, &reply) {
            Ok(_) => Ok(()),
            Err(e) if e.to_string().is_empty() => Err("an empty error message".into()),
            Err(e) => Err(format!("rejected input: {e}")),
        }
    });
}

/// Inputs that once failed a property, kept as tests.
mod regressions {
    /// `fuzz_tokenizer_file` (5000 cases, seed 20261123): a byte 0x0e where
    /// the `decoder` value starts made tokenizers 0.22.2 panic
    /// (`expect("Helper")`, decoders/mod.rs:90) instead of returning an error.
    #[test]
    fn tokenizer_with_a_broken_decoder_value_is_an_error() {
        let input: &[u8] = b"{\"version\":\"1.0\",\"truncation\":null,\"padding\":null,\"added_tokens\":[],\"normalizer\":null,\"pre_tokenizer\":{\"type\":\"Whitespace\"},\"post_processor\":null,\"decoder\":\x0e{\"[UNK]\":0,\"def\":1,\"f\":2,\"(\":3},\"unk_token\":\"[UNK]\"}}";
        let e = repoqa::code::tokenize::Tokenizer::from_json_bytes(input, "crash-tokenizer.json")
            .err()
            .expect("a broken file must be refused");
        assert!(e.to_string().starts_with("tokenizer file crash-tokenizer.json: "), "{e}");
        assert!(e.to_string().contains("line 1 column 157"), "{e}");
    }
}

/// A small GGUF header (a string, an integer, a float, an array of strings
/// and one of integers), mutated: what the Run page reads from a picked model file.
fn gguf_seed() -> Vec<u8> {
    let text = |s: &str| [(s.len() as u64).to_le_bytes().to_vec(), s.as_bytes().to_vec()].concat();
    let entry = |k: &str, t: u32, v: Vec<u8>| [text(k), t.to_le_bytes().to_vec(), v].concat();
    let tokens =
        [8u32.to_le_bytes().to_vec(), 2u64.to_le_bytes().to_vec(), text("a"), text("<s>")].concat();
    let ints = [
        5u32.to_le_bytes().to_vec(),
        3u64.to_le_bytes().to_vec(),
        vec![1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0],
    ]
    .concat();
    [
        b"GGUF".to_vec(),
        3u32.to_le_bytes().to_vec(),
        1u64.to_le_bytes().to_vec(),
        6u64.to_le_bytes().to_vec(),
        entry("general.architecture", 8, text("llama")),
        entry("llama.context_length", 4, 8192u32.to_le_bytes().to_vec()),
        entry("general.file_type", 4, 15u32.to_le_bytes().to_vec()),
        entry("llama.rope.freq_base", 6, 1e4f32.to_le_bytes().to_vec()),
        entry("tokenizer.ggml.tokens", 9, tokens),
        entry("tokenizer.ggml.token_type", 9, ints),
    ]
    .concat()
}

#[test]
fn fuzz_gguf_header() {
    use repoqa::llm::gguf::{read_header, GgufError};
    fuzz("GGUF header", mutated(vec![gguf_seed()], 6), |bytes| match read_header(&bytes) {
        Ok(_) => Ok(()),
        // More is asked for only past what was given.
        Err(GgufError::Truncated { have, need }) if have == bytes.len() && need > have => {
            Err(format!("rejected input: needs {need} bytes"))
        }
        Err(e @ GgufError::Truncated { .. }) => Err(format!("a wrong request for more: {e:?}")),
        Err(e) => Err(format!("rejected input: {e}")),
    });
}
