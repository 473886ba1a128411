//! Where a task's needle is in its `code_context`, for tasks whose placement
//! the builder did not hand over (`ContextBuilder::build_placed` does):
//! tasks read back from a cache or a file. The needle is looked for as the
//! builder writes it (the same slicing, P3, and in the cleaning modes the
//! same comment cleaning, K3), nearest to where its token position says.

use std::ops::Range;

use super::clean::clean_segment_comments;
use super::{CommentMode, Task};
use crate::code::lang::Language;
use crate::input::dataset::Dataset;

/// The needle's text as the builder places it in a context of `mode`;
/// `None` if the task's repo or needle is not in `dataset`.
pub fn placed_needle_text(dataset: &Dataset, task: &Task, mode: CommentMode) -> Option<String> {
    let language = Language::from_name(&task.language).ok()?;
    let repo = dataset.repo(&task.language, &task.repo)?;
    let needle = repo.needles.iter().find(|n| n.name == task.name && n.path == task.path)?;
    let text = repo.content.get(&needle.path)?;
    // P3: the byte offsets are used as code-point indices.
    let at = |cp: usize| text.char_indices().nth(cp).map_or(text.len(), |(b, _)| b);
    let (a, b) = (at(needle.start_byte), at(needle.end_byte));
    let code = &text[a..b.max(a)];
    match mode {
        CommentMode::None => Some(code.to_string()),
        _ => clean_segment_comments(language, code, &[needle.path.as_str()]).ok().flatten(),
    }
}

/// The byte range of the needle in `task.code_context`: the occurrence of
/// [`placed_needle_text`] nearest to the needle's token position (a NUL
/// removed by the 0.1.2 option is retried without it).
pub fn locate_needle(dataset: &Dataset, task: &Task, mode: CommentMode) -> Option<Range<usize>> {
    let text = placed_needle_text(dataset, task, mode)?;
    let ctx = &task.code_context;
    let want = if task.code_context_ntokens > 0 {
        task.needle_token_start as f64 / task.code_context_ntokens as f64
    } else {
        0.5
    };
    let nearest = |pat: &str| -> Option<Range<usize>> {
        if pat.is_empty() {
            return None;
        }
        let len = ctx.len().max(1) as f64;
        ctx.match_indices(pat)
            .map(|(i, _)| i)
            .min_by(|&x, &y| {
                (x as f64 / len - want).abs().total_cmp(&(y as f64 / len - want).abs())
            })
            .map(|i| i..i + pat.len())
    };
    nearest(&text).or_else(|| nearest(&text.replace('\0', "")))
}

/// [`locate_needle`] trying `mode` (the one the tasks were built in) first,
/// then the others (tasks kept from before a settings change were built in
/// another): the range and the mode it was found as.
pub fn locate_needle_any_mode(
    dataset: &Dataset,
    task: &Task,
    mode: CommentMode,
) -> Option<(Range<usize>, CommentMode)> {
    std::iter::once(mode)
        .chain(CommentMode::ALL.iter().copied().filter(|m| *m != mode))
        .find_map(|m| locate_needle(dataset, task, m).map(|r| (r, m)))
}
