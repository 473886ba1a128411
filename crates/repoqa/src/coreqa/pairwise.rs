//! CoReQA's pairwise judge: a model sees a question, its reference answer
//! and two models' answers (A and B), reasons step by step on the paper's
//! four criteria, and ends with `Verdict: A`, `Verdict: B` or
//! `Verdict: tie` ([`PAIRWISE_TEMPLATE`], editable). Every pair of models
//! that answered a question in one context setting is judged in both
//! orders, so the judge's position bias shows ([`super::elo`]).
//!
//! A reply whose last non-blank line is not a verdict is asked again, then
//! reported failed, never guessed ([`read_preference`]). Each judgment is
//! one [`PairItem`] through the benchmark runner and one line of a
//! judgments file that `repoqa coreqa compare` reads ([`PairLine`]: the
//! fields of [`super::elo::Judgment`] plus the setting, the judge and its
//! reasoning).
//!
//! Answers sampled several times (`coreqa answer --runs`, the paper's five
//! runs) are compared run by run: run r of one model with run r of the
//! other, so PCE has a value per run and a spread ([`super::pce`]).

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::answer::{AnswerLine, ContextSetting};
use super::elo::{Judgment, Preference};
use super::judge::fill_template;
use super::qa::QaItem;
use super::CoreqaError;
use crate::llm::run::RunItem;
use crate::llm::wire::RequestParams;

/// The default pairwise judge prompt. `{{repository}}`, `{{question}}`,
/// `{{reference_answer}}`, `{{answer_a}}` and `{{answer_b}}` are filled in.
pub const PAIRWISE_TEMPLATE: &str = "\
You are a strict and fair judge of answers to questions about the code repository {{repository}}. \
The question comes from a GitHub issue; the reference answer was written from the issue's discussion. \
Two assistants answered it. Decide which answer is better, judging both against the reference answer on \
accuracy (are its facts, causes and code correct?), completeness (does it cover every point of the reference?), \
relevance (does it address this question, without digressions?) and clarity (is it clear and easy to act on?). \
The order in which the answers are shown says nothing about their quality, and neither does their length.

## Question

{{question}}

## Reference answer

{{reference_answer}}

## Answer A

{{answer_a}}

## Answer B

{{answer_b}}

## How to reply

First think step by step: compare each answer with the reference answer on the four criteria. \
Then end your reply with exactly one of these lines:
Verdict: A
Verdict: B
Verdict: tie
";

/// The verdict in the last non-blank line of a pairwise reply, and the
/// reasoning before it.
pub fn read_preference(reply: &str) -> Result<(Preference, String), String> {
    let lines: Vec<&str> = reply.lines().collect();
    let last = lines.iter().rposition(|l| !l.trim().is_empty());
    let parsed = last.and_then(|i| {
        let deco =
            |c: char| matches!(c, '*' | '_' | '#' | '>' | '`' | '[' | ']') || c.is_whitespace();
        let t = lines[i].trim_matches(deco);
        let (name, value) = t.split_once(':')?;
        if !name.trim_matches(deco).eq_ignore_ascii_case("verdict") {
            return None;
        }
        let v = value.trim_matches(|c: char| deco(c) || c == '.');
        let p = match v.to_ascii_lowercase().as_str() {
            "a" => Preference::First,
            "b" => Preference::Second,
            "tie" => Preference::Tie,
            _ => return None,
        };
        Some((p, lines[..i].join("\n").trim().to_string()))
    });
    parsed.ok_or_else(|| {
        format!(
            "the judge's reply does not end with a verdict line (Verdict: A, Verdict: B or Verdict: tie): {:?}",
            crate::llm::snippet(reply)
        )
    })
}

/// One pairwise judging request: `first`'s answer shown as A, `second`'s as B.
#[derive(Clone, Debug, PartialEq)]
pub struct PairItem {
    pub question_id: String,
    pub setting: ContextSetting,
    pub first: String,
    pub second: String,
    /// The answer run compared (run r of both models), from 1.
    pub run: u32,
    pub judge: String,
    pub prompt: String,
    pub prompt_ntokens: usize,
}

/// `question_id::setting::first::second` for the first run (the id of
/// files written before runs), then `…::second::run2` and so on.
pub fn pair_id(
    question_id: &str,
    setting: ContextSetting,
    first: &str,
    second: &str,
    run: u32,
) -> String {
    if run <= 1 {
        format!("{question_id}::{setting}::{first}::{second}")
    } else {
        format!("{question_id}::{setting}::{first}::{second}::run{run}")
    }
}

impl RunItem for PairItem {
    fn whole_replies_only(&self) -> bool {
        true
    }
    fn task_id(&self) -> String {
        pair_id(&self.question_id, self.setting, &self.first, &self.second, self.run)
    }
    fn prompt(&self) -> String {
        self.prompt.clone()
    }
    fn prompt_ntokens(&self) -> usize {
        self.prompt_ntokens
    }
    fn check_reply(&self, reply: &str) -> Result<(), String> {
        read_preference(reply).map(|_| ())
    }
    fn output_line(&self, reply: &str, asked: &RequestParams) -> Result<String, String> {
        let (verdict, reasoning) = read_preference(reply)?;
        let line = PairLine {
            judgment: Judgment {
                question_id: self.question_id.clone(),
                first: self.first.clone(),
                second: self.second.clone(),
                verdict,
                run: self.run,
            },
            setting: self.setting,
            judge: self.judge.clone(),
            reasoning,
            temperature: Some(asked.temperature),
        };
        super::jsonl_line(&line)
    }
}

/// One line of a pairwise judgments file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairLine {
    #[serde(flatten)]
    pub judgment: Judgment,
    pub setting: ContextSetting,
    pub judge: String,
    pub reasoning: String,
    /// The sampling temperature the reply was asked at (absent in files
    /// written before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
}

impl PairLine {
    pub fn id(&self) -> String {
        let j = &self.judgment;
        pair_id(&j.question_id, self.setting, &j.first, &j.second, j.run)
    }
}

/// The pairwise requests for the answers in `setting`: for each question
/// (in QA file order), each pair of models that answered it (models in the
/// order they first appear in `answers`), each run both models answered
/// (run r of one with run r of the other, runs in order; the first `runs`
/// only, when given), the earlier model first, then the other order. This
/// is the fixed order Elo is played in.
pub fn pair_items(
    qa: &[QaItem],
    answers: &[AnswerLine],
    setting: ContextSetting,
    runs: Option<u32>,
    judge: &str,
    template: &str,
    mut count_tokens: impl FnMut(&str) -> usize,
) -> Result<Vec<PairItem>, CoreqaError> {
    // (question, run) -> model -> answer (the last line wins, as a rerun's would).
    let mut by_question: IndexMap<(&str, u32), IndexMap<&str, &str>> = IndexMap::new();
    let mut models: IndexMap<&str, ()> = IndexMap::new();
    let wanted = |run: u32| runs.is_none_or(|n| run <= n);
    for a in answers.iter().filter(|a| a.setting == setting && wanted(a.run)) {
        if !qa.iter().any(|q| q.id == a.question_id) {
            return Err(CoreqaError::UnknownQuestion { id: a.question_id.clone() });
        }
        models.insert(a.model.as_str(), ());
        by_question
            .entry((a.question_id.as_str(), a.run))
            .or_default()
            .insert(a.model.as_str(), a.answer.as_str());
    }
    let models: Vec<&str> = models.into_keys().collect();
    let mut all_runs: Vec<u32> = by_question.keys().map(|&(_, r)| r).collect();
    all_runs.sort_unstable();
    all_runs.dedup();
    let mut items = Vec::new();
    for (q, &run) in qa.iter().flat_map(|q| all_runs.iter().map(move |r| (q, r))) {
        let Some(answered) = by_question.get(&(q.id.as_str(), run)) else { continue };
        for (i, a) in models.iter().enumerate() {
            for b in &models[i + 1..] {
                let (Some(text_a), Some(text_b)) = (answered.get(a), answered.get(b)) else {
                    continue;
                };
                for (first, second, x, y) in [(a, b, text_a, text_b), (b, a, text_b, text_a)] {
                    let values = [
                        ("repository", q.repository.as_str()),
                        ("question", q.question.trim_end()),
                        ("reference_answer", q.reference_answer.trim_end()),
                        ("answer_a", x.trim_end()),
                        ("answer_b", y.trim_end()),
                    ];
                    let prompt = fill_template(template, &values, &["answer_a", "answer_b"])?;
                    items.push(PairItem {
                        question_id: q.id.clone(),
                        setting,
                        first: first.to_string(),
                        second: second.to_string(),
                        run,
                        judge: judge.to_string(),
                        prompt_ntokens: count_tokens(&prompt),
                        prompt,
                    });
                }
            }
        }
    }
    Ok(items)
}

/// Read a pairwise judgments file (JSON Lines), leaving out a cut last
/// line when `resuming`.
pub fn read_pair_lines(
    text: &str,
    name: &str,
    resuming: bool,
) -> Result<Vec<PairLine>, CoreqaError> {
    super::read_lines(text, resuming, |e| CoreqaError::Judgments {
        path: name.to_string(),
        line: e.0,
        message: e.1,
    })
}

/// `lines` in the order [`pair_items`] asks them (what a run's arrival
/// order does not fix), lines it would not ask at the end in file order:
/// the order Elo is played in.
pub fn in_item_order(lines: Vec<PairLine>, items: &[PairItem]) -> Vec<PairLine> {
    let rank: std::collections::HashMap<String, usize> =
        items.iter().enumerate().map(|(i, it)| (it.task_id(), i)).collect();
    let mut keyed: Vec<(usize, usize, PairLine)> = lines
        .into_iter()
        .enumerate()
        .map(|(k, l)| (rank.get(&l.id()).copied().unwrap_or(usize::MAX), k, l))
        .collect();
    keyed.sort_by_key(|&(r, k, _)| (r, k));
    keyed.into_iter().map(|(_, _, l)| l).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_verdict_is_the_last_line_or_nothing() {
        let (p, why) =
            read_preference("A names the cause; B does not.\n\n**Verdict: A**\n").unwrap();
        assert_eq!((p, why.as_str()), (Preference::First, "A names the cause; B does not."));
        assert_eq!(read_preference("Verdict: tie.").unwrap().0, Preference::Tie);
        assert_eq!(read_preference("verdict: [B]").unwrap().0, Preference::Second);
        for bad in ["Verdict: A\nBut maybe B.", "", "Verdict: both", "A is better."] {
            let e = read_preference(bad).unwrap_err();
            assert!(
                e.starts_with("the judge's reply does not end with a verdict line"),
                "{bad:?}: {e}"
            );
        }
    }

    #[test]
    fn every_pair_is_asked_in_both_orders() {
        let qa: Vec<QaItem> = ["q1", "q2"]
            .map(|id| {
                serde_json::from_str(&format!(
                    r#"{{"id": "{id}", "repository": "r", "question": "Q {id}", "reference_answer": "R"}}"#
                ))
                .unwrap()
            })
            .to_vec();
        let line = |q: &str, m: &str| AnswerLine {
            runs: None,
            temperature: None,
            run: 1,
            question_id: q.into(),
            setting: ContextSetting::None,
            model: m.into(),
            answer: format!("{m} on {q}"),
        };
        // q2 has no answer from m3: only the m1/m2 pair.
        let answers = [
            line("q2", "m1"),
            line("q1", "m1"),
            line("q1", "m2"),
            line("q1", "m3"),
            line("q2", "m2"),
        ];
        let items =
            pair_items(&qa, &answers, ContextSetting::None, None, "j", PAIRWISE_TEMPLATE, |_| 1)
                .unwrap();
        let ids: Vec<String> = items.iter().map(|i| i.task_id()).collect();
        assert_eq!(
            ids,
            [
                "q1::none::m1::m2",
                "q1::none::m2::m1",
                "q1::none::m1::m3",
                "q1::none::m3::m1",
                "q1::none::m2::m3",
                "q1::none::m3::m2",
                "q2::none::m1::m2",
                "q2::none::m2::m1",
            ]
        );
        assert!(items[1].prompt.contains("## Answer A\n\nm2 on q1\n\n## Answer B\n\nm1 on q1\n"));
        let none =
            pair_items(&qa, &answers, ContextSetting::Whole, None, "j", PAIRWISE_TEMPLATE, |_| 1)
                .unwrap();
        assert!(none.is_empty());
        let line = items[0]
            .output_line("fine\nVerdict: B", &crate::llm::wire::Endpoint::default().params())
            .unwrap();
        let back = read_pair_lines(&line, "f", false).unwrap();
        assert_eq!(back[0].judgment.verdict, Preference::Second);
        assert_eq!(back[0].reasoning, "fine");
        // compare reads the same line.
        assert_eq!(super::super::elo::read_judgments(line.as_bytes(), "f").unwrap().len(), 1);
        let shuffled = vec![back[0].clone(), {
            let mut l = back[0].clone();
            l.judgment.first = "m2".into();
            l.judgment.second = "m1".into();
            l
        }];
        let ordered = in_item_order(shuffled.into_iter().rev().collect(), &items);
        assert_eq!(ordered[0].judgment.first, "m1");
    }

    #[test]
    fn runs_are_compared_run_by_run() {
        let qa: Vec<QaItem> = vec![serde_json::from_str(
            r#"{"id": "q1", "repository": "r", "question": "Q", "reference_answer": "R"}"#,
        )
        .unwrap()];
        let line = |m: &str, run: u32| AnswerLine {
            runs: Some(3),
            temperature: Some(0.2),
            run,
            question_id: "q1".into(),
            setting: ContextSetting::None,
            model: m.into(),
            answer: format!("{m} run {run}"),
        };
        // m2 has no third run: run 3 has no pair.
        let answers = [line("m1", 1), line("m1", 2), line("m1", 3), line("m2", 2), line("m2", 1)];
        let ids = |runs: Option<u32>| -> Vec<String> {
            pair_items(&qa, &answers, ContextSetting::None, runs, "j", PAIRWISE_TEMPLATE, |_| 1)
                .unwrap()
                .iter()
                .map(|i| i.task_id())
                .collect()
        };
        assert_eq!(
            ids(None),
            [
                "q1::none::m1::m2",
                "q1::none::m2::m1",
                "q1::none::m1::m2::run2",
                "q1::none::m2::m1::run2",
            ]
        );
        assert_eq!(ids(Some(1)), ["q1::none::m1::m2", "q1::none::m2::m1"]);
        let items =
            pair_items(&qa, &answers, ContextSetting::None, None, "j", PAIRWISE_TEMPLATE, |_| 1)
                .unwrap();
        assert!(items[2].prompt.contains("## Answer A\n\nm1 run 2\n\n## Answer B\n\nm2 run 2\n"));
        // The run is kept in the line, and a file's line without one is run 1.
        let params = crate::llm::wire::Endpoint::default().params();
        let lines: Vec<PairLine> = items
            .iter()
            .map(|i| i.output_line("Verdict: A", &params).unwrap())
            .flat_map(|l| read_pair_lines(&l, "f", false).unwrap())
            .collect();
        assert_eq!(lines.iter().map(|l| l.judgment.run).collect::<Vec<_>>(), [1, 1, 2, 2]);
        assert_eq!(lines[3].id(), "q1::none::m2::m1::run2");
        // Each run's two orders make one pair for the position bias.
        let judgments: Vec<_> = lines.iter().map(|l| l.judgment.clone()).collect();
        let bias = super::super::elo::position_bias(&judgments);
        assert_eq!((bias.contradiction, bias.unpaired), (2, 0));
    }
}
