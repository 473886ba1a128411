//! Which of the project's files a file looks like, from its first bytes: a
//! dataset, a model-outputs JSONL, a tasks JSONL, a SCORES file or a
//! tokenizer.json. A file given in the wrong place then gets "this looks like
//! an outputs JSONL: import it on the Results page" instead of a parser
//! message about line 2. Only the head of the file is read (gzip is inflated
//! just that far), so sniffing a 200 MB file costs nothing.

use std::io::Read;

use serde_json::{Map, Value};

/// How much of a file (after gzip) is looked at.
pub const HEAD_BYTES: usize = 64 << 10;

/// The kinds of file the tools read or write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// `{"python": [repo, …], …}`.
    Dataset,
    /// One task dict with `"output": [reply]` per line.
    OutputsJsonl,
    /// One task dict (no `output`) per line.
    TasksJsonl,
    /// `{"model": {"eval_date": …, "scores": …, "results": …}}`.
    Scores,
    /// A Hugging Face `tokenizer.json`.
    Tokenizer,
    /// None of the above.
    Unknown,
}

impl FileKind {
    /// What it is, in words ("a model-outputs JSONL").
    pub fn describe(self) -> &'static str {
        match self {
            FileKind::Dataset => "a RepoQA dataset",
            FileKind::OutputsJsonl => "a model-outputs JSONL (tasks with the model's replies)",
            FileKind::TasksJsonl => "a tasks JSONL (prompts without replies)",
            FileKind::Scores => "a SCORES file (scored results)",
            FileKind::Tokenizer => "a tokenizer.json",
            FileKind::Unknown => "a file of unknown kind",
        }
    }

    /// Where it goes, in the app and in the CLI.
    pub fn where_it_goes(self) -> &'static str {
        match self {
            FileKind::Dataset => {
                "load it on the Dataset page (CLI: --dataset-path)"
            }
            FileKind::OutputsJsonl => {
                "import it on the Results page (CLI: repoqa score --model-output-path)"
            }
            FileKind::TasksJsonl => {
                "it is what the Tasks page builds from a dataset; give a model its prompts, then import the replies on the Results page"
            }
            FileKind::Scores => {
                "open it on the Leaderboard page to compare it with other runs, or check it on the Verify page (CLI: repoqa verify --scores)"
            }
            FileKind::Tokenizer => {
                "choose it under Settings → Tokenizer (CLI: --tokenizer)"
            }
            FileKind::Unknown => "",
        }
    }
}

/// The kind of file `bytes` holds (plain or gzip-compressed), from its head.
pub fn sniff(bytes: &[u8]) -> FileKind {
    let mut head = Vec::new();
    let bytes: &[u8] = if bytes.starts_with(&[0x1f, 0x8b]) {
        let d = flate2::read::MultiGzDecoder::new(bytes);
        // A broken stream gives what inflated before the break.
        let _ = d.take(HEAD_BYTES as u64).read_to_end(&mut head);
        &head
    } else {
        &bytes[..bytes.len().min(HEAD_BYTES)]
    };
    let text = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    // A JSONL: the first non-blank line is a whole JSON object.
    let first_line =
        text.split(|&b| b == b'\n').find(|l| !l.iter().all(u8::is_ascii_whitespace)).unwrap_or(&[]);
    if let Ok(Value::Object(m)) = serde_json::from_slice::<Value>(first_line) {
        return by_keys(&m);
    }
    by_head(text)
}

/// Classify one whole JSON object by its keys.
fn by_keys(m: &Map<String, Value>) -> FileKind {
    if m.contains_key("output") && m.contains_key("name") {
        return FileKind::OutputsJsonl;
    }
    if m.contains_key("code_context") || m.contains_key("needle_token_start") {
        return FileKind::TasksJsonl;
    }
    if is_tokenizer_key(m.keys().next().map(String::as_str).unwrap_or(""))
        && m.contains_key("model")
    {
        return FileKind::Tokenizer;
    }
    match m.iter().next() {
        Some((k, Value::Array(_))) if is_language(k) => FileKind::Dataset,
        Some((_, Value::Object(inner)))
            if inner.keys().next().is_some_and(|k| is_scores_key(k)) =>
        {
            FileKind::Scores
        }
        _ => FileKind::Unknown,
    }
}

/// Classify a JSON document cut short: its first key, what its value
/// starts with and, for an object value, that object's first key.
fn by_head(text: &[u8]) -> FileKind {
    let mut s = Scanner { b: text, i: 0 };
    if !s.eat(b'{') {
        return FileKind::Unknown;
    }
    let Some(key) = s.string() else { return FileKind::Unknown };
    if !s.eat(b':') {
        return FileKind::Unknown;
    }
    if is_tokenizer_key(&key) {
        return FileKind::Tokenizer;
    }
    match s.peek() {
        Some(b'[') if is_language(&key) => FileKind::Dataset,
        Some(b'{') => {
            s.i += 1;
            match s.string() {
                Some(inner) if is_scores_key(&inner) => FileKind::Scores,
                _ => FileKind::Unknown,
            }
        }
        _ => FileKind::Unknown,
    }
}

fn is_language(key: &str) -> bool {
    crate::code::lang::Language::from_name(key).is_ok()
}

fn is_scores_key(key: &str) -> bool {
    matches!(key, "eval_date" | "train_size" | "scores" | "results")
}

/// The first key of a `tokenizer.json` (serde order of `tokenizers`).
fn is_tokenizer_key(key: &str) -> bool {
    matches!(key, "version" | "truncation" | "padding" | "added_tokens" | "normalizer")
}

struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
}

impl Scanner<'_> {
    fn skip_ws(&mut self) {
        while self.b.get(self.i).is_some_and(u8::is_ascii_whitespace) {
            self.i += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.b.get(self.i).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    /// A JSON string (escapes decoded by serde_json).
    fn string(&mut self) -> Option<String> {
        if self.peek() != Some(b'"') {
            return None;
        }
        let start = self.i;
        let mut j = self.i + 1;
        while j < self.b.len() {
            match self.b[j] {
                b'\\' => j += 2,
                b'"' => {
                    self.i = j + 1;
                    return serde_json::from_slice(&self.b[start..=j]).ok();
                }
                _ => j += 1,
            }
        }
        None
    }
}

/// When a file failed to read as `expected`: if it is another kind of the
/// project's files, a one-line message saying what it is and where it goes.
pub fn wrong_file(bytes: &[u8], expected: FileKind) -> Option<String> {
    let found = sniff(bytes);
    if found == expected || found == FileKind::Unknown {
        return None;
    }
    Some(format!(
        "this looks like {}, not {}: {}",
        found.describe(),
        expected.describe(),
        found.where_it_goes()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gz(b: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(b).unwrap();
        e.finish().unwrap()
    }

    const TASK: &str = r#"{"repo": "a/b", "name": "f", "language": "python", "path": "x.py", "position_ratio": 0.05, "description": "d", "instruction": "i", "template": "t", "code_context": "c", "needle_token_start": 1, "needle_token_end": 2, "code_context_ntokens": 3}"#;

    #[test]
    fn tells_the_files_apart() {
        let demo = include_bytes!("../../../../public/demo/repoqa-demo.json");
        assert_eq!(sniff(demo), FileKind::Dataset);
        assert_eq!(sniff(&gz(demo)), FileKind::Dataset);
        // A dataset on one line, longer than the head.
        let compact = serde_json::to_vec(&serde_json::from_slice::<Value>(demo).unwrap()).unwrap();
        assert!(compact.len() > HEAD_BYTES);
        assert_eq!(sniff(&compact), FileKind::Dataset);
        let tasks = format!("{TASK}\n{TASK}\n");
        assert_eq!(sniff(tasks.as_bytes()), FileKind::TasksJsonl);
        let out = TASK.replace(
            "\"code_context_ntokens\": 3",
            "\"code_context_ntokens\": 3, \"output\": [\"r\"]",
        );
        assert_eq!(sniff(format!("{out}\n{out}").as_bytes()), FileKind::OutputsJsonl);
        assert_eq!(sniff(&gz(out.as_bytes())), FileKind::OutputsJsonl);
        let scores = "{\n  \"gpt-4o\": {\n    \"eval_date\": \"2024\",\n    \"train_size\": \"N/A\",\n    \"scores\": {";
        assert_eq!(sniff(scores.as_bytes()), FileKind::Scores);
        let tok = "{\n  \"version\": \"1.0\",\n  \"truncation\": null,\n  \"added_tokens\": [";
        assert_eq!(sniff(tok.as_bytes()), FileKind::Tokenizer);
        for junk in ["", "[1,2]", "hello", "{\"a\": 1}", "\u{feff}{\"x\":", "{\"p\\\"y\": ["] {
            assert_eq!(sniff(junk.as_bytes()), FileKind::Unknown, "{junk:?}");
        }
        assert_eq!(sniff(&[0x1f, 0x8b, 0, 0]), FileKind::Unknown);
    }

    #[test]
    fn says_where_a_wrong_file_goes() {
        let out = TASK.replace(
            "\"code_context_ntokens\": 3",
            "\"code_context_ntokens\": 3, \"output\": [\"r\"]",
        );
        let msg = wrong_file(format!("{out}\n{out}\n").as_bytes(), FileKind::Dataset).unwrap();
        assert!(msg.starts_with("this looks like a model-outputs JSONL"), "{msg}");
        assert!(msg.contains("Results page"), "{msg}");
        assert_eq!(wrong_file(b"{\"python\": [", FileKind::Dataset), None);
        assert_eq!(wrong_file(b"nonsense", FileKind::Dataset), None);
    }
}
