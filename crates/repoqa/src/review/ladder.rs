//! The length ladder (issue 51): one model's runs at several code-context
//! sizes side by side. For each length, pass@1 at the threshold overall
//! (with its intervals) and per language; the depth × length table (the
//! pass rate of each needle-depth bin at each length, NIAH's chart); and
//! the model's *effective context length*.
//!
//! Every number is the official pass rule applied to the per-task records
//! of that length's SCORES file (`breakdown::passes`), so a length's
//! overall pass@1 at an official threshold equals the file's own `"all"`
//! cell.
//!
//! The effective length, stated as RULER states its own: the longest
//! length L such that every length up to L keeps a pass@1 of at least
//! `fraction` (0.9 by default) of the model's score at its shortest
//! length. None when even the second length falls below, when the
//! shortest length passes nothing, or with one length only (nothing to
//! compare). RULER compares with a fixed
//! score (Llama-2-7B's at 4k); RepoQA's lengths all hold the same
//! needles, so the model's own shortest-length score is the reference.
//!
//! A depth grid (NOT UPSTREAM, `repoqa run --depths 0,0.5,1`) runs every
//! needle at each listed depth, a run per depth in
//! `ntoken_<N>/depth_<r>/`: the grid is NIAH's depth × length chart with
//! exact depths, each cell one SCORES file's pass@1. A length with no
//! official-depth file gets its rung from its grid rows pooled (every
//! depth's tasks counted once each).

use indexmap::IndexMap;
use serde_json::{Map, Value};

use crate::python::json::float_value;
use crate::report::{ModelScores, ScoresFile};
use crate::review::bootstrap::Resampling;
use crate::review::evidence::RateEvidence;
use crate::review::leaderboard::model_row;
use crate::scoring::breakdown::{depth_bin, passes, Count, DEPTH_BINS};

/// The default share of the shortest length's score an effective length keeps.
pub const DEFAULT_FRACTION: f64 = 0.9;

/// The length a run's directory names: `ntoken_16384` → 16384 (upstream's
/// layout, `<result-dir>/ntoken_<N>/`). Directories of another protocol
/// (`ntoken_16384-corrected`) are not official lengths: `None`.
pub fn ntoken_of_dir(name: &str) -> Option<usize> {
    let n = name.strip_prefix("ntoken_")?;
    (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())).then(|| n.parse().ok()).flatten()
}

/// The length a SCORES file was run at, from the folder holding it in
/// upstream's layout (`…/ntoken_<N>/<model>-SCORES.json`, with `/` or `\`
/// between the parts, as a picked folder's relative path or a command-line
/// path gives it). A bare file name says no length: `None`.
pub fn ntoken_of_path(path: &str) -> Option<usize> {
    let mut parts = path.rsplit(['/', '\\']);
    parts.next()?;
    let dir = parts.next()?;
    match depth_of_dir(dir) {
        Some(_) => ntoken_of_dir(parts.next()?),
        None => ntoken_of_dir(dir),
    }
}

/// The depth a depth grid's folder names: `depth_0.1` → 0.1 (a ratio from
/// 0 to 1, `naming::depth_dir`).
pub fn depth_of_dir(name: &str) -> Option<f64> {
    let r = name.strip_prefix("depth_")?;
    crate::prompt::settings::parse_position_ratio(r).ok().filter(|_| r.trim() == r)
}

/// The depth of a grid row's SCORES file (`…/ntoken_<N>/depth_<r>/<model>-SCORES.json`);
/// `None` for a file at the official depths.
pub fn depth_of_path(path: &str) -> Option<f64> {
    let mut parts = path.rsplit(['/', '\\']);
    parts.next()?;
    let depth = depth_of_dir(parts.next()?)?;
    ntoken_of_dir(parts.next()?).map(|_| depth)
}

/// One length of a model's ladder.
#[derive(Clone, Debug, PartialEq)]
pub struct Rung {
    pub ntoken: usize,
    /// The SCORES file it was read from, for display.
    pub source: String,
    /// Overall: passed of n, with the Wilson and bootstrap intervals.
    pub all: RateEvidence,
    /// Per language, in the file's order.
    pub languages: IndexMap<String, Count>,
    /// Per needle-depth bin (`breakdown::depth_bin`).
    pub by_depth: [Count; DEPTH_BINS],
}

impl Rung {
    /// Overall pass@1 (passed / n).
    pub fn pass(&self) -> f64 {
        self.all.pass()
    }
}

/// A model's ladder, lengths ascending.
#[derive(Clone, Debug, PartialEq)]
pub struct Ladder {
    pub model: String,
    pub threshold: f64,
    pub fraction: f64,
    pub rungs: Vec<Rung>,
    /// See the module's rule.
    pub effective: Option<usize>,
    /// The depth grid's cells (empty without grid runs), depths then
    /// lengths ascending.
    pub grid: Vec<GridCell>,
}

/// One cell of a depth grid: a SCORES file of every needle at one depth.
#[derive(Clone, Debug, PartialEq)]
pub struct GridCell {
    pub depth: f64,
    pub ntoken: usize,
    pub source: String,
    pub count: Count,
}

/// The rung of one length from its SCORES record of the model.
pub fn rung(
    ntoken: usize,
    source: &str,
    model: &str,
    scores: &ModelScores,
    threshold: f64,
    resampling: Resampling,
) -> Rung {
    let row = model_row(model, source, &scores.results, threshold);
    let all = row.evidence(threshold, resampling).rows.into_iter().next().unwrap_or(RateEvidence {
        name: "all".into(),
        passed: 0,
        n: 0,
        wilson: None,
        by_task: None,
        by_repo: None,
    });
    let mut by_depth = [Count::default(); DEPTH_BINS];
    for t in scores.results.values().flatten() {
        let c = &mut by_depth[depth_bin(t.needle_position.as_f64().unwrap_or(0.0))];
        c.n += 1;
        c.passed += usize::from(passes(t, threshold));
    }
    let languages = row
        .languages
        .iter()
        .map(|(l, c)| (l.clone(), Count { passed: c.passed, n: c.n }))
        .collect();
    Rung { ntoken, source: source.to_string(), all, languages, by_depth }
}

/// Every model's ladder from SCORES files, each given with its length
/// (`(ntoken, source, file)`, in any order), models in order of first
/// sight; only `model` when given. A file whose `source` path is a depth
/// grid's row ([`depth_of_path`]) is a grid cell; a length without an
/// official-depth file pools its grid rows into its rung. A model given
/// twice at one length (and depth) is refused, naming both files.
pub fn ladders(
    files: &[(usize, &str, &ScoresFile)],
    model: Option<&str>,
    threshold: f64,
    fraction: f64,
    resampling: Resampling,
) -> Result<Vec<Ladder>, String> {
    /// A model's files: official-depth by length, grid rows by (length, depth).
    #[derive(Default)]
    struct Found<'a> {
        official: Vec<(usize, &'a str, &'a ModelScores)>,
        grid: Vec<(usize, f64, &'a str, &'a ModelScores)>,
    }
    let mut by_model: Vec<(String, Found)> = Vec::new();
    for &(n, source, file) in files {
        let depth = depth_of_path(source);
        for (m, scores) in &file.models {
            if model.is_some_and(|want| want != m) {
                continue;
            }
            let at = match by_model.iter().position(|(name, _)| name == m) {
                Some(i) => i,
                None => {
                    by_model.push((m.clone(), Found::default()));
                    by_model.len() - 1
                }
            };
            let found = &mut by_model[at].1;
            match depth {
                None => {
                    if let Some((_, first, _)) = found.official.iter().find(|r| r.0 == n) {
                        return Err(format!(
                            "{m} has two SCORES files at {n} tokens: {first} and {source}; keep one"
                        ));
                    }
                    found.official.push((n, source, scores));
                }
                Some(d) => {
                    if let Some((.., first, _)) =
                        found.grid.iter().find(|r| r.0 == n && r.1.to_bits() == d.to_bits())
                    {
                        return Err(format!(
                            "{m} has two SCORES files at {n} tokens and depth {d}: {first} and {source}; keep one"
                        ));
                    }
                    found.grid.push((n, d, source, scores));
                }
            }
        }
    }
    Ok(by_model
        .into_iter()
        .map(|(m, found)| {
            let mut rungs: Vec<Rung> = found
                .official
                .iter()
                .map(|&(n, source, scores)| rung(n, source, &m, scores, threshold, resampling))
                .collect();
            let mut pooled: Vec<usize> = found.grid.iter().map(|g| g.0).collect();
            pooled.sort_unstable();
            pooled.dedup();
            pooled.retain(|n| !rungs.iter().any(|r| r.ntoken == *n));
            for n in pooled {
                let rows: Vec<_> = found.grid.iter().filter(|g| g.0 == n).collect();
                // Every row's tasks, languages in order of first sight.
                let mut merged = ModelScores { results: IndexMap::new(), ..rows[0].3.clone() };
                for row in &rows {
                    for (lang, tasks) in &row.3.results {
                        merged
                            .results
                            .entry(lang.clone())
                            .or_default()
                            .extend(tasks.iter().cloned());
                    }
                }
                let source = format!("ntoken_{n}/depth_* ({} depths pooled)", rows.len());
                rungs.push(rung(n, &source, &m, &merged, threshold, resampling));
            }
            let mut grid: Vec<GridCell> = found
                .grid
                .iter()
                .map(|&(ntoken, depth, source, scores)| {
                    let mut count = Count::default();
                    for t in scores.results.values().flatten() {
                        count.n += 1;
                        count.passed += usize::from(passes(t, threshold));
                    }
                    GridCell { depth, ntoken, source: source.to_string(), count }
                })
                .collect();
            grid.sort_by(|a, b| a.depth.total_cmp(&b.depth).then(a.ntoken.cmp(&b.ntoken)));
            let mut l = Ladder::new(&m, threshold, fraction, rungs);
            l.grid = grid;
            l
        })
        .collect())
}

/// The effective length of `(length, pass@1)` pairs sorted by length
/// (the module's rule).
pub fn effective_length(rungs: &[(usize, f64)], fraction: f64) -> Option<usize> {
    let (&(_, base), rest) = rungs.split_first()?;
    // A model that passes nothing at its shortest length keeps nothing.
    if base <= 0.0 {
        return None;
    }
    let floor = fraction * base;
    let mut effective = None;
    for &(n, pass) in rest {
        if pass + 1e-12 < floor {
            break;
        }
        effective = Some(n);
    }
    effective
}

impl Ladder {
    /// A ladder from its rungs (any order; one per length).
    pub fn new(model: &str, threshold: f64, fraction: f64, mut rungs: Vec<Rung>) -> Ladder {
        rungs.sort_by_key(|r| r.ntoken);
        let points: Vec<(usize, f64)> = rungs.iter().map(|r| (r.ntoken, r.pass())).collect();
        let effective = effective_length(&points, fraction);
        Ladder { model: model.to_string(), threshold, fraction, rungs, effective, grid: Vec::new() }
    }

    /// `{"model", "threshold", "fraction", "lengths": [{"ntoken", "source",
    /// "pass@1", "passed", "n", "ci_repos": [low, high] | null, "ci_wilson",
    /// "languages": {LANG: pass@1}}], "depth_bins": [labels],
    /// "depth_by_length": [{"ntoken", "cells": [{"passed", "n"}]}],
    /// "effective_length": N | null}`.
    pub fn to_value(&self) -> Value {
        let span = |i: Option<crate::review::stats::RateInterval>| match i {
            Some(i) => Value::Array(vec![float_value(i.low), float_value(i.high)]),
            None => Value::Null,
        };
        let lengths: Vec<Value> = self
            .rungs
            .iter()
            .map(|r| {
                let mut m = Map::new();
                m.insert("ntoken".into(), r.ntoken.into());
                m.insert("source".into(), r.source.clone().into());
                m.insert("pass@1".into(), float_value(r.pass()));
                m.insert("passed".into(), r.all.passed.into());
                m.insert("n".into(), r.all.n.into());
                m.insert("ci_repos".into(), span(r.all.by_repo));
                m.insert("ci_wilson".into(), span(r.all.wilson));
                let langs: Map<String, Value> = r
                    .languages
                    .iter()
                    .map(|(l, c)| (l.clone(), float_value(c.rate().unwrap_or(0.0))))
                    .collect();
                m.insert("languages".into(), Value::Object(langs));
                Value::Object(m)
            })
            .collect();
        let depth: Vec<Value> = self
            .rungs
            .iter()
            .map(|r| {
                let cells: Vec<Value> = r
                    .by_depth
                    .iter()
                    .map(|c| serde_json::json!({"passed": c.passed, "n": c.n}))
                    .collect();
                serde_json::json!({"ntoken": r.ntoken, "cells": cells})
            })
            .collect();
        let mut m = Map::new();
        m.insert("model".into(), self.model.clone().into());
        m.insert("threshold".into(), float_value(self.threshold));
        m.insert("fraction".into(), float_value(self.fraction));
        m.insert("lengths".into(), Value::Array(lengths));
        m.insert(
            "depth_bins".into(),
            (0..DEPTH_BINS)
                .map(crate::scoring::breakdown::depth_bin_label)
                .collect::<Vec<_>>()
                .into(),
        );
        m.insert("depth_by_length".into(), Value::Array(depth));
        m.insert("effective_length".into(), self.effective.map_or(Value::Null, Value::from));
        if !self.grid.is_empty() {
            let cells: Vec<Value> = self
                .grid
                .iter()
                .map(|c| {
                    let mut cell = Map::new();
                    cell.insert("depth".into(), float_value(c.depth));
                    cell.insert("ntoken".into(), c.ntoken.into());
                    cell.insert("source".into(), c.source.clone().into());
                    cell.insert("pass@1".into(), float_value(c.count.rate().unwrap_or(0.0)));
                    cell.insert("passed".into(), c.count.passed.into());
                    cell.insert("n".into(), c.count.n.into());
                    Value::Object(cell)
                })
                .collect();
            m.insert("depth_grid".into(), Value::Array(cells));
        }
        Value::Object(m)
    }

    /// The ladder as text: pass@1 by length (with the interval by
    /// repository), per language, the depth × length table, and the
    /// effective length with its rule.
    pub fn render_text(&self) -> String {
        let pct = |c: Count| c.rate().map_or("-".to_string(), |r| format!("{:.1}", 100.0 * r));
        let mut langs: Vec<&String> = Vec::new();
        for r in &self.rungs {
            for l in r.languages.keys() {
                if !langs.contains(&l) {
                    langs.push(l);
                }
            }
        }
        let mut out = format!(
            "{}: pass@1 (%) at threshold {} by code-context length\n",
            self.model,
            crate::review::leaderboard::fmt_threshold(self.threshold)
        );
        out.push_str(&format!("{:>8} {:>6} {:>13} {:>5}", "ntoken", "all", "CI by repo", "n"));
        for l in &langs {
            out.push_str(&format!(" {l:>10}"));
        }
        out.push('\n');
        for r in &self.rungs {
            out.push_str(&format!(
                "{:>8} {:>6} {:>13} {:>5}",
                r.ntoken,
                format!("{:.1}", 100.0 * r.pass()),
                crate::review::evidence::percent_span(r.all.by_repo),
                r.all.n
            ));
            for l in &langs {
                out.push_str(&format!(
                    " {:>10}",
                    r.languages.get(*l).map_or("-".into(), |c| pct(*c))
                ));
            }
            out.push('\n');
        }
        out.push_str("needle depth × length (pass@1 %):\n");
        out.push_str(&format!("{:>8}", "ntoken"));
        for b in 0..DEPTH_BINS {
            out.push_str(&format!(" {:>7}", crate::scoring::breakdown::depth_bin_label(b)));
        }
        out.push('\n');
        for r in &self.rungs {
            out.push_str(&format!("{:>8}", r.ntoken));
            for c in r.by_depth {
                out.push_str(&format!(" {:>7}", pct(c)));
            }
            out.push('\n');
        }
        out.push_str(&self.render_grid());
        let base = self.rungs.first();
        match (self.effective, base) {
            (Some(n), Some(b)) => out.push_str(&format!(
                "effective context length: {n} (every length up to it keeps at least {:.0}% of the {}-token score, {:.1}%)\n",
                100.0 * self.fraction,
                b.ntoken,
                100.0 * b.pass()
            )),
            (None, Some(b)) if self.rungs.len() > 1 => out.push_str(&format!(
                "effective context length: none above {} (the next length keeps less than {:.0}% of its score, {:.1}%)\n",
                b.ntoken,
                100.0 * self.fraction,
                100.0 * b.pass()
            )),
            _ => out.push_str("effective context length: one length only, nothing to compare\n"),
        }
        out
    }
}

impl Ladder {
    /// Worth a section of its own: two lengths or more, or a depth grid of
    /// two cells or more (one length at several depths). A model at one
    /// length and depth has its score, and nothing to compare it with.
    pub fn is_shown(&self) -> bool {
        self.rungs.len() > 1 || self.grid.len() > 1
    }

    /// The depth grid's axes, each ascending and once: its depths (rows)
    /// and its lengths (columns). Both empty without a grid.
    pub fn grid_axes(&self) -> (Vec<f64>, Vec<usize>) {
        let mut depths: Vec<f64> = self.grid.iter().map(|c| c.depth).collect();
        depths.sort_by(f64::total_cmp);
        depths.dedup_by(|a, b| a.to_bits() == b.to_bits());
        let mut lengths: Vec<usize> = self.grid.iter().map(|c| c.ntoken).collect();
        lengths.sort_unstable();
        lengths.dedup();
        (depths, lengths)
    }

    /// The grid's cell at a depth and length ([`Ladder::grid_axes`]), if a
    /// run is there.
    pub fn grid_cell(&self, depth: f64, ntoken: usize) -> Option<&GridCell> {
        self.grid.iter().find(|c| c.ntoken == ntoken && c.depth.to_bits() == depth.to_bits())
    }

    /// The depth grid as a table, a row per depth and a column per length
    /// (pass@1 %, each cell one SCORES file's); empty without a grid.
    fn render_grid(&self) -> String {
        if self.grid.is_empty() {
            return String::new();
        }
        let (depths, lengths) = self.grid_axes();
        let mut out =
            String::from("depth grid (NOT UPSTREAM: every needle at each depth), pass@1 %:\n");
        out.push_str(&format!("{:>8}", "depth"));
        for n in &lengths {
            out.push_str(&format!(" {n:>8}"));
        }
        out.push('\n');
        for d in depths {
            out.push_str(&format!("{:>8}", d));
            for n in &lengths {
                let cell = self.grid_cell(d, *n);
                let text = cell
                    .and_then(|c| c.count.rate())
                    .map_or("-".to_string(), |r| format!("{:.1}", 100.0 * r));
                out.push_str(&format!(" {text:>8}"));
            }
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{test_record as rec, test_scores};

    fn scores(passing: usize, n: usize) -> ModelScores {
        let mut results = IndexMap::new();
        let tasks: Vec<_> = (0..n)
            .map(|i| {
                let name = format!("f{i}");
                let mut t = rec(&name, Some(&name), if i < passing { 0.95 } else { 0.2 });
                t.needle_position = serde_json::json!((i as f64 + 0.5) / n as f64);
                t
            })
            .collect();
        results.insert("python".to_string(), tasks);
        test_scores(results)
    }

    #[test]
    fn lengths_are_the_files_own_all_cell_and_the_effective_length_follows_the_rule() {
        let r = Resampling { resamples: 50, ..Resampling::at(0.95) };
        let files = [
            (16384, scores(8, 10)),
            (4096, scores(10, 10)),
            (8192, scores(9, 10)),
            (32768, scores(6, 10)),
        ];
        let rungs =
            files.iter().map(|(n, s)| rung(*n, &format!("ntoken_{n}"), "m", s, 0.8, r)).collect();
        let l = Ladder::new("m", 0.8, DEFAULT_FRACTION, rungs);
        assert_eq!(
            l.rungs.iter().map(|r| r.ntoken).collect::<Vec<_>>(),
            [4096, 8192, 16384, 32768]
        );
        for (rung, (_, s)) in l.rungs.iter().zip([&files[1], &files[2], &files[0], &files[3]]) {
            let cell = s.scores["all"]["0.8"]["pass@1"].as_f64().unwrap();
            assert_eq!(rung.pass().to_bits(), cell.to_bits(), "{}", rung.ntoken);
        }
        // 1.0, 0.9, 0.8, 0.6: 0.9 × 1.0 keeps 8192 and drops 16384.
        assert_eq!(l.effective, Some(8192));
        assert_eq!(effective_length(&[(4096, 0.5), (8192, 0.2)], 0.9), None);
        assert_eq!(effective_length(&[(4096, 0.5)], 0.9), None);
        // A length below the floor ends the ladder even if a longer one recovers.
        assert_eq!(effective_length(&[(1, 1.0), (2, 0.5), (3, 1.0)], 0.9), None);
        assert_eq!(effective_length(&[(1, 0.0), (2, 0.0)], 0.9), None);
        // Depth bins: the passing tasks are the first, shallow ones.
        let deep = &l.rungs[3].by_depth;
        assert_eq!((deep[0].passed, deep[9].passed, deep[9].n), (1, 0, 1));
        let v = l.to_value();
        assert_eq!(v["effective_length"], 8192);
        assert_eq!(v["lengths"][2]["pass@1"], 0.8);
        assert_eq!(v["depth_by_length"][0]["cells"].as_array().unwrap().len(), DEPTH_BINS);
        let text = l.render_text();
        assert!(text.contains("effective context length: 8192 (every length up to it keeps at least 90% of the 4096-token score, 100.0%)"), "{text}");
        assert_eq!(ntoken_of_dir("ntoken_16384"), Some(16384));
        assert_eq!(ntoken_of_dir("ntoken_16384-corrected"), None);
        assert_eq!(ntoken_of_dir("ntoken_"), None);
        assert_eq!(ntoken_of_path("results/ntoken_4096/m-SCORES.json"), Some(4096));
        assert_eq!(ntoken_of_path("C:\\runs\\ntoken_8192\\m-SCORES.json"), Some(8192));
        assert_eq!(ntoken_of_path("ntoken_4096/sub/m-SCORES.json"), None);
        assert_eq!(ntoken_of_path("m-SCORES.json"), None);
        assert_eq!(ntoken_of_path("ntoken_4096"), None);
    }

    #[test]
    fn a_depth_grid_is_one_cell_per_file_and_pools_into_a_length_without_official_runs() {
        let r = Resampling { resamples: 20, ..Resampling::at(0.95) };
        let file = |passing, n| ScoresFile::single("m", scores(passing, n));
        let (a, b, c, d, e) = (file(4, 4), file(2, 4), file(3, 4), file(1, 4), file(4, 4));
        let files = [
            (4096, "res/ntoken_4096/depth_0/m-SCORES.json", &a),
            (4096, "res/ntoken_4096/depth_1/m-SCORES.json", &b),
            (8192, "res/ntoken_8192/depth_0/m-SCORES.json", &c),
            (8192, "res/ntoken_8192/depth_1/m-SCORES.json", &d),
            // An official-depth run at 8192: that length's rung is its own.
            (8192, "res/ntoken_8192/m-SCORES.json", &e),
        ];
        let l = &ladders(&files, None, 0.8, DEFAULT_FRACTION, r).unwrap()[0];
        // 4096 pooled: 6 of 8; 8192 official: 4 of 4.
        assert_eq!(
            l.rungs.iter().map(|r| (r.ntoken, r.all.passed, r.all.n)).collect::<Vec<_>>(),
            [(4096, 6, 8), (8192, 4, 4)]
        );
        assert!(l.rungs[0].source.contains("2 depths pooled"), "{}", l.rungs[0].source);
        let cells: Vec<_> =
            l.grid.iter().map(|c| (c.depth, c.ntoken, c.count.passed, c.count.n)).collect();
        assert_eq!(
            cells,
            [(0.0, 4096, 4, 4), (0.0, 8192, 3, 4), (1.0, 4096, 2, 4), (1.0, 8192, 1, 4)]
        );
        // Each cell is its file's own "all" cell.
        for (cell, f) in l.grid.iter().zip([&a, &c, &b, &d]) {
            let want = f.models["m"].scores["all"]["0.8"]["pass@1"].as_f64().unwrap();
            assert_eq!(cell.count.rate().unwrap().to_bits(), want.to_bits());
        }
        let v = l.to_value();
        assert_eq!(v["depth_grid"][1]["pass@1"], 0.75);
        assert_eq!(v["depth_grid"][1]["ntoken"], 8192);
        let text = l.render_text();
        assert!(text.contains("depth grid (NOT UPSTREAM"), "{text}");
        assert!(text.contains("       1     50.0     25.0"), "{text}");
        // Two files at one length and depth are refused.
        let twice = [files[0], (4096, "other/ntoken_4096/depth_0/m-SCORES.json", &a)];
        let e = ladders(&twice, None, 0.8, DEFAULT_FRACTION, r).unwrap_err();
        assert!(e.contains("at 4096 tokens and depth 0"), "{e}");
        assert_eq!(depth_of_path("r/ntoken_4096/depth_0.25/m-SCORES.json"), Some(0.25));
        assert_eq!(ntoken_of_path("r/ntoken_4096/depth_0.25/m-SCORES.json"), Some(4096));
        assert_eq!(depth_of_path("r/ntoken_4096/m-SCORES.json"), None);
        assert_eq!(depth_of_path("r/depth_0.5/m-SCORES.json"), None);
        assert_eq!(depth_of_dir("depth_1.5"), None);
        assert_eq!(depth_of_dir("depth_ 0.5"), None);
    }

    #[test]
    fn a_pooled_length_keeps_every_depths_tasks_of_every_language() {
        let r = Resampling { resamples: 20, ..Resampling::at(0.95) };
        // Depth 0 has Python only; depths 0.5 and 1 add Rust: the pooled
        // rung has all of them (once, a language kept Rust's first file only).
        let with_rust = |passing, n| {
            let mut s = scores(passing, n);
            let rust = s.results["python"].clone();
            s.results.insert("rust".to_string(), rust);
            ScoresFile::single("m", s)
        };
        let (a, b, c) = (ScoresFile::single("m", scores(1, 2)), with_rust(2, 2), with_rust(0, 2));
        let files = [
            (2048, "r/ntoken_2048/depth_0/m-SCORES.json", &a),
            (2048, "r/ntoken_2048/depth_0.5/m-SCORES.json", &b),
            (2048, "r/ntoken_2048/depth_1/m-SCORES.json", &c),
        ];
        let l = &ladders(&files, None, 0.8, DEFAULT_FRACTION, r).unwrap()[0];
        let rung = &l.rungs[0];
        // Python: 1 + 2 + 0 of 6; Rust: 2 + 0 of 4.
        assert_eq!((rung.all.passed, rung.all.n), (5, 10));
        assert_eq!(l.grid_axes(), (vec![0.0, 0.5, 1.0], vec![2048]));
        assert_eq!(l.grid_cell(0.5, 2048).map(|c| (c.count.passed, c.count.n)), Some((4, 4)));
        assert!(l.grid_cell(0.5, 4096).is_none());
    }
}
