//! The call-path task's scores from its verdicts (NOT UPSTREAM;
//! docs/call-path.md): pass@1 overall, by language and by path length
//! (`none` for the no-path tasks), the count of each verdict, and the
//! no-path answers' precision and recall, and by the spread of the path's
//! depths in its window and by context length.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::verdict::PathVerdict;

/// One judged task, as the scores need it.
#[derive(Clone, Debug, PartialEq)]
pub struct JudgedTask {
    pub language: String,
    /// Calls on the gold path; None for a no-path task.
    pub path_calls: Option<usize>,
    pub verdict: PathVerdict,
    /// The reply answered `NO PATH`.
    pub said_no_path: bool,
    /// The spread of the task's functions' depths in its window (0 to 1).
    pub depth_spread: f64,
    pub code_context_size: usize,
}

/// Tasks passed of tasks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PassRate {
    pub passed: usize,
    pub total: usize,
    /// 100 × passed / total; None without a task.
    pub pass_at_1: Option<f64>,
}

impl PassRate {
    fn add(&mut self, passed: bool) {
        self.total += 1;
        self.passed += usize::from(passed);
        self.pass_at_1 = Some(100.0 * self.passed as f64 / self.total as f64);
    }
}

/// How well `NO PATH` answers match the no-path tasks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NoPathAnswers {
    /// `NO PATH` answers, and those to no-path tasks.
    pub answered: usize,
    pub right: usize,
    pub no_path_tasks: usize,
    /// right / answered; None when no reply said `NO PATH`.
    pub precision: Option<f64>,
    /// right / no-path tasks; None without a no-path task.
    pub recall: Option<f64>,
}

/// The scores of a set of judged tasks.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CallPathScores {
    pub overall: PassRate,
    pub by_language: BTreeMap<String, PassRate>,
    /// "2", "3", "4", … and "none" (the no-path tasks).
    pub by_path_length: BTreeMap<String, PassRate>,
    /// By the spread of the path's depths in the window: "0-25%", …,
    /// "75-100%" (how far apart the functions are).
    pub by_depth_spread: BTreeMap<String, PassRate>,
    /// By the context length (tokens) the tasks were built at.
    #[serde(with = "token_keys")]
    pub by_context_length: BTreeMap<usize, PassRate>,
    /// Path length × depth spread: `[path length][spread bin]`.
    #[serde(default)]
    pub by_path_length_and_spread: BTreeMap<String, BTreeMap<String, PassRate>>,
    /// Path length × context length (a ladder): `[path length][tokens]`.
    #[serde(default, with = "token_keys_nested")]
    pub by_path_length_and_context: BTreeMap<String, BTreeMap<usize, PassRate>>,
    /// Each verdict's count (`pass`, `longer`, `not_a_call`, …).
    pub verdicts: BTreeMap<String, usize>,
    pub no_path: NoPathAnswers,
}

/// A map keyed by a token count, written with the counts as JSON's string
/// keys and read back from them: JSON's own shape, which also reads inside
/// an internally tagged enum (the engine's replies), where serde cannot
/// turn a string key into a number by itself.
mod token_keys {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub(super) fn serialize<V: Serialize, S: Serializer>(
        m: &BTreeMap<usize, V>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        m.serialize(s)
    }

    pub(super) fn deserialize<'de, V: Deserialize<'de>, D: Deserializer<'de>>(
        d: D,
    ) -> Result<BTreeMap<usize, V>, D::Error> {
        BTreeMap::<String, V>::deserialize(d)?
            .into_iter()
            .map(|(k, v)| {
                k.parse::<usize>()
                    .map(|k| (k, v))
                    .map_err(|_| serde::de::Error::custom(format!("{k:?} is not a token count")))
            })
            .collect()
    }
}

/// [`token_keys`] one level down.
mod token_keys_nested {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::PassRate;

    pub(super) fn serialize<S: Serializer>(
        m: &BTreeMap<String, BTreeMap<usize, PassRate>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        m.serialize(s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<BTreeMap<String, BTreeMap<usize, PassRate>>, D::Error> {
        #[derive(Deserialize)]
        struct Row(#[serde(with = "super::token_keys")] BTreeMap<usize, PassRate>);
        Ok(BTreeMap::<String, Row>::deserialize(d)?.into_iter().map(|(k, Row(r))| (k, r)).collect())
    }
}

/// The verdict's name, as it is serialized.
fn verdict_name(v: &PathVerdict) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|j| j.get("verdict").and_then(|n| n.as_str()).map(str::to_string))
        .unwrap_or_else(|| "unknown".into())
}

/// The quarter a depth spread (0 to 1) falls in.
pub fn spread_bin(spread: f64) -> &'static str {
    match spread {
        s if s < 0.25 => "0-25%",
        s if s < 0.5 => "25-50%",
        s if s < 0.75 => "50-75%",
        _ => "75-100%",
    }
}

/// Score `tasks`.
pub fn score(tasks: &[JudgedTask]) -> CallPathScores {
    let mut s = CallPathScores::default();
    for t in tasks {
        let passed = t.verdict.passed();
        s.overall.add(passed);
        s.by_language.entry(t.language.clone()).or_default().add(passed);
        let length = t.path_calls.map_or("none".to_string(), |c| c.to_string());
        let spread = spread_bin(t.depth_spread).to_string();
        s.by_depth_spread.entry(spread.clone()).or_default().add(passed);
        s.by_context_length.entry(t.code_context_size).or_default().add(passed);
        let row = s.by_path_length_and_spread.entry(length.clone()).or_default();
        row.entry(spread).or_default().add(passed);
        let row = s.by_path_length_and_context.entry(length.clone()).or_default();
        row.entry(t.code_context_size).or_default().add(passed);
        s.by_path_length.entry(length).or_default().add(passed);
        *s.verdicts.entry(verdict_name(&t.verdict)).or_default() += 1;
        if t.path_calls.is_none() {
            s.no_path.no_path_tasks += 1;
        }
        if t.said_no_path {
            s.no_path.answered += 1;
            s.no_path.right += usize::from(t.path_calls.is_none());
        }
    }
    let n = &mut s.no_path;
    n.precision = (n.answered > 0).then(|| n.right as f64 / n.answered as f64);
    n.recall = (n.no_path_tasks > 0).then(|| n.right as f64 / n.no_path_tasks as f64);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(
        language: &str,
        calls: Option<usize>,
        verdict: PathVerdict,
        said_no_path: bool,
    ) -> JudgedTask {
        JudgedTask {
            language: language.into(),
            path_calls: calls,
            verdict,
            said_no_path,
            depth_spread: calls.map_or(0.1, |c| c as f64 / 5.0),
            code_context_size: if language == "go" { 2048 } else { 16384 },
        }
    }

    #[test]
    fn rates_breakdowns_and_no_path_precision_and_recall_by_hand() {
        let tasks = [
            t("python", Some(2), PathVerdict::Pass, false),
            t("python", Some(3), PathVerdict::Longer { calls: 4, shortest: 3 }, false),
            t("go", Some(2), PathVerdict::MissedPath, true),
            t("go", None, PathVerdict::Pass, true),
            t("go", None, PathVerdict::ClaimedPath, false),
        ];
        let s = score(&tasks);
        assert_eq!((s.overall.passed, s.overall.total), (2, 5));
        assert_eq!(s.overall.pass_at_1, Some(40.0));
        assert_eq!(s.by_language["python"].pass_at_1, Some(50.0));
        assert_eq!(s.by_language["go"].pass_at_1.map(|p| (p * 1e6).round()), Some(33_333_333.0));
        assert_eq!((s.by_path_length["2"].passed, s.by_path_length["2"].total), (1, 2));
        assert_eq!(s.by_path_length["none"].pass_at_1, Some(50.0));
        // Spreads 0.4, 0.6, 0.4, 0.1, 0.1.
        assert_eq!(s.by_depth_spread["25-50%"].total, 2);
        assert_eq!(s.by_depth_spread["50-75%"].passed, 0);
        assert_eq!(s.by_depth_spread["0-25%"].pass_at_1, Some(50.0));
        assert_eq!((s.by_context_length[&16384].passed, s.by_context_length[&16384].total), (1, 2));
        assert_eq!(s.by_context_length[&2048].total, 3);
        // Path 2 at spread 0.4 twice (python pass, go missed), at 16k and 2k.
        assert_eq!(s.by_path_length_and_spread["2"]["25-50%"].pass_at_1, Some(50.0));
        assert_eq!(s.by_path_length_and_context["2"][&16384].passed, 1);
        assert_eq!(s.by_path_length_and_context["2"][&2048].passed, 0);
        assert_eq!(s.by_path_length_and_context["none"][&2048].total, 2);
        assert_eq!(s.verdicts["pass"], 2);
        assert_eq!(s.verdicts["longer"], 1);
        assert_eq!(s.verdicts["missed_path"], 1);
        // NO PATH said twice, right once; two no-path tasks, one found.
        assert_eq!(s.no_path.precision, Some(0.5));
        assert_eq!(s.no_path.recall, Some(0.5));
        let empty = score(&[]);
        assert_eq!((empty.overall.pass_at_1, empty.no_path.precision), (None, None));
    }
}
