//! A run's progress on stderr. On a terminal: an indicatif bar redrawn in
//! place, whose elapsed time and time left move every second even while
//! no reply comes; messages (retries, failures) print above it. Not on a
//! terminal (a log file, CI): no redraws, a plain line every `every`
//! seconds and one at the end. The time left is the core's estimate
//! (`repoqa::llm::progress`), so the Run page shows the same.

use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use repoqa::llm::progress::{duration_label, time_left_label};
use repoqa::llm::run::RunStats;

/// A count that moves fast (tasks built, answers scored): redrawn in place
/// on a terminal, a line ending in a newline once `last`; not on a
/// terminal only that last line, so a log gets no carriage returns.
pub fn count(text: &str, last: bool) {
    if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        eprint!("\r{text}");
        if last {
            eprintln!();
        }
    } else if last {
        eprintln!("{text}");
    }
}

/// The re-scoring counter of `verify` (every 25 tasks and the last).
pub fn rescoring(done: usize, total: usize) {
    if done.is_multiple_of(25) || done == total {
        count(&format!("re-scoring: {done}/{total}"), done == total);
    }
}

/// Seconds between progress lines when stderr is not a terminal.
pub const DEFAULT_EVERY_S: f64 = 30.0;

pub struct RunProgress {
    label: String,
    total: usize,
    bar: Option<ProgressBar>,
    every: Duration,
    t0: Instant,
    last_line: Instant,
    counts: String,
    done: usize,
}

impl RunProgress {
    /// Progress of `total` requests, labelled `label`; lines every
    /// `every_s` seconds when stderr is not a terminal.
    pub fn new(label: &str, total: usize, every_s: f64) -> RunProgress {
        let tty = std::io::IsTerminal::is_terminal(&std::io::stderr());
        let bar = tty.then(|| {
            let bar = ProgressBar::with_draw_target(
                Some(total as u64),
                ProgressDrawTarget::stderr_with_hz(4),
            );
            let style = ProgressStyle::with_template(
                "{prefix}: [{bar:20}] {pos}/{len} {msg}, {took} elapsed, {left}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ")
            .with_key("took", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = w.write_str(&duration_label(s.elapsed().as_secs_f64() * 1000.0));
            })
            .with_key("left", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                let (done, total) = (s.pos() as usize, s.len().unwrap_or(0) as usize);
                let _ =
                    w.write_str(&time_left_label(s.elapsed().as_secs_f64() * 1000.0, done, total));
            });
            bar.set_style(style);
            bar.set_prefix(label.to_string());
            bar.set_message("waiting for the first reply");
            bar.set_position(0);
            bar.enable_steady_tick(Duration::from_secs(1));
            bar
        });
        let every = Duration::from_secs_f64(if every_s.is_finite() && every_s > 0.0 {
            every_s
        } else {
            DEFAULT_EVERY_S
        });
        let now = Instant::now();
        RunProgress {
            label: label.to_string(),
            total,
            bar,
            every,
            t0: now,
            last_line: now,
            counts: String::new(),
            done: 0,
        }
    }

    /// Take the run's counts after a reply.
    pub fn update(&mut self, s: &RunStats) {
        self.done = s.answered + s.failed;
        let mut counts = format!(
            "({} answered, {} failed, {} retries) {} prompt + {} completion tokens",
            s.answered, s.failed, s.retries, s.prompt_tokens, s.completion_tokens
        );
        if let Some(c) = s.concurrency {
            counts.push_str(&format!(", concurrency lowered to {c}"));
        }
        self.counts = counts;
        if let Some(bar) = &self.bar {
            // Short enough for one terminal line; a log line has it all.
            let mut short =
                format!("{} answered, {} failed, {} retries", s.answered, s.failed, s.retries);
            if let Some(c) = s.concurrency {
                short.push_str(&format!(", concurrency {c}"));
            }
            bar.set_position(self.done as u64);
            bar.set_message(short);
        }
        self.tick();
    }

    /// A message line (above the bar on a terminal).
    pub fn say(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => eprintln!("{line}"),
        }
    }

    /// Not on a terminal: a progress line if one is due.
    pub fn tick(&mut self) {
        if self.bar.is_none() && self.last_line.elapsed() >= self.every {
            self.last_line = Instant::now();
            eprintln!("{}", self.line());
        }
    }

    /// How long the caller may wait before [`RunProgress::tick`] is due.
    pub fn until_due(&self) -> Duration {
        if self.bar.is_some() {
            return Duration::from_secs(3600);
        }
        self.every.saturating_sub(self.last_line.elapsed())
    }

    /// The progress as one line of text.
    pub fn line(&self) -> String {
        let ms = self.t0.elapsed().as_secs_f64() * 1000.0;
        format!(
            "{}: {}/{} {}{}{} elapsed, {}",
            self.label,
            self.done,
            self.total,
            self.counts,
            if self.counts.is_empty() { "" } else { ", " },
            duration_label(ms),
            time_left_label(ms, self.done, self.total)
        )
    }

    /// The run is over: the bar's last state stays; a log gets a last line.
    pub fn finish(&self) {
        match &self.bar {
            Some(bar) => bar.finish(),
            None => eprintln!("{}", self.line()),
        }
    }
}
