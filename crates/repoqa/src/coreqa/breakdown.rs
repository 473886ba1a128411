//! The paper's breakdowns of the judge's scores: by the length of the
//! question (the QA file's questions in five quintiles) and by the year its
//! issue was opened. Each cell is a model's mean score in one setting over
//! the questions of one group, a question's score being the mean of its
//! judgments (its repetitions).
//!
//! - **Length**: a question's length is the number of characters (Unicode
//!   code points) of its `question` text, code snippets included. The
//!   questions of the QA file, ranked by length (ties in file order), are
//!   cut into five groups whose sizes differ by at most one: rank `r` of `n`
//!   goes to quintile `⌊5r / n⌋ + 1`. The groups are the QA file's, so
//!   every model is split the same way; a file of fewer than five questions
//!   has fewer groups.
//! - **Issue date**: the year of the issue's `created_at` (the GitHub
//!   object `repoqa coreqa build` keeps in each QA line); a question without
//!   one is counted under "unknown", last.
//!
//! The pairwise verdicts' first-position preference is beside Elo, in
//! [`super::elo::FirstPosition`].

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::answer::ContextSetting;
use super::judge::{Criteria, JudgeLine, CRITERIA};
use super::qa::QaItem;
use super::CoreqaError;

/// How many groups the length breakdown cuts the questions into.
pub const LENGTH_GROUPS: usize = 5;

/// The label of questions whose issue has no date.
pub const UNKNOWN_DATE: &str = "unknown";

/// One group of questions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BreakdownGroup {
    /// `Q1`…`Q5`, or a year, or [`UNKNOWN_DATE`].
    pub label: String,
    /// What the group holds, for people: "50–69 characters", "2023".
    pub range: String,
    /// The QA file's questions in it.
    pub questions: usize,
}

/// One model's mean scores in one setting over one group's questions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BreakdownCell {
    pub model: String,
    pub setting: ContextSetting,
    /// The group's [`BreakdownGroup::label`].
    pub group: String,
    /// The group's questions this model was judged on in this setting.
    pub judged: usize,
    pub criteria: Criteria<f64>,
    /// The mean of the four criteria.
    pub overall: f64,
}

/// A breakdown: its groups, in order, and a cell per model, setting and
/// group with judgments (models and settings sorted, groups in order).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Breakdown {
    pub groups: Vec<BreakdownGroup>,
    pub cells: Vec<BreakdownCell>,
}

/// Both of the paper's breakdowns, as `repoqa coreqa breakdown` prints them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Breakdowns {
    pub by_question_length: Breakdown,
    pub by_issue_year: Breakdown,
}

/// The two breakdowns of `judged` over the questions of `qa`. A judgment
/// of a question `qa` does not hold, or one given twice (the same
/// question, setting, model and repetition), is an error: either would
/// make a mean that looks right and is not.
pub fn breakdowns(qa: &[QaItem], judged: &[JudgeLine]) -> Result<Breakdowns, CoreqaError> {
    let ids: HashSet<&str> = qa.iter().map(|q| q.id.as_str()).collect();
    let mut seen = HashSet::new();
    for j in judged {
        if !ids.contains(j.question_id.as_str()) {
            return Err(CoreqaError::UnknownQuestion { id: j.question_id.clone() });
        }
        if !seen.insert(j.id()) {
            return Err(CoreqaError::DuplicateJudgment { id: j.id() });
        }
    }
    Ok(Breakdowns {
        by_question_length: by_question_length(qa, judged),
        by_issue_year: by_issue_year(qa, judged),
    })
}

/// The judge's scores by question length, in quintiles.
pub fn by_question_length(qa: &[QaItem], judged: &[JudgeLine]) -> Breakdown {
    let lengths: Vec<usize> = qa.iter().map(|q| q.question.chars().count()).collect();
    let mut order: Vec<usize> = (0..qa.len()).collect();
    order.sort_by_key(|&i| (lengths[i], i));
    let n = qa.len();
    let mut group_of: HashMap<&str, usize> = HashMap::new();
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); LENGTH_GROUPS];
    for (rank, &i) in order.iter().enumerate() {
        let g = rank * LENGTH_GROUPS / n;
        group_of.insert(qa[i].id.as_str(), g);
        members[g].push(lengths[i]);
    }
    let groups: Vec<(usize, BreakdownGroup)> = members
        .iter()
        .enumerate()
        .filter(|(_, m)| !m.is_empty())
        .map(|(g, m)| {
            let (lo, hi) = (m[0], m[m.len() - 1]);
            let range = if lo == hi {
                format!("{lo} characters")
            } else {
                format!("{lo}–{hi} characters")
            };
            (g, BreakdownGroup { label: format!("Q{}", g + 1), range, questions: m.len() })
        })
        .collect();
    let key = |id: &str| group_of.get(id).copied();
    cells(groups, judged, key)
}

/// The judge's scores by the year each question's issue was opened.
pub fn by_issue_year(qa: &[QaItem], judged: &[JudgeLine]) -> Breakdown {
    let year = |q: &QaItem| -> Option<String> {
        let created = q.issue.as_ref()?.get("created_at")?.as_str()?;
        let y = created.get(..4)?;
        (y.bytes().all(|b| b.is_ascii_digit()) && created.as_bytes().get(4) == Some(&b'-'))
            .then(|| y.to_string())
    };
    // Years in order, then the questions without one.
    let mut counts: BTreeMap<(bool, String), usize> = BTreeMap::new();
    let mut group_of: HashMap<&str, (bool, String)> = HashMap::new();
    for q in qa {
        let k = year(q).map_or((true, UNKNOWN_DATE.to_string()), |y| (false, y));
        *counts.entry(k.clone()).or_default() += 1;
        group_of.insert(q.id.as_str(), k);
    }
    let index: HashMap<(bool, String), usize> =
        counts.keys().enumerate().map(|(i, k)| (k.clone(), i)).collect();
    let groups: Vec<(usize, BreakdownGroup)> = counts
        .iter()
        .enumerate()
        .map(|(i, ((unknown, label), &questions))| {
            let range = if *unknown {
                "issues without a date".to_string()
            } else {
                format!("issues opened in {label}")
            };
            (i, BreakdownGroup { label: label.clone(), range, questions })
        })
        .collect();
    let key = |id: &str| group_of.get(id).and_then(|k| index.get(k)).copied();
    cells(groups, judged, key)
}

/// The cells of `groups` (each with its index), a judgment going to the
/// group `group_of` its question gives (none: a question the QA file does
/// not hold, left out).
fn cells(
    groups: Vec<(usize, BreakdownGroup)>,
    judged: &[JudgeLine],
    group_of: impl Fn(&str) -> Option<usize>,
) -> Breakdown {
    // (model, setting, group) -> question -> the sum of each criterion, count
    type Sums<'a> = BTreeMap<&'a str, ([f64; 4], usize)>;
    let mut by: BTreeMap<(&str, ContextSetting, usize), Sums<'_>> = BTreeMap::new();
    for j in judged {
        let Some(g) = group_of(&j.question_id) else { continue };
        let (sums, n) = by
            .entry((j.model.as_str(), j.setting, g))
            .or_default()
            .entry(&j.question_id)
            .or_default();
        for (c, sum) in sums.iter_mut().enumerate() {
            *sum += f64::from(j.scores.get(c));
        }
        *n += 1;
    }
    let label: HashMap<usize, &str> = groups.iter().map(|(i, g)| (*i, g.label.as_str())).collect();
    let cells = by
        .iter()
        .filter_map(|((model, setting, g), questions)| {
            // A question's score: the mean of its repetitions; the cell's:
            // the mean over its questions.
            let mean = |c: usize| {
                questions.values().map(|(s, n)| s[c] / *n as f64).sum::<f64>()
                    / questions.len() as f64
            };
            let criteria = Criteria::from_fn(mean);
            let overall =
                (0..CRITERIA.len()).map(|c| criteria.get(c)).sum::<f64>() / CRITERIA.len() as f64;
            Some(BreakdownCell {
                model: model.to_string(),
                setting: *setting,
                group: label.get(g)?.to_string(),
                judged: questions.len(),
                criteria,
                overall,
            })
        })
        .collect();
    Breakdown { groups: groups.into_iter().map(|(_, g)| g).collect(), cells }
}

impl Breakdowns {
    /// As `repoqa coreqa breakdown` prints them: per breakdown, its groups,
    /// then a line per model and setting with the overall mean per group.
    pub fn render_text(&self) -> String {
        let mut out = String::new();
        let parts = [
            ("by question length (quintiles of the QA file's questions)", &self.by_question_length),
            ("by the year the question's issue was opened", &self.by_issue_year),
        ];
        for (i, (title, b)) in parts.into_iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push_str(&b.render_text(title));
        }
        out
    }
}

impl Breakdown {
    /// `title`, the groups, then the overall mean per model and setting and
    /// group ("–" where the model was not judged on the group).
    pub fn render_text(&self, title: &str) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let _ = writeln!(out, "{title}:");
        for g in &self.groups {
            let s = if g.questions == 1 { "" } else { "s" };
            let _ = writeln!(out, "  {:<8} {} ({} question{s})", g.label, g.range, g.questions);
        }
        let _ = write!(out, "  {:<24} {:<10}", "model", "setting");
        for g in &self.groups {
            let _ = write!(out, " {:>8}", g.label);
        }
        out.push('\n');
        let mut rows: BTreeMap<(&str, ContextSetting), HashMap<&str, f64>> = BTreeMap::new();
        for c in &self.cells {
            rows.entry((c.model.as_str(), c.setting))
                .or_default()
                .insert(c.group.as_str(), c.overall);
        }
        for ((model, setting), values) in &rows {
            let _ = write!(out, "  {model:<24} {:<10}", setting.to_string());
            for g in &self.groups {
                let _ = match values.get(g.label.as_str()) {
                    Some(v) => write!(out, " {v:>8.2}"),
                    None => write!(out, " {:>8}", "–"),
                };
            }
            out.push('\n');
        }
        if rows.is_empty() {
            let _ = writeln!(out, "  (no judgments of these questions)");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn qa(id: &str, question_len: usize, created_at: Option<&str>) -> QaItem {
        let mut v = serde_json::json!({
            "id": id, "repository": "a/b", "question": "é".repeat(question_len),
            "reference_answer": "r",
        });
        if let Some(d) = created_at {
            v["issue"] = serde_json::json!({"number": 1, "created_at": d});
        }
        serde_json::from_value(v).unwrap()
    }

    fn judged(q: &str, model: &str, repetition: u32, scores: [u8; 4]) -> JudgeLine {
        JudgeLine {
            repetitions: None,
            stability_seed: None,
            temperature: None,
            run: 1,
            question_id: q.into(),
            setting: ContextSetting::None,
            model: model.into(),
            repetition,
            judge: "j".into(),
            scores: Criteria::from_fn(|c| scores[c]),
            reasoning: String::new(),
        }
    }

    #[test]
    fn quintiles_are_the_qa_files_ranked_by_characters() {
        // Seven questions: groups of 2, 1, 2, 1, 1 by ⌊5r/7⌋ (r = 0..6 →
        // 0 0 1 2 2 3 4), lengths in characters, not bytes ("é" is two).
        let items: Vec<QaItem> = [30, 10, 70, 10, 50, 20, 60]
            .iter()
            .enumerate()
            .map(|(i, &n)| qa(&format!("q{i}"), n, None))
            .collect();
        let b = by_question_length(&items, &[]);
        let groups: Vec<(&str, &str, usize)> =
            b.groups.iter().map(|g| (g.label.as_str(), g.range.as_str(), g.questions)).collect();
        assert_eq!(
            groups,
            [
                ("Q1", "10 characters", 2),
                ("Q2", "20 characters", 1),
                ("Q3", "30–50 characters", 2),
                ("Q4", "60 characters", 1),
                ("Q5", "70 characters", 1),
            ]
        );
        // Fewer than five questions: fewer groups, none empty.
        let b = by_question_length(&items[..3], &[]);
        assert_eq!(
            b.groups.iter().map(|g| g.label.as_str()).collect::<Vec<_>>(),
            ["Q1", "Q2", "Q4"]
        );
    }

    #[test]
    fn a_cell_is_the_mean_over_questions_of_each_questions_mean_over_repetitions() {
        let items = [
            qa("a", 5, Some("2021-03-01T00:00:00Z")),
            qa("b", 9, Some("2023-01-01T00:00:00Z")),
            qa("c", 7, None),
        ];
        let judged = [
            judged("a", "m", 1, [8, 8, 8, 8]),
            judged("a", "m", 2, [6, 6, 6, 6]),
            judged("c", "m", 1, [2, 4, 6, 8]),
            judged("b", "n", 1, [9, 9, 9, 9]),
            judged("zz", "m", 1, [1, 1, 1, 1]),
        ];
        let y = by_issue_year(&items, &judged);
        let labels: Vec<&str> = y.groups.iter().map(|g| g.label.as_str()).collect();
        assert_eq!(labels, ["2021", "2023", UNKNOWN_DATE]);
        let cell = |model: &str, group: &str| {
            y.cells
                .iter()
                .find(|c| c.model == model && c.group == group)
                .map(|c| (c.judged, c.overall))
        };
        assert_eq!(cell("m", "2021"), Some((1, 7.0)));
        assert_eq!(cell("m", UNKNOWN_DATE), Some((1, 5.0)));
        assert_eq!(cell("n", "2023"), Some((1, 9.0)));
        assert_eq!(cell("m", "2023"), None);
        // Length: a (5) in Q1, c (7) in Q2, b (9) in Q4 (3 questions).
        let l = by_question_length(&items, &judged);
        let q1 = l.cells.iter().find(|c| c.model == "m" && c.group == "Q1").unwrap();
        assert_eq!(q1.criteria.get(0), 7.0);
        let e = breakdowns(&items, &judged).unwrap_err().to_string();
        assert!(e.contains("\"zz\""), "{e}");
        let twice = [judged[0].clone(), judged[0].clone()];
        let e = breakdowns(&items, &twice).unwrap_err().to_string();
        assert!(e.contains("twice"), "{e}");
        let text = breakdowns(&items, &judged[..4]).unwrap().render_text();
        assert!(text.contains("  2021     issues opened in 2021 (1 question)"), "{text}");
        assert!(
            text.contains("m                        none           7.00        –     5.00"),
            "{text}"
        );
    }
}
