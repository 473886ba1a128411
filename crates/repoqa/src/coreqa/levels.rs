//! The CoReQA evaluator's five levels (paper §III-C): each criterion is
//! scored 1 to 10 and read in five levels of two points. The paper words
//! the levels of accuracy; it says the other three criteria are rated "on a
//! scale of 1 to 10 across five levels" without wording them, so theirs are
//! ours, written the same way (the paper does not say; we word them
//! analogously). The judge prompt ([`super::judge::JUDGE_TEMPLATE`]) shows
//! the judge these words; [`distribution`] counts the judgments at each
//! level, which the report and the page chart per model.

use serde::{Deserialize, Serialize};

use super::judge::{Criteria, JudgeLine};

/// The five levels' score ranges, lowest first.
pub const RANGES: [&str; 5] = ["1-2", "3-4", "5-6", "7-8", "9-10"];

/// What each level means, per criterion (in [`super::judge::CRITERIA`]'s
/// order), lowest level first. Accuracy's are the paper's words.
pub const WORDS: [[&str; 5]; 4] = [
    [
        "the generated answer is mostly incorrect",
        "the generated answer contains significant factual errors",
        "the generated answer has some factual errors but is primarily accurate",
        "the generated answer has minor inaccuracies but is overall correct",
        "the generated answer is factually correct and has no errors",
    ],
    [
        "the generated answer misses most of the reference answer's key points",
        "the generated answer misses significant key points",
        "the generated answer covers the main point but misses some key points",
        "the generated answer misses only minor points",
        "the generated answer covers every key point of the reference answer",
    ],
    [
        "the generated answer is mostly off topic",
        "the generated answer addresses the question's core concern only in part",
        "the generated answer addresses the core concern but strays from it at times",
        "the generated answer addresses the core concern with minor digressions",
        "the generated answer addresses the core concern directly and stays on topic",
    ],
    [
        "the generated answer is mostly hard to understand",
        "the generated answer has significant lapses of logic or wording",
        "the generated answer is understandable but at times unclear",
        "the generated answer is clear with minor lapses",
        "the generated answer is clear, logical and simple to follow",
    ],
];

/// The level (1 to 5) of a score from 1 to 10: 1-2 → 1, …, 9-10 → 5.
pub fn level_of(score: u8) -> usize {
    usize::from(score.clamp(1, 10)).div_ceil(2)
}

/// How many judgments fall at each level (index 0 is level 1), per
/// criterion.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Distribution {
    pub criteria: Criteria<[usize; 5]>,
}

impl Distribution {
    /// The judgments counted (the same for every criterion).
    pub fn judgments(&self) -> usize {
        self.criteria.accuracy.iter().sum()
    }

    /// The share of judgments at each level of `criterion`, in percent.
    pub fn shares(&self, criterion: usize) -> [f64; 5] {
        let counts = self.criteria.get(criterion);
        let n = counts.iter().sum::<usize>();
        counts.map(|c| if n == 0 { 0.0 } else { 100.0 * c as f64 / n as f64 })
    }
}

/// The levels of `judged` (every judgment: each repetition of each run's
/// answer counts once), per criterion.
pub fn distribution<'j>(judged: impl IntoIterator<Item = &'j JudgeLine>) -> Distribution {
    let mut d = Distribution::default();
    for j in judged {
        let add = |counts: &mut [usize; 5], score: u8| counts[level_of(score) - 1] += 1;
        add(&mut d.criteria.accuracy, j.scores.accuracy);
        add(&mut d.criteria.completeness, j.scores.completeness);
        add(&mut d.criteria.relevance, j.scores.relevance);
        add(&mut d.criteria.clarity, j.scores.clarity);
    }
    d
}

/// The levels as the judge prompt lists them for `criterion`:
/// "1-2: the generated answer is mostly incorrect. 3-4: …".
pub fn prompt_line(criterion: usize) -> String {
    RANGES
        .iter()
        .zip(WORDS[criterion])
        .map(|(r, w)| format!("{r}: {w}."))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coreqa::answer::ContextSetting;

    #[test]
    fn scores_fall_in_five_two_point_levels() {
        let levels: Vec<usize> = (1..=10).map(level_of).collect();
        assert_eq!(levels, [1, 1, 2, 2, 3, 3, 4, 4, 5, 5]);
        // Never read outside the scale: a judge reply with 0 or 11 is refused
        // before it gets here; clamped all the same.
        assert_eq!((level_of(0), level_of(11)), (1, 5));
    }

    #[test]
    fn accuracy_is_worded_as_the_paper_words_it() {
        assert_eq!(
            prompt_line(0),
            "1-2: the generated answer is mostly incorrect. 3-4: the generated answer contains significant factual errors. \
             5-6: the generated answer has some factual errors but is primarily accurate. \
             7-8: the generated answer has minor inaccuracies but is overall correct. \
             9-10: the generated answer is factually correct and has no errors."
        );
    }

    #[test]
    fn the_distribution_counts_every_judgment_once_per_criterion() {
        let line = |a, c, r, l| JudgeLine {
            repetitions: None,
            stability_seed: None,
            temperature: None,
            question_id: "q".into(),
            setting: ContextSetting::None,
            model: "m".into(),
            run: 1,
            repetition: 1,
            judge: "j".into(),
            scores: Criteria { accuracy: a, completeness: c, relevance: r, clarity: l },
            reasoning: String::new(),
        };
        let judged = [line(9, 2, 7, 8), line(10, 3, 8, 8), line(5, 4, 6, 1)];
        let d = distribution(&judged);
        assert_eq!(d.judgments(), 3);
        assert_eq!(d.criteria.accuracy, [0, 0, 1, 0, 2]);
        assert_eq!(d.criteria.completeness, [1, 2, 0, 0, 0]);
        assert_eq!(d.criteria.relevance, [0, 0, 1, 2, 0]);
        assert_eq!(d.criteria.clarity, [1, 0, 0, 2, 0]);
        let s = d.shares(0);
        assert!((s[4] - 200.0 / 3.0).abs() < 1e-12 && (s[2] - 100.0 / 3.0).abs() < 1e-12);
        assert_eq!(Distribution::default().shares(1), [0.0; 5]);
    }
}
