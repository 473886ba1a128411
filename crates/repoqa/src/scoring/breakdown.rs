//! Pass counts broken down for the charts: by needle depth (ten bins of
//! `position_ratio`), by language, and by threshold. Computed from the
//! per-task records of a scoring run, so the charts show exactly the
//! numbers the SCORES file holds.

use indexmap::IndexMap;

use crate::report::TaskResult;
use crate::scoring::score::THRESHOLDS;

/// Depth bins: `[0, 0.1)`, …, `[0.9, 1.0]`.
pub const DEPTH_BINS: usize = 10;

/// The bin of a needle position (1.0 falls in the last bin; out-of-range or
/// missing positions are clamped).
pub fn depth_bin(position_ratio: f64) -> usize {
    if !position_ratio.is_finite() || position_ratio <= 0.0 {
        return 0;
    }
    ((position_ratio * DEPTH_BINS as f64).floor() as usize).min(DEPTH_BINS - 1)
}

/// `"40–50%"` for bin 4.
pub fn depth_bin_label(bin: usize) -> String {
    format!("{}–{}%", bin * 10, bin * 10 + 10)
}

/// Passed out of n.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Count {
    pub passed: usize,
    pub n: usize,
}

impl Count {
    /// Pass rate, `None` without tasks.
    pub fn rate(self) -> Option<f64> {
        (self.n > 0).then(|| self.passed as f64 / self.n as f64)
    }

    fn add(&mut self, pass: bool) {
        self.n += 1;
        self.passed += usize::from(pass);
    }
}

/// One series: `"all"` or a language.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub name: String,
    /// Pass counts at the chosen threshold, per depth bin.
    pub by_depth: [Count; DEPTH_BINS],
    /// Pass counts at the chosen threshold, over every depth.
    pub total: Count,
    /// Pass counts at each of [`THRESHOLDS`].
    pub by_threshold: [Count; 11],
}

impl Series {
    fn new(name: &str) -> Series {
        Series {
            name: name.to_string(),
            by_depth: [Count::default(); DEPTH_BINS],
            total: Count::default(),
            by_threshold: [Count::default(); 11],
        }
    }

    fn add(&mut self, t: &TaskResult, threshold: f64) {
        let pass = passes(t, threshold);
        let bin = depth_bin(t.needle_position.as_f64().unwrap_or(0.0));
        self.by_depth[bin].add(pass);
        self.total.add(pass);
        for (c, th) in self.by_threshold.iter_mut().zip(THRESHOLDS) {
            c.add(passes(t, th));
        }
    }
}

/// The official pass rule (S6).
pub fn passes(t: &TaskResult, threshold: f64) -> bool {
    t.is_best_similar && t.score() >= threshold
}

/// `"all"` first, then each language with tasks, in the results' order.
pub fn breakdown(results: &IndexMap<String, Vec<TaskResult>>, threshold: f64) -> Vec<Series> {
    let mut all = Series::new("all");
    let mut out = Vec::new();
    for (lang, tasks) in results {
        if tasks.is_empty() {
            continue;
        }
        let mut s = Series::new(lang);
        for t in tasks {
            s.add(t, threshold);
            all.add(t, threshold);
        }
        out.push(s);
    }
    out.insert(0, all);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Number};

    fn t(pos: f64, best: bool, score: f64) -> TaskResult {
        TaskResult {
            repo: "a/b".into(),
            name: "f".into(),
            needle_position: json!(pos),
            is_best_similar: best,
            best_similar_score: Number::from_f64(score).unwrap(),
            best_target: Some("f".into()),
            token_start: json!(0),
            token_end: json!(1),
        }
    }

    #[test]
    fn bins_and_counts() {
        assert_eq!(
            [depth_bin(0.0), depth_bin(0.05), depth_bin(0.1), depth_bin(0.95), depth_bin(1.0)],
            [0, 0, 1, 9, 9]
        );
        assert_eq!(depth_bin(f64::NAN), 0);
        let mut r = IndexMap::new();
        r.insert(
            "python".to_string(),
            vec![t(0.05, true, 1.0), t(0.55, true, 0.5), t(0.55, false, 0.9)],
        );
        r.insert("go".to_string(), vec![t(0.95, true, 0.85)]);
        let b = breakdown(&r, 0.8);
        assert_eq!(b.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["all", "python", "go"]);
        assert_eq!(b[0].total, Count { passed: 2, n: 4 });
        assert_eq!(b[1].by_depth[5], Count { passed: 0, n: 2 });
        assert_eq!(b[2].by_depth[9].rate(), Some(1.0));
        assert_eq!(b[0].by_threshold[0], Count { passed: 3, n: 4 });
        assert_eq!(b[0].by_threshold[10], Count { passed: 1, n: 4 });
        assert_eq!(b[1].by_depth[3].rate(), None);
    }
}
