//! Pairwise comparison (CoReQA §IV): a judge sees a question, its reference
//! answer and two models' answers, and says which is better, or a tie. Each
//! pair is judged in both orders, so the judge's position bias shows.
//!
//! - **Elo**: every judgment is one game, played in the order given (the
//!   order of the judgments file): both models start at
//!   [`INITIAL_RATING`]; the first's expected score is
//!   1 / (1 + 10^((R_second − R_first) / [`SCALE`])); a win scores 1, a tie
//!   ½, a loss 0; each rating moves by [`K_FACTOR`] × (score − expected).
//! - **Bootstrap**: Elo over [`BOOTSTRAP_ROUNDS`] shuffles of the judgments
//!   (Fisher–Yates driven by SplitMix64 from a fixed seed), giving each
//!   model's median and 95% interval (the values at ranks ⌊0.025·(n−1)⌋ and
//!   ⌊0.975·(n−1)⌋ of the sorted ratings), so the result does not hang on
//!   one order.
//! - **Position bias**: for each question and pair of models judged in both
//!   orders, the two verdicts (seen from one model) agree (`consistent`),
//!   differ by a tie (`small_discrepancy`), or name opposite winners
//!   (`contradiction`).

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::answer::{first_run, is_first_run};
use crate::seeded::SplitMix64;

pub const INITIAL_RATING: f64 = 1000.0;
pub const K_FACTOR: f64 = 32.0;
pub const SCALE: f64 = 400.0;
pub const BOOTSTRAP_ROUNDS: usize = 1000;
pub const BOOTSTRAP_SEED: u64 = 42;

/// Which of the two answers, in the order the judge saw them, is better.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Preference {
    First,
    Second,
    Tie,
}

/// One judgment (a line of a judgments JSONL file).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Judgment {
    pub question_id: String,
    /// The model whose answer was shown first.
    pub first: String,
    pub second: String,
    pub verdict: Preference,
    /// Which answer run of both models was compared, from 1 (absent for the
    /// first: files written before runs compared the first run only).
    #[serde(default = "first_run", skip_serializing_if = "is_first_run")]
    pub run: u32,
}

impl Judgment {
    /// The first model's score: 1, ½ or 0.
    pub fn first_score(&self) -> f64 {
        match self.verdict {
            Preference::First => 1.0,
            Preference::Tie => 0.5,
            Preference::Second => 0.0,
        }
    }
}

/// Ratings after playing `judgments` in the order given, models in the
/// order they first appear.
pub fn elo<'j>(judgments: impl IntoIterator<Item = &'j Judgment>) -> IndexMap<String, f64> {
    let mut ratings: IndexMap<String, f64> = IndexMap::new();
    for j in judgments {
        let a = *ratings.entry(j.first.clone()).or_insert(INITIAL_RATING);
        let b = *ratings.entry(j.second.clone()).or_insert(INITIAL_RATING);
        let expected = 1.0 / (1.0 + 10f64.powf((b - a) / SCALE));
        let delta = K_FACTOR * (j.first_score() - expected);
        ratings[&j.first] = a + delta;
        ratings[&j.second] = b - delta;
    }
    ratings
}

/// A model's ratings over the bootstrap's shuffles.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    pub median: f64,
    pub low: f64,
    pub high: f64,
}

/// Elo over `rounds` shuffles of `judgments` from `seed`.
pub fn bootstrap(judgments: &[Judgment], rounds: usize, seed: u64) -> IndexMap<String, Interval> {
    let mut rng = SplitMix64(seed);
    let mut per_model: IndexMap<String, Vec<f64>> =
        elo(judgments).keys().map(|m| (m.clone(), Vec::with_capacity(rounds))).collect();
    let mut order: Vec<usize> = (0..judgments.len()).collect();
    for _ in 0..rounds {
        for i in (1..order.len()).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            order.swap(i, j);
        }
        for (model, rating) in elo(order.iter().map(|&i| &judgments[i])) {
            per_model[&model].push(rating);
        }
    }
    per_model
        .into_iter()
        .map(|(model, mut r)| {
            r.sort_by(f64::total_cmp);
            let at = |p: f64| r.get((p * (r.len().saturating_sub(1)) as f64) as usize).copied();
            let iv = Interval {
                median: at(0.5).unwrap_or(INITIAL_RATING),
                low: at(0.025).unwrap_or(INITIAL_RATING),
                high: at(0.975).unwrap_or(INITIAL_RATING),
            };
            (model, iv)
        })
        .collect()
}

/// Wins, ties and losses of a model against another.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub wins: usize,
    pub ties: usize,
    pub losses: usize,
}

/// Per (model, opponent), both ways, in order of first appearance.
pub fn records(judgments: &[Judgment]) -> IndexMap<(String, String), Record> {
    let mut out: IndexMap<(String, String), Record> = IndexMap::new();
    for j in judgments {
        let (a, b) = (j.first.clone(), j.second.clone());
        let (ra, rb) = match j.verdict {
            Preference::First => ((1, 0, 0), (0, 0, 1)),
            Preference::Tie => ((0, 1, 0), (0, 1, 0)),
            Preference::Second => ((0, 0, 1), (1, 0, 0)),
        };
        for (key, (w, t, l)) in [((a.clone(), b.clone()), ra), ((b, a), rb)] {
            let r = out.entry(key).or_default();
            r.wins += w;
            r.ties += t;
            r.losses += l;
        }
    }
    out
}

/// How the two orders of a pair agree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PositionBias {
    pub consistent: usize,
    pub small_discrepancy: usize,
    pub contradiction: usize,
    /// Judgments whose other order is missing (or that repeat an order).
    pub unpaired: usize,
}

pub fn position_bias(judgments: &[Judgment]) -> PositionBias {
    // (question, run, first, second) → the first's score.
    let mut seen: IndexMap<(&str, u32, &str, &str), f64> = IndexMap::new();
    let mut bias = PositionBias::default();
    for j in judgments {
        if seen.insert((&j.question_id, j.run, &j.first, &j.second), j.first_score()).is_some() {
            bias.unpaired += 1;
        }
    }
    for (&(q, run, a, b), &score) in &seen {
        // Count each pair once, from the order that sorts first.
        if a > b {
            if !seen.contains_key(&(q, run, b, a)) {
                bias.unpaired += 1;
            }
            continue;
        }
        let Some(&other) = seen.get(&(q, run, b, a)) else {
            bias.unpaired += 1;
            continue;
        };
        // Both from `a`'s side: the other order's score for `a` is 1 − its.
        let gap = (score - (1.0 - other)).abs();
        if gap == 0.0 {
            bias.consistent += 1;
        } else if gap == 0.5 {
            bias.small_discrepancy += 1;
        } else {
            bias.contradiction += 1;
        }
    }
    bias
}

/// First-position preference: the verdicts for the answer the judge saw
/// first, for the one it saw second, and ties. A judge without a
/// preference for a position gives the first half of its decided verdicts
/// when every pair is asked in both orders.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FirstPosition {
    pub first: usize,
    pub second: usize,
    pub tie: usize,
}

impl FirstPosition {
    /// The counts of `judgments`' verdicts.
    pub fn of(judgments: &[Judgment]) -> FirstPosition {
        let mut p = FirstPosition::default();
        for j in judgments {
            match j.verdict {
                Preference::First => p.first += 1,
                Preference::Second => p.second += 1,
                Preference::Tie => p.tie += 1,
            }
        }
        p
    }

    /// The share of decided verdicts (not ties) that went to the answer
    /// shown first; none when every verdict is a tie.
    pub fn rate(&self) -> Option<f64> {
        let decided = self.first + self.second;
        (decided > 0).then(|| self.first as f64 / decided as f64)
    }
}

/// A judgments JSONL file: one [`Judgment`] per line, blank lines skipped.
pub fn read_judgments(bytes: &[u8], name: &str) -> Result<Vec<Judgment>, super::CoreqaError> {
    let text = std::str::from_utf8(bytes).map_err(|e| super::CoreqaError::Judgments {
        path: name.to_string(),
        line: 1 + bytes[..e.valid_up_to()].iter().filter(|&&b| b == b'\n').count(),
        message: "not UTF-8".into(),
    })?;
    let text = text.strip_prefix(crate::input::limits::BOM).unwrap_or(text);
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let j: Judgment =
            serde_json::from_str(line).map_err(|e| super::CoreqaError::Judgments {
                path: name.to_string(),
                line: i + 1,
                message: e.to_string(),
            })?;
        out.push(j);
    }
    Ok(out)
}

/// Everything `repoqa coreqa compare` reports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub judgments: usize,
    /// Elo in the file's order.
    pub elo: IndexMap<String, f64>,
    pub bootstrap_rounds: usize,
    pub bootstrap_seed: u64,
    pub bootstrap: IndexMap<String, Interval>,
    pub records: Vec<RecordRow>,
    pub position_bias: PositionBias,
    /// Absent from files written before it was reported: all zero.
    #[serde(default)]
    pub first_position: FirstPosition,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordRow {
    pub model: String,
    pub opponent: String,
    #[serde(flatten)]
    pub record: Record,
}

impl Comparison {
    /// As `repoqa coreqa compare` prints it: Elo with its bootstrap
    /// interval per model, each pair's record, the position-bias counts.
    pub fn render_text(&self) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let _ = writeln!(out, "{} judgments", self.judgments);
        let _ = writeln!(
            out,
            "{:<24} {:>8} {:>8} {:>8} {:>8}",
            "model", "elo", "median", "2.5%", "97.5%"
        );
        for (model, rating) in &self.elo {
            let _ = match self.bootstrap.get(model) {
                Some(b) => writeln!(
                    out,
                    "{model:<24} {rating:>8.1} {:>8.1} {:>8.1} {:>8.1}",
                    b.median, b.low, b.high
                ),
                None => writeln!(out, "{model:<24} {rating:>8.1}"),
            };
        }
        for r in &self.records {
            let x = &r.record;
            let _ = writeln!(
                out,
                "{} vs {}: {} wins, {} ties, {} losses",
                r.model, r.opponent, x.wins, x.ties, x.losses
            );
        }
        let p = &self.position_bias;
        let _ = writeln!(
            out,
            "position bias: {} consistent, {} small discrepancy, {} contradiction, {} unpaired",
            p.consistent, p.small_discrepancy, p.contradiction, p.unpaired
        );
        let f = &self.first_position;
        let share = f.rate().map_or_else(
            || "no decided verdicts".to_string(),
            |r| format!("{:.1}% of decided verdicts for the answer shown first", 100.0 * r),
        );
        let _ = writeln!(
            out,
            "first-position preference: {} first, {} second, {} ties ({share})",
            f.first, f.second, f.tie
        );
        out
    }
}

pub fn compare(judgments: &[Judgment], rounds: usize, seed: u64) -> Comparison {
    Comparison {
        judgments: judgments.len(),
        elo: elo(judgments),
        bootstrap_rounds: rounds,
        bootstrap_seed: seed,
        bootstrap: bootstrap(judgments, rounds, seed),
        records: records(judgments)
            .into_iter()
            .map(|((model, opponent), record)| RecordRow { model, opponent, record })
            .collect(),
        position_bias: position_bias(judgments),
        first_position: FirstPosition::of(judgments),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn j(q: &str, first: &str, second: &str, verdict: Preference) -> Judgment {
        Judgment {
            question_id: q.into(),
            first: first.into(),
            second: second.into(),
            verdict,
            run: 1,
        }
    }

    #[test]
    fn elo_by_hand() {
        // Game 1: A beats B from 1000/1000: expected ½, A +16, B −16.
        // Game 2: B (984) ties C (1000): expected 1/(1+10^(16/400)) for B.
        let games = [j("q1", "A", "B", Preference::First), j("q1", "B", "C", Preference::Tie)];
        let r = elo(&games);
        assert_eq!(r["A"], 1016.0);
        let e: f64 = 1.0 / (1.0 + 10f64.powf(16.0 / 400.0));
        assert!((e - 0.476_990_4).abs() < 1e-6, "{e}");
        assert!((r["B"] - (984.0 + 32.0 * (0.5 - e))).abs() < 1e-12);
        assert!((r["C"] - (1000.0 - 32.0 * (0.5 - e))).abs() < 1e-12);
        assert!((r["B"] - 984.736_307).abs() < 1e-5 && (r["C"] - 999.263_693).abs() < 1e-5);
        // Ratings are zero-sum.
        assert!((r.values().sum::<f64>() - 3000.0).abs() < 1e-9);
    }

    #[test]
    fn records_and_position_bias() {
        let games = [
            j("q1", "A", "B", Preference::First),
            j("q1", "B", "A", Preference::Second), // consistent: A both times
            j("q2", "A", "B", Preference::Tie),
            j("q2", "B", "A", Preference::First), // small: tie, then B
            j("q3", "A", "B", Preference::First),
            j("q3", "B", "A", Preference::First), // contradiction: the first wins both times
            j("q4", "A", "B", Preference::Second), // unpaired
        ];
        let r = records(&games);
        assert_eq!(r[&("A".to_string(), "B".to_string())], Record { wins: 3, ties: 1, losses: 3 });
        assert_eq!(r[&("B".to_string(), "A".to_string())], Record { wins: 3, ties: 1, losses: 3 });
        let bias = position_bias(&games);
        assert_eq!(
            bias,
            PositionBias { consistent: 1, small_discrepancy: 1, contradiction: 1, unpaired: 1 }
        );
        // First: q1, q2 (B), q3 twice; second: q1 (B→A), q4; one tie.
        let first = FirstPosition::of(&games);
        assert_eq!(first, FirstPosition { first: 4, second: 2, tie: 1 });
        assert_eq!(first.rate(), Some(4.0 / 6.0));
        let text = compare(&games, 0, 1).render_text();
        assert!(
            text.contains("first-position preference: 4 first, 2 second, 1 ties (66.7% of decided verdicts for the answer shown first)"),
            "{text}"
        );
        assert_eq!(FirstPosition::of(&games[2..3]).rate(), None);
    }

    #[test]
    fn bootstrap_is_fixed_and_brackets_the_median() {
        let games: Vec<Judgment> = (0..40)
            .map(|i| {
                let v = if i % 4 == 0 { Preference::Second } else { Preference::First };
                j(&format!("q{i}"), "strong", "weak", v)
            })
            .collect();
        let a = bootstrap(&games, 200, BOOTSTRAP_SEED);
        assert_eq!(a, bootstrap(&games, 200, BOOTSTRAP_SEED));
        let s = &a["strong"];
        assert!(s.low <= s.median && s.median <= s.high && s.median > INITIAL_RATING);
        assert!(a["weak"].median < INITIAL_RATING);
        assert!(bootstrap(&[], 10, 1).is_empty());
    }
}
