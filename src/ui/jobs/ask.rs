//! Asking a model from the page, for every run the page makes (RepoQA's
//! tasks on the Run page; CoReQA's answers, judgments and questions): the
//! core's runner (`repoqa::llm::run`) decides what to send and what each
//! reply means; this loop sends the requests with `fetch`, hands the
//! replies back, gives every event to the caller's [`Sink`] and awaits its
//! store once per batch of replies, before the next request goes out (so
//! a reload finds everything that arrived). Pause, Cancel and "New
//! session" are followed here, once for all runs.

use std::cell::RefCell;
use std::rc::Rc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use repoqa::llm::in_tab;
use repoqa::llm::run::{BenchmarkRun, RunEvent, RunItem, RunStats, RunStep};
use repoqa::llm::schedule::{RunLimit, RunPace, ScheduleConfig};
use repoqa::llm::wire::{read_models, read_total_slots, Endpoint, TransportError};
use repoqa::llm::{HttpReply, HttpRequest};
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;

use super::Ctx;
use crate::ui::browser::fetch::{get_text, post_model_request};
use crate::ui::browser::tab_model;
use crate::ui::browser::time::now_ms;
use crate::ui::error::UiError;
use crate::ui::state::run::RunState;

/// The Run page's API settings with the key (from memory), for the
/// browser: every model the page asks goes through them.
pub fn endpoint_of(rs: RunState) -> Result<Endpoint, UiError> {
    let s = endpoint_unchecked(rs);
    s.validate().map_err(UiError::invalid)?;
    Ok(s)
}

/// [`endpoint_of`] without its checks (a key is not needed to plan a run).
pub fn endpoint_unchecked(rs: RunState) -> Endpoint {
    let mut s = rs.form.with_untracked(|f| f.settings.clone());
    let key = rs.key.get_untracked();
    s.api_key = Some(key.trim().to_string()).filter(|k| !k.is_empty());
    s.from_browser = true;
    s
}

/// The Run page's pacing, checked as the CLI checks its flags (one core
/// rule, `RunPace::check`); the message names the form's field. Also the
/// timeout per request in milliseconds. The model in this tab is asked
/// its own way whatever the fields say (`in_tab::schedule`: one at a time,
/// no retries; no timeout, which its requests never get).
pub fn pace_of(rs: RunState) -> Result<(ScheduleConfig, u32), UiError> {
    if rs.form.with_untracked(|f| in_tab::is_tab(&f.settings.base_url)) {
        return Ok((in_tab::schedule(), 0));
    }
    let pace = rs.form.with_untracked(|f| RunPace {
        concurrency: f.concurrency,
        timeout_s: f.timeout_s,
        max_retries: f.max_retries,
        retry_base_ms: f.retry_base_ms,
    });
    let config = pace.check().map_err(|e| {
        let field = match e.setting() {
            RunLimit::Concurrency => "Concurrency",
            RunLimit::Timeout => "Timeout per request",
            RunLimit::RetryBase => "First retry delay",
        };
        UiError::invalid(format!("{field}: {e}"))
    })?;
    // In range: at most a day, far below u32::MAX milliseconds.
    Ok((config, (pace.timeout_s * 1000.0).ceil() as u32))
}

/// The page's session a run started in ("New session" ends the run:
/// replies still in flight are dropped).
#[derive(Clone, Copy)]
pub struct RunSession {
    pub rs: RunState,
    at: u64,
}

impl RunSession {
    pub fn now(rs: RunState) -> RunSession {
        RunSession { rs, at: rs.session_now() }
    }

    pub fn current(self) -> bool {
        self.rs.session_now() == self.at
    }
}

/// The server's model list (`GET <base>/models`) lacks the model asked
/// for: what to say (`Endpoint::model_warning`). Nothing when the server
/// lists no models or cannot be asked from the page.
pub async fn unlisted_model(endpoint: &Endpoint) -> Option<String> {
    if in_tab::is_tab(&endpoint.base_url()) {
        return None;
    }
    let req = endpoint.models_request();
    let (status, body) = get_text(&req.url, &req.headers, 1 << 20).await.ok()?;
    if !(200..300).contains(&status) {
        return None;
    }
    endpoint.model_warning(&read_models(&body)?)
}

/// The concurrency to run at when the server says it answers fewer
/// requests at a time (llama.cpp's `/props`), with what to say; None when
/// it says nothing or no fewer are needed.
pub async fn server_slots(endpoint: &Endpoint, concurrency: usize) -> Option<(usize, String)> {
    if in_tab::is_tab(&endpoint.base_url()) {
        return None;
    }
    let req = endpoint.props_request()?;
    let (status, body) = get_text(&req.url, &req.headers, 1 << 20).await.ok()?;
    if !(200..300).contains(&status) {
        return None;
    }
    endpoint.slots_limit(read_total_slots(&body)?, concurrency)
}

/// Where a run's events go.
pub trait Sink {
    /// The session the run started in.
    fn session(&self) -> RunSession;
    /// A request got no HTTP status (CORS or unreachable): its reason,
    /// shown by the Run page with how to allow browser origins.
    fn no_status(&mut self, reason: &str) {
        let m = reason.to_string();
        self.session().rs.live.update(|l| l.no_status = Some(m));
    }
    /// Take one event into the page's state.
    fn event(&mut self, event: RunEvent);
    /// Store what this batch's events changed (awaited before the next
    /// request is sent). One write per batch, not per reply: each
    /// IndexedDB commit costs a few milliseconds, and at high concurrency
    /// replies arrive in bunches.
    async fn store(&mut self);
    /// The counts after a batch.
    fn stats(&mut self, _stats: RunStats) {}
    /// Requests sent and not yet answered (what a pause waits for).
    fn in_flight(&mut self, _n: usize) {}
}

/// A run's counts on the Run page's live line (the sinks of the runs the
/// Run page starts).
pub fn show_stats(rs: RunState, stats: RunStats) {
    rs.live.update(|l| l.stats = stats);
}

/// Requests in flight on the Run page's live line (what a pause waits for).
pub fn show_in_flight(rs: RunState, n: usize) {
    if rs.live.with_untracked(|l| l.in_flight != n) {
        rs.live.update(|l| l.in_flight = n);
    }
}

/// How the loop ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AskEnd {
    /// Everything asked, or stopped, or cancelled (see the run's stats).
    Ended,
    /// "New session" was pressed: nothing more was stored.
    Superseded,
}

/// Replies delivered by the request tasks, and a way to wake the loop.
#[derive(Default)]
struct Inbox {
    replies: RefCell<Vec<(usize, Result<HttpReply, TransportError>)>>,
    wake: RefCell<Option<js_sys::Function>>,
}

impl Inbox {
    fn deliver(&self, item: (usize, Result<HttpReply, TransportError>)) {
        self.replies.borrow_mut().push(item);
        let wake = self.wake.borrow_mut().take();
        if let Some(f) = wake {
            let _ = f.call0(&JsValue::NULL);
        }
    }

    /// Until a reply arrives or `ms` pass.
    async fn wait(&self, ms: i32) {
        if !self.replies.borrow().is_empty() {
            return;
        }
        let promise = js_sys::Promise::new(&mut |resolve, _reject| {
            if let Some(w) = web_sys::window() {
                let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
            }
            *self.wake.borrow_mut() = Some(resolve);
        });
        let _ = JsFuture::from(promise).await;
        self.wake.borrow_mut().take();
    }
}

/// Ask everything `run` has to ask, `timeout_ms` per request, following
/// the job line's Pause and Cancel; `sink` takes the events.
pub async fn ask_all<T: RunItem>(
    ctx: &Ctx,
    run: &mut BenchmarkRun<'_, T>,
    timeout_ms: u32,
    sink: &mut impl Sink,
) -> AskEnd {
    let total = run.stats.total;
    let inbox = Rc::new(Inbox::default());
    loop {
        if !sink.session().current() {
            return AskEnd::Superseded;
        }
        if ctx.cancelled() && !run.scheduler().is_cancelled() {
            run.scheduler().cancel();
            // A model in this tab stops the answer it is writing (a
            // server's request ends by itself); nothing else is there to stop.
            spawn_local(async {
                let _ = tab_model::stop().await;
            });
        }
        let paused = ctx.paused();
        if paused != run.scheduler().is_paused() {
            if paused {
                run.scheduler().pause();
            } else {
                run.scheduler().resume();
            }
        }
        let batch: Vec<_> = std::mem::take(&mut *inbox.replies.borrow_mut());
        for (item, reply) in batch {
            if !sink.session().current() {
                return AskEnd::Superseded;
            }
            if let Err(TransportError::NoStatus(m)) = &reply {
                sink.no_status(m);
            }
            let time = repoqa::report::now_eval_date();
            sink.event(run.complete(item, reply.as_ref(), now_ms(), time));
        }
        sink.store().await;
        if !sink.session().current() {
            return AskEnd::Superseded;
        }
        sink.stats(run.stats);
        sink.in_flight(run.scheduler().in_flight());
        ctx.count(run.stats.answered + run.stats.failed, total);
        match run.next(now_ms()) {
            RunStep::Send { task, request, .. } => {
                let inbox = inbox.clone();
                let progress = sink.session().rs.tab_progress;
                spawn_local(async move {
                    let reply = if in_tab::is_tab(&request.url) {
                        tab_reply(&request, progress).await
                    } else {
                        post_model_request(&request, timeout_ms).await
                    };
                    inbox.deliver((task, reply));
                });
            }
            RunStep::Wait { until_ms } => {
                let ms =
                    until_ms.map(|u| (u - now_ms()).ceil().clamp(0.0, 200.0) as i32).unwrap_or(200);
                inbox.wait(ms).await;
            }
            RunStep::Done => return AskEnd::Ended,
        }
    }
}

/// One request to the model in this tab, streamed so that `progress`
/// follows it (prompt tokens read, tokens written, how fast); the reply in
/// the end is the one a request without streaming gets.
async fn tab_reply(
    request: &HttpRequest,
    progress: RwSignal<Option<in_tab::TabProgress>>,
) -> Result<HttpReply, TransportError> {
    let start = now_ms();
    progress.set(Some(in_tab::TabProgress::default()));
    let first = std::cell::Cell::new(None::<f64>);
    let reply = tab_model::post_streaming(request, move |w| {
        let elapsed_ms = now_ms() - start;
        if w.written > 0 && first.get().is_none() {
            first.set(Some(elapsed_ms));
        }
        progress.try_set(Some(in_tab::TabProgress {
            read: w.prompt,
            written: w.written,
            elapsed_ms,
            first_token_ms: first.get(),
        }));
    })
    .await;
    progress.try_set(None);
    reply
}

/// The counts of an ended run, for its job line: "3 answered, 1 failed,
/// 0 not asked, 2 retries, 812 tokens" (and a warning on cut prompts).
pub fn summary<T: RunItem>(run: &BenchmarkRun<'_, T>) -> String {
    let s = run.stats;
    let tokens = s.prompt_tokens + s.completion_tokens;
    let mut out = format!(
        "{} answered, {} failed, {} not asked, {} retries, {tokens} tokens",
        s.answered,
        s.failed,
        run.not_asked().len(),
        s.retries
    );
    if s.truncated > 0 {
        out.push_str(&format!(
            "; WARNING: {} prompt(s) cut by the server, their scores are meaningless",
            s.truncated
        ));
    }
    out
}
