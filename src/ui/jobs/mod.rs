//! Floor 4: long work, on one job runner.
//!
//! A [`Runner`] is a job line: at most one job runs on it at a time (its
//! busy flag), the line shows what runs and how far it is, Cancel asks the
//! job to stop and Pause to wait, and when the job ends the line says how
//! it ended. The app has two lines: the main one (dataset, tokenizer,
//! build, scoring, import; shown by `components::progress::Progress`) and
//! the Curate page's.
//!
//! A job is an async closure given a [`Ctx`]. It does its work in slices:
//! `ctx.tick(done, total).await?` after each unit of work yields to the
//! browser once the slice's time budget is spent (so the page keeps
//! answering), updates the progress and returns `Err(Stop)` if Cancel was
//! pressed. `Ctx` is `Clone`, so a job can drive several futures at once
//! (e.g. many network requests) and each reports progress.
//!
//! ```ignore
//! runner.spawn(Job::new("Building 180 tasks").budget_ms(30.0), move |ctx| async move {
//!     for (i, spec) in specs.iter().enumerate() {
//!         build(spec)?;
//!         ctx.tick(i + 1, specs.len()).await.map_err(|_| UiError::cancelled("…"))?;
//!     }
//!     ctx.done("Built 180 tasks.");
//!     Ok(())
//! });
//! ```
//!
//! The concrete jobs: `dataset` (load, restore, new session), `tokenizer`,
//! `build` (tasks and their cache; `build_pool` shares a large build out
//! to Web Workers; `build_ladder` the same tasks at several lengths, for
//! download), `scoring` (option re-score, import),
//! `curate` (read a folder/archive, curate, descriptions by a model),
//! `tab_model` (load a model into this tab), `tab_answer` (the model in
//! this tab answers one task while the page watches),
//! with `fetch` (download / read a file with progress) and `digest`
//! (SHA-256 in slices) as steps they share.

pub mod anatomy;
pub mod ask;
pub mod batch;
pub mod build;
pub mod build_ladder;
pub mod build_pool;
pub mod call_path;
pub mod coreqa;
pub mod coreqa_ask;
pub mod curate;
pub mod curate_keep;
pub mod dataset;
pub mod demo;
pub mod describe;
pub mod digest;
pub mod fetch;
pub mod ladder;
pub mod plan;
pub mod reviewers;
pub mod run;
pub mod runs;
pub mod scoring;
pub mod tab_answer;
pub mod tab_model;
pub mod tokenizer;

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::rc::Rc;

use leptos::prelude::*;

use super::browser::dom::current_hash;
use super::browser::time::{now_ms, sleep_ms, yield_to_browser};
use super::error::UiError;
use super::state::route::Page;

/// The default time budget of a slice: the page gets a turn at least this
/// often (a frame is 16 ms; input feels instant under ~50 ms).
pub const DEFAULT_BUDGET_MS: f64 = 25.0;

/// What a job line shows.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Line {
    #[default]
    Idle,
    Running {
        what: String,
        done: usize,
        total: usize,
    },
    Failed(String),
    Done(String),
    /// Ended, but what it found or did has problems (mismatches, requests
    /// that failed): shown in the failure colour, never in green.
    Flawed(String),
}

impl Line {
    /// The message of an ended line.
    pub fn message(&self) -> Option<&str> {
        match self {
            Line::Failed(m) | Line::Done(m) | Line::Flawed(m) => Some(m),
            Line::Idle | Line::Running { .. } => None,
        }
    }

    /// The CSS class of its message: `pass` for done, `fail` for failed
    /// or flawed, `muted` otherwise.
    pub fn class(&self) -> &'static str {
        match self {
            Line::Done(_) => "pass",
            Line::Failed(_) | Line::Flawed(_) => "fail",
            Line::Idle | Line::Running { .. } => "muted",
        }
    }
}

/// The job was cancelled (returned by [`Ctx::tick`] and [`Ctx::turn`]); the
/// job turns it into a [`UiError::Cancelled`] saying what was kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stop;

/// Called with the line a job ends with.
type OnEnd = Box<dyn FnOnce(&Line)>;

/// A job to run: its first label, the time budget of its slices, and what
/// its failure does to the line.
pub struct Job {
    what: String,
    budget_ms: f64,
    quiet_errors: bool,
    queue: bool,
    on_end: Option<OnEnd>,
    shown_on: Option<&'static [&'static str]>,
}

impl Job {
    pub fn new(what: impl Into<String>) -> Job {
        Job {
            what: what.into(),
            budget_ms: DEFAULT_BUDGET_MS,
            quiet_errors: false,
            queue: false,
            on_end: None,
            shown_on: None,
        }
    }

    /// The sections (`Page::section`) whose job line shows how this job
    /// ended; by default the section it was started from. A running job
    /// shows on every page (with its Cancel button).
    pub fn shown_on(mut self, sections: &'static [&'static str]) -> Job {
        self.shown_on = Some(sections);
        self
    }

    /// Work at most `ms` between two turns of the page.
    pub fn budget_ms(mut self, ms: f64) -> Job {
        self.budget_ms = ms;
        self
    }

    /// On failure clear the line instead of showing the error there (the
    /// caller shows it elsewhere, e.g. the Dataset page's error box).
    pub fn quiet_errors(mut self) -> Job {
        self.quiet_errors = true;
        self
    }

    /// Called with the line the job ends with, before the line shows it
    /// (e.g. to put the message elsewhere on the page in the same update).
    pub fn on_end(mut self, f: impl FnOnce(&Line) + 'static) -> Job {
        self.on_end = Some(Box::new(f));
        self
    }

    /// Wait for the running job to end instead of refusing as busy.
    pub fn queue(mut self) -> Job {
        self.queue = true;
        self
    }
}

/// One job line. `Copy`: every field is a signal handle.
#[derive(Clone, Copy)]
pub struct Runner {
    line: RwSignal<Line>,
    busy: RwSignal<bool>,
    cancel: RwSignal<bool>,
    paused: RwSignal<bool>,
    /// Jobs ended so far (tests wait on it).
    finished: RwSignal<u32>,
    /// When the running job started (`now_ms`), for its ETA.
    started: RwSignal<f64>,
    /// Milliseconds spent paused, and since when it is paused now: the
    /// clocks stop while paused.
    paused_ms: RwSignal<f64>,
    paused_at: RwSignal<Option<f64>>,
    /// Where the last job's end is shown ([`Job::shown_on`]).
    sections: RwSignal<Vec<&'static str>>,
}

impl Default for Runner {
    fn default() -> Self {
        Runner::new()
    }
}

impl Runner {
    pub fn new() -> Runner {
        Runner {
            line: RwSignal::new(Line::Idle),
            busy: RwSignal::new(false),
            cancel: RwSignal::new(false),
            paused: RwSignal::new(false),
            finished: RwSignal::new(0),
            started: RwSignal::new(0.0),
            paused_ms: RwSignal::new(0.0),
            paused_at: RwSignal::new(None),
            sections: RwSignal::new(Vec::new()),
        }
    }

    /// The line (tracked).
    pub fn line(self) -> Line {
        self.line.get()
    }

    /// The line as the page of `section` shows it (tracked): a running
    /// job everywhere, an ended one only where [`Job::shown_on`] says
    /// (idle elsewhere), so "60 tasks restored" stays off Verify.
    pub fn line_on(self, section: &str) -> Line {
        let line = self.line.get();
        match line {
            Line::Idle | Line::Running { .. } => line,
            _ if self.sections.with(|s| s.is_empty() || s.contains(&section)) => line,
            _ => Line::Idle,
        }
    }

    pub fn line_signal(self) -> ReadSignal<Line> {
        self.line.read_only()
    }

    /// A job runs (tracked).
    pub fn busy(self) -> bool {
        self.busy.get()
    }

    pub fn busy_untracked(self) -> bool {
        self.busy.get_untracked()
    }

    /// The running job's label, if one runs (untracked).
    pub fn running_what(self) -> Option<String> {
        match self.line.get_untracked() {
            Line::Running { what, .. } if self.busy.get_untracked() => Some(what),
            _ => None,
        }
    }

    /// Ask the running job to stop at its next turn.
    pub fn cancel(self) {
        if self.busy.get_untracked() {
            self.cancel.set(true);
        }
    }

    /// Cancel was pressed and the job has not stopped yet (tracked).
    pub fn cancelling(self) -> bool {
        self.cancel.get()
    }

    /// Pause or resume the running job (it waits at its next turn). For
    /// jobs that offer it (a long model run, `jobs::run`).
    pub fn set_paused(self, paused: bool) {
        let paused = paused && self.busy.get_untracked();
        match (paused, self.paused_at.get_untracked()) {
            (true, None) => self.paused_at.set(Some(now_ms())),
            (false, Some(at)) => {
                self.paused_ms.update(|p| *p += now_ms() - at);
                self.paused_at.set(None);
            }
            _ => {}
        }
        self.paused.set(paused);
    }

    pub fn paused(self) -> bool {
        self.paused.get()
    }

    /// Jobs ended on this line so far (tracked).
    pub fn finished(self) -> u32 {
        self.finished.get()
    }

    /// Milliseconds the running job has taken, with its steps done and in
    /// all (tracked; None when idle). For lines that show the time left (a
    /// long model run: `repoqa::llm::progress`).
    pub fn elapsed_ms(self) -> Option<(f64, usize, usize)> {
        let Line::Running { done, total, .. } = self.line.get() else { return None };
        let now = self.paused_at.get().unwrap_or_else(now_ms);
        Some((now - self.started.get() - self.paused_ms.get(), done, total))
    }

    /// Show a message on the line outside a job (ignored while one runs).
    pub fn show(self, line: Line) {
        if !self.busy.get_untracked() {
            self.line.set(line);
        }
    }

    /// Run `job` in the current task and return its result. Refused with
    /// [`UiError::Busy`] while another job runs on this line (unless the
    /// job is [`Job::queue`]d). The line ends as the job left it with
    /// [`Ctx::done`] (idle otherwise), or with the error.
    pub async fn run<T, F, Fut>(self, mut job: Job, f: F) -> Result<T, UiError>
    where
        F: FnOnce(Ctx) -> Fut,
        Fut: Future<Output = Result<T, UiError>>,
    {
        if job.queue {
            while self.busy.get_untracked() {
                sleep_ms(50).await;
            }
        }
        if let Some(what) = self.running_what() {
            return Err(UiError::Busy(what));
        }
        self.busy.set(true);
        let here = Page::from_hash(&current_hash()).section();
        self.sections.set(job.shown_on.map_or_else(|| vec![here], <[_]>::to_vec));
        self.cancel.set(false);
        self.paused.set(false);
        self.paused_ms.set(0.0);
        self.paused_at.set(None);
        self.started.set(now_ms());
        self.line.set(Line::Running { what: job.what.clone(), done: 0, total: 0 });
        let ctx = Ctx::new(self, job.budget_ms);
        let result = f(ctx.clone()).await;
        let end = match &result {
            Ok(_) => ctx.inner.end.take().unwrap_or(Line::Idle),
            Err(_) if job.quiet_errors => Line::Idle,
            Err(e) => Line::Failed(e.to_string()),
        };
        if let Some(on_end) = job.on_end.take() {
            on_end(&end);
        }
        self.line.set(end);
        self.cancel.set(false);
        self.paused.set(false);
        self.paused_at.set(None);
        self.busy.set(false);
        self.finished.update(|n| *n += 1);
        result
    }

    /// [`Runner::run`] in a new task; the outcome is on the line (and
    /// `on_error` gets a failure, e.g. to show it elsewhere).
    pub fn spawn<F, Fut>(self, job: Job, f: F)
    where
        F: FnOnce(Ctx) -> Fut + 'static,
        Fut: Future<Output = Result<(), UiError>> + 'static,
    {
        leptos::task::spawn_local(async move {
            let _ = self.run(job, f).await;
        });
    }
}

/// The app's main job line (provided by `App`).
pub fn use_runner() -> Runner {
    expect_context::<Runner>()
}

/// A running job's handle on its line: progress, the time budget, Cancel
/// and Pause. Cheap to clone; clones share the slice clock.
#[derive(Clone)]
pub struct Ctx {
    runner: Runner,
    budget_ms: f64,
    inner: Rc<CtxInner>,
}

struct CtxInner {
    slice_start: Cell<f64>,
    max_slice_ms: Cell<f64>,
    slices: Cell<usize>,
    /// The line to show when the job ends well.
    end: RefCell<Option<Line>>,
}

impl Ctx {
    fn new(runner: Runner, budget_ms: f64) -> Ctx {
        Ctx {
            runner,
            budget_ms,
            inner: Rc::new(CtxInner {
                slice_start: Cell::new(now_ms()),
                max_slice_ms: Cell::new(0.0),
                slices: Cell::new(0),
                end: RefCell::new(None),
            }),
        }
    }

    /// Show `what` with a count (`total` 0 = unknown).
    pub fn progress(&self, what: impl Into<String>, done: usize, total: usize) {
        self.runner.line.set(Line::Running { what: what.into(), done, total });
    }

    /// Update the count, keeping the label.
    pub fn count(&self, done: usize, total: usize) {
        self.runner.line.update(|l| {
            if let Line::Running { done: d, total: t, .. } = l {
                *d = done;
                *t = total;
            }
        });
    }

    /// Pause was pressed (a job that does not wait in [`Ctx::turn`]
    /// decides itself what pausing means, e.g. a model run sends nothing new).
    pub fn paused(&self) -> bool {
        self.runner.paused.get_untracked()
    }

    /// Cancel was pressed.
    pub fn cancelled(&self) -> bool {
        self.runner.cancel.get_untracked()
    }

    /// `Err(Stop)` if Cancel was pressed.
    pub fn check(&self) -> Result<(), Stop> {
        if self.cancelled() {
            Err(Stop)
        } else {
            Ok(())
        }
    }

    /// The slice's time budget is spent.
    pub fn over_budget(&self) -> bool {
        now_ms() - self.inner.slice_start.get() >= self.budget_ms
    }

    /// Give the page a turn now (then wait while paused), and report
    /// whether Cancel was pressed. Starts a new slice.
    pub async fn turn(&self) -> Result<(), Stop> {
        let slice = now_ms() - self.inner.slice_start.get();
        self.inner.max_slice_ms.set(self.inner.max_slice_ms.get().max(slice));
        self.inner.slices.set(self.inner.slices.get() + 1);
        yield_to_browser().await;
        while self.runner.paused.get_untracked() && !self.cancelled() {
            sleep_ms(100).await;
        }
        self.inner.slice_start.set(now_ms());
        self.check()
    }

    /// Await `f`, work done elsewhere (a worker, the network) while the
    /// page keeps its turns: the slice so far counts as one, and a new one
    /// starts when `f` is ready (waiting blocked nothing).
    pub async fn wait_for<T>(&self, f: impl Future<Output = T>) -> T {
        let slice = now_ms() - self.inner.slice_start.get();
        self.inner.max_slice_ms.set(self.inner.max_slice_ms.get().max(slice));
        self.inner.slices.set(self.inner.slices.get() + 1);
        let out = f.await;
        self.inner.slice_start.set(now_ms());
        out
    }

    /// After a unit of work: once the budget is spent, show `done` of
    /// `total` and give the page a turn. `Err(Stop)` if Cancel was pressed.
    pub async fn tick(&self, done: usize, total: usize) -> Result<(), Stop> {
        if self.over_budget() {
            self.count(done, total);
            self.turn().await
        } else {
            Ok(())
        }
    }

    /// Count slices from here on (a phase whose slices are reported).
    pub fn restart_slice_stats(&self) {
        self.inner.max_slice_ms.set(0.0);
        self.inner.slices.set(0);
    }

    /// The longest slice so far (ms) and the number of slices.
    pub fn slice_stats(&self) -> (f64, usize) {
        (self.inner.max_slice_ms.get(), self.inner.slices.get())
    }

    /// The message the line shows when the job ends well (the last call wins).
    pub fn done(&self, message: impl Into<String>) {
        *self.inner.end.borrow_mut() = Some(Line::Done(message.into()));
    }

    /// Like [`Ctx::done`] when what the job found or did has problems
    /// (`flawed`): the line shows the message in the failure colour.
    pub fn done_flawed(&self, message: impl Into<String>, flawed: bool) {
        let m = message.into();
        *self.inner.end.borrow_mut() = Some(if flawed { Line::Flawed(m) } else { Line::Done(m) });
    }
}
