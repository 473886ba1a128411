//! Phase timings of a subcommand.

/// Phase timings on stderr when `REPOQA_TIMINGS=1` (read by the speed
/// benchmark, which compares loops with loops and processes with processes).
pub struct Phases {
    on: bool,
    last: std::time::Instant,
}

impl Phases {
    pub fn start() -> Phases {
        Phases {
            on: std::env::var_os("REPOQA_TIMINGS").is_some_and(|v| v == "1"),
            last: std::time::Instant::now(),
        }
    }

    pub fn mark(&mut self, phase: &str) {
        let now = std::time::Instant::now();
        if self.on {
            eprintln!("timing: {phase} {:.6}", (now - self.last).as_secs_f64());
        }
        self.last = now;
    }
}
