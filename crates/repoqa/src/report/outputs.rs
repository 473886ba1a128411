//! Tasks and model-outputs JSONL files as the official harness writes and
//! reads them: one task dict per line, outputs adding `"output": [reply]`;
//! broken lines reported by number, the rest kept.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::Protocol;
use super::{LineError, ReportError};
use crate::input::dataset::kind;
use crate::input::limits::{size_label, strip_bom, OutputsLimits};
use crate::python::json;

/// One line of a model-outputs file: the fields `compute_score` reads, plus
/// the whole record (task fields such as `code_context` and `description`
/// for display, and any extra fields, which the official code ignores).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ModelOutput {
    /// 1-based line number in the file.
    pub line: usize,
    pub language: String,
    pub repo: String,
    /// The needle's name (the ground truth).
    pub name: String,
    /// `output[0]`: the official scorer reads only the first reply.
    pub reply: String,
    /// `position_ratio`, copied into `needle_position` as is.
    pub position_ratio: Value,
    pub needle_token_start: Value,
    pub needle_token_end: Value,
    /// The whole JSON object of the line.
    pub record: Map<String, Value>,
}

impl ModelOutput {
    /// The id of the task this line answers (`task_id`).
    pub fn task_id(&self) -> String {
        super::task_id(&self.language, &self.repo, &self.name)
    }

    /// The task's `code_context`, if the line has it as a string.
    pub fn code_context(&self) -> Option<&str> {
        self.record.get("code_context").and_then(Value::as_str)
    }
}

/// A parsed outputs file: the good lines and the broken ones.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OutputsFile {
    pub outputs: Vec<ModelOutput>,
    pub errors: Vec<LineError>,
}

/// Lines as Python's text-mode file iteration yields them (universal
/// newlines: `\n`, `\r\n` and `\r` all end a line), numbered from 1.
fn py_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut n = 0;
    std::iter::from_fn(move || {
        if start >= bytes.len() {
            return None;
        }
        let mut i = start;
        while i < bytes.len() && bytes[i] != b'\n' && bytes[i] != b'\r' {
            i += 1;
        }
        let line = &text[start..i];
        start = if i + 1 < bytes.len() && bytes[i] == b'\r' && bytes[i + 1] == b'\n' {
            i + 2
        } else {
            i + 1
        };
        n += 1;
        Some((n, line))
    })
}

/// Read a model-outputs JSONL text (`json.loads` of each line). Blank lines
/// are skipped (the official reader would stop with a JSONDecodeError on
/// them); every other bad line is reported with its number and the fields
/// it lacks, and the good lines are kept.
///
/// A byte-order mark at the start is read past: the official harness's
/// `json.loads` refuses it ("Unexpected UTF-8 BOM"), but the lines are the
/// same, so the score is the one it gives for the file saved without the
/// mark (see `crate::input::limits::BOM`).
///
/// The default [`OutputsLimits`] apply: a line over the length limit is a
/// broken line, and reading stops with a broken line past the answer limit.
pub fn read_model_outputs(text: &str) -> OutputsFile {
    read_model_outputs_with_limits(text, &OutputsLimits::default())
}

/// [`read_model_outputs`] with other limits than the defaults.
pub fn read_model_outputs_with_limits(text: &str, limits: &OutputsLimits) -> OutputsFile {
    let mut file = OutputsFile::default();
    let mut answers = 0;
    for (n, line) in py_lines(strip_bom(text)) {
        if line.trim().is_empty() {
            continue;
        }
        answers += 1;
        if answers > limits.max_answers {
            file.errors.push(LineError {
                line: n,
                message: format!(
                    "more than {} answers in the file, the limit; the rest is not read",
                    limits.max_answers
                ),
            });
            break;
        }
        if line.len() > limits.max_line_bytes {
            file.errors.push(LineError {
                line: n,
                message: format!(
                    "the line is {} bytes long, over the limit of {}; not read",
                    line.len(),
                    size_label(limits.max_line_bytes as u64)
                ),
            });
            continue;
        }
        match parse_output_line(n, line) {
            Ok(o) => file.outputs.push(o),
            Err(message) => file.errors.push(LineError { line: n, message }),
        }
    }
    file
}

impl OutputsFile {
    /// Every task (language, repo, needle) is scored once: a later line for
    /// a task already read becomes a broken line (naming the first), and
    /// only the first is kept, as the page's answers import does. The
    /// official scorer would count both, so a file with repeats has no
    /// official score; `repoqa score --skip-broken-lines` scores the first
    /// of each.
    pub fn drop_repeated_tasks(&mut self) {
        let mut first: HashMap<(&str, &str, &str), usize> = HashMap::new();
        let mut keep = Vec::with_capacity(self.outputs.len());
        for o in &self.outputs {
            let key = (o.language.as_str(), o.repo.as_str(), o.name.as_str());
            match first.get(&key) {
                Some(&line) => {
                    keep.push(false);
                    self.errors.push(LineError {
                        line: o.line,
                        // Worded as the page's answers import words it.
                        message: format!(
                            "task {} was already answered on line {line}; this line is ignored",
                            o.task_id()
                        ),
                    });
                }
                None => {
                    keep.push(true);
                    first.insert(key, o.line);
                }
            }
        }
        let mut keep = keep.into_iter();
        self.outputs.retain(|_| keep.next().unwrap_or(true));
        self.errors.sort_by_key(|e| e.line);
    }
}

fn parse_output_line(n: usize, line: &str) -> Result<ModelOutput, String> {
    // serde_json reports "line 1 column N" of the single line: keep the column.
    let value: Value = serde_json::from_str(line).map_err(|e| {
        format!("not valid JSON: {}", e.to_string().replace(" at line 1 column ", " at column "))
    })?;
    let Value::Object(record) = value else {
        return Err(format!(
            "expected a JSON object (a task dict with \"output\"), found {}",
            kind(&value)
        ));
    };
    let string = |key: &str| -> Result<String, String> {
        match record.get(key) {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(v) => Err(format!("field \"{key}\" must be a string, found {}", kind(v))),
            None => Err(format!("field \"{key}\" is missing")),
        }
    };
    let present = |key: &str| -> Result<Value, String> {
        record.get(key).cloned().ok_or_else(|| format!("field \"{key}\" is missing"))
    };
    let language = string("language")?;
    let repo = string("repo")?;
    let reply = output_reply(record.get("output"), OutputForm::Official)?;
    let name = string("name")?;
    let position_ratio = present("position_ratio")?;
    let needle_token_start = present("needle_token_start")?;
    let needle_token_end = present("needle_token_end")?;
    Ok(ModelOutput {
        line: n,
        language,
        repo,
        name,
        reply,
        position_ratio,
        needle_token_start,
        needle_token_end,
        record,
    })
}

/// One line of a model-outputs file, as the official harness writes it:
/// What an answer's `"output"` field may be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputForm {
    /// As the official files have it: a list of replies, the first scored.
    Official,
    /// That, or the reply as a bare string (answers typed or imported in
    /// the app, in the simple form).
    OfficialOrText,
}

/// The reply an answer's `"output"` field holds (`output[0]`, as the
/// official scorer reads it), or why there is none. The one place both the
/// official outputs files and the app's answer import read the field.
pub fn output_reply(output: Option<&Value>, form: OutputForm) -> Result<String, String> {
    match output {
        Some(Value::String(s)) if form == OutputForm::OfficialOrText => Ok(s.clone()),
        Some(Value::Array(items)) => match items.first() {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(v) => {
                Err(format!("field \"output\"[0] must be a string (the reply), found {}", kind(v)))
            }
            None => {
                Err("field \"output\" is an empty list (the official scorer reads output[0])"
                    .into())
            }
        },
        Some(v) => Err(match form {
            OutputForm::Official => {
                format!("field \"output\" must be a list of replies, found {}", kind(v))
            }
            OutputForm::OfficialOrText => {
                format!("field \"output\" must be a string or a list of replies, found {}", kind(v))
            }
        }),
        None => {
            Err("field \"output\" is missing (is this a tasks file rather than model outputs?)"
                .into())
        }
    }
}

/// `json.dumps({**task, "output": replies}) + "\n"`.
pub fn output_line<T: serde::Serialize>(
    task: &T,
    replies: &[String],
) -> Result<String, ReportError> {
    let mut v = serde_json::to_value(task)
        .map_err(|e| ReportError::Serialize { what: "a task".into(), message: e.to_string() })?;
    let Value::Object(map) = &mut v else {
        return Err(ReportError::Serialize {
            what: "a task".into(),
            message: "not a JSON object".into(),
        });
    };
    map.insert("output".into(), Value::Array(replies.iter().cloned().map(Value::String).collect()));
    let mut s = json::dumps(&v);
    s.push('\n');
    Ok(s)
}

/// The protocol the prompts of an outputs file were built with: the
/// `"protocol"` field of its lines (absent = official). Lines of different
/// protocols cannot be scored together.
pub fn outputs_protocol(outputs: &[ModelOutput]) -> Result<Protocol, ReportError> {
    let mut found: Option<(Protocol, usize)> = None;
    for o in outputs {
        let p = match o.record.get("protocol") {
            None => Protocol::Official,
            Some(Value::String(s)) => s.parse().map_err(|e: super::UnknownProtocol| {
                ReportError::Message(format!("line {}: field `protocol`: {e}", o.line))
            })?,
            Some(v) => {
                return Err(ReportError::Message(format!(
                    "line {}: field `protocol`: expected a string, found {}",
                    o.line,
                    kind(v)
                )))
            }
        };
        // NOT UPSTREAM: closed-book lines also say `"closed_book": true`
        // (files written before that field say it by the protocol alone).
        match o.record.get("closed_book") {
            None => {}
            Some(Value::Bool(b)) if *b == (p == Protocol::NoContext) => {}
            Some(v) => {
                return Err(ReportError::Message(format!(
                    "line {}: field `closed_book` is {v}, but the line's protocol is {p} (closed-book is the no-context protocol)",
                    o.line
                )))
            }
        }
        match found {
            None => found = Some((p, o.line)),
            Some((q, line)) if q != p => {
                return Err(ReportError::Message(format!(
                    "line {line} was built with the {q} protocol but line {} with the {p} protocol: score them separately",
                    o.line
                )))
            }
            Some(_) => {}
        }
    }
    Ok(found.map_or(Protocol::Official, |(p, _)| p))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn protocol_of(lines: &[&str]) -> Result<Protocol, String> {
        let file = read_model_outputs(&lines.join("\n"));
        assert!(file.errors.is_empty(), "{:?}", file.errors);
        outputs_protocol(&file.outputs).map_err(|e| e.to_string())
    }

    const LINE: &str = r#"{"repo":"r","name":"f","language":"python","position_ratio":0.5,"needle_token_start":1,"needle_token_end":2,"output":["x"]"#;

    /// `closed_book` agrees with the protocol or the file is refused, with
    /// the line named; a line without it is read by its protocol alone.
    #[test]
    fn closed_book_must_agree_with_the_protocol() {
        let line = |extra: &str| format!("{LINE}{extra}}}");
        let closed = line(r#","protocol":"no-context","closed_book":true"#);
        assert_eq!(protocol_of(&[&closed]), Ok(Protocol::NoContext));
        assert_eq!(protocol_of(&[&line(r#","protocol":"no-context""#)]), Ok(Protocol::NoContext));
        assert_eq!(protocol_of(&[&line(r#","closed_book":false"#)]), Ok(Protocol::Official));
        let e = protocol_of(&[&closed, &line(r#","closed_book":true"#)]).expect_err("refused");
        assert!(e.contains("line 2: field `closed_book` is true"), "{e}");
        assert!(e.contains("protocol is official"), "{e}");
        let e = protocol_of(&[&line(r#","protocol":"no-context","closed_book":"yes""#)])
            .expect_err("refused");
        assert!(e.contains("line 1: field `closed_book` is \"yes\""), "{e}");
    }
}
