//! One benchmark run over built tasks, for any front: the official request
//! of each task ([`super::wire`]), when to send it ([`super::schedule`]),
//! and, per reply, the official outputs line and the run-log record to
//! append at once ([`super::runlog`]). The front sends the requests (the
//! CLI with a blocking client on threads, the page with `fetch`) and
//! stores the lines; this type decides everything else.
//!
//! What is asked is any [`RunItem`]: a RepoQA task, and CoReQA's answering
//! and judging requests, so all of them share the retries, faults, run log,
//! resume and truncation check.

use super::runlog::{RecordContext, RecordStatus, RunRecord};
use super::schedule::{ScheduleConfig, ScheduleStep, Scheduler, Verdict};
use super::wire::{read_reply, Endpoint, Outcome, RequestParams, TransportError};
use super::{HttpReply, HttpRequest};
use crate::report;
use crate::report::Task;

/// One request of a run: what to ask, under which id, and what line keeps
/// the reply.
pub trait RunItem {
    /// The id the run log and resume know it by.
    fn task_id(&self) -> String;
    /// The user message.
    fn prompt(&self) -> String;
    /// Its own token count, for the truncation check ([`super::wire::Usage::looks_truncated`]).
    fn prompt_ntokens(&self) -> usize;
    /// The outputs line that keeps `reply`, with its newline; `asked` is
    /// what the request was asked with (a line of one's own format records
    /// its temperature; upstream's RepoQA line does not).
    fn output_line(&self, reply: &str, asked: &RequestParams) -> Result<String, String>;
    /// Whether the reply is one this item can use; an unusable one (a
    /// judge's reply without its scores) is asked again like a malformed
    /// body, then reported as failed with this reason, never guessed at.
    fn check_reply(&self, _reply: &str) -> Result<(), String> {
        Ok(())
    }
    /// A reply cut at the token limit is never stored as if it were whole:
    /// the task fails, saying what to raise (CoReQA's answers, judgments
    /// and questions). False for a RepoQA task, whose cut reply upstream
    /// stores and the scores list as cut.
    fn whole_replies_only(&self) -> bool {
        false
    }
}

/// A RepoQA task: upstream's outputs line (the task's fields and
/// `"output": [reply]`).
impl RunItem for Task {
    fn task_id(&self) -> String {
        Task::task_id(self)
    }
    fn prompt(&self) -> String {
        Task::prompt(self)
    }
    fn prompt_ntokens(&self) -> usize {
        self.code_context_ntokens
    }
    fn output_line(&self, reply: &str, _asked: &RequestParams) -> Result<String, String> {
        report::output_line(self, &[reply.to_string()]).map_err(|e| e.to_string())
    }
}

/// Items shared with the page's state are asked as they are.
impl<T: RunItem> RunItem for std::sync::Arc<T> {
    fn task_id(&self) -> String {
        T::task_id(self)
    }
    fn prompt(&self) -> String {
        T::prompt(self)
    }
    fn prompt_ntokens(&self) -> usize {
        T::prompt_ntokens(self)
    }
    fn output_line(&self, reply: &str, asked: &RequestParams) -> Result<String, String> {
        T::output_line(self, reply, asked)
    }
    fn check_reply(&self, reply: &str) -> Result<(), String> {
        T::check_reply(self, reply)
    }
    fn whole_replies_only(&self) -> bool {
        T::whole_replies_only(self)
    }
}

/// What to do now.
#[derive(Debug)]
pub enum RunStep {
    /// Send `request` for task `task`; hand its reply to [`BenchmarkRun::complete`].
    Send {
        task: usize,
        attempt: u32,
        request: HttpRequest,
    },
    /// Wait for a reply, or until `until_ms` if given.
    Wait {
        until_ms: Option<f64>,
    },
    Done,
}

/// What a reply did.
#[derive(Debug)]
pub enum RunEvent {
    /// Append `output_line` to the outputs file and `record` to the run log.
    Answered {
        task: usize,
        /// The model's reply (the `output[0]` of `output_line`).
        reply: String,
        output_line: String,
        record: RunRecord,
    },
    /// Append `record` (status failed, with the reason) to the run log.
    Failed {
        task: usize,
        record: RunRecord,
    },
    Retrying {
        task: usize,
        at_ms: f64,
        attempt: u32,
        reason: String,
        /// The concurrency was lowered to this (`schedule::lowered_message`).
        lowered_to: Option<usize>,
    },
    /// Nothing more is sent: fix what `reason` says and run again.
    Stopped {
        reason: String,
    },
    Ignored,
}

/// Counts for a progress line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    pub total: usize,
    pub answered: usize,
    pub failed: usize,
    pub retries: usize,
    pub truncated: usize,
    /// Answers that ended at the token limit (stored, but named).
    pub cut: usize,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// The thinking's share of `completion_tokens`, where reported.
    pub reasoning_tokens: u64,
    /// The concurrency the run lowered itself to, if it did.
    pub concurrency: Option<usize>,
}

/// A benchmark run against a model's API: which request to send next, and
/// what each reply (or failure) means for its task. No I/O: a front sends
/// the requests and hands back the replies.
pub struct BenchmarkRun<'t, T: RunItem = Task> {
    pub settings: Endpoint,
    tasks: &'t [T],
    scheduler: Scheduler,
    /// When the current request of each task was sent.
    sent_ms: Vec<f64>,
    attempts: Vec<u32>,
    /// Some request of this run got an HTTP status back.
    heard_back: bool,
    /// Replies without an HTTP status before any with one, and how many
    /// end the run (the first wave: every request sent at first).
    no_status: usize,
    first_wave: usize,
    /// The run stopped (the replies still in flight say nothing more).
    stopped: bool,
    pub stats: RunStats,
}

impl<'t, T: RunItem> BenchmarkRun<'t, T> {
    /// A run asking `todo` (indices into `tasks`, in that order).
    pub fn new(
        settings: Endpoint,
        tasks: &'t [T],
        todo: &[usize],
        config: ScheduleConfig,
        seed: u64,
    ) -> BenchmarkRun<'t, T> {
        let todo: Vec<usize> = todo.iter().copied().filter(|&i| i < tasks.len()).collect();
        let first_wave = config.concurrency.min(todo.len()).max(2);
        BenchmarkRun {
            settings,
            tasks,
            stats: RunStats { total: todo.len(), ..RunStats::default() },
            scheduler: Scheduler::new(config, todo, seed),
            sent_ms: vec![0.0; tasks.len()],
            attempts: vec![0; tasks.len()],
            heard_back: false,
            no_status: 0,
            first_wave,
            stopped: false,
        }
    }

    pub fn scheduler(&mut self) -> &mut Scheduler {
        &mut self.scheduler
    }

    pub fn task(&self, i: usize) -> Option<&'t T> {
        self.tasks.get(i)
    }

    pub fn next(&mut self, now_ms: f64) -> RunStep {
        match self.scheduler.next(now_ms) {
            ScheduleStep::Send { task, attempt } => {
                self.sent_ms[task] = now_ms;
                self.attempts[task] = attempt;
                let request = self.settings.request(&self.tasks[task].prompt());
                RunStep::Send { task, attempt, request }
            }
            ScheduleStep::Wait { until_ms } => RunStep::Wait { until_ms },
            ScheduleStep::Done => RunStep::Done,
        }
    }

    /// The reply to task `task`'s request, received at `now_ms`; `time`
    /// is the wall-clock time to record (UTC).
    pub fn complete(
        &mut self,
        task: usize,
        reply: Result<&HttpReply, &TransportError>,
        now_ms: f64,
        time: String,
    ) -> RunEvent {
        let Some(t) = self.tasks.get(task) else { return RunEvent::Ignored };
        self.heard_back |= reply.is_ok();
        if !self.heard_back && matches!(reply, Err(TransportError::NoStatus(_))) {
            self.no_status += 1;
        }
        let outcome = match read_reply(&self.settings, reply) {
            // In a browser: every request of the first wave (at least two
            // attempts) failed before any status, so the server is down or
            // does not allow the page's origin. Retrying would only repeat
            // it for minutes; stop and say what to fix.
            _ if !self.heard_back && self.no_status >= self.first_wave => {
                // The browser's own words are shown once, with how to allow
                // the page's origin (the Run page's CORS advice).
                Outcome::Stop {
                    reason: format!(
                        "the first {} requests to {} got no HTTP status: check that the server is running at this base URL and that it allows this page's origin (see below)",
                        self.no_status,
                        self.settings.base_url_shown()
                    ),
                }
            }
            // Nothing ever answered: a wrong URL or a server that is down,
            // not a passing fault (retrying it would only repeat the line).
            _ if !self.heard_back && matches!(reply, Err(TransportError::Unreachable(_))) => {
                let m = reply.err().map(ToString::to_string).unwrap_or_default();
                Outcome::Stop {
                    reason: format!(
                        "cannot connect to {}: {m}: check that the server is running and the base URL",
                        self.settings.base_url_shown()
                    ),
                }
            }
            Outcome::Answer(a) => match t.check_reply(&a.text) {
                // Usable, but cut: an item that keeps only whole replies
                // fails, saying so (a cut answer is never stored as whole).
                Ok(()) if a.cut() && t.whole_replies_only() => Outcome::TaskFailed {
                    reason: format!(
                        "the reply was cut at the token limit (finish reason {:?}): an incomplete reply is not stored as a whole one; raise {} and ask it again",
                        a.finish_reason.as_deref().unwrap_or(""),
                        self.settings.front().raise_output(self.settings.thinking().is_some())
                    ),
                },
                Ok(()) => Outcome::Answer(a),
                // Cut at the token limit: asked again it would be cut
                // again, so it fails now, saying so (not "malformed").
                Err(reason) if a.cut() => Outcome::TaskFailed {
                    reason: format!(
                        "the reply was cut at the token limit (finish reason {:?}) before it was whole ({reason}); raise {} and ask it again",
                        a.finish_reason.as_deref().unwrap_or(""),
                        self.settings.front().raise_output(self.settings.thinking().is_some())
                    ),
                },
                Err(reason) => Outcome::Retry { reason, retry_after_s: None, timed_out: false },
            },
            other => other,
        };
        let latency_ms = now_ms - self.sent_ms[task];
        let attempts = self.attempts[task];
        let ctx = RecordContext { settings: &self.settings, time };
        match self.scheduler.complete(task, outcome, now_ms) {
            Verdict::Answered(a) => {
                let output_line = match t.output_line(&a.text, &self.settings.params()) {
                    Ok(l) => l,
                    // A task serializes; were it not to, say so as a failure.
                    Err(e) => {
                        self.stats.failed += 1;
                        let record = RunRecord::new(
                            &ctx,
                            t.task_id(),
                            RecordStatus::Failed,
                            latency_ms,
                            attempts,
                            a.usage,
                            t.prompt_ntokens(),
                            a.finish_reason,
                            Some(e),
                        );
                        return RunEvent::Failed { task, record };
                    }
                };
                let cut = a.cut();
                let mut record = RunRecord::new(
                    &ctx,
                    t.task_id(),
                    RecordStatus::Answered,
                    latency_ms,
                    attempts,
                    a.usage,
                    t.prompt_ntokens(),
                    a.finish_reason,
                    None,
                );
                record.answered_by = super::runlog::other_model(&record.model, a.model.as_deref());
                record.cut = cut;
                record.reasoning = a.reasoning.clone();
                record.reasoning_inline = a.reasoning_inline;
                self.stats.answered += 1;
                self.stats.truncated += usize::from(record.truncated);
                self.stats.cut += usize::from(record.cut);
                self.stats.prompt_tokens += a.usage.prompt_tokens.unwrap_or(0);
                self.stats.completion_tokens += a.usage.completion_tokens.unwrap_or(0);
                self.stats.reasoning_tokens += a.usage.reasoning_tokens.unwrap_or(0);
                RunEvent::Answered { task, reply: a.text, output_line, record }
            }
            Verdict::Failed { reason } => {
                self.stats.failed += 1;
                let record = RunRecord::new(
                    &ctx,
                    t.task_id(),
                    RecordStatus::Failed,
                    latency_ms,
                    attempts,
                    Default::default(),
                    t.prompt_ntokens(),
                    None,
                    Some(reason),
                );
                RunEvent::Failed { task, record }
            }
            Verdict::Retrying { at_ms, attempt, reason, lowered_to } => {
                self.stats.retries += 1;
                if let Some(c) = lowered_to {
                    self.stats.concurrency = Some(c);
                }
                RunEvent::Retrying { task, at_ms, attempt, reason, lowered_to }
            }
            // Said once: the other requests in flight often fail alike.
            Verdict::Stopped { .. } if self.stopped => RunEvent::Ignored,
            Verdict::Stopped { reason } => {
                self.stopped = true;
                RunEvent::Stopped { reason }
            }
            Verdict::Ignored => RunEvent::Ignored,
        }
    }

    /// Tasks neither answered nor failed when the run ended (after a stop
    /// or a cancel).
    pub fn not_asked(&self) -> Vec<usize> {
        self.scheduler.unfinished()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::wire::Provider;
    use serde_json::json;

    fn task(name: &str) -> Task {
        Task {
            repo: "a/b".into(),
            name: name.into(),
            language: "python".into(),
            path: "p.py".into(),
            position_ratio: 0.5,
            description: "\nFunction Description:d\n".into(),
            instruction: "I".into(),
            template: "instruction\ncode_context\ndescription\ninstruction".into(),
            code_context: "CODE".into(),
            needle_token_start: 1,
            needle_token_end: 2,
            code_context_ntokens: 100,
            protocol: Default::default(),
        }
    }

    fn ok(text: &str, ptoks: u64) -> HttpReply {
        HttpReply {
            status: 200,
            retry_after: None,
            body: json!({"choices": [{"message": {"content": text}, "finish_reason": "stop"}],
                         "usage": {"prompt_tokens": ptoks, "completion_tokens": 3}})
            .to_string(),
        }
    }

    #[test]
    fn a_run_sends_official_requests_and_makes_official_lines() {
        let tasks = vec![task("f"), task("g"), task("h")];
        let settings = Endpoint::new(Provider::OpenAi, "m");
        let config = ScheduleConfig { concurrency: 2, ..ScheduleConfig::default() };
        let mut run = BenchmarkRun::new(settings, &tasks, &[0, 2], config, 3);
        let RunStep::Send { task: 0, request, .. } = run.next(0.0) else { panic!() };
        let body: serde_json::Value = serde_json::from_str(&request.body).unwrap();
        assert_eq!(
            body["messages"],
            json!([{"role": "user", "content": "ICODE\nFunction Description:d\nI"}])
        );
        let RunStep::Send { task: 2, .. } = run.next(0.0) else { panic!() };
        let ev = run.complete(0, Ok(&ok("ANSWER", 90)), 25.0, "T".into());
        let RunEvent::Answered { output_line, record, .. } = ev else { panic!("{ev:?}") };
        assert!(output_line.ends_with(", \"output\": [\"ANSWER\"]}\n"), "{output_line}");
        assert!(output_line.starts_with("{\"repo\": \"a/b\", \"name\": \"f\""), "{output_line}");
        assert_eq!(record.latency_ms, 25.0);
        assert!(!record.truncated);
        let ev = run.complete(2, Ok(&ok("X", 10)), 30.0, "T".into());
        let RunEvent::Answered { record, .. } = ev else { panic!() };
        assert!(record.truncated, "10 prompt tokens for a 100-token task");
        assert!(matches!(run.next(30.0), RunStep::Done));
        assert_eq!(
            run.stats,
            RunStats {
                total: 2,
                answered: 2,
                truncated: 1,
                prompt_tokens: 100,
                completion_tokens: 6,
                ..RunStats::default()
            }
        );
    }

    #[test]
    fn a_thinking_model_s_answer_is_stored_and_its_thinking_logged() {
        let tasks = vec![task("f"), task("g"), task("h")];
        let mut settings = Endpoint::new(Provider::OpenAi, "qwen3:8b");
        settings.sampling.max_tokens = Some(64);
        let mut run = BenchmarkRun::new(settings, &tasks, &[0, 1, 2], ScheduleConfig::default(), 1);
        for _ in 0..3 {
            run.next(0.0);
        }
        let body = |content: &str, finish: &str| HttpReply {
            status: 200,
            retry_after: None,
            body: json!({"choices": [{"message": {"content": content}, "finish_reason": finish}],
                         "usage": {"prompt_tokens": 100, "completion_tokens": 30,
                                   "completion_tokens_details": {"reasoning_tokens": 20}}})
            .to_string(),
        };
        let ev =
            run.complete(0, Ok(&body("<think>g? no, f</think>\n\nF", "stop")), 1.0, "T".into());
        let RunEvent::Answered { reply, output_line, record, .. } = ev else { panic!("{ev:?}") };
        assert_eq!(reply, "F");
        assert!(output_line.ends_with(", \"output\": [\"F\"]}\n"), "{output_line}");
        assert_eq!(
            (record.reasoning.as_deref(), record.reasoning_inline, record.cut),
            (Some("g? no, f"), true, false)
        );
        assert_eq!(record.usage.reasoning_tokens, Some(20));
        let line = record.line();
        assert!(
            line.contains("\"reasoning\":\"g? no, f\"") && line.contains("\"budget\":16384"),
            "{line}"
        );
        // Cut after some answer: stored, counted.
        let ev = run.complete(1, Ok(&body("<think>x</think>F(", "length")), 2.0, "T".into());
        let RunEvent::Answered { record, .. } = ev else { panic!("{ev:?}") };
        assert!(record.cut);
        // Cut while thinking: failed, with what to raise.
        let ev = run.complete(2, Ok(&body("<think>x and y", "length")), 3.0, "T".into());
        let RunEvent::Failed { record, .. } = ev else { panic!("{ev:?}") };
        assert!(record.reason.unwrap().contains("raise --reasoning-budget"));
        assert_eq!(
            (run.stats.answered, run.stats.cut, run.stats.failed, run.stats.reasoning_tokens),
            (2, 1, 1, 40)
        );
        // A plain model's record is as before: no reasoning fields.
        let plain =
            RecordContext { settings: &Endpoint::new(Provider::OpenAi, "m"), time: "T".into() };
        let r = RunRecord::new(
            &plain,
            "x".into(),
            RecordStatus::Answered,
            1.0,
            1,
            Default::default(),
            1,
            None,
            None,
        );
        assert!(!r.line().contains("reasoning") && !r.line().contains("cut"), "{}", r.line());
    }

    #[test]
    fn failures_are_recorded_with_the_reason() {
        let tasks = vec![task("f")];
        let mut run = BenchmarkRun::new(
            Endpoint::new(Provider::OpenAi, "m"),
            &tasks,
            &[0],
            Default::default(),
            1,
        );
        run.next(0.0);
        let ctx = HttpReply {
            status: 400,
            retry_after: None,
            body: r#"{"error": {"message": "too many", "code": "context_length_exceeded"}}"#.into(),
        };
        let RunEvent::Failed { record, .. } = run.complete(0, Ok(&ctx), 1.0, "T".into()) else {
            panic!()
        };
        assert_eq!(record.status, RecordStatus::Failed);
        assert!(record.reason.unwrap().contains("longer than the model's context"));
        assert!(matches!(run.next(1.0), RunStep::Done));
    }

    #[test]
    fn unreachable_before_any_reply_stops_once_and_later_is_retried() {
        let tasks = vec![task("f"), task("g"), task("h")];
        let config = ScheduleConfig { concurrency: 2, backoff_base_ms: 0.0, ..Default::default() };
        let endpoint = || Endpoint::new(Provider::OpenAi, "m");
        let refused = TransportError::Unreachable("Connection refused (os error 111)".into());
        let mut run = BenchmarkRun::new(endpoint(), &tasks, &[0, 1, 2], config, 1);
        run.next(0.0);
        run.next(0.0);
        let RunEvent::Stopped { reason } = run.complete(0, Err(&refused), 1.0, "T".into()) else {
            panic!("stopped")
        };
        assert!(
            reason.starts_with("cannot connect to https://api.openai.com/v1: Connection refused"),
            "{reason}"
        );
        assert!(matches!(run.complete(1, Err(&refused), 1.0, "T".into()), RunEvent::Ignored));

        // After a reply, a refused connection is a server restarting: retried.
        let mut run = BenchmarkRun::new(endpoint(), &tasks, &[0, 1, 2], config, 1);
        run.next(0.0);
        run.next(0.0);
        assert!(matches!(
            run.complete(0, Ok(&ok("A", 100)), 1.0, "T".into()),
            RunEvent::Answered { .. }
        ));
        let event = run.complete(1, Err(&refused), 2.0, "T".into());
        assert!(matches!(event, RunEvent::Retrying { .. }), "{event:?}");
    }

    #[test]
    fn a_first_wave_without_any_http_status_stops_the_run() {
        let tasks = vec![task("f"), task("g"), task("h"), task("i")];
        let config = ScheduleConfig { concurrency: 3, backoff_base_ms: 0.0, ..Default::default() };
        let endpoint = || Endpoint::new(Provider::OpenAi, "m");
        let cors = TransportError::NoStatus("no HTTP status came back".into());
        let mut run = BenchmarkRun::new(endpoint(), &tasks, &[0, 1, 2, 3], config, 1);
        for _ in 0..3 {
            run.next(0.0);
        }
        for t in [0, 1] {
            let e = run.complete(t, Err(&cors), 1.0, "T".into());
            assert!(matches!(e, RunEvent::Retrying { .. }), "{e:?}");
        }
        let RunEvent::Stopped { reason } = run.complete(2, Err(&cors), 1.0, "T".into()) else {
            panic!("stopped")
        };
        assert!(
            reason.starts_with(
                "the first 3 requests to https://api.openai.com/v1 got no HTTP status"
            ),
            "{reason}"
        );
        assert_eq!(run.stats.answered + run.stats.failed, 0);

        // One at a time: two attempts are the first wave.
        let one = ScheduleConfig { concurrency: 1, ..config };
        let mut run = BenchmarkRun::new(endpoint(), &tasks, &[0, 1], one, 1);
        run.next(0.0);
        assert!(matches!(run.complete(0, Err(&cors), 1.0, "T".into()), RunEvent::Retrying { .. }));
        run.next(1.0);
        assert!(matches!(run.complete(0, Err(&cors), 2.0, "T".into()), RunEvent::Stopped { .. }));

        // After a reply with a status, no status is retried (a dropped line).
        let mut run = BenchmarkRun::new(endpoint(), &tasks, &[0, 1, 2], config, 1);
        for _ in 0..3 {
            run.next(0.0);
        }
        assert!(matches!(
            run.complete(0, Ok(&ok("A", 100)), 1.0, "T".into()),
            RunEvent::Answered { .. }
        ));
        for t in [1, 2] {
            let e = run.complete(t, Err(&cors), 2.0, "T".into());
            assert!(matches!(e, RunEvent::Retrying { .. }), "{e:?}");
        }
    }

    /// An item that wants replies starting with "ok".
    struct Picky;
    impl RunItem for Picky {
        fn task_id(&self) -> String {
            "picky".into()
        }
        fn prompt(&self) -> String {
            "P".into()
        }
        fn prompt_ntokens(&self) -> usize {
            1
        }
        fn output_line(&self, reply: &str, _: &RequestParams) -> Result<String, String> {
            Ok(format!("{reply}\n"))
        }
        fn check_reply(&self, reply: &str) -> Result<(), String> {
            if reply.starts_with("ok") {
                Ok(())
            } else {
                Err(format!("not ok: {reply}"))
            }
        }
    }

    #[test]
    fn an_unusable_reply_is_asked_again_then_failed_with_the_reason() {
        let items = [Picky];
        let config = ScheduleConfig { max_retries: 1, backoff_base_ms: 0.0, ..Default::default() };
        let mut run =
            BenchmarkRun::new(Endpoint::new(Provider::OpenAi, "m"), &items, &[0], config, 1);
        run.next(0.0);
        let event = run.complete(0, Ok(&ok("no scores", 1)), 1.0, "T".into());
        assert!(
            matches!(&event, RunEvent::Retrying { reason, .. } if reason == "not ok: no scores"),
            "{event:?}"
        );
        let RunStep::Send { attempt: 2, .. } = run.next(1000.0) else { panic!("asked again") };
        let RunEvent::Failed { record, .. } =
            run.complete(0, Ok(&ok("still not", 1)), 2.0, "T".into())
        else {
            panic!("failed")
        };
        assert_eq!(record.reason.as_deref(), Some("not ok: still not (gave up after 2 attempts)"));

        // Cut at the token limit: failed at once, saying so.
        let mut run =
            BenchmarkRun::new(Endpoint::new(Provider::OpenAi, "m"), &items, &[0], config, 1);
        run.next(0.0);
        let cut = HttpReply {
            status: 200,
            retry_after: None,
            body: json!({"choices": [{"message": {"content": "Accuracy: 7\nComple"}, "finish_reason": "length"}]}).to_string(),
        };
        let RunEvent::Failed { record, .. } = run.complete(0, Ok(&cut), 1.0, "T".into()) else {
            panic!("failed")
        };
        let why = record.reason.unwrap();
        assert!(why.starts_with("the reply was cut at the token limit (finish reason \"length\") before it was whole (not ok: Accuracy"), "{why}");
        assert!(why.ends_with("raise --max-new-tokens and ask it again"), "{why}");

        let mut run =
            BenchmarkRun::new(Endpoint::new(Provider::OpenAi, "m"), &items, &[0], config, 1);
        run.next(0.0);
        let RunEvent::Answered { output_line, .. } =
            run.complete(0, Ok(&ok("ok then", 1)), 1.0, "T".into())
        else {
            panic!("answered")
        };
        assert_eq!(output_line, "ok then\n");
    }

    /// An item that keeps whole replies only.
    struct Whole;
    impl RunItem for Whole {
        fn task_id(&self) -> String {
            "whole".into()
        }
        fn prompt(&self) -> String {
            "P".into()
        }
        fn prompt_ntokens(&self) -> usize {
            1
        }
        fn output_line(&self, reply: &str, _: &RequestParams) -> Result<String, String> {
            Ok(format!("{reply}\n"))
        }
        fn whole_replies_only(&self) -> bool {
            true
        }
    }

    #[test]
    fn a_cut_reply_is_never_stored_as_whole_where_only_whole_ones_count() {
        let config = ScheduleConfig { max_retries: 3, backoff_base_ms: 0.0, ..Default::default() };
        let cut = HttpReply {
            status: 200,
            retry_after: None,
            body: json!({"choices": [{"message": {"content": "The cause is"}, "finish_reason": "length"}]}).to_string(),
        };
        let items = [Whole];
        let mut run =
            BenchmarkRun::new(Endpoint::new(Provider::OpenAi, "m"), &items, &[0], config, 1);
        run.next(0.0);
        let RunEvent::Failed { record, .. } = run.complete(0, Ok(&cut), 1.0, "T".into()) else {
            panic!("a cut reply failed at once, not stored")
        };
        let why = record.reason.unwrap();
        assert!(why.starts_with("the reply was cut at the token limit (finish reason \"length\"): an incomplete reply is not stored"), "{why}");
        assert!(why.ends_with("raise --max-new-tokens and ask it again"), "{why}");
        // A RepoQA task keeps its cut reply, as upstream does.
        let tasks = [Picky];
        let mut run =
            BenchmarkRun::new(Endpoint::new(Provider::OpenAi, "m"), &tasks, &[0], config, 1);
        run.next(0.0);
        let okcut = HttpReply {
            status: 200,
            retry_after: None,
            body: json!({"choices": [{"message": {"content": "ok but cut"}, "finish_reason": "length"}]}).to_string(),
        };
        assert!(matches!(run.complete(0, Ok(&okcut), 1.0, "T".into()), RunEvent::Answered { .. }));
    }
}
