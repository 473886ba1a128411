//! The CoReQA evaluator's tables from one's own files (paper §IV): Table
//! V's shape (per model and context setting: accuracy, completeness,
//! relevance and clarity, each the mean ± standard deviation over the
//! answer runs, and PCE against a baseline model), Table IV's (the same per
//! language), each with the answers' BLEU beside the judge's figures (as
//! Table VI sets them) and the share of judgments at each of the five
//! levels ([`super::levels`]). Built from the judge's table
//! ([`super::judge::summarize`]), PCE ([`super::pce`]) and the levels: the
//! CLI's `repoqa coreqa report` and the page's CoReQA results show the same
//! [`CoreqaReport`].

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::answer::{AnswerLine, ContextSetting};
use super::judge::{summarize, Criteria, JudgeLine, JudgeRow, MeanStd};
use super::levels::{distribution, Distribution};
use super::pairwise::PairLine;
use super::pce::{against_baseline, Discrepancy, PceRow};
use super::qa::QaItem;
use super::stability::{split_checks, stability, StabilityRow};

/// A model's PCE in one row (the default: not compared, no PCE).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PceCell {
    /// 100 × (wins + ½ ties) / comparisons; 50.0 for the baseline itself;
    /// None without a comparison.
    pub pce: Option<f64>,
    /// This row is the baseline's (50.0 by construction, not compared).
    pub baseline: bool,
    pub comparisons: usize,
    pub wins: usize,
    pub ties: usize,
    pub losses: usize,
    /// Pairs judged in one order only (not comparisons).
    pub one_order: usize,
    /// The answer runs compared (PCE is their mean).
    #[serde(default)]
    pub runs: usize,
    /// The runs' PCE population standard deviation (two runs or more).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pce_sd: Option<f64>,
}

impl PceCell {
    /// The baseline's own cell: 50.0 by construction.
    fn of_baseline() -> PceCell {
        PceCell { pce: Some(50.0), baseline: true, ..PceCell::default() }
    }

    /// "61.9", "61.9 ± 3.2" over several runs, the baseline's "50.0" and
    /// `baseline_mark`, or "–" without a comparison.
    pub fn text(&self, baseline_mark: &str) -> String {
        match (self.baseline, self.pce, self.pce_sd) {
            (true, _, _) => format!("50.0{baseline_mark}"),
            (false, Some(p), Some(sd)) => format!("{p:.1} ± {sd:.1}"),
            (false, Some(p), None) => format!("{p:.1}"),
            (false, None, _) => "–".to_string(),
        }
    }
}

impl From<&PceRow> for PceCell {
    fn from(p: &PceRow) -> PceCell {
        PceCell {
            pce: p.pce,
            baseline: false,
            comparisons: p.comparisons,
            wins: p.wins,
            ties: p.ties,
            losses: p.losses,
            one_order: p.one_order,
            runs: p.runs,
            pce_sd: p.pce_sd,
        }
    }
}

/// One row: a model in one context setting, over one language or all.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReportRow {
    pub model: String,
    pub setting: ContextSetting,
    /// `"all"` over every language (only when there are several).
    pub language: String,
    pub questions: usize,
    /// Answer runs (the spread is over them when there are several) and
    /// judgments of each answer.
    pub runs: usize,
    pub repetitions: usize,
    pub criteria: Criteria<MeanStd>,
    pub overall: MeanStd,
    /// Mean smoothed BLEU of the answers against the references (0 to 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bleu: Option<f64>,
    /// With a baseline and pairwise judgments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pce: Option<PceCell>,
    /// The judgments at each level, per criterion.
    pub levels: Distribution,
}

/// The tables.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CoreqaReport {
    /// The model PCE is against, if one was named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    pub discrepancy: Discrepancy,
    /// Table V's rows (one per model and setting: over all languages, or
    /// the one language there is), then Table IV's (per language, when
    /// there are several).
    pub overall: Vec<ReportRow>,
    pub by_language: Vec<ReportRow>,
    /// Table VI's rows, from the stability check's judgments among those
    /// given (`coreqa judge --stability N`); empty without them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stability: Vec<StabilityRow>,
    /// What the tables rest on and the choices made where the paper is
    /// silent, to print under them.
    pub notes: Vec<String>,
}

/// Make the tables from a QA file's items, the judge's lines, the answers
/// (for BLEU; may be empty) and pairwise lines (for PCE, with `baseline`).
pub fn report(
    qa: &[QaItem],
    judged: &[JudgeLine],
    answers: &[AnswerLine],
    pairs: &[PairLine],
    baseline: Option<&str>,
    rule: Discrepancy,
) -> CoreqaReport {
    let (checks, scores) = split_checks(judged);
    let judged = &scores[..];
    let rows = summarize(qa, judged, answers);
    let pce = baseline.map(|b| against_baseline(qa, pairs, b, rule)).unwrap_or_default();
    // Each question's language, looked up once per judgment (not by a scan
    // of the QA file: a real set holds thousands of both).
    let languages: HashMap<&str, &str> =
        qa.iter().map(|q| (q.id.as_str(), q.language.as_deref().unwrap_or("unknown"))).collect();
    let language = |id: &str| languages.get(id).copied().unwrap_or("unknown");
    let several = judged.iter().map(|j| language(&j.question_id)).collect::<HashSet<_>>().len() > 1;
    let make = |r: &JudgeRow| -> ReportRow {
        let mine = judged.iter().filter(|j| {
            j.model == r.model
                && j.setting == r.setting
                && (r.language == "all" || language(&j.question_id) == r.language)
        });
        let cell = baseline.map(|b| {
            if r.model == b {
                PceCell::of_baseline()
            } else {
                // PCE's rows are per language and over all exactly as the
                // judge's table's are.
                pce.iter()
                    .find(|p| {
                        p.model == r.model && p.setting == r.setting && p.language == r.language
                    })
                    .map_or_else(PceCell::default, PceCell::from)
            }
        });
        ReportRow {
            model: r.model.clone(),
            setting: r.setting,
            language: r.language.clone(),
            questions: r.questions,
            runs: r.runs,
            repetitions: r.repetitions,
            criteria: r.criteria,
            overall: r.overall,
            bleu: r.bleu,
            pce: cell,
            levels: distribution(mine),
        }
    };
    let (mut overall, mut by_language) = (Vec::new(), Vec::new());
    for r in &rows {
        if r.language == "all" || !several {
            overall.push(make(r));
        }
        if r.language != "all" && several {
            by_language.push(make(r));
        }
    }
    // Settings in the paper's order, then models as the judge's table sorts them.
    let key = |r: &ReportRow| (r.setting, r.language.clone(), r.model.clone());
    overall.sort_by_key(key);
    by_language.sort_by_key(|r| (r.language.clone(), r.setting, r.model.clone()));
    let mut notes = vec![
        "Each criterion: the mean over the questions of each answer's judgments, then the mean ± population standard deviation over the answer runs (over the judge's repetitions when there is one run), as Tables IV and V report them.".to_string(),
        "Levels: the share of judgments scoring 1-2, 3-4, 5-6, 7-8 and 9-10 (accuracy's levels are the paper's words; the others are worded the same way: the paper does not word them).".to_string(),
        "BLEU: the answers' mean smoothed BLEU against the reference answers (×100), beside the judge's figures as the paper sets them; it cannot tell a right answer in other words from a wrong one.".to_string(),
    ];
    match baseline {
        Some(b) => {
            notes.push(format!(
                "PCE: 100 × (wins + ½ ties) / comparisons against the baseline {b} (50.0 by construction), each comparison one question's pair judged in both orders, a verdict that flips with the order a tie; {}. With several answer runs, run r of each model is compared with run r of the baseline and the PCE is the mean ± population SD of the runs' PCE.",
                rule.label()
            ));
            if !pairs.iter().any(|p| p.judgment.first == b || p.judgment.second == b) {
                notes.push(format!("PCE: no pairwise judgment involves the baseline {b}: every other model's PCE is –."));
            }
        }
        None => notes.push(
            "PCE: name a baseline model (--baseline MODEL) and give pairwise judgments (--pairwise FILE) for the PCE column."
                .to_string(),
        ),
    }
    let stability = stability(qa, &checks, answers);
    if !stability.is_empty() {
        notes.push(format!(
            "Table VI: the judge's stability check ({} judgments of a seeded sample of answers, each judged several times; left out of the tables above): per model and setting, the mean of the answers' mean scores ± the mean of their standard deviations.",
            checks.len()
        ));
    }
    CoreqaReport {
        baseline: baseline.map(str::to_string),
        discrepancy: rule,
        overall,
        by_language,
        stability,
        notes,
    }
}

impl CoreqaReport {
    /// The tables as text, for the terminal.
    pub fn render_text(&self) -> String {
        let mut out = String::new();
        let header = |out: &mut String, first: &str| {
            out.push_str(&format!(
                "{first:<12} {:<28} {:>13} {:>13} {:>13} {:>13} {:>12} {:>6}  levels of accuracy (1-2 … 9-10, %)\n",
                "model", "Acc.", "Cmpt.", "Rel.", "Clarity", "PCE", "BLEU"
            ));
        };
        let line = |out: &mut String, first: &str, r: &ReportRow| {
            let pce = r.pce.as_ref().map_or("–".to_string(), |p| p.text("*"));
            let bleu = r.bleu.map_or("–".to_string(), |b| format!("{:.1}", b * 100.0));
            let levels: Vec<String> =
                r.levels.shares(0).iter().map(|s| format!("{s:.0}")).collect();
            out.push_str(&format!(
                "{first:<12} {:<28} {:>13} {:>13} {:>13} {:>13} {pce:>12} {bleu:>6}  {}\n",
                r.model,
                MeanStd::label(&r.criteria.accuracy),
                MeanStd::label(&r.criteria.completeness),
                MeanStd::label(&r.criteria.relevance),
                MeanStd::label(&r.criteria.clarity),
                levels.join(" / ")
            ));
        };
        let runs = self.overall.iter().map(|r| r.runs).max().unwrap_or(0);
        out.push_str(&format!(
            "Table V's shape: per model and context setting ({} run{} of answers, mean ± SD)\n",
            runs,
            if runs == 1 { "" } else { "s" }
        ));
        header(&mut out, "setting");
        for r in &self.overall {
            line(&mut out, &r.setting.to_string(), r);
        }
        if !self.by_language.is_empty() {
            out.push_str("\nTable IV's shape: per language\n");
            let mut last = String::new();
            for r in &self.by_language {
                if r.language != last {
                    out.push_str(&format!("{}\n", r.language));
                    header(&mut out, "  setting");
                    last = r.language.clone();
                }
                line(&mut out, &format!("  {}", r.setting), r);
            }
        }
        if let Some(b) = &self.baseline {
            out.push_str(&format!("\n* {b}: the baseline, 50.0 by construction.\n"));
        }
        if !self.stability.is_empty() {
            out.push('\n');
            out.push_str(&super::stability::render_text(&self.stability));
        }
        out.push('\n');
        for n in &self.notes {
            out.push_str(&format!("- {n}\n"));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coreqa::elo::Preference;

    fn qa(id: &str, lang: &str) -> QaItem {
        serde_json::from_value(serde_json::json!({
            "id": id, "repository": "o/r", "question": "?", "reference_answer": "the fix is to pin the version",
            "language": lang
        }))
        .unwrap()
    }

    fn judged(q: &str, model: &str, run: u32, rep: u32, s: [u8; 4]) -> JudgeLine {
        JudgeLine {
            repetitions: None,
            stability_seed: None,
            temperature: None,
            question_id: q.into(),
            setting: ContextSetting::None,
            model: model.into(),
            run,
            repetition: rep,
            judge: "j".into(),
            scores: Criteria { accuracy: s[0], completeness: s[1], relevance: s[2], clarity: s[3] },
            reasoning: String::new(),
        }
    }

    use crate::coreqa::pce::tests::line as pair;

    #[test]
    fn the_tables_are_worked_out_by_hand() {
        let items = [qa("g", "go"), qa("p", "python")];
        // Model m: two runs, one judgment each. Run 1: g 8/6/9/8, p 6/4/7/8;
        // run 2: g 7/6/9/8, p 5/4/7/8. Accuracy per run: (8+6)/2 = 7, (7+5)/2 = 6:
        // 6.5 ± 0.5 over all; go 7.5 ± 0.5; python 5.5 ± 0.5.
        let mut j = vec![
            judged("g", "m", 1, 1, [8, 6, 9, 8]),
            judged("p", "m", 1, 1, [6, 4, 7, 8]),
            judged("g", "m", 2, 1, [7, 6, 9, 8]),
            judged("p", "m", 2, 1, [5, 4, 7, 8]),
        ];
        // The baseline b: one run.
        j.push(judged("g", "b", 1, 1, [5, 5, 5, 5]));
        j.push(judged("p", "b", 1, 1, [5, 5, 5, 5]));
        // PCE: m wins g both ways; p flips with the order (a tie): 75.0 over
        // all, go 100.0, python 50.0.
        let pairs = [
            pair("g", "m", "b", Preference::First),
            pair("g", "b", "m", Preference::Second),
            pair("p", "m", "b", Preference::First),
            pair("p", "b", "m", Preference::First),
        ];
        let r = report(&items, &j, &[], &pairs, Some("b"), Discrepancy::Tie);
        let m = r.overall.iter().find(|r| r.model == "m").unwrap();
        assert_eq!((m.language.as_str(), m.runs, m.questions), ("all", 2, 2));
        assert_eq!(m.criteria.accuracy, MeanStd { mean: 6.5, std: 0.5 });
        assert_eq!(m.criteria.completeness, MeanStd { mean: 5.0, std: 0.0 });
        let pce = m.pce.as_ref().unwrap();
        assert_eq!((pce.pce, pce.comparisons, pce.wins, pce.ties), (Some(75.0), 2, 1, 1));
        // Accuracy levels over m's four judgments: 8, 6, 7, 5 → 5-6 twice, 7-8 twice.
        assert_eq!(m.levels.criteria.accuracy, [0, 0, 2, 2, 0]);
        let b = r.overall.iter().find(|r| r.model == "b").unwrap();
        assert_eq!(b.pce.as_ref().map(|p| (p.pce, p.baseline)), Some((Some(50.0), true)));
        let go: Vec<(&str, &str, Option<f64>, f64)> = r
            .by_language
            .iter()
            .map(|r| {
                (
                    r.language.as_str(),
                    r.model.as_str(),
                    r.pce.as_ref().and_then(|p| p.pce),
                    r.criteria.accuracy.mean,
                )
            })
            .collect();
        assert_eq!(
            go,
            [
                ("go", "b", Some(50.0), 5.0),
                ("go", "m", Some(100.0), 7.5),
                ("python", "b", Some(50.0), 5.0),
                ("python", "m", Some(50.0), 5.5)
            ]
        );
        let text = r.render_text();
        assert!(text.contains("6.50 ± 0.50"), "{text}");
        assert!(text.contains("75.0"), "{text}");
        assert!(text.contains("* b: the baseline, 50.0 by construction."), "{text}");
        assert!(text.contains("counts as a tie (the paper does not say"), "{text}");
    }

    #[test]
    fn without_a_baseline_there_is_no_pce_and_the_report_says_how_to_get_it() {
        let items = [qa("g", "go")];
        let j = [judged("g", "m", 1, 1, [8, 6, 9, 8]), judged("g", "m", 1, 2, [6, 6, 9, 8])];
        let r = report(&items, &j, &[], &[], None, Discrepancy::Tie);
        assert!(r.by_language.is_empty(), "one language: Table V only");
        let m = &r.overall[0];
        assert_eq!((m.language.as_str(), m.pce.is_none()), ("go", true));
        // One run: the spread is over the two repetitions.
        assert_eq!(m.criteria.accuracy, MeanStd { mean: 7.0, std: 1.0 });
        assert!(r.notes.iter().any(|n| n.contains("--baseline MODEL")));
        // A baseline that no pairwise judgment involves is named.
        let r = report(&items, &j, &[], &[], Some("x"), Discrepancy::Tie);
        assert!(r.notes.iter().any(|n| n.contains("no pairwise judgment involves the baseline x")));
        assert_eq!(r.overall[0].pce.as_ref().map(|p| p.pce), Some(None));
    }
}
