//! Model answers collected outside the official harness (typed in the web
//! app, or imported from a JSONL file) and mapped onto built tasks; and the
//! way back: an outputs JSONL in the official format, which `repoqa score`
//! and the official `compute_score` accept.
//!
//! Two line forms are accepted on import:
//! - official: a task dict plus `"output": [reply, …]` (only `output[0]` is
//!   read, as the official scorer does); the task is found by
//!   `language::repo::name`;
//! - simple: `{"task_id": …, "output": …}` or `{"name": …, "output": …}`,
//!   `output` a string or a list; a bare name must match exactly one task.
//!
//! Broken lines are reported by number and the good ones kept.

use std::borrow::Borrow;
use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use crate::report::Task;
use crate::report::{
    output_line, output_reply, read_model_outputs, LineError, ModelOutput, OutputForm, ReportError,
};

/// One answer found in an imported file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportedAnswer {
    /// 1-based line number in the file.
    pub line: usize,
    pub task_id: String,
    pub reply: String,
}

/// What an import found: answers for known tasks, and the lines it could not use.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AnswersImport {
    pub answers: Vec<ImportedAnswer>,
    pub errors: Vec<LineError>,
}

/// Lines split like Python's universal newlines (`\n`, `\r\n`, `\r`), numbered from 1,
/// so line numbers agree with the CLI's reports on the same file.
pub fn lines(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let (mut start, mut i) = (0, 0);
    while i < bytes.len() {
        if bytes[i] == b'\n' || bytes[i] == b'\r' {
            out.push((out.len() + 1, &text[start..i]));
            i += if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') { 2 } else { 1 };
            start = i;
        } else {
            i += 1;
        }
    }
    if start < bytes.len() {
        out.push((out.len() + 1, &text[start..]));
    }
    out
}

use crate::input::dataset::kind;

/// Map an outputs JSONL text onto `tasks` (by id, or by unambiguous name).
pub fn import_answers<T: Borrow<Task>>(text: &str, tasks: &[T]) -> AnswersImport {
    let mut importer = AnswersImporter::new(tasks);
    for (n, line) in lines(text) {
        importer.line(n, line);
    }
    importer.finish()
}

/// [`import_answers`] a line at a time, so the browser can read a large
/// outputs file (the official form repeats each 16k-token prompt) in
/// slices and keep the page answering.
pub struct AnswersImporter<'t> {
    ids: HashMap<String, ()>,
    by_name: HashMap<&'t str, Vec<String>>,
    seen: HashMap<String, usize>,
    out: AnswersImport,
}

impl<'t> AnswersImporter<'t> {
    pub fn new<T: Borrow<Task>>(tasks: &'t [T]) -> AnswersImporter<'t> {
        let ids: HashMap<String, ()> = tasks.iter().map(|t| (t.borrow().task_id(), ())).collect();
        let mut by_name: HashMap<&str, Vec<String>> = HashMap::new();
        for t in tasks {
            let t = t.borrow();
            by_name.entry(t.name.as_str()).or_default().push(t.task_id());
        }
        AnswersImporter { ids, by_name, seen: HashMap::new(), out: AnswersImport::default() }
    }

    /// Line `n` (1-based, from [`lines`]) of the file.
    pub fn line(&mut self, n: usize, line: &str) {
        // A byte-order mark starts line 1 of a file saved so: read past it
        // (see `crate::input::limits::BOM`).
        let line = if n == 1 { crate::input::limits::strip_bom(line) } else { line };
        if line.trim().is_empty() {
            return;
        }
        match import_line(line, &self.ids, &self.by_name) {
            Ok((task_id, reply)) => {
                if let Some(first) = self.seen.get(&task_id) {
                    self.out.errors.push(LineError {
                        line: n,
                        message: format!("task {task_id} was already answered on line {first}; this line is ignored"),
                    });
                } else {
                    self.seen.insert(task_id.clone(), n);
                    self.out.answers.push(ImportedAnswer { line: n, task_id, reply });
                }
            }
            Err(message) => self.out.errors.push(LineError { line: n, message }),
        }
    }

    pub fn finish(self) -> AnswersImport {
        self.out
    }
}

fn import_line(
    line: &str,
    ids: &HashMap<String, ()>,
    by_name: &HashMap<&str, Vec<String>>,
) -> Result<(String, String), String> {
    let value: Value = serde_json::from_str(line).map_err(|e| {
        format!("not valid JSON: {}", e.to_string().replace(" at line 1 column ", " at column "))
    })?;
    let Value::Object(m) = value else {
        return Err(format!("expected a JSON object with \"output\", found {}", kind(&value)));
    };
    let reply = output_reply(m.get("output"), OutputForm::OfficialOrText)?;
    let s = |key: &str| m.get(key).and_then(Value::as_str);
    let task_id = if let Some(id) = s("task_id") {
        id.to_string()
    } else if let (Some(l), Some(r), Some(n)) = (s("language"), s("repo"), s("name")) {
        crate::report::task_id(l, r, n)
    } else if let Some(name) = s("name") {
        match by_name.get(name).map(Vec::as_slice) {
            Some([one]) => one.clone(),
            Some(many) if many.len() > 1 => {
                return Err(format!(
                    "name {name:?} is ambiguous: {} built tasks have it (give \"task_id\" or language and repo)",
                    many.len()
                ))
            }
            _ => return Err(format!("no built task is named {name:?}")),
        }
    } else {
        return Err("no \"task_id\", \"name\" or language/repo/name fields to find the task".into());
    };
    if !ids.contains_key(&task_id) {
        return Err(format!(
            "no built task has id {task_id:?} (build the tasks from the same dataset and languages first)"
        ));
    }
    Ok((task_id, reply))
}

/// The outputs JSONL of the answered tasks, in task order, as the official
/// harness writes it: each task dict plus `"output": [answer]`.
pub fn outputs_jsonl<T: Borrow<Task>>(
    tasks: &[T],
    answers: &BTreeMap<String, String>,
) -> Result<String, ReportError> {
    let mut out = String::new();
    for t in tasks {
        let t = t.borrow();
        if let Some(a) = answers.get(&t.task_id()) {
            out.push_str(&output_line(t, std::slice::from_ref(a))?);
        }
    }
    Ok(out)
}

/// The [`ModelOutput`] the scorer would read for `task` answered with
/// `reply`: the official line is written and read back, so the UI scores
/// exactly what `repoqa score` would read from the exported file.
pub fn model_output(task: &Task, reply: &str, line: usize) -> Result<ModelOutput, String> {
    let text = output_line(task, &[reply.to_string()]).map_err(|e| e.to_string())?;
    let mut file = read_model_outputs(&text);
    if let Some(e) = file.errors.first() {
        return Err(e.message.clone());
    }
    let mut o = file
        .outputs
        .pop()
        .ok_or_else(|| "the task's outputs line was not read back".to_string())?;
    o.line = line;
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(lang: &str, repo: &str, name: &str) -> Task {
        Task {
            repo: repo.into(),
            name: name.into(),
            language: lang.into(),
            path: "a.py".into(),
            position_ratio: 0.5,
            description: "d".into(),
            instruction: "i".into(),
            template: "instruction".into(),
            code_context: "c".into(),
            needle_token_start: 1,
            needle_token_end: 2,
            code_context_ntokens: 3,
            protocol: Default::default(),
        }
    }

    #[test]
    fn official_and_simple_lines_map_to_tasks_and_bad_lines_are_numbered() {
        let tasks =
            vec![task("python", "a/b", "f"), task("python", "a/b", "g"), task("rust", "c/d", "g")];
        let official = output_line(&tasks[0], &["def f(): pass".into(), "x".into()]).unwrap();
        let text = format!(
            "{official}\n{{not json\r\n{}\n{}\n{}\n{}\n{}\n{}\n[1]\n{}",
            r#"{"task_id": "rust::c/d::g", "output": "fn g() {}"}"#,
            r#"{"name": "g", "output": ["?"]}"#,
            r#"{"name": "zz", "output": "?"}"#,
            r#"{"task_id": "python::a/b::f", "output": ["again"]}"#,
            r#"{"task_id": "python::a/b::nope", "output": ["x"]}"#,
            r#"{"task_id": "python::a/b::g", "output": 3}"#,
            r#"{"language": "python", "repo": "a/b", "name": "g", "output": []}"#,
        );
        let got = import_answers(&text, &tasks);
        let answers: Vec<(usize, &str, &str)> =
            got.answers.iter().map(|a| (a.line, a.task_id.as_str(), a.reply.as_str())).collect();
        assert_eq!(
            answers,
            [(1, "python::a/b::f", "def f(): pass"), (4, "rust::c/d::g", "fn g() {}")]
        );
        let errs: Vec<usize> = got.errors.iter().map(|e| e.line).collect();
        assert_eq!(errs, [3, 5, 6, 7, 8, 9, 10, 11]);
        assert!(got.errors[1].message.contains("ambiguous"), "{}", got.errors[1]);
        assert!(got.errors[3].message.contains("already answered on line 1"), "{}", got.errors[3]);
    }

    #[test]
    fn exported_lines_are_read_by_the_scorer_reader() {
        let tasks = vec![task("python", "a/b", "f"), task("python", "a/b", "g")];
        let mut answers = BTreeMap::new();
        answers.insert("python::a/b::g".to_string(), "<script>alert(1)</script>".to_string());
        let text = outputs_jsonl(&tasks, &answers).unwrap();
        let file = read_model_outputs(&text);
        assert!(file.errors.is_empty());
        assert_eq!(file.outputs.len(), 1);
        assert_eq!(file.outputs[0].name, "g");
        assert_eq!(file.outputs[0].reply, "<script>alert(1)</script>");
        let o = model_output(&tasks[1], "x", 7).unwrap();
        assert_eq!((o.line, o.reply.as_str(), o.position_ratio.as_f64()), (7, "x", Some(0.5)));
        // And imported back to the same task.
        let back = import_answers(&text, &tasks);
        assert_eq!(back.answers[0].task_id, "python::a/b::g");
    }
}
