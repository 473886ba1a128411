//! A run's score in one sentence: pass@1 at the threshold over the tasks
//! counted, its 95 % Wilson interval, what counts as a failure, and (when
//! some tasks have no answer) the rate among the answered ones. The app's
//! Results page opens with it; the numbers are those of the pass@1 table
//! (`score::pass_table`) at that threshold.

use indexmap::IndexMap;

use crate::report::{TaskResult, Unanswered, UnansweredScoring};
use crate::review::evidence::percent_span;
use crate::review::stats::{wilson, RateInterval};
use crate::scoring::breakdown::passes;

/// The interval's level: the usual one, as the Results page states it.
pub const HEADLINE_LEVEL: f64 = 0.95;

#[derive(Clone, Debug, PartialEq)]
pub struct Headline {
    pub threshold: f64,
    /// Tasks that pass, out of the tasks counted (`n`).
    pub passed: usize,
    pub n: usize,
    /// The Wilson interval of `passed / n` at [`HEADLINE_LEVEL`].
    pub wilson: Option<RateInterval>,
    /// Tasks with an answer.
    pub answered: usize,
    /// Tasks of the selection without an answer, and how they are counted.
    pub unanswered: usize,
    pub scoring: Option<UnansweredScoring>,
}

/// The headline of `results` (the SCORES file's records: an unanswered
/// task scored as a failure is among them as an empty reply) at
/// `threshold`.
pub fn headline(
    results: &IndexMap<String, Vec<TaskResult>>,
    threshold: f64,
    unanswered: Option<&Unanswered>,
) -> Headline {
    let records = results.values().flatten();
    let n = records.clone().count();
    let passed = records.filter(|t| passes(t, threshold)).count();
    let missing = unanswered.map_or(0, |u| u.tasks.len());
    let scoring = unanswered.map(|u| u.scoring);
    // Empty replies never pass, so every pass is an answered task's.
    let answered = match scoring {
        Some(UnansweredScoring::Failures) => n.saturating_sub(missing),
        _ => n,
    };
    Headline {
        threshold,
        passed,
        n,
        wilson: wilson(passed, n, HEADLINE_LEVEL),
        answered,
        unanswered: missing,
        scoring,
    }
}

/// `"13.3 %"`: a rate in percent with one decimal, as the table shows it.
pub fn percent(passed: usize, n: usize) -> String {
    if n == 0 {
        "-".into()
    } else {
        format!("{:.1} %", 100.0 * passed as f64 / n as f64)
    }
}

impl Headline {
    /// pass@1 as the table's "all languages" cell shows it.
    pub fn pass_percent(&self) -> String {
        percent(self.passed, self.n)
    }

    /// "8 of 60 tasks pass at threshold 0.8 (95 % interval 7.0–24.2 %)."
    pub fn counts(&self) -> String {
        let interval = match self.wilson {
            Some(_) => format!(" (95 % Wilson interval {} %)", percent_span(self.wilson)),
            None => String::new(),
        };
        format!(
            "{} of {} task{} pass at threshold {}{interval}.",
            self.passed,
            self.n,
            if self.n == 1 { "" } else { "s" },
            crate::python::json::float_repr(self.threshold),
        )
    }

    /// What counts as a failure, in words.
    pub fn failure_rule(&self) -> String {
        let rule = format!(
            "A task fails when its answer's first function is not closest to the needle asked for, \
             or its similarity to it (smoothed BLEU) is below {}",
            crate::python::json::float_repr(self.threshold)
        );
        match self.scoring {
            Some(UnansweredScoring::Failures) => format!(
                "{rule}; the {} task{} without an answer count{} as failures, as repoqa run counts them.",
                self.unanswered,
                if self.unanswered == 1 { "" } else { "s" },
                if self.unanswered == 1 { "s" } else { "" },
            ),
            Some(UnansweredScoring::AnsweredOnly) => format!(
                "{rule}. The {} task{} without an answer {} left out: this score is NOT comparable with a full run's.",
                self.unanswered,
                if self.unanswered == 1 { "" } else { "s" },
                if self.unanswered == 1 { "is" } else { "are" },
            ),
            None => format!("{rule}."),
        }
    }

    /// Among the answered tasks alone, when some tasks have none and they
    /// are counted as failures: "Of the 12 answered, 8 pass: 66.7 %."
    pub fn answered_only(&self) -> Option<String> {
        (self.scoring == Some(UnansweredScoring::Failures) && self.answered > 0).then(|| {
            format!(
                "Of the {} answered, {} pass: {}.",
                self.answered,
                self.passed,
                percent(self.passed, self.answered)
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Number, Value};

    fn rec(score: f64, best: bool) -> TaskResult {
        TaskResult {
            repo: "r".into(),
            name: "f".into(),
            needle_position: Value::from(0.5),
            is_best_similar: best,
            best_similar_score: Number::from_f64(score).unwrap(),
            best_target: None,
            token_start: Value::from(0),
            token_end: Value::from(1),
        }
    }

    fn results(recs: Vec<TaskResult>) -> IndexMap<String, Vec<TaskResult>> {
        let mut m = IndexMap::new();
        m.insert("python".to_string(), recs);
        m
    }

    #[test]
    fn demo_like_partial_run_states_both_rates() {
        // 12 answered (8 pass, one right function below the threshold),
        // 48 empty replies scored as failures.
        let mut recs: Vec<TaskResult> = (0..8).map(|_| rec(0.95, true)).collect();
        recs.push(rec(0.7, true));
        recs.extend((0..3).map(|_| rec(0.9, false)));
        recs.extend((0..48).map(|_| rec(0.0, false)));
        let u = Unanswered {
            scoring: UnansweredScoring::Failures,
            tasks: (0..48).map(|i| format!("t{i}")).collect(),
        };
        let h = headline(&results(recs), 0.8, Some(&u));
        assert_eq!((h.passed, h.n, h.answered, h.unanswered), (8, 60, 12, 48));
        assert_eq!(h.pass_percent(), "13.3 %");
        assert_eq!(h.answered_only().as_deref(), Some("Of the 12 answered, 8 pass: 66.7 %."));
        let w = h.wilson.unwrap();
        assert!(w.low < 8.0 / 60.0 && 8.0 / 60.0 < w.high);
        assert!(h
            .counts()
            .starts_with("8 of 60 tasks pass at threshold 0.8 (95 % Wilson interval "));
        assert!(h.failure_rule().contains("the 48 tasks without an answer count as failures"));
    }

    #[test]
    fn the_threshold_decides() {
        let h = headline(&results(vec![rec(0.7, true), rec(1.0, true)]), 0.7, None);
        assert_eq!((h.passed, h.n), (2, 2));
        assert_eq!(h.answered_only(), None);
        assert!(h.failure_rule().ends_with("below 0.7."));
        let h = headline(&results(vec![rec(0.7, true), rec(1.0, true)]), 0.8, None);
        assert_eq!(h.passed, 1);
    }

    #[test]
    fn answered_only_is_labelled_not_comparable() {
        let u = Unanswered { scoring: UnansweredScoring::AnsweredOnly, tasks: vec!["t".into()] };
        let h = headline(&results(vec![rec(1.0, true)]), 0.8, Some(&u));
        assert_eq!((h.passed, h.n, h.answered), (1, 1, 1));
        assert!(h.failure_rule().contains("NOT comparable"));
        assert_eq!(h.answered_only(), None);
    }

    #[test]
    fn nothing_scored_has_no_rate() {
        let h = headline(&IndexMap::new(), 0.8, None);
        assert_eq!(h.pass_percent(), "-");
        assert_eq!(h.wilson, None);
    }
}
