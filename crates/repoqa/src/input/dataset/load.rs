//! Reading a dataset file in steps, so that the browser can show progress,
//! honour Cancel and keep the page answering while a 200 MB file is read
//! (one `serde_json` parse of it is a single 2–3 s task that freezes the
//! tab). Native code runs the same steps to the end (`Dataset::from_bytes`),
//! so the CLI, the tests and the page read a file with the same code.
//!
//! The steps: inflate a gzip stream a slice at a time; then scan the JSON's
//! top level (`{"python": [repo, repo, …], …}`) for the byte range of each
//! repo, and parse and check one repo at a time with serde_json. Each step
//! takes a byte budget; the caller decides how often to yield.
//!
//! Errors are the whole-document parser's: a syntax error inside a repo is
//! reported at its line and column in the file, and anything unusual at the
//! top level (not an object, a language that is not a list, a stray comma)
//! falls back to parsing the whole document, whose error is authoritative.
//! The fallback can never give a different dataset, only a slower one.

use std::io::Read;

use indexmap::IndexMap;
use serde_json::Value;

use super::{check_repo_limits, strip_position, Dataset, DatasetError, Repo};
use crate::code::lang::Language;
use crate::input::limits::DatasetLimits;
use crate::step::{Step, Stepper};

/// Inflated bytes produced per unit of budget (inflating is cheaper than
/// parsing, so a step may inflate more than it would parse).
const INFLATE_FACTOR: usize = 4;

/// Inflated bytes between two checks of the limits.
const INFLATE_CHUNK: usize = 4 << 20;

/// The UTF-8 byte-order mark, read past at the start of the file (see
/// `crate::input::limits::BOM`).
const BOM: &[u8] = b"\xef\xbb\xbf";

/// What the loader is doing, for a progress bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Decompressing: `done`/`total` are compressed bytes.
    Inflating,
    /// Reading repos: `done`/`total` are JSON bytes.
    Reading,
    Finished,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoadProgress {
    pub phase: Phase,
    pub done: usize,
    pub total: usize,
    /// Repos read so far.
    pub repos: usize,
}

/// Where the top-level scan is.
#[derive(Clone, Copy, Debug)]
enum Scan {
    /// Before the opening `{`.
    Start,
    /// After `{` (`first`) or after a language's list and its `,`.
    Key { first: bool },
    /// After a language's list: `,` or `}`.
    CommaOrEnd,
    /// After `[`: the first repo or `]`.
    ListOpen,
    /// Inside a repo that starts at `start`; `depth` counts open brackets
    /// inside it.
    Element { start: usize, depth: usize, in_string: bool },
    /// After the closing `}`: only whitespace may follow.
    End,
}

/// A dataset being read ([`Stepper`]: its budget counts bytes): `step`
/// until it says `Done`, then `finish`. A failure ends the steps and is
/// what `finish` returns.
pub struct DatasetLoader<'a> {
    origin: String,
    input: &'a [u8],
    /// The gzip stream still to inflate (the rest of `input`).
    inflater: Option<flate2::read::MultiGzDecoder<&'a [u8]>>,
    inflated: Vec<u8>,
    gzip: bool,
    pos: usize,
    scan: Scan,
    /// The language whose list is being read, and its repos so far.
    key: String,
    repos: Vec<Repo>,
    languages: IndexMap<String, Vec<Repo>>,
    count: usize,
    /// The first schema error (a repo that is not a repo, an unknown
    /// language) and the first failed needle check. The whole-document
    /// reader finds syntax errors first, then schema errors, then needle
    /// checks; to report what it would, reading goes on to the end and
    /// these are reported only if nothing earlier in that order turns up.
    schema_error: Option<DatasetError>,
    check_error: Option<DatasetError>,
    result: Option<Result<Dataset, DatasetError>>,
    limits: DatasetLimits,
}

impl<'a> DatasetLoader<'a> {
    /// Plain JSON or gzip-compressed JSON (by the magic bytes); `origin`
    /// names the file in error messages.
    pub fn new(bytes: &'a [u8], origin: &str) -> DatasetLoader<'a> {
        DatasetLoader::with_limits(bytes, origin, DatasetLimits::default())
    }

    /// [`DatasetLoader::new`] with other ceilings than the defaults.
    pub fn with_limits(bytes: &'a [u8], origin: &str, limits: DatasetLimits) -> DatasetLoader<'a> {
        let gzip = bytes.starts_with(&[0x1f, 0x8b]);
        DatasetLoader {
            origin: origin.to_string(),
            input: bytes,
            inflater: gzip.then(|| flate2::read::MultiGzDecoder::new(bytes)),
            inflated: Vec::new(),
            gzip,
            pos: 0,
            scan: Scan::Start,
            key: String::new(),
            repos: Vec::new(),
            languages: IndexMap::new(),
            count: 0,
            schema_error: None,
            check_error: None,
            result: None,
            limits,
        }
    }

    /// Where the reading is: the phase, bytes done of all, repos read.
    pub fn load_progress(&self) -> LoadProgress {
        if self.result.is_some() {
            let n = self.json().len();
            return LoadProgress { phase: Phase::Finished, done: n, total: n, repos: self.count };
        }
        match &self.inflater {
            Some(d) => LoadProgress {
                phase: Phase::Inflating,
                done: self.input.len() - d.get_ref().len(),
                total: self.input.len(),
                repos: 0,
            },
            None => LoadProgress {
                phase: Phase::Reading,
                done: self.pos,
                total: self.json().len(),
                repos: self.count,
            },
        }
    }

    /// Do about `budget` bytes of work (at least one repo once reading).
    /// Returns true when the dataset is read (or failed); then `finish`.
    fn step_bytes(&mut self, budget: usize) -> bool {
        if self.result.is_some() {
            return true;
        }
        let budget = budget.max(1);
        if let Some(decoder) = self.inflater.as_mut() {
            // In chunks, the limits checked after each: what comes out is
            // what is bounded, whatever the compressed size says.
            let mut left = budget.saturating_mul(INFLATE_FACTOR);
            while left > 0 && self.result.is_none() {
                let want = left.min(INFLATE_CHUNK);
                let old = self.inflated.len();
                let read = (&mut *decoder).take(want as u64).read_to_end(&mut self.inflated);
                let consumed = (self.input.len() - decoder.get_ref().len()) as u64;
                let got = self.inflated.len() - old;
                if let Err(e) = read {
                    self.result = Some(Err(DatasetError::Gzip {
                        origin: self.origin.clone(),
                        message: e.to_string(),
                    }));
                } else if let Err(exceeded) =
                    self.limits.inflate.check(self.inflated.len() as u64, consumed)
                {
                    self.inflated = Vec::new();
                    self.result =
                        Some(Err(DatasetError::Inflate { origin: self.origin.clone(), exceeded }));
                }
                if got < want {
                    // The stream ended within this step.
                    break;
                }
                left -= got;
            }
            if left > 0 || self.result.is_some() {
                self.inflater = None;
            }
            return self.result.is_some();
        }
        let mut spent = 0;
        while spent < budget && self.result.is_none() {
            spent += self.advance(budget - spent);
        }
        self.result.is_some()
    }

    /// The dataset's JSON text: the file itself, or what was inflated from
    /// it (whole once `step` has said `Done`). Its digest is the
    /// dataset's identity (`identity::ContentId`), the same for a `.json`
    /// and its `.json.gz`.
    pub fn json(&self) -> &[u8] {
        if self.gzip {
            &self.inflated
        } else {
            self.input
        }
    }

    fn schema(&self, at: &str, message: String) -> DatasetError {
        DatasetError::Schema { origin: self.origin.clone(), at: at.to_string(), message }
    }

    /// Scan up to `budget` bytes (plus one repo's parse); returns the bytes
    /// of work done.
    fn advance(&mut self, budget: usize) -> usize {
        let json: &[u8] = if self.gzip { &self.inflated } else { self.input };
        let start_pos = self.pos;
        let ws = |p: &mut usize| {
            while *p < json.len() && matches!(json[*p], b' ' | b'\t' | b'\n' | b'\r') {
                *p += 1;
            }
        };
        let mut p = self.pos;
        match self.scan {
            Scan::Start => {
                if p == 0 && json.starts_with(BOM) {
                    p = BOM.len();
                }
                ws(&mut p);
                if json.get(p) != Some(&b'{') {
                    return self.fall_back();
                }
                self.scan = Scan::Key { first: true };
                p += 1;
            }
            Scan::Key { first } => {
                ws(&mut p);
                if first && json.get(p) == Some(&b'}') {
                    self.scan = Scan::End;
                    self.pos = p + 1;
                    return 1;
                }
                let Some(end) = string_end(json, p) else { return self.fall_back() };
                let Ok(key) = serde_json::from_slice::<String>(&json[p..end]) else {
                    return self.fall_back();
                };
                p = end;
                ws(&mut p);
                if json.get(p) != Some(&b':') {
                    return self.fall_back();
                }
                p += 1;
                ws(&mut p);
                if json.get(p) != Some(&b'[') {
                    // Not a list (a schema error) or broken JSON: the
                    // whole-document reader says which.
                    return self.fall_back();
                }
                if Language::from_name(&key).is_err() && self.schema_error.is_none() {
                    let origin = self.origin.clone();
                    self.schema_error =
                        Some(DatasetError::UnknownLanguage { origin, key: key.clone() });
                }
                self.key = key;
                self.repos = Vec::new();
                self.scan = Scan::ListOpen;
                p += 1;
            }
            Scan::ListOpen => {
                ws(&mut p);
                if json.get(p) == Some(&b']') {
                    self.end_list();
                    p += 1;
                } else if p >= json.len() {
                    return self.fall_back();
                } else {
                    self.scan = Scan::Element { start: p, depth: 0, in_string: false };
                }
            }
            Scan::Element { start, mut depth, mut in_string } => {
                let limit = json.len().min(p.saturating_add(budget));
                let mut closed = None;
                while p < limit {
                    if in_string {
                        match memchr::memchr2(b'"', b'\\', &json[p..limit]) {
                            Some(k) if json[p + k] == b'\\' => p = (p + k + 2).min(json.len()),
                            Some(k) => {
                                p += k + 1;
                                in_string = false;
                            }
                            None => p = limit,
                        }
                        continue;
                    }
                    match json[p] {
                        b'"' => in_string = true,
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' if depth > 0 => depth -= 1,
                        b',' | b']' if depth == 0 => {
                            closed = Some(json[p]);
                            break;
                        }
                        // A `}` closing nothing of the repo: broken.
                        b'}' => return self.fall_back(),
                        _ => {}
                    }
                    p += 1;
                }
                let Some(delim) = closed else {
                    if p >= json.len() {
                        // The file ends inside this repo: serde_json says
                        // where and what it was parsing. If the repo is
                        // whole, the list is not: the whole reader says so.
                        let work = self.parse_element(start, json.len());
                        if self.result.is_none() {
                            return self.fall_back();
                        }
                        return work;
                    }
                    self.scan = Scan::Element { start, depth, in_string };
                    self.pos = p;
                    return p - start_pos;
                };
                if json[start..p].iter().all(|b| b.is_ascii_whitespace()) {
                    // `[{…},]` or `[,]`: the whole-document error names it.
                    return self.fall_back();
                }
                let work = self.parse_element(start, p);
                if self.result.is_some() {
                    return work;
                }
                if delim == b']' {
                    self.end_list();
                } else {
                    self.scan = Scan::Element { start: p + 1, depth: 0, in_string: false };
                }
                self.pos = p + 1;
                return (p + 1 - start_pos).max(1) + work;
            }
            Scan::CommaOrEnd => {
                ws(&mut p);
                match json.get(p) {
                    Some(b',') => self.scan = Scan::Key { first: false },
                    Some(b'}') => self.scan = Scan::End,
                    _ => return self.fall_back(),
                }
                p += 1;
            }
            Scan::End => {
                ws(&mut p);
                if p != json.len() {
                    return self.fall_back();
                }
                let languages = std::mem::take(&mut self.languages);
                self.result = Some(match (self.schema_error.take(), self.check_error.take()) {
                    (Some(e), _) | (None, Some(e)) => Err(e),
                    (None, None) => Ok(Dataset { languages }),
                });
            }
        }
        self.pos = p;
        (p - start_pos).max(1)
    }

    /// Parse `json[start..end]` as the next repo of the current language
    /// and check it; returns the work done (its length).
    fn parse_element(&mut self, start: usize, end: usize) -> usize {
        let json: &[u8] = if self.gzip { &self.inflated } else { self.input };
        let slice = &json[start..end];
        if self.schema_error.is_some() {
            // Only a syntax error could still come first.
            if let Err(e) = serde_json::from_slice::<serde::de::IgnoredAny>(slice) {
                self.syntax_error(start, e);
            }
            return end - start;
        }
        let value: Value = match serde_json::from_slice(slice) {
            Ok(v) => v,
            Err(e) => {
                self.syntax_error(start, e);
                return end - start;
            }
        };
        let index = self.repos.len();
        let at = format!("{}[{index}]", self.key);
        match Repo::from_value(value, &at) {
            Ok(repo) => {
                if let Err(e) =
                    check_repo_limits(&repo, &at, self.count + 1, &self.limits, &self.origin)
                {
                    self.result = Some(Err(e));
                    return end - start;
                }
                if self.check_error.is_none() {
                    if let Err(e) = super::validate_repo(&repo, &self.key, index, &self.origin) {
                        self.check_error = Some(e);
                    }
                }
                self.repos.push(repo);
                self.count += 1;
            }
            Err((at, message)) => {
                self.schema_error = Some(self.schema(&at, message));
                self.repos.clear();
                self.languages.clear();
            }
        }
        end - start
    }

    /// serde_json failed inside the repo at `start`: the same error at its
    /// place in the file. Junk after a complete repo reads differently in
    /// a slice ("trailing characters") than in the list ("expected `,` or
    /// `]`"), so that case asks the whole-document reader.
    fn syntax_error(&mut self, start: usize, e: serde_json::Error) {
        if e.to_string().starts_with("trailing characters") {
            self.fall_back();
            return;
        }
        let json: &[u8] = if self.gzip { &self.inflated } else { self.input };
        let (line, column) = shift_position(json, start, e.line(), e.column());
        self.result = Some(Err(DatasetError::Json {
            origin: self.origin.clone(),
            line,
            column,
            message: strip_position(&e.to_string()),
        }));
    }

    fn end_list(&mut self) {
        let repos = std::mem::take(&mut self.repos);
        // A repeated key keeps its first place and its last value, like
        // serde_json (and Python's json) do.
        self.languages.insert(std::mem::take(&mut self.key), repos);
        self.scan = Scan::CommaOrEnd;
    }

    /// Read the whole document the simple way; its result (dataset or
    /// error) is final. Returns the work done.
    fn fall_back(&mut self) -> usize {
        let json: &[u8] = if self.gzip { &self.inflated } else { self.input };
        self.result = Some(parse_whole(json, &self.origin, &self.limits));
        json.len().max(1)
    }
}

/// The whole-document reader: parse to a `Value`, convert, check.
fn parse_whole(json: &[u8], origin: &str, limits: &DatasetLimits) -> Result<Dataset, DatasetError> {
    // Past a byte-order mark; columns on the first line still count it.
    let (json, shift) = match json.strip_prefix(BOM) {
        Some(rest) => (rest, BOM.len()),
        None => (json, 0),
    };
    let value: Value = serde_json::from_slice(json).map_err(|e| DatasetError::Json {
        origin: origin.to_string(),
        line: e.line(),
        column: if e.line() == 1 { e.column() + shift } else { e.column() },
        message: strip_position(&e.to_string()),
    })?;
    let dataset = Dataset::from_value(value, origin)?;
    let mut count = 0;
    for (language, repos) in &dataset.languages {
        for (i, repo) in repos.iter().enumerate() {
            count += 1;
            check_repo_limits(repo, &format!("{language}[{i}]"), count, limits, origin)?;
        }
    }
    for (language, repos) in &dataset.languages {
        for (i, repo) in repos.iter().enumerate() {
            super::validate_repo(repo, language, i, origin)?;
        }
    }
    Ok(dataset)
}

/// The end of the JSON string starting at `p` (just past its closing
/// quote), if there is one.
fn string_end(json: &[u8], p: usize) -> Option<usize> {
    if json.get(p) != Some(&b'"') {
        return None;
    }
    let mut i = p + 1;
    loop {
        let k = memchr::memchr2(b'"', b'\\', json.get(i..)?)?;
        i += k;
        if json[i] == b'\\' {
            i += 2;
        } else {
            return Some(i + 1);
        }
    }
}

/// serde_json's (line, column) inside `json[start..]` as a position in
/// `json`: lines add up; the column shifts only on the first line.
fn shift_position(json: &[u8], start: usize, line: usize, column: usize) -> (usize, usize) {
    let before = &json[..start];
    let newlines = memchr::memchr_iter(b'\n', before).count();
    let line_start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
    if line <= 1 {
        (newlines + 1, start - line_start + column)
    } else {
        (newlines + line, column)
    }
}

impl Stepper for DatasetLoader<'_> {
    type Output = Dataset;
    type Error = DatasetError;

    /// About `budget` bytes of work; `Done` when the dataset is read or
    /// failed (never an error here: `finish` gives it).
    fn step(&mut self, budget: usize) -> Result<Step, DatasetError> {
        Ok(if self.step_bytes(budget) { Step::Done } else { Step::More })
    }

    /// Bytes done (compressed while inflating, then JSON), and in all.
    fn progress(&self) -> (usize, usize) {
        let p = self.load_progress();
        (p.done, p.total)
    }

    /// Read whatever is left and return the dataset.
    fn finish(mut self) -> Result<Dataset, DatasetError> {
        while !self.step_bytes(64 << 20) {}
        self.result
            .take()
            .unwrap_or_else(|| Err(self.schema("top level", "the file ended early".into())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = include_str!("../../../../../public/demo/repoqa-demo.json");

    /// A small file of three repos in two languages, pretty-printed.
    fn small() -> String {
        let one: Value = serde_json::from_str(super::super::tests::GOOD).unwrap();
        let repo = one["python"][0].clone();
        let mut other = repo.clone();
        other["repo"] = "o/s".into();
        let doc = serde_json::json!({"python": [repo, other], "rust": [repo]});
        serde_json::to_string_pretty(&doc).unwrap()
    }

    fn whole(text: &[u8]) -> Result<Dataset, String> {
        parse_whole(text, "t.json", &DatasetLimits::default()).map_err(|e| e.to_string())
    }

    fn stepped(text: &[u8], budget: usize) -> Result<Dataset, String> {
        let mut l = DatasetLoader::new(text, "t.json");
        let mut steps = 0;
        while l.step(budget).unwrap() == Step::More {
            steps += 1;
            assert!(steps < 10_000_000, "no progress");
        }
        l.finish().map_err(|e| e.to_string())
    }

    #[test]
    fn steps_give_the_same_dataset_as_one_parse() {
        let want = whole(GOOD.as_bytes()).unwrap();
        for budget in [1, 7, 4096, 1 << 30] {
            assert_eq!(stepped(GOOD.as_bytes(), budget).unwrap(), want, "budget {budget}");
        }
        let pretty =
            serde_json::to_string_pretty(&serde_json::from_str::<Value>(GOOD).unwrap()).unwrap();
        assert_eq!(stepped(pretty.as_bytes(), 100).unwrap(), want);
        for text in [
            "{}",
            " { } ",
            r#"{"python": []}"#,
            r#"{"python":[],"go":[ ]}"#,
            r#"{"python": [], "python": []}"#,
        ] {
            assert_eq!(stepped(text.as_bytes(), 3), whole(text.as_bytes()), "{text}");
        }
    }

    #[test]
    fn progress_moves_and_counts_repos() {
        let mut l = DatasetLoader::new(GOOD.as_bytes(), "t.json");
        let mut last = 0;
        while l.step(10_000).unwrap() == Step::More {
            let p = l.load_progress();
            assert_eq!(p.phase, Phase::Reading);
            assert!(p.done >= last && p.done <= p.total);
            last = p.done;
        }
        let repos = whole(GOOD.as_bytes()).unwrap().languages.values().map(Vec::len).sum::<usize>();
        assert_eq!(
            l.load_progress(),
            LoadProgress { phase: Phase::Finished, done: GOOD.len(), total: GOOD.len(), repos }
        );
    }

    #[test]
    fn gzip_is_inflated_in_steps() {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut gz, GOOD.as_bytes()).unwrap();
        let bytes = gz.finish().unwrap();
        let mut l = DatasetLoader::new(&bytes, "t.json.gz");
        let mut inflating = 0;
        while l.step(1000).unwrap() == Step::More {
            if l.load_progress().phase == Phase::Inflating {
                inflating += 1;
            }
        }
        assert!(inflating > 5, "{inflating}");
        assert_eq!(l.finish().unwrap(), whole(GOOD.as_bytes()).unwrap());
        let cut = &bytes[..bytes.len() - 100];
        let e = stepped(cut, 1000).unwrap_err();
        assert!(e.starts_with("dataset t.json: cannot read the gzip stream"), "{e}");
    }

    /// A gzip stream past the ceilings is refused naming the file and the
    /// limit, in any step size (the ratio is not checked below 64 MiB).
    #[test]
    fn gzip_past_the_limits_is_refused() {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut gz, br#"{"python": [{"repo": "a/b", "x": ""#).unwrap();
        std::io::Write::write_all(&mut gz, &vec![b' '; 3 << 20]).unwrap();
        std::io::Write::write_all(&mut gz, br#""}]}"#).unwrap();
        let bytes = gz.finish().unwrap();
        let limits = DatasetLimits {
            inflate: crate::input::limits::InflateLimits { max_bytes: 1 << 20, max_ratio: 100 },
            ..DatasetLimits::default()
        };
        for budget in [1000, 1 << 20, 64 << 20] {
            let mut l = DatasetLoader::with_limits(&bytes, "b.json.gz", limits);
            while l.step(budget).unwrap() == Step::More {}
            let e = l.finish().unwrap_err().to_string();
            assert_eq!(
                e,
                "dataset b.json.gz: the gzip stream inflates to more than 1048576 bytes (1 MiB), the limit; refused"
            );
        }
        // Under the default limits the same file reads (and fails on its schema).
        let e = Dataset::from_bytes(&bytes, "b.json.gz").unwrap_err().to_string();
        assert!(e.contains("missing field `content`"), "{e}");
        // A byte-order mark is read past, in the stepped and the whole reader.
        let text = format!("\u{feff}{GOOD}");
        assert_eq!(stepped(text.as_bytes(), 777).unwrap(), whole(GOOD.as_bytes()).unwrap());
        let e = stepped("\u{feff}{\"python\": [}".as_bytes(), 5).unwrap_err();
        assert_eq!(e, "dataset t.json: invalid JSON at line 1, column 16: expected value");
    }

    /// Every way of cutting the file short, and many single-byte damages,
    /// give exactly the whole-document reader's error (or dataset).
    #[test]
    fn broken_files_give_the_whole_document_error() {
        let text = small();
        let bytes = text.as_bytes();
        whole(bytes).unwrap();
        for cut in 0..bytes.len() {
            let piece = &bytes[..cut];
            assert_eq!(stepped(piece, 500), whole(piece), "cut at {cut}");
        }
        let mut n = 0;
        for i in 0..bytes.len() {
            for b in [b'}', b']', b',', b'"', b'x', b'\\', b'{', b'1', b'-', b' '] {
                let mut damaged = bytes.to_vec();
                damaged[i] = b;
                let got = stepped(&damaged, 300);
                let want = whole(&damaged);
                if got != want {
                    panic!("byte {i} -> {:?}: stepped {got:?}\nwhole {want:?}", b as char);
                }
                n += 1;
            }
        }
        assert!(n > 10_000, "{n}");
    }

    #[test]
    fn top_level_shapes_fall_back_to_the_whole_reader() {
        for text in [
            "[]",
            "3",
            r#"{"python": {}}"#,
            r#"{"python": [], }"#,
            r#"{"python": [{}],}"#,
            r#"{"python": [ , ]}"#,
            r#"{"python": []} x"#,
            r#"{"kotlin": []}"#,
            r#"{"python": [1]}"#,
            "",
            "  ",
        ] {
            assert_eq!(stepped(text.as_bytes(), 2), whole(text.as_bytes()), "{text}");
        }
    }
}
