//! Agent-style RepoQA tasks (as agent harnesses such as mcpbr run them) and
//! the import of their results.
//!
//! Export: one JSON object per line, `{"instance_id": "repoqa_<i>", "repo",
//! "language", "description", "function_name"}`; ids number the exported
//! tasks from 0 in dataset order (after the language filter and the seeded
//! sample), as mcpbr numbers the tasks it loads. The agent searches the
//! repository itself, so no code context is exported.
//!
//! Import: a file of `{"instance_id", "response"}` objects (JSON lines, or
//! one JSON array), matched to the exported tasks by id and scored by name
//! match ([`crate::scoring::name_match`]). NOT the official score.

use std::collections::HashMap;

use serde_json::{Map, Value};
use thiserror::Error;

use crate::input::dataset::{kind, Dataset};
use crate::report::LineError;
use crate::scoring::name_match::{name_match, NameMatchReport, NameTask};
use crate::seeded::SplitMix64;

#[derive(Debug, Error, PartialEq)]
pub enum AgentError {
    #[error("{origin}: line {line}: {message}")]
    Line { origin: String, line: usize, message: String },
    #[error("{origin}: no tasks")]
    Empty { origin: String },
}

/// One exported task.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentTask {
    pub instance_id: String,
    pub repo: String,
    pub language: String,
    /// The needle's description, as in the dataset.
    pub description: String,
    /// The needle's name (the answer).
    pub function_name: String,
}

/// Which tasks to export.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportOptions {
    /// Keep only these languages (dataset keys); `None` keeps all.
    pub languages: Option<Vec<String>>,
    /// A sample of this many tasks (all when `None` or not smaller).
    pub sample: Option<usize>,
    /// Seed of the sample; the same seed picks the same tasks.
    pub seed: u64,
}

/// `k` distinct indexes of `0..n`, sorted (a partial Fisher–Yates shuffle).
pub fn sample_indexes(n: usize, k: usize, seed: u64) -> Vec<usize> {
    let k = k.min(n);
    let mut idx: Vec<usize> = (0..n).collect();
    let mut rng = SplitMix64(seed);
    for i in 0..k {
        let j = i + rng.below((n - i) as u64) as usize;
        idx.swap(i, j);
    }
    let mut chosen = idx[..k].to_vec();
    chosen.sort_unstable();
    chosen
}

/// The agent tasks of a dataset: needles in dataset order (languages,
/// repos, needles), filtered, sampled, then numbered.
pub fn export_tasks(dataset: &Dataset, options: &ExportOptions) -> Vec<AgentTask> {
    let mut all = Vec::new();
    for (lang, repos) in &dataset.languages {
        if options.languages.as_ref().is_some_and(|ls| !ls.iter().any(|l| l == lang)) {
            continue;
        }
        for r in repos {
            for n in &r.needles {
                all.push((lang, &r.repo, n));
            }
        }
    }
    let chosen: Vec<usize> = match options.sample {
        Some(k) if k < all.len() => sample_indexes(all.len(), k, options.seed),
        _ => (0..all.len()).collect(),
    };
    chosen
        .into_iter()
        .enumerate()
        .map(|(i, j)| {
            let (lang, repo, n) = all[j];
            AgentTask {
                instance_id: format!("repoqa_{i}"),
                repo: repo.clone(),
                language: lang.clone(),
                description: n.description.clone(),
                function_name: n.name.clone(),
            }
        })
        .collect()
}

impl AgentTask {
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("instance_id".into(), Value::String(self.instance_id.clone()));
        m.insert("repo".into(), Value::String(self.repo.clone()));
        m.insert("language".into(), Value::String(self.language.clone()));
        m.insert("description".into(), Value::String(self.description.clone()));
        m.insert("function_name".into(), Value::String(self.function_name.clone()));
        Value::Object(m)
    }
}

/// The export as JSON lines.
pub fn tasks_jsonl(tasks: &[AgentTask]) -> String {
    let mut out = String::new();
    for t in tasks {
        out.push_str(&crate::python::json::dumps(&t.to_value()));
        out.push('\n');
    }
    out
}

/// The JSON objects of a file: one JSON array, or one object per line
/// (blank lines skipped). Each comes with its line number (1 for an array).
/// A JSON object of a file with its line, or what is wrong with that line.
type Numbered = (usize, Result<Map<String, Value>, String>);

fn objects(text: &str) -> Result<Vec<Numbered>, LineError> {
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    if trimmed.starts_with('[') {
        let v: Value = serde_json::from_str(trimmed)
            .map_err(|e| LineError { line: e.line(), message: format!("not valid JSON: {e}") })?;
        let items = match v {
            Value::Array(items) => items,
            other => {
                return Err(LineError {
                    line: 1,
                    message: format!("expected a JSON array, found {}", kind(&other)),
                })
            }
        };
        return Ok(items
            .into_iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::Object(m) => (1, Ok(m)),
                other => (1, Err(format!("item {i}: expected an object, found {}", kind(&other)))),
            })
            .collect());
    }
    Ok(crate::scoring::answers::lines(text)
        .into_iter()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(n, l)| {
            let parsed = match serde_json::from_str::<Value>(l) {
                Ok(Value::Object(m)) => Ok(m),
                Ok(other) => Err(format!("expected a JSON object, found {}", kind(&other))),
                Err(e) => Err(format!(
                    "not valid JSON: {}",
                    e.to_string().replace(" at line 1 column ", " at column ")
                )),
            };
            (n, parsed)
        })
        .collect())
}

fn string_field(m: &Map<String, Value>, key: &str) -> Result<String, String> {
    match m.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(v) => Err(format!("field \"{key}\" must be a string, found {}", kind(v))),
        None => Err(format!("field \"{key}\" is missing")),
    }
}

/// Read an export back (to score results against it).
pub fn read_tasks(text: &str, origin: &str) -> Result<Vec<AgentTask>, AgentError> {
    let line_err = |line: usize, message: String| AgentError::Line {
        origin: origin.to_string(),
        line,
        message,
    };
    let mut out = Vec::new();
    for (n, m) in objects(text).map_err(|e| line_err(e.line, e.message))? {
        let m = m.map_err(|e| line_err(n, e))?;
        let get = |k: &str| string_field(&m, k).map_err(|e| line_err(n, e));
        out.push(AgentTask {
            instance_id: get("instance_id")?,
            repo: get("repo")?,
            language: get("language")?,
            description: get("description")?,
            function_name: get("function_name")?,
        });
    }
    if out.is_empty() {
        return Err(AgentError::Empty { origin: origin.to_string() });
    }
    Ok(out)
}

/// One agent response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentResponse {
    pub line: usize,
    pub instance_id: String,
    pub response: String,
}

/// What an agent results file holds: responses and the lines not used.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AgentResults {
    pub responses: Vec<AgentResponse>,
    pub errors: Vec<LineError>,
}

/// Read `{"instance_id", "response"}` objects (`"solution"` is accepted for
/// `"response"`, as mcpbr calls it). Bad lines are listed, good ones kept.
pub fn read_results(text: &str) -> AgentResults {
    let mut out = AgentResults::default();
    let items = match objects(text) {
        Ok(items) => items,
        Err(e) => {
            out.errors.push(e);
            return out;
        }
    };
    for (n, m) in items {
        let parsed = m.and_then(|m| {
            let id = string_field(&m, "instance_id")?;
            let response = if m.contains_key("response") || !m.contains_key("solution") {
                string_field(&m, "response")?
            } else {
                string_field(&m, "solution")?
            };
            Ok((id, response))
        });
        match parsed {
            Ok((instance_id, response)) => {
                out.responses.push(AgentResponse { line: n, instance_id, response })
            }
            Err(message) => out.errors.push(LineError { line: n, message }),
        }
    }
    out
}

/// Agent results scored against the exported tasks.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentScore {
    pub report: NameMatchReport,
    /// Exported tasks without a response (counted as not found).
    pub unanswered: Vec<String>,
    /// Responses whose id is not an exported task (ignored).
    pub unknown: Vec<String>,
    /// Ids answered more than once (the first response counts).
    pub duplicates: Vec<String>,
}

/// Name-match each exported task against its response.
pub fn score_results(tasks: &[AgentTask], results: &AgentResults) -> AgentScore {
    let mut by_id: HashMap<&str, &str> = HashMap::new();
    let mut unknown = Vec::new();
    let mut duplicates = Vec::new();
    let known: HashMap<&str, ()> = tasks.iter().map(|t| (t.instance_id.as_str(), ())).collect();
    for r in &results.responses {
        if !known.contains_key(r.instance_id.as_str()) {
            unknown.push(r.instance_id.clone());
        } else if by_id.contains_key(r.instance_id.as_str()) {
            duplicates.push(r.instance_id.clone());
        } else {
            by_id.insert(&r.instance_id, &r.response);
        }
    }
    let mut unanswered = Vec::new();
    let name_tasks: Vec<NameTask> = tasks
        .iter()
        .map(|t| {
            let reply = by_id.get(t.instance_id.as_str()).copied();
            if reply.is_none() {
                unanswered.push(t.instance_id.clone());
            }
            NameTask {
                language: t.language.clone(),
                repo: t.repo.clone(),
                name: t.function_name.clone(),
                description: t.description.clone(),
                reply: reply.unwrap_or_default().to_string(),
            }
        })
        .collect();
    AgentScore { report: name_match(&name_tasks), unanswered, unknown, duplicates }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dataset() -> Dataset {
        let v = serde_json::json!({
            "python": [{"repo": "a/py", "content": {"m.py": "def f():\n    pass\n"},
                "dependency": {"m.py": []}, "functions": {},
                "needles": [
                    {"name": "parse_header", "start_line": 0, "end_line": 2, "start_byte": 0, "end_byte": 17, "path": "m.py", "description": "Parses a header."},
                    {"name": "render_table", "start_line": 0, "end_line": 2, "start_byte": 0, "end_byte": 17, "path": "m.py", "description": "Draws a table."}
                ]}],
            "rust": [{"repo": "a/rs", "content": {"m.rs": "fn g() {}\n"},
                "dependency": {"m.rs": []}, "functions": {},
                "needles": [
                    {"name": "build_index", "start_line": 0, "end_line": 1, "start_byte": 0, "end_byte": 9, "path": "m.rs", "description": "Indexes."}
                ]}]
        });
        Dataset::from_value(v, "test.json").unwrap()
    }

    #[test]
    fn export_numbers_filters_and_samples() {
        let d = dataset();
        let all = export_tasks(&d, &ExportOptions::default());
        let ids: Vec<&str> = all.iter().map(|t| t.instance_id.as_str()).collect();
        assert_eq!(ids, ["repoqa_0", "repoqa_1", "repoqa_2"]);
        assert_eq!(all[2].function_name, "build_index");
        assert_eq!(
            tasks_jsonl(&all[..1]),
            "{\"instance_id\": \"repoqa_0\", \"repo\": \"a/py\", \"language\": \"python\", \"description\": \"Parses a header.\", \"function_name\": \"parse_header\"}\n"
        );
        let rust = export_tasks(
            &d,
            &ExportOptions { languages: Some(vec!["rust".into()]), ..Default::default() },
        );
        assert_eq!(rust.len(), 1);
        assert_eq!(rust[0].instance_id, "repoqa_0");
        let opts = ExportOptions { sample: Some(2), seed: 7, ..Default::default() };
        let a = export_tasks(&d, &opts);
        assert_eq!(a, export_tasks(&d, &opts), "same seed, same sample");
        assert_eq!(a.len(), 2);
        assert_eq!(read_tasks(&tasks_jsonl(&a), "x").unwrap(), a);
    }

    #[test]
    fn samples_are_distinct_sorted_and_seeded() {
        let s = sample_indexes(500, 50, 1);
        assert_eq!(s.len(), 50);
        assert!(s.windows(2).all(|w| w[0] < w[1]));
        assert_ne!(s, sample_indexes(500, 50, 2));
        assert_eq!(sample_indexes(3, 10, 1), [0, 1, 2]);
    }

    #[test]
    fn import_scores_by_name_and_lists_problems() {
        let tasks = export_tasks(&dataset(), &ExportOptions::default());
        let text = concat!(
            "{\"instance_id\": \"repoqa_0\", \"response\": \"The function is `parse_header`.\"}\n",
            "{\"instance_id\": \"repoqa_2\", \"solution\": \"BUILD_INDEX does it\"}\n",
            "{\"instance_id\": \"repoqa_2\", \"response\": \"no\"}\n",
            "{\"instance_id\": \"repoqa_9\", \"response\": \"x\"}\n",
            "not json\n",
            "{\"instance_id\": 3}\n",
        );
        let results = read_results(text);
        assert_eq!(results.responses.len(), 4);
        assert_eq!(results.errors.iter().map(|e| e.line).collect::<Vec<_>>(), [5, 6]);
        let s = score_results(&tasks, &results);
        assert_eq!((s.report.overall.found, s.report.overall.n), (2, 3));
        assert_eq!(s.unanswered, ["repoqa_1"]);
        assert_eq!(s.unknown, ["repoqa_9"]);
        assert_eq!(s.duplicates, ["repoqa_2"]);
        let array = read_results(r#"[{"instance_id": "repoqa_1", "response": "render_table"}]"#);
        assert_eq!(score_results(&tasks, &array).report.overall.found, 1);
    }
}
