//! Is the model remembering? (issue 83, NOT UPSTREAM): a model's run with
//! the code (any protocol with a code context) and its closed-book run (the
//! no-context control, `--closed-book` / `--control no-context`: the same
//! tasks, the instruction and the description only) compared task by task
//! (`compare`). The **memorized share** is the share of the tasks passed
//! with no code at all; beside it, how many of the passes with the code
//! were also passed without it, and McNemar's test of the two runs.

use crate::report::ModelScores;
use crate::review::compare::{compare, Paired};

/// A model's run with the code (A) and its closed-book run (B), compared.
pub struct Memorized {
    pub model: String,
    /// The open-book run's protocol label.
    pub open_label: &'static str,
    /// A = with the code, B = closed-book.
    pub paired: Paired,
}

impl Memorized {
    /// The share of the tasks passed with no code: the closed-book pass@1.
    pub fn share(&self) -> f64 {
        let c = &self.paired.all;
        match c.tasks() {
            0 => 0.0,
            n => (c.both + c.only_b) as f64 / n as f64,
        }
    }

    /// The open-book pass@1.
    pub fn open_pass(&self) -> f64 {
        let c = &self.paired.all;
        match c.tasks() {
            0 => 0.0,
            n => (c.both + c.only_a) as f64 / n as f64,
        }
    }

    /// Of the tasks passed with the code, the share also passed without
    /// it; `None` when none passed with the code.
    pub fn of_open_passes(&self) -> Option<f64> {
        let c = &self.paired.all;
        let open = c.both + c.only_a;
        (open > 0).then(|| c.both as f64 / open as f64)
    }
}

/// For each model among `runs` with a closed-book run and a run with the
/// code (the first of each, in order), the two compared at `threshold`;
/// a pair that cannot be compared (other tasks) is given with why.
pub fn closed_book_pairs<'a>(
    runs: impl IntoIterator<Item = (&'a str, &'a ModelScores)>,
    threshold: f64,
) -> Vec<Result<Memorized, (String, String)>> {
    let runs: Vec<(&str, &ModelScores)> = runs.into_iter().collect();
    let mut models: Vec<&str> = Vec::new();
    for (m, _) in &runs {
        if !models.contains(m) {
            models.push(m);
        }
    }
    let mut out = Vec::new();
    for m in models {
        let of = |closed: bool| {
            runs.iter()
                .find(|(n, s)| *n == m && s.protocol.has_context() != closed)
                .map(|(_, s)| *s)
        };
        let (Some(open), Some(closed)) = (of(false), of(true)) else { continue };
        out.push(
            compare(open, closed, threshold)
                .map(|paired| Memorized {
                    model: m.to_string(),
                    open_label: open.protocol.label(),
                    paired,
                })
                .map_err(|e| (m.to_string(), e.to_string())),
        );
    }
    out
}
