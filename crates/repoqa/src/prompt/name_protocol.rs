//! The "name protocol": the official tasks' code contexts and descriptions
//! with an instruction that asks for the function's name only, scored by
//! name match ([`crate::scoring::name_match`]). Cheap to run (a reply of a few
//! tokens), but NOT the official Searching-Needle-Function protocol, whose
//! replies repeat the function and are scored with BLEU; its rates are not
//! comparable with published scores. Every task it writes says so in a
//! `protocol` field, which the official tools ignore.

use serde_json::Value;

use crate::report::ReportError;
use crate::report::Task;

/// The instruction that replaces [`crate::prompt::context::INSTRUCTION`].
pub const NAME_INSTRUCTION: &str = "Based on the function description and code context, please give the name of the described function from the code context. Reply with the function's name only:";

/// The label shown wherever name-protocol tasks or scores appear.
pub const LABEL: &str = "name protocol (NOT the official SNF protocol: the reply is the function's name, scored by name match)";

/// The value of the `protocol` field of a name-protocol task.
pub const PROTOCOL_FIELD: &str = "name-only (not the official SNF protocol)";

/// The same task, asking for the name only.
pub fn name_task(task: &Task) -> Task {
    Task { instruction: NAME_INSTRUCTION.to_string(), ..task.clone() }
}

/// One JSONL line of a name-protocol task: the official task dict with the
/// name instruction, plus `"protocol"` at the end.
pub fn task_line(task: &Task) -> Result<String, ReportError> {
    let mut v = serde_json::to_value(name_task(task))
        .map_err(|e| ReportError::Serialize { what: "a task".into(), message: e.to_string() })?;
    if let Value::Object(m) = &mut v {
        m.insert("protocol".into(), Value::String(PROTOCOL_FIELD.into()));
    }
    let mut s = crate::python::json::dumps(&v);
    s.push('\n');
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_instruction_changes() {
        let t = Task {
            repo: "a/b".into(),
            name: "f".into(),
            language: "python".into(),
            path: "m.py".into(),
            position_ratio: 0.5,
            description: "\nFunction Description:d\n".into(),
            instruction: crate::prompt::context::INSTRUCTION.into(),
            template: crate::prompt::context::TEMPLATE.into(),
            code_context: "def f(): pass\n".into(),
            needle_token_start: 1,
            needle_token_end: 2,
            code_context_ntokens: 3,
            protocol: Default::default(),
        };
        let n = name_task(&t);
        assert_eq!(n.code_context, t.code_context);
        assert_eq!(n.description, t.description);
        assert!(n.prompt().starts_with(NAME_INSTRUCTION));
        assert!(n.prompt().ends_with(NAME_INSTRUCTION));
        let line = task_line(&t).unwrap();
        assert!(line.ends_with("\"protocol\": \"name-only (not the official SNF protocol)\"}\n"));
    }
}
