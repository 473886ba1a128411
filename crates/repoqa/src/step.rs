//! Work done a step at a time: the resumable readers of the core (the
//! dataset loader, the archive reader, curation and its function analysis,
//! the dataset digest) share one shape, so that the page can give the
//! browser a turn between steps and native callers run them to the end the
//! same way.
//!
//! A stepper is created, [`Stepper::step`]ped until it says
//! [`Step::Done`], then [`Stepper::finish`]ed; `finish` also does whatever
//! steps are left, so calling it at once is the one-shot version.
//! [`drive`] is that loop with a look at the progress between steps.

/// What a step left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// More steps to do.
    More,
    /// Everything is done (or failed): call `finish` for the output.
    Done,
}

impl Step {
    pub fn is_done(self) -> bool {
        self == Step::Done
    }
}

/// A computation done a step at a time.
pub trait Stepper {
    type Output;
    type Error;

    /// Do about `budget` units of work, at least one: bytes for the byte
    /// readers (dataset, digest), entries or files for the others (an
    /// archive's entries, curation's files). A stepper that records its
    /// error for `finish` (the dataset loader) says `Done` on failure.
    fn step(&mut self, budget: usize) -> Result<Step, Self::Error>;

    /// Units done so far, and in all as far as known (for a progress bar).
    fn progress(&self) -> (usize, usize);

    /// Do the steps that are left, then give the output.
    fn finish(self) -> Result<Self::Output, Self::Error>;
}

/// Step `s` to the end, `budget` per step, calling `between(&s)` after each
/// step that leaves more to do; then finish it.
pub fn drive<S: Stepper>(
    mut s: S,
    budget: usize,
    mut between: impl FnMut(&S),
) -> Result<S::Output, S::Error> {
    while s.step(budget)? == Step::More {
        between(&s);
    }
    s.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sums 1..=n, `budget` numbers per step; refuses a number over `bad`.
    struct Sum {
        next: u64,
        n: u64,
        bad: u64,
        total: u64,
    }

    impl Stepper for Sum {
        type Output = u64;
        type Error = String;

        fn step(&mut self, budget: usize) -> Result<Step, String> {
            for _ in 0..budget.max(1) {
                if self.next > self.n {
                    return Ok(Step::Done);
                }
                if self.next > self.bad {
                    return Err(format!("{} is too big", self.next));
                }
                self.total += self.next;
                self.next += 1;
            }
            Ok(if self.next > self.n { Step::Done } else { Step::More })
        }

        fn progress(&self) -> (usize, usize) {
            ((self.next - 1) as usize, self.n as usize)
        }

        fn finish(mut self) -> Result<u64, String> {
            while !self.step(usize::MAX)?.is_done() {}
            Ok(self.total)
        }
    }

    fn sum(n: u64, bad: u64) -> Sum {
        Sum { next: 1, n, bad, total: 0 }
    }

    #[test]
    fn drive_gives_the_one_shot_result_and_shows_progress_between_steps() {
        let mut seen = Vec::new();
        let out = drive(sum(10, 99), 3, |s| seen.push(s.progress())).unwrap();
        assert_eq!(out, 55);
        assert_eq!(sum(10, 99).finish().unwrap(), 55);
        assert_eq!(seen, [(3, 10), (6, 10), (9, 10)]);
    }

    #[test]
    fn a_zero_budget_still_moves_and_errors_stop_the_drive() {
        let mut steps = 0;
        assert_eq!(drive(sum(4, 99), 0, |_| steps += 1).unwrap(), 10);
        assert_eq!(steps, 3);
        assert_eq!(drive(sum(10, 5), 2, |_| {}).unwrap_err(), "6 is too big");
    }

    #[test]
    fn finish_after_some_steps_does_the_rest() {
        let mut s = sum(100, 1000);
        assert_eq!(s.step(7).unwrap(), Step::More);
        assert_eq!(s.progress(), (7, 100));
        assert_eq!(s.finish().unwrap(), 5050);
    }
}
