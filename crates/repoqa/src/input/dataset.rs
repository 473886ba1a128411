//! The RepoQA dataset file (`repoqa-2024-04-20.json`, `.json.gz`): the
//! official schema, read with key order and unknown fields kept so a file
//! round-trips, checked on load so that a broken file is reported with the
//! place and the reason instead of failing later (docs/parity.md "Dataset file").
//!
//! The file order of a repo (`Repo::file_order`) is the official
//! `topological_sort` (P2); the reference text of a needle
//! (`Repo::reference_text`) is the official line slice (S3).

mod load;

use std::collections::HashSet;

use indexmap::IndexMap;
use serde::de::{Deserialize, Deserializer};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Number, Value};
use thiserror::Error;

use crate::code::lang::Language;
use crate::input::limits::{DatasetLimits, InflateExceeded};
use crate::step::Stepper;

pub use load::{DatasetLoader, LoadProgress, Phase};

#[derive(Debug, Error)]
pub enum DatasetError {
    #[error(
        "dataset {origin}: cannot read the gzip stream (corrupt or truncated file?): {message}"
    )]
    Gzip { origin: String, message: String },
    #[error("dataset {origin}: invalid JSON at line {line}, column {column}: {message}")]
    Json { origin: String, line: usize, column: usize, message: String },
    #[error("dataset {origin}: {at}: {message}")]
    Schema { origin: String, at: String, message: String },
    #[error(
        "dataset {origin}: unknown language key {key:?} at the top level (expected python, cpp, java, typescript, rust or go)"
    )]
    UnknownLanguage { origin: String, key: String },
    /// `at` names the language, repo, list index and needle name.
    #[error("dataset {origin}: {at}: {message}")]
    Needle { origin: String, at: String, message: String },
    #[error("dataset {path}: {source}")]
    Io { path: String, source: std::io::Error },
    /// The gzip stream went through a ceiling of [`InflateLimits`].
    #[error("dataset {origin}: the gzip stream {exceeded}; refused")]
    Inflate { origin: String, exceeded: InflateExceeded },
    /// A count or size over [`DatasetLimits`]; `at` names the place.
    #[error("dataset {origin}: {at}: {message}; refused")]
    Limit { origin: String, at: String, message: String },
}

/// The whole file: language key (`python`, …) → repos, in file order.
/// Every key is a known language (checked on load).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dataset {
    pub languages: IndexMap<String, Vec<Repo>>,
}

/// One repository of the benchmark.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Repo {
    /// "owner/name".
    pub repo: String,
    pub commit_sha: Option<String>,
    pub entrypoint_path: Option<String>,
    pub topic: Option<String>,
    /// path → file text.
    pub content: IndexMap<String, String>,
    /// path → imported paths; its key order drives the file order (P2).
    pub dependency: IndexMap<String, Vec<String>>,
    /// path → function records (absent in the file = empty).
    pub functions: IndexMap<String, Vec<Function>>,
    /// The needles; a repo without the key is skipped by the official
    /// harness, like one with an empty list (see `has_needles`).
    pub needles: Vec<Needle>,
    /// Fields this crate does not know, kept for round-tripping.
    pub extra: IndexMap<String, Value>,
    /// Keys in file order, to write them back in the same order.
    key_order: Vec<String>,
}

/// A function record of `functions`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Function {
    pub name: String,
    pub start_line: usize,
    /// Exclusive.
    pub end_line: usize,
    /// UTF-8 byte offsets into the file (the official code uses them as
    /// code-point indices, P3).
    pub start_byte: usize,
    pub end_byte: usize,
    pub global_start_line: Option<usize>,
    pub global_end_line: Option<usize>,
    pub global_start_byte: Option<usize>,
    pub global_end_byte: Option<usize>,
    /// Kept as written (int or float) so the file round-trips.
    pub code_ratio: Option<Number>,
    pub extra: IndexMap<String, Value>,
    key_order: Vec<String>,
}

/// A needle: a function record plus the file it is in and its description.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Needle {
    pub name: String,
    pub start_line: usize,
    pub end_line: usize,
    pub start_byte: usize,
    pub end_byte: usize,
    pub global_start_line: Option<usize>,
    pub global_end_line: Option<usize>,
    pub global_start_byte: Option<usize>,
    pub global_end_byte: Option<usize>,
    pub code_ratio: Option<Number>,
    pub path: String,
    pub description: String,
    pub extra: IndexMap<String, Value>,
    key_order: Vec<String>,
}

impl Needle {
    /// The record `f` of file `path` as a needle, without a description.
    pub fn of_function(path: &str, f: &Function) -> Needle {
        Needle {
            name: f.name.clone(),
            start_line: f.start_line,
            end_line: f.end_line,
            start_byte: f.start_byte,
            end_byte: f.end_byte,
            global_start_line: f.global_start_line,
            global_end_line: f.global_end_line,
            global_start_byte: f.global_start_byte,
            global_end_byte: f.global_end_byte,
            code_ratio: f.code_ratio.clone(),
            path: path.to_string(),
            ..Needle::default()
        }
    }
}

impl Dataset {
    /// Read a dataset from plain JSON or gzip-compressed JSON (detected by
    /// the gzip magic bytes). `origin` names the file in error messages.
    /// The browser reads in steps with [`DatasetLoader`]; this runs the
    /// same steps to the end.
    pub fn from_bytes(bytes: &[u8], origin: &str) -> Result<Dataset, DatasetError> {
        DatasetLoader::new(bytes, origin).finish()
    }

    /// [`Dataset::from_bytes`] with other ceilings than the defaults.
    pub fn from_bytes_with_limits(
        bytes: &[u8],
        origin: &str,
        limits: DatasetLimits,
    ) -> Result<Dataset, DatasetError> {
        DatasetLoader::with_limits(bytes, origin, limits).finish()
    }

    #[cfg(not(target_arch = "wasm32"))]
    pub fn from_file(path: &std::path::Path) -> Result<Dataset, DatasetError> {
        let bytes = crate::input::input_file::read(path)
            .map_err(|source| DatasetError::Io { path: path.display().to_string(), source })?;
        Dataset::from_bytes(&bytes, &path.display().to_string())
    }

    /// Build from an already parsed JSON value (checks the schema, not the
    /// needle ranges; `from_bytes` does both).
    pub fn from_value(value: Value, origin: &str) -> Result<Dataset, DatasetError> {
        let schema = |at: &str, message: String| DatasetError::Schema {
            origin: origin.to_string(),
            at: at.to_string(),
            message,
        };
        let Value::Object(top) = value else {
            return Err(schema(
                "top level",
                format!("expected an object keyed by language, found {}", kind(&value)),
            ));
        };
        let mut languages = IndexMap::new();
        for (key, repos) in top {
            if Language::from_name(&key).is_err() {
                return Err(DatasetError::UnknownLanguage { origin: origin.to_string(), key });
            }
            let Value::Array(items) = repos else {
                return Err(schema(
                    &key,
                    format!("expected a list of repos, found {}", kind(&repos)),
                ));
            };
            let mut list = Vec::with_capacity(items.len());
            for (i, item) in items.into_iter().enumerate() {
                let at = format!("{key}[{i}]");
                list.push(
                    Repo::from_value(item, &at).map_err(|(at, message)| schema(&at, message))?,
                );
            }
            languages.insert(key, list);
        }
        Ok(Dataset { languages })
    }

    /// Compact JSON with the keys in their original order.
    pub fn to_json_string(&self) -> String {
        // Serializing strings, numbers and maps of them cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The repos of a language key, if the dataset has it.
    pub fn repos(&self, language: &str) -> Option<&[Repo]> {
        self.languages.get(language).map(Vec::as_slice)
    }

    /// The repo named "owner/name" of a language.
    pub fn repo(&self, language: &str, name: &str) -> Option<&Repo> {
        self.repos(language)?.iter().find(|r| r.repo == name)
    }

    /// The languages of the file, in file order.
    pub fn language_list(&self) -> Vec<Language> {
        // Keys were checked on load; an unknown one (from a hand-built
        // Dataset) is left out rather than guessed.
        self.languages.keys().filter_map(|k| Language::from_name(k).ok()).collect()
    }

    /// Number of needles (= tasks) over all repos.
    pub fn needle_count(&self) -> usize {
        self.languages.values().flatten().map(|r| r.needles.len()).sum()
    }
}

impl Repo {
    /// Upstream `topological_sort(repo["dependency"])` (P2): depth-first over
    /// the keys in file order, each key's list in order, a node appended
    /// after its neighbours. Iterative so a long import chain cannot
    /// overflow the (small, in wasm) stack; same order as the recursion.
    pub fn file_order(&self) -> Vec<&str> {
        topological_sort(&self.dependency)
    }

    /// `"\n".join(content[path].split("\n")[start_line:end_line])` (S3).
    pub fn reference_text(&self, path: &str, start_line: usize, end_line: usize) -> Option<String> {
        let text = self.content.get(path)?;
        let take = end_line.saturating_sub(start_line);
        Some(text.split('\n').skip(start_line).take(take).collect::<Vec<_>>().join("\n"))
    }

    /// Whether the file has a `needles` key (or needles were added).
    pub fn has_needles(&self) -> bool {
        !self.needles.is_empty() || self.key_order.iter().any(|k| k == "needles")
    }

    fn from_value(value: Value, at: &str) -> Result<Repo, (String, String)> {
        let map = object(value, at, "a repo object")?;
        let mut repo = Repo { key_order: map.keys().cloned().collect(), ..Repo::default() };
        let mut seen_repo = false;
        let mut seen_content = false;
        let mut seen_dependency = false;
        for (key, v) in map {
            let here = format!("{at}.{key}");
            match key.as_str() {
                "repo" => {
                    repo.repo = string(v, &here)?;
                    seen_repo = true;
                }
                "commit_sha" => repo.commit_sha = Some(string(v, &here)?),
                "entrypoint_path" => repo.entrypoint_path = Some(string(v, &here)?),
                "topic" => repo.topic = Some(string(v, &here)?),
                "content" => {
                    for (path, text) in object(v, &here, "an object of path → file text")? {
                        let t = string(text, &format!("{here}[{path:?}]"))?;
                        repo.content.insert(path, t);
                    }
                    seen_content = true;
                }
                "dependency" => {
                    for (path, deps) in object(v, &here, "an object of path → list of paths")? {
                        let there = format!("{here}[{path:?}]");
                        let list = array(deps, &there, "a list of paths")?
                            .into_iter()
                            .enumerate()
                            .map(|(i, d)| string(d, &format!("{there}[{i}]")))
                            .collect::<Result<Vec<_>, _>>()?;
                        repo.dependency.insert(path, list);
                    }
                    seen_dependency = true;
                }
                "functions" => {
                    for (path, recs) in object(v, &here, "an object of path → list of functions")?
                    {
                        let there = format!("{here}[{path:?}]");
                        let list = array(recs, &there, "a list of function records")?
                            .into_iter()
                            .enumerate()
                            .map(|(i, r)| Function::from_value(r, &format!("{there}[{i}]")))
                            .collect::<Result<Vec<_>, _>>()?;
                        repo.functions.insert(path, list);
                    }
                }
                "needles" => {
                    repo.needles = array(v, &here, "a list of needles")?
                        .into_iter()
                        .enumerate()
                        .map(|(i, r)| Needle::from_value(r, &format!("{here}[{i}]")))
                        .collect::<Result<Vec<_>, _>>()?;
                }
                _ => {
                    repo.extra.insert(key, v);
                }
            }
        }
        for (seen, field) in
            [(seen_repo, "repo"), (seen_content, "content"), (seen_dependency, "dependency")]
        {
            if !seen {
                let name = if seen_repo { format!(" ({})", repo.repo) } else { String::new() };
                return Err((format!("{at}{name}"), format!("missing field `{field}`")));
            }
        }
        Ok(repo)
    }
}

/// The checks the official code would otherwise fail on later, or
/// silently mis-slice with: needle files and ranges. `language[index]` is
/// the repo's place in the file.
fn validate_repo(
    repo: &Repo,
    language: &str,
    index: usize,
    origin: &str,
) -> Result<(), DatasetError> {
    // Lines of each needle file, counted once per file: many needles in one
    // large file must not multiply the scan.
    let mut line_counts: std::collections::HashMap<&str, usize> = Default::default();
    for (ni, needle) in repo.needles.iter().enumerate() {
        let fail = |message: String| DatasetError::Needle {
            origin: origin.to_string(),
            at: format!(
                "{language} repo {} ({language}[{index}].needles[{ni}]): needle {:?}",
                repo.repo, needle.name
            ),
            message,
        };
        let Some(text) = repo.content.get(&needle.path) else {
            return Err(fail(format!("path {:?} is not a file of `content`", needle.path)));
        };
        if needle.start_byte > needle.end_byte || needle.end_byte > text.len() {
            return Err(fail(format!(
                "byte range {}..{} is out of bounds of {} ({} bytes)",
                needle.start_byte,
                needle.end_byte,
                needle.path,
                text.len()
            )));
        }
        let lines = *line_counts
            .entry(needle.path.as_str())
            .or_insert_with(|| memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1);
        if needle.start_line > needle.end_line || needle.end_line > lines {
            return Err(fail(format!(
                "line range {}..{} is out of bounds of {} ({} lines)",
                needle.start_line, needle.end_line, needle.path, lines
            )));
        }
    }
    Ok(())
}

/// The counts and sizes of one repo (the `repos`-th of the file, at
/// `language[index]`) against `limits`.
fn check_repo_limits(
    repo: &Repo,
    at: &str,
    repos: usize,
    limits: &DatasetLimits,
    origin: &str,
) -> Result<(), DatasetError> {
    let fail = |at: String, message: String| DatasetError::Limit {
        origin: origin.to_string(),
        at,
        message,
    };
    if repos > limits.max_repos {
        return Err(fail(
            at.to_string(),
            format!("more than {} repos in the file, the limit", limits.max_repos),
        ));
    }
    let name = &repo.repo;
    if repo.content.len() > limits.max_files {
        return Err(fail(
            format!("{at} ({name}).content"),
            format!("{} files, over the limit of {}", repo.content.len(), limits.max_files),
        ));
    }
    if repo.needles.len() > limits.max_needles {
        return Err(fail(
            format!("{at} ({name}).needles"),
            format!("{} needles, over the limit of {}", repo.needles.len(), limits.max_needles),
        ));
    }
    if let Some((path, text)) = repo.content.iter().find(|(_, t)| t.len() > limits.max_text_bytes) {
        return Err(fail(
            format!("{at} ({name}).content[{path:?}]"),
            format!(
                "a text of {} bytes, over the limit of {}",
                text.len(),
                crate::input::limits::size_label(limits.max_text_bytes as u64)
            ),
        ));
    }
    Ok(())
}

/// See `Repo::file_order`.
pub fn topological_sort(graph: &IndexMap<String, Vec<String>>) -> Vec<&str> {
    let mut order: Vec<&str> = Vec::new();
    let mut visited: HashSet<&str> = HashSet::new();
    // Frames of the recursion: a node and the index of its next neighbour.
    let mut stack: Vec<(&str, usize)> = Vec::new();
    for root in graph.keys() {
        if !visited.insert(root.as_str()) {
            continue;
        }
        stack.push((root.as_str(), 0));
        while let Some(frame) = stack.last_mut() {
            let (node, next) = *frame;
            let neighbours = graph.get(node).map(Vec::as_slice).unwrap_or(&[]);
            if let Some(n) = neighbours.get(next) {
                frame.1 += 1;
                // Checked when reached, like `if neighbour not in visited`.
                if visited.insert(n.as_str()) {
                    stack.push((n.as_str(), 0));
                }
            } else {
                order.push(node);
                stack.pop();
            }
        }
    }
    order
}

/// The fields a function record and a needle share.
#[derive(Default)]
struct Record {
    name: Option<String>,
    start_line: Option<usize>,
    end_line: Option<usize>,
    start_byte: Option<usize>,
    end_byte: Option<usize>,
    global_start_line: Option<usize>,
    global_end_line: Option<usize>,
    global_start_byte: Option<usize>,
    global_end_byte: Option<usize>,
    code_ratio: Option<Number>,
    path: Option<String>,
    description: Option<String>,
    extra: IndexMap<String, Value>,
    key_order: Vec<String>,
}

impl Record {
    fn from_value(value: Value, at: &str, needle: bool) -> Result<Record, (String, String)> {
        let map = object(value, at, if needle { "a needle object" } else { "a function record" })?;
        let mut r = Record { key_order: map.keys().cloned().collect(), ..Record::default() };
        for (key, v) in map {
            let here = format!("{at}.{key}");
            match key.as_str() {
                "name" => r.name = Some(string(v, &here)?),
                "start_line" => r.start_line = Some(index(&v, &here)?),
                "end_line" => r.end_line = Some(index(&v, &here)?),
                "start_byte" => r.start_byte = Some(index(&v, &here)?),
                "end_byte" => r.end_byte = Some(index(&v, &here)?),
                "global_start_line" => r.global_start_line = Some(index(&v, &here)?),
                "global_end_line" => r.global_end_line = Some(index(&v, &here)?),
                "global_start_byte" => r.global_start_byte = Some(index(&v, &here)?),
                "global_end_byte" => r.global_end_byte = Some(index(&v, &here)?),
                "code_ratio" => match v {
                    Value::Number(n) => r.code_ratio = Some(n),
                    other => {
                        return Err((here, format!("expected a number, found {}", kind(&other))))
                    }
                },
                "path" if needle => r.path = Some(string(v, &here)?),
                "description" if needle => r.description = Some(string(v, &here)?),
                _ => {
                    r.extra.insert(key, v);
                }
            }
        }
        Ok(r)
    }

    fn required<T>(
        field: Option<T>,
        at: &str,
        name: &Option<String>,
        key: &str,
    ) -> Result<T, (String, String)> {
        field.ok_or_else(|| {
            let label = name.as_ref().map(|n| format!(" ({n})")).unwrap_or_default();
            (format!("{at}{label}"), format!("missing field `{key}`"))
        })
    }
}

impl Function {
    fn from_value(value: Value, at: &str) -> Result<Function, (String, String)> {
        let r = Record::from_value(value, at, false)?;
        let n = &r.name;
        Ok(Function {
            start_line: Record::required(r.start_line, at, n, "start_line")?,
            end_line: Record::required(r.end_line, at, n, "end_line")?,
            start_byte: Record::required(r.start_byte, at, n, "start_byte")?,
            end_byte: Record::required(r.end_byte, at, n, "end_byte")?,
            name: Record::required(r.name, at, &None, "name")?,
            global_start_line: r.global_start_line,
            global_end_line: r.global_end_line,
            global_start_byte: r.global_start_byte,
            global_end_byte: r.global_end_byte,
            code_ratio: r.code_ratio,
            extra: r.extra,
            key_order: r.key_order,
        })
    }
}

impl Needle {
    fn from_value(value: Value, at: &str) -> Result<Needle, (String, String)> {
        let r = Record::from_value(value, at, true)?;
        let n = &r.name;
        Ok(Needle {
            start_line: Record::required(r.start_line, at, n, "start_line")?,
            end_line: Record::required(r.end_line, at, n, "end_line")?,
            start_byte: Record::required(r.start_byte, at, n, "start_byte")?,
            end_byte: Record::required(r.end_byte, at, n, "end_byte")?,
            path: Record::required(r.path, at, n, "path")?,
            description: Record::required(r.description, at, n, "description")?,
            name: Record::required(r.name, at, &None, "name")?,
            global_start_line: r.global_start_line,
            global_end_line: r.global_end_line,
            global_start_byte: r.global_start_byte,
            global_end_byte: r.global_end_byte,
            code_ratio: r.code_ratio,
            extra: r.extra,
            key_order: r.key_order,
        })
    }
}

// ---- JSON value helpers: each error is (where, what is wrong).

/// What kind of JSON value `v` is, for error messages ("expected a string,
/// found a number"); shared by every reader of user JSON.
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

fn object(v: Value, at: &str, what: &str) -> Result<Map<String, Value>, (String, String)> {
    match v {
        Value::Object(m) => Ok(m),
        other => Err((at.to_string(), format!("expected {what}, found {}", kind(&other)))),
    }
}

fn array(v: Value, at: &str, what: &str) -> Result<Vec<Value>, (String, String)> {
    match v {
        Value::Array(a) => Ok(a),
        other => Err((at.to_string(), format!("expected {what}, found {}", kind(&other)))),
    }
}

fn string(v: Value, at: &str) -> Result<String, (String, String)> {
    match v {
        Value::String(s) => Ok(s),
        other => Err((at.to_string(), format!("expected a string, found {}", kind(&other)))),
    }
}

fn index(v: &Value, at: &str) -> Result<usize, (String, String)> {
    v.as_u64()
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| (at.to_string(), format!("expected a non-negative integer, found {v}")))
}

/// serde_json appends " at line L column C"; the error carries them apart.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

// ---- Serialization: keys in file order, then fields set in code, then
// unknown fields.

/// Writes the known fields and `extra` of a record in `order`, then any
/// known field not in `order` (set in code) and any extra not in `order`.
/// `field(key)` serializes a known field if it is present.
fn write_ordered<S: Serializer>(
    s: S,
    order: &[String],
    known: &[&str],
    extra: &IndexMap<String, Value>,
    mut field: impl FnMut(&str, &mut S::SerializeMap) -> Result<(), S::Error>,
) -> Result<S::Ok, S::Error> {
    let mut m = s.serialize_map(None)?;
    let mut done: HashSet<&str> = HashSet::new();
    for key in order {
        if !done.insert(key.as_str()) {
            continue;
        }
        if known.contains(&key.as_str()) {
            field(key, &mut m)?;
        } else if let Some(v) = extra.get(key) {
            m.serialize_entry(key, v)?;
        }
    }
    for key in known {
        if !done.contains(key) {
            field(key, &mut m)?;
        }
    }
    for (key, v) in extra {
        if !done.contains(key.as_str()) {
            m.serialize_entry(key, v)?;
        }
    }
    m.end()
}

impl Serialize for Dataset {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.languages.serialize(s)
    }
}

const REPO_KEYS: [&str; 8] = [
    "repo",
    "commit_sha",
    "entrypoint_path",
    "topic",
    "content",
    "dependency",
    "functions",
    "needles",
];

impl Serialize for Repo {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let in_file = |k: &str| self.key_order.iter().any(|o| o == k);
        write_ordered(s, &self.key_order, &REPO_KEYS, &self.extra, |key, m| match key {
            "repo" => m.serialize_entry(key, &self.repo),
            "commit_sha" => opt_entry(m, key, &self.commit_sha),
            "entrypoint_path" => opt_entry(m, key, &self.entrypoint_path),
            "topic" => opt_entry(m, key, &self.topic),
            "content" => m.serialize_entry(key, &self.content),
            "dependency" => m.serialize_entry(key, &self.dependency),
            "functions" if in_file(key) || !self.functions.is_empty() => {
                m.serialize_entry(key, &self.functions)
            }
            "needles" if in_file(key) || !self.needles.is_empty() => {
                m.serialize_entry(key, &self.needles)
            }
            _ => Ok(()),
        })
    }
}

fn opt_entry<M: SerializeMap, T: Serialize>(
    m: &mut M,
    key: &str,
    v: &Option<T>,
) -> Result<(), M::Error> {
    match v {
        Some(v) => m.serialize_entry(key, v),
        None => Ok(()),
    }
}

const FUNCTION_KEYS: [&str; 10] = [
    "name",
    "start_line",
    "end_line",
    "start_byte",
    "end_byte",
    "global_start_line",
    "global_end_line",
    "global_start_byte",
    "global_end_byte",
    "code_ratio",
];

const NEEDLE_KEYS: [&str; 12] = [
    "name",
    "start_line",
    "end_line",
    "start_byte",
    "end_byte",
    "global_start_line",
    "global_end_line",
    "global_start_byte",
    "global_end_byte",
    "code_ratio",
    "path",
    "description",
];

macro_rules! record_field {
    ($self:ident, $key:ident, $m:ident, { $($extra:tt)* }) => {
        match $key {
            "name" => $m.serialize_entry($key, &$self.name),
            "start_line" => $m.serialize_entry($key, &$self.start_line),
            "end_line" => $m.serialize_entry($key, &$self.end_line),
            "start_byte" => $m.serialize_entry($key, &$self.start_byte),
            "end_byte" => $m.serialize_entry($key, &$self.end_byte),
            "global_start_line" => opt_entry($m, $key, &$self.global_start_line),
            "global_end_line" => opt_entry($m, $key, &$self.global_end_line),
            "global_start_byte" => opt_entry($m, $key, &$self.global_start_byte),
            "global_end_byte" => opt_entry($m, $key, &$self.global_end_byte),
            "code_ratio" => opt_entry($m, $key, &$self.code_ratio),
            $($extra)*
            _ => Ok(()),
        }
    };
}

impl Serialize for Function {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        write_ordered(s, &self.key_order, &FUNCTION_KEYS, &self.extra, |key, m| {
            record_field!(self, key, m, {})
        })
    }
}

/// Reads what [`Serialize`] wrote (the compute engine's replies), with a
/// dataset file's checks of a repo's fields.
impl<'de> Deserialize<'de> for Repo {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Repo, D::Error> {
        Repo::from_value(Value::deserialize(d)?, "repo")
            .map_err(|(at, m)| serde::de::Error::custom(format!("{at}: {m}")))
    }
}

/// Reads what [`Serialize`] wrote, with a dataset file's checks of a needle.
impl<'de> Deserialize<'de> for Needle {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Needle, D::Error> {
        Needle::from_value(Value::deserialize(d)?, "needle")
            .map_err(|(at, m)| serde::de::Error::custom(format!("{at}: {m}")))
    }
}

impl Serialize for Needle {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        write_ordered(s, &self.key_order, &NEEDLE_KEYS, &self.extra, |key, m| {
            record_field!(self, key, m, {
                "path" => m.serialize_entry(key, &self.path),
                "description" => m.serialize_entry(key, &self.description),
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(pairs: &[(&str, &[&str])]) -> IndexMap<String, Vec<String>> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.iter().map(|s| s.to_string()).collect()))
            .collect()
    }

    #[test]
    fn topological_sort_is_post_order_dfs_in_key_order() {
        // a → b → c; d → a; values-only node e; c listed as a key later.
        let g = graph(&[("a", &["b", "e"]), ("b", &["c"]), ("d", &["a"]), ("c", &[])]);
        assert_eq!(topological_sort(&g), ["c", "b", "e", "a", "d"]);
        // Key order matters: the same edges listed from d first.
        let g = graph(&[("d", &["a"]), ("a", &["b", "e"]), ("b", &["c"]), ("c", &[])]);
        assert_eq!(topological_sort(&g), ["c", "b", "e", "a", "d"]);
        let g = graph(&[("c", &[]), ("b", &["c"]), ("a", &["b", "e"])]);
        assert_eq!(topological_sort(&g), ["c", "b", "e", "a"]);
    }

    #[test]
    fn topological_sort_handles_cycles_and_self_loops() {
        // Python: dfs(a) marks a, visits b, b's neighbour a is visited → b, a.
        let g = graph(&[("a", &["b"]), ("b", &["a", "b"])]);
        assert_eq!(topological_sort(&g), ["b", "a"]);
        let g = graph(&[("x", &["x", "y", "y"])]);
        assert_eq!(topological_sort(&g), ["y", "x"]);
        assert!(topological_sort(&graph(&[])).is_empty());
    }

    #[test]
    fn topological_sort_survives_a_deep_chain() {
        let n = 100_000;
        let g: IndexMap<String, Vec<String>> =
            (0..n).map(|i| (format!("f{i}"), vec![format!("f{}", i + 1)])).collect();
        let order = topological_sort(&g);
        assert_eq!(order.len(), n + 1);
        assert_eq!(order[0], format!("f{n}"));
        assert_eq!(order[n], "f0");
    }

    pub(super) const GOOD: &str = r#"{"python": [{"repo": "o/r", "topic": "t", "zzz": [1, 2.5],
        "content": {"a.py": "import b\n\ndef f():\n    return 1\n", "b.py": "x = 1\n"},
        "dependency": {"a.py": ["b.py"], "b.py": []},
        "functions": {"a.py": [{"name": "f", "start_line": 2, "end_line": 4, "start_byte": 10,
            "end_byte": 31, "global_start_line": 2, "global_end_line": 4, "global_start_byte": 10,
            "global_end_byte": 31, "code_ratio": 0}]},
        "needles": [{"start_line": 2, "name": "f", "end_line": 4, "start_byte": 10, "end_byte": 31,
            "path": "a.py", "description": "Returns 1.", "extra_key": null}]}]}"#;

    #[test]
    fn loads_and_round_trips_with_key_order_and_unknown_fields() {
        let d = Dataset::from_bytes(GOOD.as_bytes(), "good.json").unwrap();
        let r = d.repo("python", "o/r").unwrap();
        assert_eq!(r.file_order(), ["b.py", "a.py"]);
        assert_eq!(r.needles[0].name, "f");
        assert_eq!(r.reference_text("a.py", 2, 4).unwrap(), "def f():\n    return 1");
        assert_eq!(r.reference_text("a.py", 4, 99).unwrap(), "");
        assert!(r.has_needles());
        let text = d.to_json_string();
        let compact: Value = serde_json::from_str(GOOD).unwrap();
        assert_eq!(text, serde_json::to_string(&compact).unwrap());
        // And through gzip.
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut gz, GOOD.as_bytes()).unwrap();
        let bytes = gz.finish().unwrap();
        assert_eq!(Dataset::from_bytes(&bytes, "good.json.gz").unwrap(), d);
    }

    fn err(text: &str) -> String {
        Dataset::from_bytes(text.as_bytes(), "bad.json").unwrap_err().to_string()
    }

    #[test]
    fn broken_inputs_say_where_and_what() {
        let e = err("{\"python\": [\n  {\"repo\": 1,}\n]}");
        assert!(e.starts_with("dataset bad.json: invalid JSON at line 2, column"), "{e}");
        let e = err(r#"{"python": [{"repo": 5, "content": {}, "dependency": {}}]}"#);
        assert_eq!(e, "dataset bad.json: python[0].repo: expected a string, found a number");
        let e = err(r#"{"kotlin": []}"#);
        assert!(e.contains("unknown language key \"kotlin\""), "{e}");
        let e = err(r#"{"python": [{"repo": "o/r", "dependency": {}}]}"#);
        assert_eq!(e, "dataset bad.json: python[0] (o/r): missing field `content`");
        let e = err(&GOOD.replace(
            r#""start_byte": 10, "end_byte": 31,
            "path""#,
            r#""start_byte": -3, "end_byte": 31,
            "path""#,
        ));
        assert_eq!(e, "dataset bad.json: python[0].needles[0].start_byte: expected a non-negative integer, found -3");
        let e = err(&GOOD.replace(r#""path": "a.py""#, r#""path": "c.py""#));
        assert_eq!(
            e,
            "dataset bad.json: python repo o/r (python[0].needles[0]): needle \"f\": path \"c.py\" is not a file of `content`"
        );
        let e = err(&GOOD.replace(
            r#""end_byte": 31,
            "path""#,
            r#""end_byte": 99,
            "path""#,
        ));
        assert!(e.ends_with("byte range 10..99 is out of bounds of a.py (32 bytes)"), "{e}");
        let e = err(&GOOD.replace(
            r#""end_line": 4, "start_byte": 10, "end_byte": 31,
            "path""#,
            r#""end_line": 7, "start_byte": 10, "end_byte": 31,
            "path""#,
        ));
        assert!(e.ends_with("line range 2..7 is out of bounds of a.py (5 lines)"), "{e}");
        let e = err(&GOOD.replace(r#""description": "Returns 1.", "#, ""));
        assert_eq!(e, "dataset bad.json: python[0].needles[0] (f): missing field `description`");
    }

    #[test]
    fn truncated_gzip_is_reported() {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut gz, GOOD.as_bytes()).unwrap();
        let bytes = gz.finish().unwrap();
        let e =
            Dataset::from_bytes(&bytes[..bytes.len() / 2], "cut.json.gz").unwrap_err().to_string();
        assert!(e.starts_with("dataset cut.json.gz: cannot read the gzip stream"), "{e}");
    }
}
