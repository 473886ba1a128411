//! Scoring: an answer scored as the official harness scores it. The
//! function taken from a reply (`sanitize`), compared with the repository's
//! needles by smoothed BLEU (`bleu`, NLTK's, bit for bit) and judged at
//! each threshold into the pass@1 table (`score`); answers typed or
//! imported matched to the tasks (`answers`); scored tasks grouped into a
//! run and its SCORES file (`run`); and what the pages draw from the
//! scores (`breakdown`, `linediff`, and `name_match`, the agent way of
//! asking for a name, never the official score). Reads the official files
//! (`crate::report`) and the dataset; nothing here reviews a run
//! (`crate::review`) or builds a prompt.
//!
//! | module     | what it computes |
//! |------------|------------------|
//! | `sanitize` | `sanitize_output`: the function extracted from a model's answer; comment removal |
//! | `bleu`     | NLTK 3.8.1 `sentence_bleu` with smoothing method4, bit for bit |
//! | `score`    | `needle_evaluator` and the pass@1 table over thresholds × languages |
//! | `answers`  | answers typed or imported in the app ↔ built tasks; outputs JSONL export |
//! | `run`      | scored tasks grouped into a run and its SCORES file |
//! | `name_match` | the agent way (mcpbr): the needle's name in the reply, with reliability warnings |
//! | `breakdown`| pass counts by depth bin, language and threshold (the app's charts) |
//! | `linediff` | LCS line diff of an answer's function against the needle |

pub mod answers;
pub mod bleu;
pub mod breakdown;
pub mod linediff;
pub mod name_match;
pub mod run;
pub mod sanitize;
pub mod score;
