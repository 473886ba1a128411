//! Pairwise comparison evaluation against a baseline (CoReQA §III-C and
//! §IV-B, Table V's PCE column): each model's answers are compared with a
//! baseline model's (the paper's: DeepSeek-V2), each pair judged twice,
//! once in each order ([`super::pairwise`]), and
//!
//! ```text
//! PCE(model) = 100 × (wins + ½ × ties) / comparisons
//! ```
//!
//! where a comparison is one question's pair in one context setting judged
//! in both orders, and its outcome combines the two verdicts:
//!
//! - both orders name the model (or the baseline, or a tie): that outcome;
//! - the verdict flips with the order (each order names the answer shown
//!   first, or each the one shown second): a tie, as the paper counts it;
//! - one order names a winner and the other a tie (the paper's "small
//!   discrepancy", Table VII): the paper does not say how it counts; **we
//!   count it a tie** ([`Discrepancy::Tie`]); `--pce-discrepancy decided`
//!   lets the decided verdict stand ([`Discrepancy::Decided`]).
//!
//! With answers sampled several times (the paper's five runs), run r of
//! the model is compared with run r of the baseline, the PCE is worked out
//! per run, and the row gives its mean and population standard deviation
//! over the runs (the paper's "average and standard deviation over five
//! trials"); the counts are summed over the runs.
//!
//! So the baseline scores 50.0 by construction (it is not compared with
//! itself: its row says so), a model that always wins 100.0, one that
//! always ties 50.0, and a judge with an order bias only (the first answer
//! always preferred) gives 50.0. A pair judged in one order only is not a
//! comparison: it is counted apart ([`PceRow::one_order`]). Elo over all the
//! judgments ([`super::elo`]) stays beside it as the paper's dual metric.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use super::answer::ContextSetting;
use super::elo::Preference;
use super::judge::MeanStd;
use super::pairwise::PairLine;
use super::qa::QaItem;

/// How a win in one order and a tie in the other counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Discrepancy {
    /// A tie (the default: the judge did not see a difference both times).
    #[default]
    Tie,
    /// The decided verdict stands.
    Decided,
}

impl Discrepancy {
    pub fn name(self) -> &'static str {
        match self {
            Discrepancy::Tie => "tie",
            Discrepancy::Decided => "decided",
        }
    }

    pub fn from_name(s: &str) -> Option<Discrepancy> {
        match s {
            "tie" => Some(Discrepancy::Tie),
            "decided" => Some(Discrepancy::Decided),
            _ => None,
        }
    }

    /// What the report says of the rule.
    pub fn label(self) -> &'static str {
        match self {
            Discrepancy::Tie => "a win in one order and a tie in the other counts as a tie (the paper does not say; --pce-discrepancy decided counts it a win)",
            Discrepancy::Decided => "a win in one order and a tie in the other counts as a win (--pce-discrepancy decided; the default counts it a tie)",
        }
    }
}

/// The outcome of one comparison, for the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairOutcome {
    Win,
    Tie,
    Loss,
}

/// One comparison's outcome for the model from its two verdicts: `shown_first`
/// the verdict with the model's answer first, `shown_second` with the
/// baseline's first.
pub fn outcome(
    shown_first: Preference,
    shown_second: Preference,
    rule: Discrepancy,
) -> PairOutcome {
    // Each verdict from the model's side: +1 a win, 0 a tie, -1 a loss.
    let side = |p: Preference, model_first: bool| -> i8 {
        match (p, model_first) {
            (Preference::Tie, _) => 0,
            (Preference::First, true) | (Preference::Second, false) => 1,
            _ => -1,
        }
    };
    let (a, b) = (side(shown_first, true), side(shown_second, false));
    let sum = a + b;
    if a == b || sum == 0 {
        // Agreement, or a flip with the order (+1 and -1): a tie when they
        // cancel.
        return match a.signum() {
            1 if a == b => PairOutcome::Win,
            -1 if a == b => PairOutcome::Loss,
            _ => PairOutcome::Tie,
        };
    }
    // One decided, one tie.
    match rule {
        Discrepancy::Tie => PairOutcome::Tie,
        Discrepancy::Decided if sum > 0 => PairOutcome::Win,
        Discrepancy::Decided => PairOutcome::Loss,
    }
}

/// One row of the PCE table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PceRow {
    pub model: String,
    pub baseline: String,
    pub setting: ContextSetting,
    /// The questions' language (`"all"` over every language when there are
    /// several; `"unknown"` when the QA file does not say).
    pub language: String,
    pub comparisons: usize,
    pub wins: usize,
    pub ties: usize,
    pub losses: usize,
    /// Pairs judged in one order only: not comparisons, counted apart.
    pub one_order: usize,
    /// The answer runs with a comparison.
    pub runs: usize,
    /// The mean over the runs of 100 × (wins + ½ ties) / comparisons (one
    /// run: that run's); None without a comparison.
    pub pce: Option<f64>,
    /// The population standard deviation of the runs' PCE; None with fewer
    /// than two runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pce_sd: Option<f64>,
}

impl PceRow {
    fn new(model: &str, baseline: &str, setting: ContextSetting, language: &str) -> PceRow {
        PceRow {
            model: model.to_string(),
            baseline: baseline.to_string(),
            setting,
            language: language.to_string(),
            comparisons: 0,
            wins: 0,
            ties: 0,
            losses: 0,
            one_order: 0,
            runs: 0,
            pce: None,
            pce_sd: None,
        }
    }
}

/// PCE = 100 × (wins + ½ ties) / comparisons, None without one.
pub fn pce_of(wins: usize, ties: usize, comparisons: usize) -> Option<f64> {
    (comparisons > 0).then(|| 100.0 * (wins as f64 + 0.5 * ties as f64) / comparisons as f64)
}

/// Every model's PCE against `baseline` in each setting, per language and
/// over all (when the questions hold several), from the pairwise
/// judgments `lines`; sorted by model, setting, language. Judgments of
/// pairs without the baseline are not used (Elo uses them).
pub fn against_baseline(
    qa: &[QaItem],
    lines: &[PairLine],
    baseline: &str,
    rule: Discrepancy,
) -> Vec<PceRow> {
    let language: HashMap<&str, &str> =
        qa.iter().map(|q| (q.id.as_str(), q.language.as_deref().unwrap_or("unknown"))).collect();
    // (model, setting, question, run) -> (verdict with the model first, with the baseline first)
    type Pair = (Option<Preference>, Option<Preference>);
    let mut pairs: BTreeMap<(&str, ContextSetting, &str, u32), Pair> = BTreeMap::new();
    for l in lines {
        let j = &l.judgment;
        let (model, model_first) = if j.second == baseline && j.first != baseline {
            (j.first.as_str(), true)
        } else if j.first == baseline && j.second != baseline {
            (j.second.as_str(), false)
        } else {
            continue;
        };
        let e = pairs.entry((model, l.setting, j.question_id.as_str(), j.run)).or_default();
        // The last verdict of a pair and order counts (a file holds one).
        if model_first {
            e.0 = Some(j.verdict);
        } else {
            e.1 = Some(j.verdict);
        }
    }
    let mut languages: BTreeMap<(&str, ContextSetting), BTreeSet<&str>> = BTreeMap::new();
    let mut rows: BTreeMap<(&str, ContextSetting, &str), PceRow> = BTreeMap::new();
    // Per row, per run: (wins, ties, comparisons).
    let mut per_run: BTreeMap<(&str, ContextSetting, &str), BTreeMap<u32, [usize; 3]>> =
        BTreeMap::new();
    for ((model, setting, question, run), (first, second)) in &pairs {
        let lang = language.get(question).copied().unwrap_or("unknown");
        languages.entry((model, *setting)).or_default().insert(lang);
        for l in [lang, "all"] {
            let row = rows
                .entry((model, *setting, l))
                .or_insert_with(|| PceRow::new(model, baseline, *setting, l));
            match (first, second) {
                (Some(a), Some(b)) => {
                    row.comparisons += 1;
                    let tally =
                        per_run.entry((model, *setting, l)).or_default().entry(*run).or_default();
                    tally[2] += 1;
                    match outcome(*a, *b, rule) {
                        PairOutcome::Win => {
                            row.wins += 1;
                            tally[0] += 1;
                        }
                        PairOutcome::Tie => {
                            row.ties += 1;
                            tally[1] += 1;
                        }
                        PairOutcome::Loss => row.losses += 1,
                    }
                }
                _ => row.one_order += 1,
            }
        }
    }
    rows.into_iter()
        .filter(|((model, setting, l), _)| {
            *l != "all" || languages.get(&(*model, *setting)).is_some_and(|s| s.len() > 1)
        })
        .map(|(key, mut row)| {
            let values: Vec<f64> = per_run
                .get(&key)
                .into_iter()
                .flat_map(|runs| runs.values())
                .filter_map(|&[w, t, n]| pce_of(w, t, n))
                .collect();
            row.runs = values.len();
            if !values.is_empty() {
                let spread = MeanStd::of(&values);
                row.pce = Some(spread.mean);
                row.pce_sd = (values.len() > 1).then_some(spread.std);
            }
            row
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::coreqa::elo::Judgment;
    use Preference::{First, Second, Tie};

    /// A pairwise line of question `q` in the none setting.
    pub(crate) fn line(q: &str, first: &str, second: &str, verdict: Preference) -> PairLine {
        PairLine {
            temperature: None,
            judgment: Judgment {
                question_id: q.into(),
                first: first.into(),
                second: second.into(),
                verdict,
                run: 1,
            },
            setting: ContextSetting::None,
            judge: "j".into(),
            reasoning: String::new(),
        }
    }

    fn qa(ids: &[(&str, &str)]) -> Vec<QaItem> {
        ids.iter()
            .map(|(id, lang)| {
                serde_json::from_value(serde_json::json!({
                    "id": id, "repository": "o/r", "question": "?", "reference_answer": "!",
                    "language": lang
                }))
                .unwrap()
            })
            .collect()
    }

    /// Both orders of `q` for model m against baseline b: `a` with m first,
    /// `b` with the baseline first.
    fn both(q: &str, a: Preference, b: Preference) -> [PairLine; 2] {
        [line(q, "m", "base", a), line(q, "base", "m", b)]
    }

    fn pce(lines: &[PairLine], rule: Discrepancy) -> PceRow {
        let q = qa(&[("q1", "go"), ("q2", "go"), ("q3", "go"), ("q4", "go")]);
        let rows = against_baseline(&q, lines, "base", rule);
        assert_eq!(rows.len(), 1, "{rows:?}");
        rows[0].clone()
    }

    #[test]
    fn a_model_that_always_wins_scores_100() {
        let lines: Vec<PairLine> =
            ["q1", "q2", "q3"].iter().flat_map(|q| both(q, First, Second)).collect();
        let r = pce(&lines, Discrepancy::Tie);
        assert_eq!((r.comparisons, r.wins, r.ties, r.losses), (3, 3, 0, 0));
        assert_eq!(r.pce, Some(100.0));
    }

    #[test]
    fn a_model_that_always_ties_scores_50() {
        let lines: Vec<PairLine> =
            ["q1", "q2", "q3"].iter().flat_map(|q| both(q, Tie, Tie)).collect();
        assert_eq!(pce(&lines, Discrepancy::Tie).pce, Some(50.0));
    }

    #[test]
    fn a_judge_with_an_order_bias_only_gives_50() {
        // The answer shown first always wins: every verdict flips with the order.
        let first: Vec<PairLine> =
            ["q1", "q2", "q3", "q4"].iter().flat_map(|q| both(q, First, First)).collect();
        let r = pce(&first, Discrepancy::Tie);
        assert_eq!((r.comparisons, r.ties, r.pce), (4, 4, Some(50.0)));
        // … or the one shown second.
        let second: Vec<PairLine> =
            ["q1", "q2"].iter().flat_map(|q| both(q, Second, Second)).collect();
        assert_eq!(pce(&second, Discrepancy::Decided).pce, Some(50.0));
    }

    #[test]
    fn a_mix_worked_by_hand() {
        // q1: won both ways (win); q2: lost both ways (loss); q3: won shown
        // first, tie shown second (a discrepancy); q4: judged in one order only.
        let mut lines: Vec<PairLine> = Vec::new();
        lines.extend(both("q1", First, Second));
        lines.extend(both("q2", Second, First));
        lines.extend(both("q3", First, Tie));
        lines.push(line("q4", "m", "base", First));
        // A pair without the baseline is not PCE's.
        lines.push(line("q1", "m", "other", First));
        let tie = pce(&lines, Discrepancy::Tie);
        // 3 comparisons: 1 win, 1 tie, 1 loss: 100 × (1 + ½) / 3 = 50.0.
        assert_eq!(
            (tie.comparisons, tie.wins, tie.ties, tie.losses, tie.one_order),
            (3, 1, 1, 1, 1)
        );
        assert_eq!(tie.pce, Some(50.0));
        let decided = pce(&lines, Discrepancy::Decided);
        // 2 wins, 1 loss: 100 × 2 / 3.
        assert_eq!((decided.wins, decided.ties, decided.losses), (2, 0, 1));
        assert!((decided.pce.unwrap() - 200.0 / 3.0).abs() < 1e-12);
        // The outcome rule, seen from the model, in every case.
        use PairOutcome::{Loss, Tie as T, Win};
        for (a, b, tie_rule, decided_rule) in [
            (First, Second, Win, Win),
            (Second, First, Loss, Loss),
            (First, First, T, T),
            (Second, Second, T, T),
            (Tie, Tie, T, T),
            (First, Tie, T, Win),
            (Tie, Second, T, Win),
            (Second, Tie, T, Loss),
            (Tie, First, T, Loss),
        ] {
            assert_eq!(outcome(a, b, Discrepancy::Tie), tie_rule, "{a:?} {b:?}");
            assert_eq!(outcome(a, b, Discrepancy::Decided), decided_rule, "{a:?} {b:?}");
        }
    }

    #[test]
    fn rows_per_language_and_over_all_when_there_are_several() {
        let q = qa(&[("g", "go"), ("p", "python")]);
        let mut lines: Vec<PairLine> = Vec::new();
        lines.extend(both("g", First, Second));
        lines.extend(both("p", Tie, Tie));
        let rows = against_baseline(&q, &lines, "base", Discrepancy::Tie);
        let got: Vec<(&str, Option<f64>)> =
            rows.iter().map(|r| (r.language.as_str(), r.pce)).collect();
        assert_eq!(got, [("all", Some(75.0)), ("go", Some(100.0)), ("python", Some(50.0))]);
        assert_eq!(pce_of(0, 0, 0), None);
    }

    #[test]
    fn with_several_runs_the_pce_is_the_mean_of_the_runs_and_their_spread() {
        let in_run = |r: u32, lines: [PairLine; 2]| {
            lines.map(|mut l| {
                l.judgment.run = r;
                l
            })
        };
        let mut lines: Vec<PairLine> = Vec::new();
        // Run 1: two wins (100.0). Run 2: a win and a tie (75.0). Run 3: one
        // loss (0.0), q2 judged in one order only.
        lines.extend(in_run(1, both("q1", First, Second)));
        lines.extend(in_run(1, both("q2", First, Second)));
        lines.extend(in_run(2, both("q1", First, Second)));
        lines.extend(in_run(2, both("q2", Tie, Tie)));
        lines.extend(in_run(3, both("q1", Second, First)));
        lines.push(in_run(3, both("q2", First, Second))[0].clone());
        let r = pce(&lines, Discrepancy::Tie);
        // Counts summed over the runs; PCE the mean of 100, 75 and 0.
        assert_eq!(
            (r.comparisons, r.wins, r.ties, r.losses, r.one_order, r.runs),
            (5, 3, 1, 1, 1, 3)
        );
        assert!((r.pce.unwrap() - 175.0 / 3.0).abs() < 1e-12);
        // Population SD: deviations 41.67, 16.67, −58.33.
        let mean = 175.0 / 3.0;
        let sd = ((100.0f64 - mean).powi(2) + (75.0 - mean).powi(2) + mean.powi(2)) / 3.0;
        assert!((r.pce_sd.unwrap() - sd.sqrt()).abs() < 1e-9, "{r:?}");
        // One run: no spread.
        assert_eq!(pce(&lines[..4], Discrepancy::Tie).pce_sd, None);
    }
}
