//! Name-match scoring, the way agent harnesses (mcpbr) score RepoQA: a task
//! is solved when the needle's name appears in the reply, case-insensitively,
//! anywhere (`name.lower() in reply.lower()`).
//!
//! This is NOT the official score (docs/parity.md S1–S6 compare the
//! function's code with BLEU). It is shown beside it, per task and per
//! language, with a warning wherever a match says little: a short or common
//! name appears in almost any text, a name written in the description can be
//! echoed without finding anything, and a name inside another needle's name
//! matches when the reply names that other function.

use std::collections::HashMap;

use indexmap::IndexMap;
use serde_json::{Map, Value};

use crate::report::ModelOutput;

/// Names shorter than this (in characters) are flagged as short.
pub const SHORT_NAME_CHARS: usize = 5;

/// Identifiers and words that occur in most explanations of code, so a
/// reply can contain them without naming the function.
const COMMON_NAMES: &[&str] = &[
    "add",
    "apply",
    "build",
    "call",
    "check",
    "clear",
    "clone",
    "close",
    "compare",
    "compute",
    "configure",
    "connect",
    "convert",
    "copy",
    "create",
    "decode",
    "default",
    "delete",
    "deserialize",
    "dispatch",
    "drop",
    "emit",
    "encode",
    "equals",
    "error",
    "eval",
    "evaluate",
    "execute",
    "filter",
    "find",
    "flush",
    "fmt",
    "format",
    "from",
    "generate",
    "get",
    "handle",
    "handler",
    "hash",
    "hashcode",
    "helper",
    "init",
    "initialize",
    "insert",
    "into",
    "invoke",
    "items",
    "keys",
    "len",
    "length",
    "list",
    "load",
    "log",
    "lookup",
    "main",
    "map",
    "merge",
    "name",
    "new",
    "next",
    "open",
    "parse",
    "print",
    "process",
    "push",
    "put",
    "read",
    "remove",
    "render",
    "replace",
    "reset",
    "resolve",
    "run",
    "save",
    "search",
    "send",
    "serialize",
    "set",
    "setup",
    "size",
    "sort",
    "split",
    "start",
    "stop",
    "string",
    "test",
    "tostring",
    "to_string",
    "transform",
    "update",
    "validate",
    "value",
    "values",
    "visit",
    "wrap",
    "wrapper",
    "write",
];

/// Why a name match may not mean the function was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Warning {
    /// Fewer than [`SHORT_NAME_CHARS`] characters.
    ShortName,
    /// A word most explanations of code contain.
    CommonName,
    /// The task's description contains the name: echoing it matches.
    InDescription,
    /// Another needle of the repo contains the name (that needle's name).
    PartOfOtherName(String),
}

impl Warning {
    /// A short code, as written in the JSON.
    pub fn code(&self) -> &'static str {
        match self {
            Warning::ShortName => "short-name",
            Warning::CommonName => "common-name",
            Warning::InDescription => "name-in-description",
            Warning::PartOfOtherName(_) => "part-of-other-name",
        }
    }

    pub fn describe(&self) -> String {
        match self {
            Warning::ShortName => {
                format!("the name is shorter than {SHORT_NAME_CHARS} characters")
            }
            Warning::CommonName => "the name is a common word in code explanations".into(),
            Warning::InDescription => "the description contains the name".into(),
            Warning::PartOfOtherName(other) => {
                format!("the name is part of another needle's name ({other})")
            }
        }
    }
}

/// What one task needs for name matching.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameTask {
    pub language: String,
    pub repo: String,
    /// The needle's name.
    pub name: String,
    /// The needle's description (as given to the model).
    pub description: String,
    /// The reply (or agent response).
    pub reply: String,
}

/// The verdict for one task.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskMatch {
    pub language: String,
    pub repo: String,
    pub name: String,
    pub found: bool,
    pub warnings: Vec<Warning>,
}

impl TaskMatch {
    /// The id of the task (`report::task_id`).
    pub fn task_id(&self) -> String {
        crate::report::task_id(&self.language, &self.repo, &self.name)
    }
}

/// Found out of n.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rate {
    pub found: usize,
    pub n: usize,
}

impl Rate {
    /// `found / n`; 0 without tasks.
    pub fn rate(self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.found as f64 / self.n as f64
        }
    }

    fn add(&mut self, found: bool) {
        self.n += 1;
        self.found += usize::from(found);
    }
}

/// Name-match over many tasks.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NameMatchReport {
    pub overall: Rate,
    /// Languages in order of first appearance.
    pub languages: IndexMap<String, Rate>,
    /// Only the tasks without any warning.
    pub reliable: Rate,
    pub tasks: Vec<TaskMatch>,
}

/// mcpbr's rule: `name.lower() in reply.lower()`; an empty name is never found.
pub fn name_found(name: &str, reply: &str) -> bool {
    !name.is_empty() && reply.to_lowercase().contains(&name.to_lowercase())
}

/// The warnings for a needle name, given its description and the names of
/// the other needles of its repo.
pub fn warnings_for(name: &str, description: &str, other_names: &[&str]) -> Vec<Warning> {
    let mut out = Vec::new();
    let lower = name.to_lowercase();
    if name.chars().count() < SHORT_NAME_CHARS {
        out.push(Warning::ShortName);
    }
    let bare = lower.trim_matches('_');
    if COMMON_NAMES.contains(&bare) || COMMON_NAMES.contains(&lower.as_str()) {
        out.push(Warning::CommonName);
    }
    let description = description.trim_start_matches('\n');
    let description = description.strip_prefix("Function Description:").unwrap_or(description);
    if name_found(name, description) {
        out.push(Warning::InDescription);
    }
    if let Some(other) = other_names
        .iter()
        .find(|o| o.len() > name.len() && !name.is_empty() && o.to_lowercase().contains(&lower))
    {
        out.push(Warning::PartOfOtherName(other.to_string()));
    }
    out
}

/// Name-match every task. Other needles are those of the same language and
/// repo among `tasks`.
pub fn name_match(tasks: &[NameTask]) -> NameMatchReport {
    let mut by_repo: HashMap<(&str, &str), Vec<&str>> = HashMap::new();
    for t in tasks {
        by_repo.entry((t.language.as_str(), t.repo.as_str())).or_default().push(t.name.as_str());
    }
    let mut report = NameMatchReport::default();
    for t in tasks {
        let others: Vec<&str> = by_repo
            .get(&(t.language.as_str(), t.repo.as_str()))
            .map(|v| v.iter().copied().filter(|n| *n != t.name).collect())
            .unwrap_or_default();
        let found = name_found(&t.name, &t.reply);
        let warnings = warnings_for(&t.name, &t.description, &others);
        report.overall.add(found);
        report.languages.entry(t.language.clone()).or_default().add(found);
        if warnings.is_empty() {
            report.reliable.add(found);
        }
        report.tasks.push(TaskMatch {
            language: t.language.clone(),
            repo: t.repo.clone(),
            name: t.name.clone(),
            found,
            warnings,
        });
    }
    report
}

/// The tasks of a model-outputs file: reply `output[0]`, description from
/// the line's `description` field, or else from `descriptions`
/// (`(language, repo, name)` → description, e.g. from the dataset).
pub fn tasks_from_outputs(
    outputs: &[ModelOutput],
    descriptions: &HashMap<(String, String, String), String>,
) -> Vec<NameTask> {
    outputs
        .iter()
        .map(|o| {
            let description = o
                .record
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_string)
                .or_else(|| {
                    descriptions.get(&(o.language.clone(), o.repo.clone(), o.name.clone())).cloned()
                })
                .unwrap_or_default();
            NameTask {
                language: o.language.clone(),
                repo: o.repo.clone(),
                name: o.name.clone(),
                description,
                reply: o.reply.clone(),
            }
        })
        .collect()
}

/// `(language, repo, name)` → needle description, for outputs without one.
pub fn dataset_descriptions(
    dataset: &crate::input::dataset::Dataset,
) -> HashMap<(String, String, String), String> {
    let mut out = HashMap::new();
    for (lang, repos) in &dataset.languages {
        for r in repos {
            for n in &r.needles {
                out.entry((lang.clone(), r.repo.clone(), n.name.clone()))
                    .or_insert_with(|| n.description.clone());
            }
        }
    }
    out
}

impl NameMatchReport {
    /// `{"overall": RATE, "languages": {LANG: RATE}, "tasks": [{"language",
    /// "repo", "name", "found", "warnings": [code…]}]}`.
    pub fn to_value(&self) -> Value {
        let mut langs = Map::new();
        for (l, r) in &self.languages {
            langs.insert(l.clone(), crate::python::json::float_value(r.rate()));
        }
        let tasks: Vec<Value> = self
            .tasks
            .iter()
            .map(|t| {
                let mut m = Map::new();
                m.insert("language".into(), Value::String(t.language.clone()));
                m.insert("repo".into(), Value::String(t.repo.clone()));
                m.insert("name".into(), Value::String(t.name.clone()));
                m.insert("found".into(), Value::Bool(t.found));
                m.insert(
                    "warnings".into(),
                    Value::Array(
                        t.warnings.iter().map(|w| Value::String(w.code().into())).collect(),
                    ),
                );
                Value::Object(m)
            })
            .collect();
        let mut out = Map::new();
        out.insert("overall".into(), crate::python::json::float_value(self.overall.rate()));
        out.insert("languages".into(), Value::Object(langs));
        out.insert("tasks".into(), Value::Array(tasks));
        Value::Object(out)
    }

    pub fn to_json(&self) -> String {
        crate::python::json::dumps(&self.to_value())
    }

    /// A readable summary: rates, then every task with a warning.
    pub fn render_text(&self) -> String {
        let pct = |r: Rate| format!("{:.1}% ({}/{})", 100.0 * r.rate(), r.found, r.n);
        let mut out = String::from(
            "Name match (the agent way, as mcpbr scores RepoQA: the needle's name appears in the reply; NOT the official BLEU score)\n",
        );
        out.push_str(&format!("overall: {}\n", pct(self.overall)));
        for (l, r) in &self.languages {
            out.push_str(&format!("{l}: {}\n", pct(*r)));
        }
        let flagged: Vec<&TaskMatch> =
            self.tasks.iter().filter(|t| !t.warnings.is_empty()).collect();
        out.push_str(&format!(
            "without warnings: {} ({} of {} tasks have a warning)\n",
            pct(self.reliable),
            flagged.len(),
            self.tasks.len()
        ));
        for t in flagged {
            let why: Vec<String> = t.warnings.iter().map(Warning::describe).collect();
            out.push_str(&format!(
                "  warning {} {} {} ({}): {}\n",
                t.language,
                t.repo,
                t.name,
                if t.found { "found" } else { "not found" },
                why.join("; ")
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(lang: &str, name: &str, description: &str, reply: &str) -> NameTask {
        NameTask {
            language: lang.into(),
            repo: "a/b".into(),
            name: name.into(),
            description: description.into(),
            reply: reply.into(),
        }
    }

    #[test]
    fn found_anywhere_case_insensitively() {
        assert!(name_found("parseHeader", "The function is PARSEHEADER."));
        assert!(name_found("parse_header", "```python\ndef parse_header(x):\n```"));
        assert!(!name_found("parse_header", "parse header"));
        assert!(!name_found("", "anything"));
    }

    #[test]
    fn warnings_flag_unreliable_names() {
        assert_eq!(warnings_for("get", "", &[]), [Warning::ShortName, Warning::CommonName]);
        assert_eq!(warnings_for("__init__", "", &[]), [Warning::CommonName]);
        assert_eq!(
            warnings_for("merge_sorted", "\nFunction Description:Calls merge_sorted twice.\n", &[]),
            [Warning::InDescription]
        );
        assert_eq!(
            warnings_for("load_config", "", &["load_config_file", "x"]),
            [Warning::PartOfOtherName("load_config_file".into())]
        );
        assert!(warnings_for("tokenize_header_line", "Splits a header.", &["y"]).is_empty());
        // "Function" of the description's own prefix is not the description.
        assert!(warnings_for("Function", "\nFunction Description:x\n", &[]).is_empty());
    }

    #[test]
    fn rates_per_language_and_overall() {
        let tasks = [
            task("python", "parse_header", "", "It is parse_header."),
            task("python", "render_table", "", "I could not find it."),
            task("rust", "run", "", "You can run this"),
            task("rust", "build_index", "", "BUILD_INDEX"),
        ];
        let r = name_match(&tasks);
        assert_eq!(r.overall, Rate { found: 3, n: 4 });
        assert_eq!(r.languages["python"].rate(), 0.5);
        assert_eq!(r.languages["rust"].rate(), 1.0);
        assert_eq!(r.reliable, Rate { found: 2, n: 3 });
        assert_eq!(r.tasks[2].warnings, [Warning::ShortName, Warning::CommonName]);
        assert_eq!(
            r.to_json(),
            r#"{"overall": 0.75, "languages": {"python": 0.5, "rust": 1.0}, "tasks": [{"language": "python", "repo": "a/b", "name": "parse_header", "found": true, "warnings": []}, {"language": "python", "repo": "a/b", "name": "render_table", "found": false, "warnings": []}, {"language": "rust", "repo": "a/b", "name": "run", "found": true, "warnings": ["short-name", "common-name"]}, {"language": "rust", "repo": "a/b", "name": "build_index", "found": true, "warnings": []}]}"#
        );
        assert!(r.render_text().contains("warning rust a/b run (found)"));
    }
}
