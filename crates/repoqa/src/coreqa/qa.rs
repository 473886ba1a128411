//! CoReQA's question-and-answer data: one item per question, as a JSON list
//! or JSON Lines (one object per line, blank lines skipped):
//!
//! ```json
//! {"id": "acme/widget#8", "repository": "acme/widget", "language": "python",
//!  "issue_url": "https://github.com/acme/widget/issues/8",
//!  "question": "…", "reference_answer": "…",
//!  "reference_chunks": ["…"], "issue": {…}}
//! ```
//!
//! `id`, `repository`, `question` and `reference_answer` are required
//! (`question` not blank, `id` unique); `language`, `issue_url`,
//! `reference_chunks` and `issue` (the GitHub issue object it came from)
//! are optional; any other field is kept, so a file round-trips.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::CoreqaError;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QaItem {
    pub id: String,
    pub repository: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issue_url: Option<String>,
    pub question: String,
    pub reference_answer: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_chunks: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issue: Option<Value>,
    #[serde(flatten)]
    pub rest: IndexMap<String, Value>,
}

/// Read a QA file (`name` for messages): a JSON list, or JSON Lines.
pub fn read_qa(bytes: &[u8], name: &str) -> Result<Vec<QaItem>, CoreqaError> {
    let bad =
        |line: usize, message: String| CoreqaError::Qa { path: name.to_string(), line, message };
    let text = super::utf8_text(bytes, name)?;
    let items: Vec<(usize, QaItem)> = if text.trim_start().starts_with('[') {
        let list: Vec<QaItem> =
            serde_json::from_str(text).map_err(|e| bad(e.line(), e.to_string()))?;
        list.into_iter().map(|item| (0, item)).collect()
    } else {
        let mut out = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let item: QaItem = serde_json::from_str(line).map_err(|e| bad(i + 1, e.to_string()))?;
            out.push((i + 1, item));
        }
        out
    };
    let mut seen = std::collections::HashSet::new();
    for (line, item) in &items {
        let at = |m: String| bad(*line, format!("item {:?}: {m}", item.id));
        if item.question.trim().is_empty() {
            return Err(at("the question is blank".into()));
        }
        if !seen.insert(item.id.as_str()) {
            return Err(at("this id is used twice".into()));
        }
    }
    Ok(items.into_iter().map(|(_, item)| item).collect())
}

/// The two queries of a question (CoReQA's retrieval setting): its prose,
/// and its code snippets (the contents of its fenced blocks, as
/// [`super::fence_marker`] finds them, joined by a newline; empty when it
/// has none).
pub fn question_queries(question: &str) -> (String, String) {
    let (mut prose, mut code) = (Vec::new(), Vec::new());
    let mut fence: Option<&str> = None;
    for line in question.lines() {
        match (fence, super::fence_marker(line)) {
            (None, Some(m)) => fence = Some(m),
            (Some(open), Some(m)) if m == open => fence = None,
            (Some(_), _) => code.push(line),
            (None, None) => prose.push(line),
        }
    }
    (prose.join("\n"), code.join("\n"))
}

/// The repositories `qa`'s questions are about, each once, in the order
/// they first appear (the order their questions are answered in).
pub fn repositories(qa: &[QaItem]) -> Vec<&str> {
    let mut seen = std::collections::HashSet::new();
    qa.iter().map(|q| q.repository.as_str()).filter(|r| seen.insert(*r)).collect()
}

/// The one repository the questions are about: the retrieval and whole
/// settings read one repository. Several (or none) is refused, naming them.
pub fn one_repository(qa: &[QaItem]) -> Result<&str, CoreqaError> {
    let names: std::collections::BTreeSet<&str> =
        qa.iter().map(|q| q.repository.as_str()).collect();
    match names.iter().next() {
        Some(one) if names.len() == 1 => Ok(one),
        _ => Err(CoreqaError::Setting {
            message: format!(
                "the retrieval and whole settings read one repository, but the questions are about {} ({}): answer each repository's questions on their own",
                names.len(),
                names.into_iter().collect::<Vec<_>>().join(", ")
            ),
        }),
    }
}

/// Where a QA file's questions are kept while they are made, as `repoqa
/// coreqa build` and the page name it: `x-qa.jsonl` → `x-qa.questions.jsonl`.
pub fn questions_file_name(qa_file: &str) -> String {
    format!("{}.questions.jsonl", qa_file.strip_suffix(".jsonl").unwrap_or(qa_file))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repositories_are_named_once_in_first_sight_order() {
        let item = |id: &str, repo: &str| QaItem {
            id: id.into(),
            repository: repo.into(),
            language: None,
            issue_url: None,
            question: "q".into(),
            reference_answer: "a".into(),
            reference_chunks: None,
            issue: None,
            rest: IndexMap::new(),
        };
        let qa = [item("1", "b/b"), item("2", "a/a"), item("3", "b/b"), item("4", "c/c")];
        assert_eq!(repositories(&qa), ["b/b", "a/a", "c/c"]);
        assert!(repositories(&[]).is_empty());
    }

    #[test]
    fn queries_split_prose_from_code() {
        let q = "Why does `spin(0)` fail?\n\n```python\nwidget.spin(0)\n```\nIt raises.\n~~~\nTraceback\n~~~";
        let (prose, code) = question_queries(q);
        assert_eq!(prose, "Why does `spin(0)` fail?\n\nIt raises.");
        assert_eq!(code, "widget.spin(0)\nTraceback");
        assert_eq!(question_queries("no code").1, "");
    }

    #[test]
    fn lists_and_lines_read_the_same() {
        let item = r#"{"id": "a#1", "repository": "a/b", "question": "Q?", "reference_answer": "A.", "extra": 1}"#;
        let twice = read_qa(format!("{item}\n\n{item}").as_bytes(), "x");
        assert!(
            matches!(&twice, Err(CoreqaError::Qa { line: 3, message, .. }) if message.contains("twice")),
            "{twice:?}"
        );
        assert_eq!(read_qa(format!("{item}\n").as_bytes(), "x").unwrap().len(), 1);
        let list = read_qa(format!("[{item}]").as_bytes(), "x").unwrap();
        assert_eq!(list[0].rest["extra"], 1);
        assert_eq!(
            serde_json::to_value(&list[0]).unwrap(),
            serde_json::from_str::<Value>(item).unwrap()
        );
        let blank = read_qa(
            br#"{"id": "a", "repository": "r", "question": " ", "reference_answer": ""}"#,
            "x",
        );
        assert!(
            matches!(blank, Err(CoreqaError::Qa { line: 1, message, .. }) if message.contains("blank"))
        );
    }

    #[test]
    fn one_repository_or_the_names_and_the_questions_file() {
        let q = |r: &str| QaItem {
            repository: r.to_string(),
            ..read_qa(
                br#"{"id": "1", "repository": "a/b", "question": "Q?", "reference_answer": "A."}"#,
                "t",
            )
            .unwrap()
            .remove(0)
        };
        assert_eq!(one_repository(&[q("a/b"), q("a/b")]).unwrap(), "a/b");
        let e = one_repository(&[q("a/b"), q("c/d")]).unwrap_err().to_string();
        assert!(e.contains("about 2 (a/b, c/d)"), "{e}");
        assert!(one_repository(&[]).is_err());
        assert_eq!(questions_file_name("x-qa.jsonl"), "x-qa.questions.jsonl");
        assert_eq!(questions_file_name("x"), "x.questions.jsonl");
    }
}
