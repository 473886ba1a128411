//! Building many tasks on several threads (native builds): the repos are
//! handed out one at a time to builders of their own, and the tasks come
//! back in spec order, byte-identical to one builder's (every count and
//! parse is a function of the task's own text; only the memos differ).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use crate::code::tokenize::Tokenizer;
use crate::input::dataset::Dataset;

use super::{build_tasks, ContextBuilder, ContextError, ContextOptions, Task, TaskSpec};

/// The threads worth using here: the machine's cores (1 if unknown).
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// [`build_tasks`] on up to `threads` threads. `progress(done, total)` is
/// called on the calling thread as tasks finish. On failure the error is
/// the one [`build_tasks`] returns: that of the first failing task in spec
/// order (every task before it is still built to make sure).
///
/// With `position_ratio`, every needle at that depth (NOT UPSTREAM,
/// [`ContextBuilder::at_position_ratio`]); `None` is the official placement.
#[cfg_attr(not(feature = "internals"), visibility::make(pub(crate)))]
pub fn build_tasks_threaded(
    dataset: &Dataset,
    specs: &[TaskSpec],
    options: &ContextOptions,
    tokenizer: &Tokenizer,
    threads: usize,
    position_ratio: Option<f64>,
    mut progress: impl FnMut(usize, usize),
) -> Result<Vec<Task>, ContextError> {
    let runs = repo_runs(specs);
    let threads = threads.min(runs.len());
    if threads <= 1 || cfg!(target_arch = "wasm32") {
        if position_ratio.is_none() {
            return build_tasks(dataset, specs, options, tokenizer, progress);
        }
        let mut builder =
            ContextBuilder::new(dataset, *options, tokenizer).at_position_ratio(position_ratio);
        let mut out = Vec::with_capacity(specs.len());
        for (i, spec) in specs.iter().enumerate() {
            out.push(builder.build(spec)?);
            progress(i + 1, specs.len());
        }
        return Ok(out);
    }
    let total = specs.len();
    let next_run = AtomicUsize::new(0);
    // The first failing spec index so far (`usize::MAX`: none): runs that
    // start after it are not started.
    let first_error = AtomicUsize::new(usize::MAX);
    let (tx, rx) = mpsc::channel::<(usize, Result<Task, ContextError>)>();
    let mut out: Vec<Option<Task>> = vec![None; total];
    let mut error: Option<(usize, ContextError)> = None;
    std::thread::scope(|s| {
        for _ in 0..threads {
            let tx = tx.clone();
            let (runs, next_run, first_error) = (&runs, &next_run, &first_error);
            s.spawn(move || {
                let mut builder = ContextBuilder::new(dataset, *options, tokenizer)
                    .at_position_ratio(position_ratio);
                while let Some(run) = runs.get(next_run.fetch_add(1, Ordering::Relaxed)) {
                    if run.start > first_error.load(Ordering::Relaxed) {
                        return;
                    }
                    for i in run.clone() {
                        let result = builder.build(&specs[i]);
                        let failed = result.is_err();
                        if failed {
                            first_error.fetch_min(i, Ordering::Relaxed);
                        }
                        if tx.send((i, result)).is_err() {
                            return;
                        }
                        if failed {
                            // One builder stops at its repo's first failure.
                            break;
                        }
                    }
                }
            });
        }
        drop(tx);
        let mut done = 0;
        for (i, result) in rx {
            match result {
                Ok(task) => {
                    out[i] = Some(task);
                    done += 1;
                    progress(done, total);
                }
                Err(e) => {
                    if error.as_ref().is_none_or(|(j, _)| i < *j) {
                        error = Some((i, e));
                    }
                }
            }
        }
    });
    if let Some((_, e)) = error {
        return Err(e);
    }
    // Without an error every spec was built.
    Ok(out.into_iter().flatten().collect())
}

/// The specs cut into runs of one repo each (a builder keeps a repo's
/// line counts between its needles).
pub(crate) fn repo_runs(specs: &[TaskSpec]) -> Vec<std::ops::Range<usize>> {
    let mut runs: Vec<std::ops::Range<usize>> = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        match runs.last_mut() {
            Some(r)
                if specs[r.start].language == spec.language
                    && specs[r.start].repo_index == spec.repo_index =>
            {
                r.end = i + 1;
            }
            _ => runs.push(i..i + 1),
        }
    }
    runs
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::code::tokenize::test_tokenizer;
    use crate::prompt::context::tests::{dataset, python_repos};
    use crate::prompt::context::{task_specs, CommentMode};

    #[test]
    fn threads_give_the_tasks_of_one_builder_in_order() {
        let tok = test_tokenizer();
        // Four repos, so that two threads share them out.
        let d = python_repos(4, &[2]);
        let specs = task_specs(&d, None);
        for mode in CommentMode::ALL.iter().copied() {
            let options = ContextOptions {
                code_context_size: 64,
                comment_mode: mode,
                ..ContextOptions::default()
            };
            let one = build_tasks(&d, &specs, &options, tok, |_, _| {}).expect("one builder");
            let mut seen = Vec::new();
            let many = build_tasks_threaded(&d, &specs, &options, tok, 3, None, |done, total| {
                seen.push((done, total))
            })
            .expect("threads");
            assert_eq!(one, many, "{mode}");
            assert_eq!(seen.last(), Some(&(specs.len(), specs.len())));
        }
    }

    #[test]
    fn a_depth_is_the_single_builders_at_that_depth_on_any_number_of_threads() {
        let tok = test_tokenizer();
        let d = python_repos(4, &[1, 4]);
        let specs = task_specs(&d, None);
        let options = ContextOptions { code_context_size: 48, ..ContextOptions::default() };
        for ratio in [0.0, 0.3, 1.0] {
            let mut builder = ContextBuilder::new(&d, options, tok).at_position_ratio(Some(ratio));
            let one: Vec<Task> = specs.iter().map(|s| builder.build(s).expect("built")).collect();
            assert!(one.iter().all(|t| t.position_ratio == ratio));
            for threads in [1, 3] {
                let many = build_tasks_threaded(
                    &d,
                    &specs,
                    &options,
                    tok,
                    threads,
                    Some(ratio),
                    |_, _| {},
                )
                .expect("threads");
                assert_eq!(one, many, "{ratio} on {threads}");
            }
        }
    }

    #[test]
    fn the_error_is_that_of_the_first_failing_task() {
        let tok = test_tokenizer();
        let mut d = dataset("python", &[("a.py", "def f():\n    pass\n")], &[("a.py", "f", 0, 17)]);
        let repos = d.languages.get_mut("python").expect("python");
        let good = repos[0].clone();
        for k in 0..4 {
            let mut r = good.clone();
            r.repo = format!("repo{k}");
            if k >= 2 {
                // Needle in a file the repo does not order: a build error.
                r.needles[0].path = format!("missing{k}.py");
            }
            repos.push(r);
        }
        let specs = task_specs(&d, None);
        let options = ContextOptions::default();
        let one = build_tasks(&d, &specs, &options, tok, |_, _| {}).expect_err("fails");
        let many =
            build_tasks_threaded(&d, &specs, &options, tok, 2, None, |_, _| {}).expect_err("fails");
        assert_eq!(one.to_string(), many.to_string());
        assert!(one.to_string().contains("missing2.py"), "{one}");
    }
}
