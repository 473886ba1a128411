//! Telling CoReQA's files apart, for a front that takes any of them (the
//! page's file picker): a QA file, an answers file, a judgments file or a
//! pairwise judgments file, by the fields of its first record, then read
//! by that kind's own reader (which names the line of any bad record).

use super::answer::{read_answers, AnswerLine};
use super::generate::{read_questions, QuestionLine};
use super::issues::{read_export, IssueExport};
use super::judge::{read_judge_lines, JudgeLine};
use super::pairwise::{read_pair_lines, PairLine};
use super::prefilter::{read_prefilter, PrefilterLine};
use super::qa::{read_qa, QaItem};
use super::CoreqaError;

/// The largest CoReQA file a front reads (256 MiB: far above any QA set,
/// answers or verdicts of a few thousand questions).
pub const MAX_COREQA_FILE_BYTES: u64 = 256 << 20;

/// A CoReQA file read.
#[derive(Clone, Debug, PartialEq)]
pub enum CoreqaFile {
    Qa(Vec<QaItem>),
    Answers(Vec<AnswerLine>),
    Judgments(Vec<JudgeLine>),
    Pairs(Vec<PairLine>),
    /// Questions written from issues, before their reference answers
    /// (`repoqa coreqa build`'s first step).
    Questions(Vec<QuestionLine>),
    /// The pre-filter's verdicts on issues (`repoqa coreqa build
    /// --prefilter`'s first step).
    Prefilter(Vec<PrefilterLine>),
    /// A GitHub issues export (one JSON object with `issues`).
    Export(IssueExport),
}

impl CoreqaFile {
    /// What it holds, for messages: "QA file", "answers", …
    pub fn kind(&self) -> &'static str {
        match self {
            CoreqaFile::Qa(_) => "QA file",
            CoreqaFile::Answers(_) => "answers",
            CoreqaFile::Judgments(v)
                if !v.is_empty() && v.iter().all(|j| j.stability_seed.is_some()) =>
            {
                "the judge's stability check"
            }
            CoreqaFile::Judgments(_) => "judge scores",
            CoreqaFile::Pairs(_) => "pairwise verdicts",
            CoreqaFile::Questions(_) => "questions without answers",
            CoreqaFile::Prefilter(_) => "pre-filter verdicts",
            CoreqaFile::Export(_) => "issues export",
        }
    }

    pub fn len(&self) -> usize {
        match self {
            CoreqaFile::Qa(v) => v.len(),
            CoreqaFile::Answers(v) => v.len(),
            CoreqaFile::Judgments(v) => v.len(),
            CoreqaFile::Pairs(v) => v.len(),
            CoreqaFile::Questions(v) => v.len(),
            CoreqaFile::Prefilter(v) => v.len(),
            CoreqaFile::Export(e) => e.issues.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Read `bytes` (`name` for messages) as whichever CoReQA file it is: one
/// JSON object with `issues` is a GitHub issues export; a JSON list or a
/// first record with `reference_answer` is a QA file; otherwise
/// the first record's `verdict` makes it pairwise verdicts, `scores` judge
/// scores, `answer` answers, `keep` with `number` pre-filter verdicts,
/// `question` with `number` questions from issues.
pub fn read_coreqa_file(bytes: &[u8], name: &str) -> Result<CoreqaFile, CoreqaError> {
    let bad =
        |line: usize, message: String| CoreqaError::Qa { path: name.to_string(), line, message };
    let text = super::utf8_text(bytes, name)?;
    if text.trim_start().starts_with('[') {
        return Ok(CoreqaFile::Qa(read_qa(text.as_bytes(), name)?));
    }
    let Some((i, first)) = text.lines().enumerate().find(|(_, l)| !l.trim().is_empty()) else {
        return Err(bad(1, "the file is empty".into()));
    };
    let record: serde_json::Value = match serde_json::from_str(first) {
        Ok(r) => r,
        // An object over several lines: a (pretty-printed) issues export.
        Err(_) if first.trim_start().starts_with('{') => {
            return Ok(CoreqaFile::Export(read_export(text.as_bytes(), name)?))
        }
        Err(e) => return Err(bad(i + 1, format!("not JSON Lines ({e})"))),
    };
    let has = |k: &str| record.get(k).is_some();
    Ok(if has("issues") {
        CoreqaFile::Export(read_export(text.as_bytes(), name)?)
    } else if has("reference_answer") {
        CoreqaFile::Qa(read_qa(text.as_bytes(), name)?)
    } else if has("verdict") {
        CoreqaFile::Pairs(read_pair_lines(text, name, false)?)
    } else if has("scores") {
        CoreqaFile::Judgments(read_judge_lines(text, name, false)?)
    } else if has("answer") {
        CoreqaFile::Answers(read_answers(text, name, false)?)
    } else if has("keep") && has("number") {
        CoreqaFile::Prefilter(read_prefilter(text, name, false)?)
    } else if has("question") && has("number") {
        CoreqaFile::Questions(read_questions(text, name, false)?)
    } else {
        return Err(bad(
            i + 1,
            "not a CoReQA file: its first record has none of \"reference_answer\" (a QA file), \"answer\" (answers), \"scores\" (judge scores), \"verdict\" (pairwise verdicts), \"question\" and \"number\" (questions from issues), \"keep\" and \"number\" (pre-filter verdicts)".into(),
        ));
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_is_told_by_its_first_record() {
        let qa = r#"{"id": "q", "repository": "r", "question": "Q", "reference_answer": "A"}"#;
        assert!(
            matches!(read_coreqa_file(qa.as_bytes(), "f"), Ok(CoreqaFile::Qa(v)) if v.len() == 1)
        );
        assert!(matches!(
            read_coreqa_file(format!("[{qa}]").as_bytes(), "f"),
            Ok(CoreqaFile::Qa(_))
        ));
        let answer = r#"{"question_id": "q", "setting": "none", "model": "m", "answer": "A"}"#;
        assert_eq!(read_coreqa_file(answer.as_bytes(), "f").unwrap().kind(), "answers");
        let judged = r#"{"question_id": "q", "setting": "none", "model": "m", "repetition": 1, "judge": "j", "scores": {"accuracy": 1, "completeness": 2, "relevance": 3, "clarity": 4}, "reasoning": ""}"#;
        assert_eq!(read_coreqa_file(judged.as_bytes(), "f").unwrap().kind(), "judge scores");
        let pair = r#"{"question_id": "q", "first": "a", "second": "b", "verdict": "tie", "setting": "none", "judge": "j", "reasoning": ""}"#;
        assert_eq!(read_coreqa_file(pair.as_bytes(), "f").unwrap().kind(), "pairwise verdicts");
        let question = r#"{"repository": "a/b", "number": 3, "question": "Q"}"#;
        assert_eq!(
            read_coreqa_file(question.as_bytes(), "f").unwrap().kind(),
            "questions without answers"
        );
        let verdict =
            r#"{"repository": "a/b", "number": 3, "model": "m", "keep": false, "reasons": "R"}"#;
        assert_eq!(
            read_coreqa_file(verdict.as_bytes(), "f").unwrap().kind(),
            "pre-filter verdicts"
        );
        let e = read_coreqa_file(b"\n{\"x\": 1}\n", "f").unwrap_err().to_string();
        assert!(e.starts_with("f, line 2: not a CoReQA file"), "{e}");
        let e = read_coreqa_file(format!("{answer}\n{{\"question_id\": 1}}").as_bytes(), "f");
        assert!(e.unwrap_err().to_string().starts_with("f, line 2: not an answer"));
        assert!(read_coreqa_file(b"  ", "f").is_err());
        let export = "{\"repository\": \"a/b\",\n \"issues\": []}";
        assert_eq!(read_coreqa_file(export.as_bytes(), "f").unwrap().kind(), "issues export");
    }
}
