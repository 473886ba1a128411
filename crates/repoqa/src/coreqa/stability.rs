//! The judge's stability (CoReQA §IV-D, Table VI): a seeded sample of
//! answers, each judged [`STABILITY_REPETITIONS`] times; per answer the
//! mean and the population standard deviation of its judgments on each
//! criterion; per model and setting the mean of those means and the mean
//! of those deviations (the paper: "around 0.55 standard deviation five
//! times running"), beside the answers' BLEU. The paper samples 200
//! question-answer pairs; `coreqa judge --stability N` samples N answers
//! ([`sample_answers`]) and judges each five times ([`stability_items`]).
//! Those judgments carry the sample's seed (`stability_seed`), so a
//! report given them beside the judge's scores makes Table VI of them and
//! leaves them out of Tables IV and V ([`split_checks`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::answer::{AnswerLine, ContextSetting};
use super::judge::{judge_items, Criteria, JudgeItem, JudgeLine, MeanStd};
use super::qa::QaItem;
use super::CoreqaError;
use crate::seeded::SplitMix64;

/// Judgments of each sampled answer (the paper's five).
pub const STABILITY_REPETITIONS: u32 = 5;

/// The seed of the sample by default.
pub const STABILITY_SEED: u64 = 42;

/// `n` of `answers` (all of them when there are no more), drawn without
/// replacement by a seeded Fisher–Yates shuffle (SplitMix64, the same
/// natively and in the browser), kept in the answers' order.
pub fn sample_answers(answers: &[AnswerLine], n: usize, seed: u64) -> Vec<AnswerLine> {
    let mut order: Vec<usize> = (0..answers.len()).collect();
    let mut rng = SplitMix64(seed);
    for i in (1..order.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        order.swap(i, j);
    }
    let mut picked: Vec<usize> = order.into_iter().take(n).collect();
    picked.sort_unstable();
    picked.into_iter().map(|i| answers[i].clone()).collect()
}

/// What a stability check judges: `answers` of the answers, drawn with
/// `seed`, each judged `repetitions` times.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StabilitySample {
    pub answers: usize,
    pub seed: u64,
    pub repetitions: u32,
}

impl StabilitySample {
    /// `answers` answers at the paper's five judgments each, the default seed.
    pub fn of(answers: usize) -> StabilitySample {
        StabilitySample { answers, seed: STABILITY_SEED, repetitions: STABILITY_REPETITIONS }
    }
}

/// The stability check's judging requests: the sample of `answers`, each
/// judged `sample.repetitions` times, marked with the sample's seed. No
/// answer, or a sample of none, is refused.
pub fn stability_items(
    qa: &[QaItem],
    answers: &[AnswerLine],
    sample: &StabilitySample,
    judge: &str,
    template: &str,
    count_tokens: impl FnMut(&str) -> usize,
) -> Result<Vec<JudgeItem>, CoreqaError> {
    if sample.answers == 0 || sample.repetitions < 2 {
        return Err(CoreqaError::StabilitySample {
            answers: sample.answers,
            repetitions: sample.repetitions,
        });
    }
    let picked = sample_answers(answers, sample.answers, sample.seed);
    let mut items = judge_items(qa, &picked, sample.repetitions, judge, template, count_tokens)?;
    for item in &mut items {
        item.stability_seed = Some(sample.seed);
    }
    Ok(items)
}

/// `judged` split into the stability check's lines and the judge's
/// scores, each in file order.
pub fn split_checks(judged: &[JudgeLine]) -> (Vec<JudgeLine>, Vec<JudgeLine>) {
    judged.iter().cloned().partition(|j| j.stability_seed.is_some())
}

/// One row of the stability table: a model in one setting.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StabilityRow {
    pub model: String,
    pub setting: ContextSetting,
    /// Answers judged at least twice.
    pub answers: usize,
    /// The most judgments of one answer.
    pub repetitions: usize,
    /// Per criterion: `mean`, the mean over the answers of each answer's
    /// mean judgment; `std`, the mean over the answers of each answer's
    /// population standard deviation (the judge's spread on one answer).
    pub criteria: Criteria<MeanStd>,
    pub overall: MeanStd,
    /// Mean smoothed BLEU of those answers against their references.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bleu: Option<f64>,
}

/// The stability table from judgments of answers judged several times
/// (answers judged once are left out); `answers` gives BLEU (may be empty).
pub fn stability(qa: &[QaItem], judged: &[JudgeLine], answers: &[AnswerLine]) -> Vec<StabilityRow> {
    // (model, setting) -> (question, run) -> judgments
    type Answers<'a> = BTreeMap<(&'a str, u32), Vec<Criteria<u8>>>;
    let mut groups: BTreeMap<(&str, ContextSetting), Answers<'_>> = BTreeMap::new();
    for j in judged {
        groups
            .entry((j.model.as_str(), j.setting))
            .or_default()
            .entry((j.question_id.as_str(), j.run))
            .or_default()
            .push(j.scores);
    }
    let reference: BTreeMap<&str, &str> =
        qa.iter().map(|q| (q.id.as_str(), q.reference_answer.as_str())).collect();
    let mut rows = Vec::new();
    for ((model, setting), by_answer) in groups {
        // Each answer judged more than once: (question, run) and its judgments.
        let repeated: Vec<_> = by_answer.iter().filter(|(_, v)| v.len() > 1).collect();
        if repeated.is_empty() {
            continue;
        }
        let of = |f: &dyn Fn(&Criteria<u8>) -> f64| -> MeanStd {
            let per: Vec<MeanStd> = repeated
                .iter()
                .map(|(_, v)| MeanStd::of(&v.iter().map(f).collect::<Vec<f64>>()))
                .collect();
            let n = per.len() as f64;
            MeanStd {
                mean: per.iter().map(|m| m.mean).sum::<f64>() / n,
                std: per.iter().map(|m| m.std).sum::<f64>() / n,
            }
        };
        let bleu: Vec<f64> = repeated
            .iter()
            .filter_map(|((q, run), _)| {
                let a = answers.iter().find(|a| {
                    a.question_id == *q && a.run == *run && a.model == model && a.setting == setting
                })?;
                let r = reference.get(q)?;
                Some(crate::scoring::bleu::function_similarity(&a.answer, r))
            })
            .collect();
        rows.push(StabilityRow {
            model: model.to_string(),
            setting,
            answers: repeated.len(),
            repetitions: repeated.iter().map(|(_, v)| v.len()).max().unwrap_or(0),
            criteria: Criteria::from_fn(|c| of(&|s| f64::from(s.get(c)))),
            overall: of(&|s| s.overall()),
            bleu: (!bleu.is_empty()).then(|| bleu.iter().sum::<f64>() / bleu.len() as f64),
        });
    }
    rows
}

/// The table as text: Table VI's shape.
pub fn render_text(rows: &[StabilityRow]) -> String {
    let mut out = String::from(
        "Table VI's shape: the judge's stability (each answer judged several times; mean of the answers' means ± mean of their standard deviations)\n",
    );
    out.push_str(&format!(
        "{:<12} {:<28} {:>7} {:>5} {:>13} {:>13} {:>13} {:>13} {:>6}\n",
        "setting", "model", "answers", "reps", "Acc.", "Cmpt.", "Rel.", "Clarity", "BLEU"
    ));
    for r in rows {
        let c = |m: MeanStd| m.label();
        out.push_str(&format!(
            "{:<12} {:<28} {:>7} {:>5} {:>13} {:>13} {:>13} {:>13} {:>6}\n",
            r.setting.to_string(),
            r.model,
            r.answers,
            r.repetitions,
            c(r.criteria.accuracy),
            c(r.criteria.completeness),
            c(r.criteria.relevance),
            c(r.criteria.clarity),
            r.bleu.map_or("–".to_string(), |b| format!("{:.1}", b * 100.0)),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(q: &str, run: u32) -> AnswerLine {
        AnswerLine {
            question_id: q.into(),
            setting: ContextSetting::None,
            model: "m".into(),
            run,
            answer: format!("answer to {q}"),
            temperature: None,
            runs: None,
        }
    }

    fn judged(q: &str, rep: u32, acc: u8) -> JudgeLine {
        JudgeLine {
            question_id: q.into(),
            setting: ContextSetting::None,
            model: "m".into(),
            run: 1,
            repetition: rep,
            judge: "j".into(),
            scores: Criteria { accuracy: acc, completeness: 5, relevance: 5, clarity: 5 },
            reasoning: String::new(),
            temperature: None,
            repetitions: None,
            stability_seed: None,
        }
    }

    #[test]
    fn a_sample_is_seeded_without_replacement_in_the_answers_order() {
        let all: Vec<AnswerLine> = (1..=10).map(|i| answer(&format!("q{i}"), 1)).collect();
        let a = sample_answers(&all, 4, 42);
        assert_eq!(a.len(), 4);
        assert_eq!(a, sample_answers(&all, 4, 42), "the same seed, the same sample");
        assert_ne!(a, sample_answers(&all, 4, 7), "another seed, another sample");
        let ids: Vec<usize> = a.iter().map(|x| all.iter().position(|y| y == x).unwrap()).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "in order, no repeats: {ids:?}");
        assert_eq!(sample_answers(&all, 50, 1).len(), 10, "no more than there are");
    }

    #[test]
    fn the_spread_is_the_mean_of_each_answer_s_deviation_worked_by_hand() {
        // q1 judged 6, 8 (mean 7, sd 1); q2 judged 4, 4, 4, 4, 4 (mean 4, sd 0);
        // q3 judged once: left out. Accuracy: mean (7 + 4) / 2 = 5.5, spread (1 + 0) / 2 = 0.5.
        let mut j = vec![judged("q1", 1, 6), judged("q1", 2, 8), judged("q3", 1, 9)];
        j.extend((1..=5).map(|r| judged("q2", r, 4)));
        let rows = stability(&[], &j, &[]);
        assert_eq!(rows.len(), 1);
        let r = &rows[0];
        assert_eq!((r.answers, r.repetitions), (2, 5));
        assert_eq!(r.criteria.accuracy, MeanStd { mean: 5.5, std: 0.5 });
        assert_eq!(r.criteria.clarity, MeanStd { mean: 5.0, std: 0.0 });
        assert!(render_text(&rows).contains("5.50 ± 0.50"));
        assert!(stability(&[], &[judged("q3", 1, 9)], &[]).is_empty(), "judged once: no row");
    }

    #[test]
    fn a_check_s_items_are_its_sample_judged_n_times_and_marked_with_the_seed() {
        let qa: Vec<QaItem> = (1..=6)
            .map(|i| {
                serde_json::from_value(serde_json::json!({
                    "id": format!("q{i}"), "repository": "o/r", "question": "?", "reference_answer": "!"
                }))
                .unwrap()
            })
            .collect();
        let all: Vec<AnswerLine> = (1..=6).map(|i| answer(&format!("q{i}"), 1)).collect();
        let t = super::super::judge::JUDGE_TEMPLATE;
        let items = stability_items(&qa, &all, &StabilitySample::of(2), "j", t, |_| 1).unwrap();
        assert_eq!(items.len(), 10, "2 answers × 5");
        let picked = sample_answers(&all, 2, STABILITY_SEED);
        assert!(items.iter().all(|i| picked.iter().any(|a| a.question_id == i.question_id)));
        assert!(items.iter().all(|i| i.stability_seed == Some(STABILITY_SEED)));
        for bad in [
            StabilitySample { answers: 0, ..StabilitySample::of(1) },
            StabilitySample { repetitions: 1, ..StabilitySample::of(1) },
        ] {
            let e = stability_items(&qa, &all, &bad, "j", t, |_| 1).unwrap_err().to_string();
            assert!(
                e.starts_with("a stability check judges at least 1 answer at least twice"),
                "{e}"
            );
        }
        // A line of the check is told from a score by its seed.
        let mut check = judged("q1", 1, 5);
        check.stability_seed = Some(7);
        let (checks, scores) = split_checks(&[judged("q1", 1, 5), check.clone()]);
        assert_eq!((checks, scores.len()), (vec![check], 1));
    }
}
