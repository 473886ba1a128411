//! "Be the model", a class exercise (issue 24): a student is given a task
//! (usually rebuilt in a small window, `ContextBuilder::at_position_ratio`),
//! reads the description and the code, and picks the function they think
//! is the needle, or types an answer. The pick becomes a reply as a model
//! would write it (the function in a fenced block) and is scored by the
//! real scorer; the attempts are compared with the models' results on the
//! same tasks, by depth.
//!
//! The functions offered are the repository's function records (the
//! dataset's `functions`) whose text, cut as the scorer cuts a reference
//! (whole lines, S3), appears in the task's code context.

use std::collections::BTreeMap;
use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::input::dataset::Dataset;
use crate::prompt::context::CommentMode;
use crate::report::Task;
use crate::scoring::breakdown::{depth_bin, Count, DEPTH_BINS};

/// A function of the code context a student can pick.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Choice {
    pub name: String,
    pub path: String,
    /// Byte range of its text in the task's `code_context`.
    pub at: Range<usize>,
}

impl Choice {
    /// The function's text, as it is in the context.
    pub fn text<'t>(&self, task: &'t Task) -> &'t str {
        task.code_context.get(self.at.clone()).unwrap_or("")
    }
}

/// The functions of `task`'s repository found in its code context, in the
/// order they appear. Where one lies inside another (a nested function),
/// the outer one is offered, unless the inner one is the needle.
pub fn choices(dataset: &Dataset, task: &Task) -> Vec<Choice> {
    let Some(repo) = dataset.repo(&task.language, &task.repo) else { return Vec::new() };
    let ctx = task.code_context.as_str();
    let mut found: Vec<(Choice, bool)> = Vec::new();
    // The needle where the builder put it (its text in the context can
    // differ from the file's lines: P3 shifts it, cleaning strips it).
    let mode = if task.protocol.has_context() { CommentMode::None } else { return Vec::new() };
    if let Some((at, _)) = crate::prompt::context::locate_needle_any_mode(dataset, task, mode) {
        found.push((Choice { name: task.name.clone(), path: task.path.clone(), at }, true));
    }
    for (path, records) in &repo.functions {
        for f in records {
            if f.name == task.name && *path == task.path {
                continue;
            }
            let Some(text) = repo.reference_text(path, f.start_line, f.end_line) else { continue };
            if text.trim().is_empty() {
                continue;
            }
            // The occurrence nearest the needle's place when the text is
            // repeated; any occurrence otherwise.
            let Some(start) = ctx.find(text.as_str()) else { continue };
            let choice =
                Choice { name: f.name.clone(), path: path.clone(), at: start..start + text.len() };
            found.push((choice, false));
        }
    }
    found.sort_by_key(|(c, needle)| (c.at.start, std::cmp::Reverse(c.at.end), !needle));
    found.dedup_by(|a, b| a.0.at == b.0.at);
    let mut out: Vec<(Choice, bool)> = Vec::new();
    for (c, needle) in found {
        match out.last() {
            Some((last, last_needle)) if c.at.start < last.at.end => {
                // Nested or overlapping: keep the needle, else the outer.
                if needle && !last_needle {
                    out.pop();
                    out.push((c, needle));
                }
            }
            _ => out.push((c, needle)),
        }
    }
    out.into_iter().map(|(c, _)| c).collect()
}

/// The reply a pick stands for: the function in a fenced block, as a model
/// answering the prompt would write it.
pub fn pick_reply(task: &Task, function_text: &str) -> String {
    format!("```{}\n{}\n```\n", task.language, function_text.trim_end_matches('\n'))
}

/// One student attempt.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Attempt {
    /// `Task::task_id()` (the same id as the official task's).
    pub task_id: String,
    pub position_ratio: f64,
    /// The window the task was rebuilt in (tokens).
    pub code_context_size: usize,
    /// The function picked, if one was (else an answer was typed, or the
    /// time ran out with none).
    pub picked: Option<String>,
    /// The reply that was scored.
    pub reply: String,
    pub pass: bool,
    /// The best similarity and the needle it was with (the scorer's).
    pub similarity: f64,
    pub best_target: Option<String>,
    /// Seconds from the start of the round to the pick.
    pub seconds: f64,
    /// The student gave up and the needle was revealed: no answer, which
    /// is not a failed one, so the attempt is listed but not counted
    /// ([`by_depth`]) nor written as an answer.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub gave_up: bool,
}

impl Attempt {
    /// An answer was given (the student did not give up).
    pub fn answered(&self) -> bool {
        !self.gave_up
    }
}

/// Students and models at one depth bin (`breakdown::depth_bin`): the
/// students' attempts, and the models' results on the same tasks.
#[derive(Clone, Debug, PartialEq)]
pub struct DepthRow {
    pub bin: usize,
    pub students: Count,
    pub models: Count,
    /// The model in the tab's answers to the same rounds (the same tasks
    /// in the same windows as the class's).
    pub tab: Count,
    /// The tasks attempted in this bin, each once, in the order first tried.
    pub tasks: Vec<String>,
}

/// Attempts by depth against `models` (task id → whether each model that
/// answered it passed: the loaded answers, the runs of SCORES files) and
/// the model in the tab's answers to the class's rounds (`tab`: each
/// counted where the class tried its task). A round given up is not
/// counted as the class's attempt (no answer is not a failure), but its
/// task was played, so the models' answers to it are. Bins without a round
/// are left out.
pub fn by_depth(
    attempts: &[Attempt],
    models: &BTreeMap<String, Vec<bool>>,
    tab: &[Attempt],
) -> Vec<DepthRow> {
    let mut rows: Vec<DepthRow> = (0..DEPTH_BINS)
        .map(|bin| DepthRow {
            bin,
            students: Count::default(),
            models: Count::default(),
            tab: Count::default(),
            tasks: Vec::new(),
        })
        .collect();
    for a in attempts {
        let row = &mut rows[depth_bin(a.position_ratio)];
        if a.answered() {
            row.students.n += 1;
            row.students.passed += usize::from(a.pass);
        }
        // A round given up was still played: the models' answers to its
        // task are counted beside the class.
        if !row.tasks.contains(&a.task_id) {
            row.tasks.push(a.task_id.clone());
            for &pass in models.get(&a.task_id).map_or(&[][..], Vec::as_slice) {
                row.models.n += 1;
                row.models.passed += usize::from(pass);
            }
            for t in tab.iter().filter(|t| t.task_id == a.task_id) {
                row.tab.n += 1;
                row.tab.passed += usize::from(t.pass);
            }
        }
    }
    rows.retain(|r| !r.tasks.is_empty());
    rows
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::code::tokenize::test_tokenizer;
    use crate::prompt::context::{task_specs, ContextBuilder, ContextOptions};
    use crate::scoring::score::{ScoreOptions, Scorer};

    fn demo() -> Dataset {
        Dataset::from_bytes(include_bytes!("../../../public/demo/repoqa-demo.json"), "demo")
            .unwrap()
    }

    #[test]
    fn every_small_window_offers_its_needle_and_picking_it_passes() {
        let d = demo();
        let options = ContextOptions { code_context_size: 2048, ..Default::default() };
        let mut b = ContextBuilder::new(&d, options, test_tokenizer());
        let mut scorer = Scorer::new(&d, ScoreOptions::default());
        let mut others = 0;
        for spec in task_specs(&d, None) {
            let task = b.build(&spec).unwrap();
            let cs = choices(&d, &task);
            let id = task.task_id();
            let needle = cs
                .iter()
                .find(|c| c.name == task.name && c.path == task.path)
                .unwrap_or_else(|| panic!("{id}: the needle is offered"));
            for w in cs.windows(2) {
                assert!(w[0].at.end <= w[1].at.start, "{id}: choices do not overlap");
            }
            let reply = pick_reply(&task, needle.text(&task));
            let out = crate::scoring::answers::model_output(&task, &reply, 1).unwrap();
            let e = scorer.evaluate(&out).unwrap();
            assert!(e.passes(0.8), "{id}: the needle picked passes ({})", e.best_similarity);
            // Every other function fails.
            for other in cs.iter().filter(|c| c.name != task.name) {
                let reply = pick_reply(&task, other.text(&task));
                let out = crate::scoring::answers::model_output(&task, &reply, 1).unwrap();
                assert!(!scorer.evaluate(&out).unwrap().passes(0.8), "{id}: {} fails", other.name);
                others += 1;
            }
        }
        assert!(others > 100, "{others} other functions offered");
    }

    #[test]
    fn depth_rows_count_students_per_attempt_and_models_per_task() {
        let a = |id: &str, r: f64, pass: bool| Attempt {
            task_id: id.into(),
            position_ratio: r,
            code_context_size: 2048,
            picked: None,
            reply: String::new(),
            pass,
            similarity: 0.0,
            best_target: None,
            seconds: 1.0,
            gave_up: false,
        };
        // A round given up (the needle revealed, no answer) is not a failure.
        let gave_up = Attempt { gave_up: true, ..a("y", 0.55, false) };
        let attempts =
            [a("x", 0.05, true), a("x", 0.05, false), a("y", 0.55, true), gave_up.clone()];
        let models =
            BTreeMap::from([("x".to_string(), vec![false]), ("y".to_string(), vec![true, false])]);
        // The model in the tab answered x's round twice and a task the
        // class never tried (not counted).
        let tab = [a("x", 0.05, false), a("x", 0.05, true), a("z", 0.95, true)];
        let rows = by_depth(&attempts, &models, &tab);
        assert_eq!(rows.len(), 2);
        assert_eq!(
            (rows[0].bin, rows[0].students, rows[0].models, rows[0].tab),
            (0, Count { passed: 1, n: 2 }, Count { passed: 0, n: 1 }, Count { passed: 1, n: 2 })
        );
        assert_eq!(
            (rows[1].bin, rows[1].students, rows[1].models, rows[1].tab),
            (5, Count { passed: 1, n: 1 }, Count { passed: 1, n: 2 }, Count::default())
        );
        // Written with its flag, read back; an older list (no flag) reads as answered.
        let json = serde_json::to_string(&gave_up).expect("writes");
        assert!(json.contains(r#""gave_up":true"#), "{json}");
        assert_eq!(serde_json::from_str::<Attempt>(&json).expect("reads"), gave_up);
        let old = serde_json::to_string(&a("x", 0.05, false)).expect("writes");
        assert!(!old.contains("gave_up"));
        assert!(serde_json::from_str::<Attempt>(&old).expect("reads").answered());
        // A bin where the class only gave up: no attempt of the class, the
        // models' answers to the round's task still counted.
        let only = by_depth(&[gave_up], &models, &[]);
        assert_eq!(
            (only.len(), only[0].students, only[0].models),
            (1, Count::default(), Count { passed: 1, n: 2 })
        );
    }
}
