//! What a task's depth means in tokens, for saying it in words: the
//! builder (`walk::make_code_context`, P5) aims the needle's *middle* at
//! `position_ratio × budget`, so it keeps up to `trunc(ratio × budget −
//! needle / 2)` tokens of code before the needle, in whole lines (fewer when
//! the repository has less code before it), and the rest of the budget
//! after. The needle's token span in the built context therefore differs
//! from the ratio: by the needle's own half length at the start, and by
//! whatever whole lines and the repository's edges leave out.

use super::Task;

/// A task's depth in tokens: where the builder aimed and where the needle
/// ended up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Depth {
    pub position_ratio: f64,
    /// The token budget of the context (`--code-context-size`).
    pub budget: usize,
    /// `ratio × budget`: where the needle's middle was aimed.
    pub aimed_middle: f64,
    /// About `trunc(aimed_middle − needle / 2)`: the most code tokens kept
    /// before the needle (the builder counts the needle alone; here its
    /// span in the context stands in for that count).
    pub prefix_budget: i64,
    pub start: usize,
    pub end: usize,
    /// The built context's tokens (at most the budget).
    pub context_tokens: usize,
}

impl Depth {
    pub fn of(task: &Task, budget: usize) -> Depth {
        let needle = task.needle_token_end.saturating_sub(task.needle_token_start);
        let aimed_middle = task.position_ratio * budget as f64;
        Depth {
            position_ratio: task.position_ratio,
            budget,
            aimed_middle,
            prefix_budget: (aimed_middle - needle as f64 / 2.0) as i64,
            start: task.needle_token_start,
            end: task.needle_token_end,
            context_tokens: task.code_context_ntokens,
        }
    }

    /// The needle's middle in the built context (tokens).
    pub fn middle(&self) -> f64 {
        (self.start + self.end) as f64 / 2.0
    }

    /// Share of the context before the needle's start, middle and end.
    pub fn shares(&self) -> (f64, f64, f64) {
        let n = self.context_tokens.max(1) as f64;
        (self.start as f64 / n, self.middle() / n, self.end as f64 / n)
    }

    /// The tokens between the aim and where the middle landed (positive:
    /// later than aimed).
    pub fn off_by(&self) -> f64 {
        self.middle() - self.aimed_middle
    }

    /// The whole note in words, for the task view and teaching.
    pub fn words(&self) -> String {
        let needle = self.end.saturating_sub(self.start);
        let (s, m, _) = self.shares();
        let mut out = format!(
            "position_ratio {} places the needle's middle, not its start: the builder aims it at {} × {} = {:.0} tokens, so it keeps up to about {} tokens of code before the needle (whole lines) and fills the rest of the budget after it. ",
            self.position_ratio,
            self.position_ratio,
            self.budget,
            self.aimed_middle,
            self.prefix_budget.max(0)
        );
        out.push_str(&format!(
            "Here the needle ({needle} tokens) starts at token {} and its middle is at {:.0} of {} context tokens ({:.1}% and {:.1}%), {:.0} tokens {} the aim",
            self.start,
            self.middle(),
            self.context_tokens,
            100.0 * s,
            100.0 * m,
            self.off_by().abs(),
            if self.off_by() < 0.0 { "before" } else { "after" },
        ));
        let why = if self.context_tokens + self.budget / 20 < self.budget {
            format!(
                ": the repository has only {} tokens of code, fewer than the budget, so the context is all of it and the needle sits where its file falls.",
                self.context_tokens
            )
        } else if self.prefix_budget > 0 && (self.start as i64) < self.prefix_budget / 2 {
            ": the repository has less code before the needle than the budget allows.".to_string()
        } else {
            ": whole lines and the file headers make up the difference.".to_string()
        };
        out.push_str(&why);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(ratio: f64, start: usize, end: usize, n: usize) -> Task {
        Task {
            repo: "r".into(),
            name: "f".into(),
            language: "python".into(),
            path: "a.py".into(),
            position_ratio: ratio,
            description: String::new(),
            instruction: String::new(),
            template: String::new(),
            code_context: String::new(),
            needle_token_start: start,
            needle_token_end: end,
            code_context_ntokens: n,
            protocol: Default::default(),
        }
    }

    #[test]
    fn the_ratio_aims_the_middle() {
        let d = Depth::of(&task(0.25, 3900, 4100, 16380), 16384);
        assert_eq!(d.aimed_middle, 4096.0);
        assert_eq!(d.prefix_budget, 3996);
        assert_eq!(d.middle(), 4000.0);
        assert_eq!(d.off_by(), -96.0);
        let w = d.words();
        assert!(w.contains("0.25 × 16384 = 4096 tokens"), "{w}");
        assert!(w.contains("starts at token 3900 and its middle is at 4000 of 16380"), "{w}");
        assert!(w.ends_with("96 tokens before the aim: whole lines and the file headers make up the difference."), "{w}");
        // Little code before the needle.
        let w = Depth::of(&task(0.75, 100, 300, 16300), 16384).words();
        assert!(w.ends_with("less code before the needle than the budget allows."), "{w}");
        // A repository smaller than the budget (the demo's).
        let w = Depth::of(&task(0.35, 1419, 1561, 2457), 16384).words();
        assert!(w.ends_with("has only 2457 tokens of code, fewer than the budget, so the context is all of it and the needle sits where its file falls."), "{w}");
    }
}
