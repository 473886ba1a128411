//! When to send which request of a run: a state machine with no clock and
//! no transport of its own, so the CLI (threads) and the page (`fetch`
//! futures) drive the same rules. The caller asks [`Scheduler::next`] what
//! to do at time `now_ms`, sends what it is told, and hands each reply's
//! [`Outcome`] to [`Scheduler::complete`].
//!
//! Rules: at most `concurrency` requests in flight; a retryable failure
//! (429, 5xx, network drop, timeout, malformed body) is asked again after
//! an exponential backoff with jitter, or after `Retry-After` when the
//! server sends one (a 429 holds every new request that long), up to
//! `max_retries` times, then the task fails; a task failure (prompt too
//! long) fails that task at once; a stop (key, URL, model) stops the run:
//! nothing more is sent, the rest are "not asked".

use std::collections::VecDeque;

use super::wire::{Answer, Outcome};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScheduleConfig {
    pub concurrency: usize,
    pub max_retries: u32,
    /// First backoff; doubled per attempt, up to `backoff_max_ms`.
    pub backoff_base_ms: f64,
    pub backoff_max_ms: f64,
    /// Longest `Retry-After` honoured (a server asking for an hour is
    /// waited on for this long).
    pub retry_after_max_ms: f64,
}

pub const DEFAULT_CONCURRENCY: usize = 4;
pub const DEFAULT_MAX_RETRIES: u32 = 6;
pub const DEFAULT_TIMEOUT_S: f64 = 300.0;
/// The most requests a run may have in flight (the CLI runs a thread for
/// each; the page's field stops at the same number).
pub const MAX_CONCURRENCY: usize = 256;
/// The longest a request may be given to answer: a day.
pub const MAX_TIMEOUT_S: f64 = 86_400.0;

/// What a front says when a run lowered its concurrency to `to`
/// ([`Verdict::Retrying`]'s `lowered_to`).
pub fn lowered_message(to: usize) -> String {
    format!(
        "a request timed out while others were waiting: the server seems to answer fewer requests at a time than were sent (llama.cpp and Ollama with one slot answer one at a time), so requests queued there and the wait counted against the timeout; concurrency lowered to {to}"
    )
}

/// A run setting out of its range.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum RunLimitError {
    #[error("the concurrency must be 1 to {MAX_CONCURRENCY} requests in flight, not {0}")]
    Concurrency(usize),
    #[error("the timeout must be a number of seconds above 0 and at most {MAX_TIMEOUT_S} (a day), not {}", short(*.0))]
    Timeout(f64),
    #[error("the first retry delay must be 0 to {BACKOFF_MAX_MS} milliseconds, not {}", short(*.0))]
    RetryBase(f64),
}

impl RunLimitError {
    /// Which setting is out of range.
    pub fn setting(&self) -> RunLimit {
        match self {
            RunLimitError::Concurrency(_) => RunLimit::Concurrency,
            RunLimitError::Timeout(_) => RunLimit::Timeout,
            RunLimitError::RetryBase(_) => RunLimit::RetryBase,
        }
    }
}

/// A run setting with a range (each front names it its own way: a flag,
/// a field).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunLimit {
    Concurrency,
    Timeout,
    RetryBase,
}

/// How a run is paced, as a user asks for it (flags, the page's form):
/// checked in one place, with one message, for both fronts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunPace {
    pub concurrency: usize,
    pub timeout_s: f64,
    pub max_retries: u32,
    pub retry_base_ms: f64,
}

impl RunPace {
    /// The schedule, or the first setting out of its range.
    pub fn check(&self) -> Result<ScheduleConfig, RunLimitError> {
        let concurrency = check_concurrency(self.concurrency)?;
        check_timeout_s(self.timeout_s)?;
        let backoff_base_ms = check_retry_base_ms(self.retry_base_ms)?;
        Ok(ScheduleConfig {
            concurrency,
            max_retries: self.max_retries,
            backoff_base_ms,
            ..ScheduleConfig::default()
        })
    }
}

/// The longest backoff between two attempts (the default config's).
pub const BACKOFF_MAX_MS: f64 = 60_000.0;

/// `retry_base_ms` if it is in range.
pub fn check_retry_base_ms(retry_base_ms: f64) -> Result<f64, RunLimitError> {
    if (0.0..=BACKOFF_MAX_MS).contains(&retry_base_ms) {
        Ok(retry_base_ms)
    } else {
        Err(RunLimitError::RetryBase(retry_base_ms))
    }
}

/// A number as a person would write it (`1e308`, not 309 digits).
fn short(x: f64) -> String {
    if x != 0.0 && !(1e-4..1e15).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// `concurrency` if it is in range.
pub fn check_concurrency(concurrency: usize) -> Result<usize, RunLimitError> {
    match concurrency {
        1..=MAX_CONCURRENCY => Ok(concurrency),
        _ => Err(RunLimitError::Concurrency(concurrency)),
    }
}

/// `timeout_s` if it is in range (NaN and infinities are not).
pub fn check_timeout_s(timeout_s: f64) -> Result<f64, RunLimitError> {
    if timeout_s > 0.0 && timeout_s <= MAX_TIMEOUT_S {
        Ok(timeout_s)
    } else {
        Err(RunLimitError::Timeout(timeout_s))
    }
}

impl Default for ScheduleConfig {
    fn default() -> ScheduleConfig {
        ScheduleConfig {
            concurrency: DEFAULT_CONCURRENCY,
            max_retries: DEFAULT_MAX_RETRIES,
            backoff_base_ms: 1000.0,
            backoff_max_ms: BACKOFF_MAX_MS,
            retry_after_max_ms: 300_000.0,
        }
    }
}

/// What the caller should do now.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScheduleStep {
    /// Send the request of task `task` (an index into the caller's list);
    /// `attempt` counts from 1.
    Send { task: usize, attempt: u32 },
    /// Nothing to send before `until_ms` (a backoff), or before a reply
    /// arrives if one is in flight: wait for whichever comes first.
    Wait { until_ms: Option<f64> },
    /// Nothing in flight, nothing left: the run is over.
    Done,
}

/// What became of a task after [`Scheduler::complete`].
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    Answered(Answer),
    /// Asked again at `at_ms` (attempt `attempt`). `lowered_to`: the
    /// request timed out while others were in flight, so the concurrency
    /// was lowered to this (see [`Scheduler::complete`]).
    Retrying {
        at_ms: f64,
        attempt: u32,
        reason: String,
        lowered_to: Option<usize>,
    },
    Failed {
        reason: String,
    },
    /// The run stops: this reply said every request would fail alike.
    Stopped {
        reason: String,
    },
    /// The reply came after the run stopped or was cancelled: dropped.
    Ignored,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TaskState {
    Queued,
    InFlight,
    Backoff,
    Answered,
    Failed,
}

/// A small PRNG for jitter (xorshift64*), seeded by the caller.
#[derive(Clone, Debug)]
pub struct Jitter(u64);

impl Jitter {
    pub fn new(seed: u64) -> Jitter {
        Jitter(seed | 1)
    }

    /// Uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[derive(Debug)]
pub struct Scheduler {
    pub config: ScheduleConfig,
    state: Vec<TaskState>,
    attempts: Vec<u32>,
    queue: VecDeque<usize>,
    /// (ready at, task), unsorted: few at a time.
    backoff: Vec<(f64, usize)>,
    in_flight: usize,
    /// When each task's last request was sent.
    sent_ms: Vec<f64>,
    /// When the concurrency was last lowered (requests sent before it
    /// timing out do not lower it again).
    lowered_ms: f64,
    /// No new request before this (a 429's Retry-After).
    hold_until_ms: f64,
    stopped: Option<String>,
    cancelled: bool,
    paused: bool,
    jitter: Jitter,
}

impl Scheduler {
    /// A run over `tasks` (indices into the caller's list, in the order to
    /// ask them).
    pub fn new(config: ScheduleConfig, tasks: impl IntoIterator<Item = usize>, seed: u64) -> Self {
        let queue: VecDeque<usize> = tasks.into_iter().collect();
        let n = queue.iter().max().map_or(0, |m| m + 1);
        let mut config = config;
        config.concurrency = config.concurrency.max(1);
        // Tasks not in the run count as done.
        let mut state = vec![TaskState::Answered; n];
        for &t in &queue {
            state[t] = TaskState::Queued;
        }
        Scheduler {
            config,
            state,
            attempts: vec![0; n],
            queue,
            backoff: Vec::new(),
            in_flight: 0,
            sent_ms: vec![0.0; n],
            lowered_ms: f64::NEG_INFINITY,
            hold_until_ms: 0.0,
            stopped: None,
            cancelled: false,
            paused: false,
            jitter: Jitter::new(seed),
        }
    }

    pub fn in_flight(&self) -> usize {
        self.in_flight
    }

    pub fn stopped(&self) -> Option<&str> {
        self.stopped.as_deref()
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancelled
    }

    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// Tasks not yet answered nor failed (queued, in flight, backing off).
    pub fn remaining(&self) -> usize {
        self.queue.len() + self.backoff.len() + self.in_flight
    }

    /// Send nothing new until [`Scheduler::resume`]; replies in flight
    /// are still taken.
    pub fn pause(&mut self) {
        self.paused = true;
    }

    pub fn resume(&mut self) {
        self.paused = false;
    }

    /// Send nothing more; the run is done once the replies in flight are in.
    pub fn cancel(&mut self) {
        self.cancelled = true;
    }

    /// Tasks never answered nor failed (queued or backing off), e.g. those
    /// "not asked" after a stop or a cancel.
    pub fn unfinished(&self) -> Vec<usize> {
        let mut out: Vec<usize> = (0..self.state.len())
            .filter(|&t| matches!(self.state[t], TaskState::Queued | TaskState::Backoff))
            .collect();
        out.sort_unstable();
        out
    }

    pub fn next(&mut self, now_ms: f64) -> ScheduleStep {
        let halted = self.stopped.is_some() || self.cancelled;
        if halted {
            return if self.in_flight == 0 {
                ScheduleStep::Done
            } else {
                ScheduleStep::Wait { until_ms: None }
            };
        }
        if self.queue.is_empty() && self.backoff.is_empty() && self.in_flight == 0 {
            return ScheduleStep::Done;
        }
        if self.paused || self.in_flight >= self.config.concurrency {
            return ScheduleStep::Wait { until_ms: None };
        }
        if now_ms < self.hold_until_ms {
            return ScheduleStep::Wait { until_ms: Some(self.hold_until_ms) };
        }
        // A task whose backoff is over goes first (it waited longest).
        let ready = self
            .backoff
            .iter()
            .enumerate()
            .filter(|(_, (at, _))| *at <= now_ms)
            .min_by(|a, b| a.1 .0.total_cmp(&b.1 .0))
            .map(|(i, _)| i);
        let task = match ready {
            Some(i) => Some(self.backoff.swap_remove(i).1),
            None => self.queue.pop_front(),
        };
        match task {
            Some(t) => {
                self.state[t] = TaskState::InFlight;
                self.sent_ms[t] = now_ms;
                self.attempts[t] += 1;
                self.in_flight += 1;
                ScheduleStep::Send { task: t, attempt: self.attempts[t] }
            }
            None => ScheduleStep::Wait {
                until_ms: self.backoff.iter().map(|(at, _)| *at).min_by(f64::total_cmp),
            },
        }
    }

    fn delay_ms(&mut self, attempt: u32, retry_after_s: Option<f64>) -> f64 {
        if let Some(s) = retry_after_s {
            return (s * 1000.0).min(self.config.retry_after_max_ms);
        }
        let exp = self.config.backoff_base_ms * 2f64.powi(attempt.saturating_sub(1).min(30) as i32);
        let capped = exp.min(self.config.backoff_max_ms);
        // Jitter: between half and all of the backoff.
        capped * (0.5 + 0.5 * self.jitter.next_f64())
    }

    /// The outcome of the request sent for `task` (at `now_ms`).
    pub fn complete(&mut self, task: usize, outcome: Outcome, now_ms: f64) -> Verdict {
        if task >= self.state.len() || self.state[task] != TaskState::InFlight {
            return Verdict::Ignored;
        }
        self.in_flight -= 1;
        let halted = self.stopped.is_some() || self.cancelled;
        match outcome {
            Outcome::Answer(a) => {
                // An answer that arrives is kept even after a stop.
                self.state[task] = TaskState::Answered;
                Verdict::Answered(a)
            }
            Outcome::TaskFailed { reason } => {
                self.state[task] = TaskState::Failed;
                Verdict::Failed { reason }
            }
            Outcome::Stop { reason } => {
                self.state[task] = TaskState::Queued;
                if self.stopped.is_none() {
                    self.stopped = Some(reason.clone());
                }
                Verdict::Stopped { reason }
            }
            Outcome::Retry { reason, retry_after_s, timed_out } => {
                // A timeout while others were in flight: at a server that
                // answers one at a time (llama.cpp, Ollama with one slot)
                // the wait behind them counted against the timeout, and an
                // abandoned request goes on running there. Halve the
                // concurrency (once per wave of requests sent before).
                let lowered_to = (timed_out
                    && self.in_flight > 0
                    && self.config.concurrency > 1
                    && self.sent_ms[task] >= self.lowered_ms)
                    .then(|| {
                        self.config.concurrency = (self.config.concurrency / 2).max(1);
                        self.lowered_ms = now_ms;
                        self.config.concurrency
                    });
                if halted {
                    self.state[task] = TaskState::Queued;
                    return Verdict::Ignored;
                }
                let attempt = self.attempts[task];
                if attempt > self.config.max_retries {
                    self.state[task] = TaskState::Failed;
                    return Verdict::Failed {
                        reason: format!("{reason} (gave up after {attempt} attempts)"),
                    };
                }
                let delay = self.delay_ms(attempt, retry_after_s);
                let at_ms = now_ms + delay;
                if retry_after_s.is_some() {
                    self.hold_until_ms = self.hold_until_ms.max(at_ms);
                }
                self.state[task] = TaskState::Backoff;
                self.backoff.push((at_ms, task));
                Verdict::Retrying { at_ms, attempt: attempt + 1, reason, lowered_to }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_pace_is_checked_setting_by_setting() {
        use super::*;
        let ok = RunPace { concurrency: 4, timeout_s: 30.0, max_retries: 2, retry_base_ms: 10.0 };
        let c = ok.check().unwrap();
        assert_eq!((c.concurrency, c.max_retries, c.backoff_base_ms), (4, 2, 10.0));
        for (bad, setting) in [
            (RunPace { concurrency: 0, ..ok }, RunLimit::Concurrency),
            (RunPace { concurrency: MAX_CONCURRENCY + 1, ..ok }, RunLimit::Concurrency),
            (RunPace { timeout_s: 0.0, ..ok }, RunLimit::Timeout),
            (RunPace { timeout_s: f64::NAN, ..ok }, RunLimit::Timeout),
            (RunPace { timeout_s: 1e308, ..ok }, RunLimit::Timeout),
            (RunPace { retry_base_ms: -1.0, ..ok }, RunLimit::RetryBase),
        ] {
            assert_eq!(bad.check().map_err(|e| e.setting()), Err(setting), "{bad:?}");
        }
    }

    use super::*;
    use crate::llm::wire::Usage;

    fn answer() -> Outcome {
        Outcome::Answer(Answer { text: "x".into(), usage: Usage::default(), ..Answer::default() })
    }

    fn retry(after: Option<f64>) -> Outcome {
        Outcome::Retry { reason: "HTTP 500".into(), retry_after_s: after, timed_out: false }
    }

    #[test]
    fn timeouts_while_others_wait_halve_the_concurrency_once_per_wave() {
        let timeout =
            || Outcome::Retry { reason: "timed out".into(), retry_after_s: None, timed_out: true };
        let mut s = Scheduler::new(config(4), 0..8, 1);
        for t in 0..4 {
            assert_eq!(s.next(0.0), ScheduleStep::Send { task: t, attempt: 1 });
        }
        // The 4th of a serial server's queue times out: halved.
        let v = s.complete(3, timeout(), 1000.0);
        assert!(matches!(v, Verdict::Retrying { lowered_to: Some(2), .. }), "{v:?}");
        // Sent in the same wave: not halved again.
        let v = s.complete(2, timeout(), 1000.0);
        assert!(matches!(v, Verdict::Retrying { lowered_to: None, .. }), "{v:?}");
        // Two still in flight (tasks 0 and 1): at the cap.
        assert_eq!(s.next(1000.0), ScheduleStep::Wait { until_ms: None });
        assert!(matches!(s.complete(0, answer(), 1200.0), Verdict::Answered(_)));
        // One in flight, the cap is 2: one more goes out, and no other.
        let ScheduleStep::Send { task, .. } = s.next(1200.0) else { panic!("nothing sent") };
        assert_eq!(s.next(1200.0), ScheduleStep::Wait { until_ms: None });
        // A request of the new wave times out while another waits: 1.
        let v = s.complete(task, timeout(), 3000.0);
        assert!(matches!(v, Verdict::Retrying { lowered_to: Some(1), .. }), "{v:?}");
        // A timeout alone in flight says nothing about queueing.
        let mut one = Scheduler::new(config(2), 0..1, 1);
        assert!(matches!(one.next(0.0), ScheduleStep::Send { .. }));
        let v = one.complete(0, timeout(), 1000.0);
        assert!(matches!(v, Verdict::Retrying { lowered_to: None, .. }), "{v:?}");
    }

    fn config(concurrency: usize) -> ScheduleConfig {
        ScheduleConfig {
            concurrency,
            max_retries: 2,
            backoff_base_ms: 100.0,
            backoff_max_ms: 1000.0,
            retry_after_max_ms: 10_000.0,
        }
    }

    #[test]
    fn run_limits_say_the_range() {
        assert_eq!(check_concurrency(1), Ok(1));
        assert_eq!(check_concurrency(256), Ok(256));
        let e = check_concurrency(100_000).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the concurrency must be 1 to 256 requests in flight, not 100000"
        );
        assert!(check_concurrency(0).is_err());
        assert_eq!(check_timeout_s(0.5), Ok(0.5));
        assert_eq!(check_timeout_s(86_400.0), Ok(86_400.0));
        for bad in [0.0, -1.0, 1e308, f64::NAN, f64::INFINITY] {
            assert!(check_timeout_s(bad).is_err(), "{bad}");
        }
        assert_eq!(check_retry_base_ms(0.0), Ok(0.0));
        for bad in [-1.0, 1e308, f64::NAN] {
            assert!(check_retry_base_ms(bad).is_err(), "{bad}");
        }
        assert_eq!(
            check_timeout_s(1e308).unwrap_err().to_string(),
            "the timeout must be a number of seconds above 0 and at most 86400 (a day), not 1e308"
        );
    }

    #[test]
    fn respects_concurrency_and_finishes() {
        let mut s = Scheduler::new(config(2), [0, 1, 2], 1);
        assert_eq!(s.next(0.0), ScheduleStep::Send { task: 0, attempt: 1 });
        assert_eq!(s.next(0.0), ScheduleStep::Send { task: 1, attempt: 1 });
        assert_eq!(s.next(0.0), ScheduleStep::Wait { until_ms: None });
        assert!(matches!(s.complete(1, answer(), 1.0), Verdict::Answered(_)));
        assert_eq!(s.next(1.0), ScheduleStep::Send { task: 2, attempt: 1 });
        assert!(matches!(s.complete(0, answer(), 2.0), Verdict::Answered(_)));
        assert!(matches!(s.complete(2, answer(), 2.0), Verdict::Answered(_)));
        assert_eq!(s.complete(2, answer(), 2.0), Verdict::Ignored, "never twice");
        assert_eq!(s.next(3.0), ScheduleStep::Done);
    }

    #[test]
    fn retries_with_backoff_then_gives_up() {
        let mut s = Scheduler::new(config(4), [5], 7);
        assert_eq!(s.next(0.0), ScheduleStep::Send { task: 5, attempt: 1 });
        let Verdict::Retrying { at_ms, attempt: 2, .. } = s.complete(5, retry(None), 0.0) else {
            panic!()
        };
        assert!((50.0..=100.0).contains(&at_ms), "jittered first backoff {at_ms}");
        assert_eq!(s.next(at_ms - 1.0), ScheduleStep::Wait { until_ms: Some(at_ms) });
        assert_eq!(s.next(at_ms), ScheduleStep::Send { task: 5, attempt: 2 });
        let Verdict::Retrying { at_ms: at2, attempt: 3, .. } = s.complete(5, retry(None), at_ms)
        else {
            panic!()
        };
        assert!(at2 - at_ms >= 100.0 && at2 - at_ms <= 200.0, "doubled");
        assert_eq!(s.next(at2), ScheduleStep::Send { task: 5, attempt: 3 });
        let v = s.complete(5, retry(None), at2);
        assert!(
            matches!(&v, Verdict::Failed { reason } if reason.ends_with("(gave up after 3 attempts)")),
            "{v:?}"
        );
        assert_eq!(s.next(at2), ScheduleStep::Done);
    }

    #[test]
    fn retry_after_holds_every_request() {
        let mut s = Scheduler::new(config(4), [0, 1], 1);
        assert_eq!(s.next(0.0), ScheduleStep::Send { task: 0, attempt: 1 });
        let v = s.complete(0, retry(Some(2.0)), 10.0);
        assert!(matches!(v, Verdict::Retrying { at_ms, .. } if at_ms == 2010.0));
        assert_eq!(s.next(11.0), ScheduleStep::Wait { until_ms: Some(2010.0) });
        assert_eq!(s.next(2010.0), ScheduleStep::Send { task: 0, attempt: 2 });
        assert_eq!(s.next(2010.0), ScheduleStep::Send { task: 1, attempt: 1 });
    }

    #[test]
    fn stop_and_task_failure() {
        let mut s = Scheduler::new(config(2), [0, 1, 2, 3], 1);
        s.next(0.0);
        s.next(0.0);
        let v = s.complete(0, Outcome::TaskFailed { reason: "too long".into() }, 1.0);
        assert_eq!(v, Verdict::Failed { reason: "too long".into() });
        assert_eq!(s.next(1.0), ScheduleStep::Send { task: 2, attempt: 1 });
        let v = s.complete(1, Outcome::Stop { reason: "bad key".into() }, 2.0);
        assert_eq!(v, Verdict::Stopped { reason: "bad key".into() });
        assert_eq!(s.next(2.0), ScheduleStep::Wait { until_ms: None }, "task 2 still in flight");
        assert!(matches!(s.complete(2, answer(), 3.0), Verdict::Answered(_)), "kept");
        assert_eq!(s.next(3.0), ScheduleStep::Done);
        assert_eq!(s.unfinished(), vec![1, 3]);
        assert_eq!(s.stopped(), Some("bad key"));
    }

    #[test]
    fn pause_resume_cancel() {
        let mut s = Scheduler::new(config(2), [0, 1, 2], 1);
        s.pause();
        assert_eq!(s.next(0.0), ScheduleStep::Wait { until_ms: None });
        s.resume();
        assert_eq!(s.next(0.0), ScheduleStep::Send { task: 0, attempt: 1 });
        s.cancel();
        assert_eq!(s.next(0.0), ScheduleStep::Wait { until_ms: None });
        assert!(matches!(s.complete(0, answer(), 1.0), Verdict::Answered(_)));
        assert_eq!(s.next(1.0), ScheduleStep::Done);
        assert_eq!(s.unfinished(), vec![1, 2]);
    }

    #[test]
    fn jitter_is_uniform_enough() {
        let mut j = Jitter::new(42);
        let xs: Vec<f64> = (0..1000).map(|_| j.next_f64()).collect();
        assert!(xs.iter().all(|x| (0.0..1.0).contains(x)));
        let mean = xs.iter().sum::<f64>() / 1000.0;
        assert!((0.45..0.55).contains(&mean), "{mean}");
    }
}
