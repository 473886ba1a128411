//! The anatomy of a prompt, for seeing what a model is given: the prompt
//! (P11: instruction, code context, description, instruction) as bands,
//! each file of the code context a band of its own (path, tokens), the
//! needle a band at its depth, and the audit's artifacts placed on it.
//!
//! The code context's token counts are the task's own fields: the builder
//! counts its three parts (the code before the needle, the needle, the code
//! after it) each as a whole text (`walk::join_parts`), and a text cut at
//! line starts counts as the sum of its pieces (`Counter::text_at`), so the
//! files' bands of a part add up to that part exactly:
//! `needle_token_start`, `needle_token_end − needle_token_start` and
//! `code_context_ntokens − needle_token_end`. The instruction and the
//! description are counted alone (the prompt is never tokenized whole).

use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::code::lang::Language;
use crate::code::tokenize::{Tokenizer, TokenizerError};
use crate::input::dataset::Dataset;
use crate::prompt::audit::{Artifact, ArtifactSpot};
use crate::prompt::context::LineCounter;
use crate::report::Task;

/// What a band of the prompt is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    /// The instruction, before the code.
    Instruction,
    /// Code of one file of the repository (not the needle).
    File,
    /// The needle function.
    Needle,
    /// Filler comment lines for removed comments (`positional_padding`).
    Padding,
    /// "Function Description: …".
    Description,
    /// The instruction again, after the description.
    InstructionAgain,
}

impl Part {
    pub fn name(self) -> &'static str {
        match self {
            Part::Instruction => "instruction",
            Part::File => "file",
            Part::Needle => "needle",
            Part::Padding => "padding",
            Part::Description => "description",
            Part::InstructionAgain => "instruction_again",
        }
    }
}

/// One band of the prompt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Band {
    pub part: Part,
    /// The file the code is from (files, the needle, and the needle file's
    /// code around it); `None` for the other parts and filler.
    pub path: Option<String>,
    /// Tokens (see the module note for how they are counted).
    pub tokens: usize,
    /// Where the band starts, in tokens from the prompt's start (the sum
    /// of the bands before it).
    pub first_token: usize,
    /// Byte range of the band in `Task::prompt()`.
    pub bytes: Range<usize>,
    /// The function a marked band is (a call path's functions: its name);
    /// absent for SNF's needle and every other band.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The texts of a prompt in the four-part template (instruction, code
/// context, question, instruction), and whose code it is.
#[derive(Clone, Copy, Debug)]
pub struct PromptText<'a> {
    pub instruction: &'a str,
    pub code_context: &'a str,
    /// SNF's needle description; a call-path task's question.
    pub question: &'a str,
    pub language: &'a str,
    pub repo: &'a str,
}

/// A function marked in the code context: its byte range there, its file
/// and (for a call path's functions) its name. Marked functions are drawn
/// as [`Part::Needle`] bands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Marked {
    pub bytes: Range<usize>,
    pub path: String,
    pub name: Option<String>,
}

/// An artifact of the construction placed on the strip.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mark {
    pub artifact: Artifact,
    /// Byte range in `Task::prompt()` (the audit's spot, moved past the
    /// instruction).
    pub bytes: Range<usize>,
    /// About where it is in tokens: its band's first token plus its share
    /// of the band's bytes.
    pub token: usize,
}

/// A prompt cut into bands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Anatomy {
    pub bands: Vec<Band>,
    pub marks: Vec<Mark>,
    /// The sum of the bands' tokens.
    pub total_tokens: usize,
}

impl Anatomy {
    /// The bands of the code context (files, needle, filler).
    pub fn context_bands(&self) -> impl Iterator<Item = &Band> {
        self.bands.iter().filter(|b| matches!(b.part, Part::File | Part::Needle | Part::Padding))
    }

    /// Tokens of the bands of `part`.
    pub fn tokens_of(&self, part: Part) -> usize {
        self.bands.iter().filter(|b| b.part == part).map(|b| b.tokens).sum()
    }

    /// The bands as a strip `max_bands` wide can draw them: each run of
    /// two or more neighbouring file bands too thin to see (each under
    /// `total_tokens / max_bands`) joined into one, its tokens and bytes
    /// summed (a 128k-token context holds hundreds of files). The other
    /// bands stay as they are, so the strip still tiles the prompt.
    pub fn strip(&self, max_bands: usize) -> Vec<StripBand> {
        let thin =
            |b: &Band| b.part == Part::File && b.tokens * max_bands.max(1) < self.total_tokens;
        let mut out: Vec<StripBand> = Vec::new();
        for b in &self.bands {
            if let Some(last) = out.last_mut() {
                if thin(b) && thin(&last.band) {
                    last.band.tokens += b.tokens;
                    last.band.bytes.end = b.bytes.end;
                    last.files += 1;
                    last.last_path.clone_from(&b.path);
                    continue;
                }
            }
            out.push(StripBand { band: b.clone(), files: 1, last_path: b.path.clone() });
        }
        out
    }
}

/// A band as the strip draws it: one band of the prompt, or a run of
/// `files` thin file bands joined (`band.path` the first one's, `last_path`
/// the last one's).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StripBand {
    pub band: Band,
    pub files: usize,
    pub last_path: Option<String>,
}

/// A line of the code context: a file's `Path:` line, a filler line, or
/// code.
enum Line<'a> {
    Path(&'a str),
    Padding,
    Code,
}

fn classify<'a>(line: &'a str, cp: &str, paths: &[&str]) -> Line<'a> {
    let line = line.strip_suffix('\n').unwrap_or(line);
    if let Some(rest) = line.strip_prefix(cp) {
        if let Some(path) = rest.strip_prefix(" Path: ") {
            if paths.is_empty() || paths.contains(&path) {
                return Line::Path(path);
            }
        }
        if let Some(n) = rest.strip_prefix(" Line Number ") {
            if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) {
                return Line::Padding;
            }
        }
    }
    Line::Code
}

/// One part of the code context (before, needle, after) cut into
/// segments at `Path:` lines and filler runs: (part, path, byte range in
/// `text`). `file` is the file the part's first code is from; it is
/// updated to the file the part ends in.
fn segments(
    text: &str,
    cp: &str,
    paths: &[&str],
    file: &mut Option<String>,
) -> Vec<(Part, Option<String>, Range<usize>)> {
    let mut out: Vec<(Part, Option<String>, Range<usize>)> = Vec::new();
    let mut at = 0;
    for piece in text.split_inclusive('\n') {
        let (part, path) = match classify(piece, cp, paths) {
            Line::Path(p) => {
                *file = Some(p.to_string());
                (Part::File, Some(p.to_string()))
            }
            Line::Padding => (Part::Padding, None),
            Line::Code => (Part::File, file.clone()),
        };
        let starts_new = match (out.last(), classify(piece, cp, paths)) {
            (None, _) | (_, Line::Path(_)) => true,
            (Some((last, _, _)), _) => *last != part,
        };
        if starts_new {
            out.push((part, path, at..at + piece.len()));
        } else if let Some(last) = out.last_mut() {
            last.2.end = at + piece.len();
        }
        at += piece.len();
    }
    out
}

/// The anatomy of `task`, whose needle is at byte range `needle` of its
/// code context (the builder's `PlacedTask::needle`, or
/// `locate_needle`'s), with the audit's `findings` placed on it.
/// `dataset` names the files (the repo's file order tells which file a
/// context that starts mid-file starts in); without the task's repo in it,
/// any `Path:` line starts a band.
pub fn anatomy(
    task: &Task,
    needle: Range<usize>,
    findings: &[ArtifactSpot],
    dataset: Option<&Dataset>,
    tokenizer: &Tokenizer,
) -> Result<Anatomy, TokenizerError> {
    let text = PromptText {
        instruction: &task.instruction,
        code_context: &task.code_context,
        question: &task.description,
        language: &task.language,
        repo: &task.repo,
    };
    let marked = [Marked { bytes: needle, path: task.path.clone(), name: None }];
    anatomy_of(&text, &marked, findings, dataset, tokenizer)
}

/// The anatomy of a prompt whose `marked` functions (in context order,
/// not overlapping) are drawn as needle bands: SNF's one needle, or a call
/// path's functions. As [`anatomy`] otherwise.
pub fn anatomy_of(
    text: &PromptText,
    marked: &[Marked],
    findings: &[ArtifactSpot],
    dataset: Option<&Dataset>,
    tokenizer: &Tokenizer,
) -> Result<Anatomy, TokenizerError> {
    let ctx = text.code_context;
    // Each mark within the context, in order, none overlapping the one before.
    let mut spans: Vec<(Range<usize>, &Marked)> = Vec::with_capacity(marked.len());
    for m in marked {
        let after = spans.last().map_or(0, |(r, _)| r.end);
        let start = m.bytes.start.clamp(after, ctx.len());
        spans.push((start..m.bytes.end.clamp(start, ctx.len()), m));
    }
    let first_file = marked.first().map(|m| m.path.clone());
    let cp = Language::from_name(text.language).map(|l| l.comment_prefix()).unwrap_or("#");
    let repo = dataset.and_then(|d| d.repo(text.language, text.repo));
    let order: Vec<&str> = repo.map(|r| r.file_order()).unwrap_or_default();
    let mut c = LineCounter::new(tokenizer);

    // The file the context starts in: the one before the first `Path:`
    // line's file in the repo's order (the first marked file if there is none).
    let first_path = ctx.split_inclusive('\n').find_map(|l| match classify(l, cp, &order) {
        Line::Path(p) => Some(p),
        _ => None,
    });
    let starts_in = match first_path {
        Some(p) if ctx.starts_with(&format!("{cp} Path: {p}")) => Some(p.to_string()),
        Some(p) => order
            .iter()
            .position(|f| *f == p)
            .and_then(|i| i.checked_sub(1))
            .map(|i| order[i].to_string())
            .or_else(|| first_file.clone()),
        None => first_file.clone(),
    };

    let mut bands = Vec::new();
    let mut token = 0;
    let mut push = |part: Part,
                    path: Option<String>,
                    name: Option<String>,
                    tokens: usize,
                    bytes: Range<usize>| {
        bands.push(Band { part, path, tokens, first_token: token, bytes, name });
        token += tokens;
    };
    let instruction = text.instruction;
    push(Part::Instruction, None, None, c.text(instruction)?, 0..instruction.len());
    let base = instruction.len();
    let mut file = starts_in;
    let mut at = 0;
    let gaps = spans.iter().map(|(r, m)| (r.start, Some((r.clone(), *m))));
    for (gap_end, mark) in gaps.chain(std::iter::once((ctx.len(), None))) {
        let gap = at..gap_end;
        let part_text = &ctx[gap.clone()];
        for (i, (part, path, r)) in
            segments(part_text, cp, &order, &mut file).into_iter().enumerate()
        {
            let n = c.text_at(&part_text[r.clone()], i == 0)?;
            let bytes = base + gap.start + r.start..base + gap.start + r.end;
            push(part, path, None, n, bytes);
        }
        let Some((range, m)) = mark else { break };
        file = Some(m.path.clone());
        let n = c.text(&ctx[range.clone()])?;
        push(Part::Needle, file.clone(), m.name.clone(), n, base + range.start..base + range.end);
        // The code after a marked function is its own file's until a `Path:` line.
        at = range.end;
    }
    let desc_at = base + ctx.len();
    push(
        Part::Description,
        None,
        None,
        c.text(text.question)?,
        desc_at..desc_at + text.question.len(),
    );
    let again = desc_at + text.question.len();
    push(
        Part::InstructionAgain,
        None,
        None,
        c.text(instruction)?,
        again..again + instruction.len(),
    );

    let marks = findings
        .iter()
        .map(|f| {
            let start = (base + f.spot.start).min(base + ctx.len());
            let end = (base + f.spot.end).clamp(start, base + ctx.len());
            let band = bands
                .iter()
                .find(|b| b.bytes.contains(&start))
                .or_else(|| bands.iter().rev().find(|b| b.bytes.end <= start));
            let token = band.map_or(0, |b| {
                let len = b.bytes.len().max(1);
                let into = start.saturating_sub(b.bytes.start).min(len);
                b.first_token + (b.tokens * into) / len
            });
            Mark { artifact: f.artifact, bytes: start..end, token }
        })
        .collect();
    Ok(Anatomy { bands, marks, total_tokens: token })
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::code::tokenize::test_tokenizer;
    use crate::prompt::context::{task_specs, ContextBuilder, ContextOptions};

    fn demo() -> Dataset {
        Dataset::from_bytes(include_bytes!("../../../../public/demo/repoqa-demo.json"), "demo")
            .unwrap()
    }

    #[test]
    fn bands_add_up_to_the_task_fields_in_every_mode() {
        let d = demo();
        let tok = test_tokenizer();
        let specs = task_specs(&d, None);
        for mode in crate::prompt::context::CommentMode::ALL {
            for size in [512, 2048] {
                let options = ContextOptions {
                    code_context_size: size,
                    comment_mode: *mode,
                    ..Default::default()
                };
                let mut b = ContextBuilder::new(&d, options, tok);
                for spec in &specs {
                    let placed = b.build_placed(spec).unwrap();
                    let t = &placed.task;
                    let a = anatomy(t, placed.needle.clone(), &[], Some(&d), tok).unwrap();
                    let at = |p: Part| a.bands.iter().find(|b| b.part == p).unwrap().first_token;
                    let first = at(Part::Instruction) + a.tokens_of(Part::Instruction);
                    let id = t.task_id();
                    assert_eq!(
                        at(Part::Needle) - first,
                        t.needle_token_start,
                        "{mode} {size} {id}"
                    );
                    assert_eq!(
                        a.tokens_of(Part::Needle),
                        t.needle_token_end - t.needle_token_start
                    );
                    let context: usize = a.context_bands().map(|b| b.tokens).sum();
                    assert_eq!(context, t.code_context_ntokens, "{mode} {size} {id}");
                    // The bands tile the prompt.
                    let prompt = t.prompt();
                    let mut end = 0;
                    for band in &a.bands {
                        assert_eq!(band.bytes.start, end, "{id}");
                        end = band.bytes.end;
                    }
                    assert_eq!(end, prompt.len());
                    // Every code band names a file of the repo.
                    for band in a.context_bands().filter(|b| b.part != Part::Padding) {
                        let p =
                            band.path.as_deref().unwrap_or_else(|| panic!("{id}: unnamed band"));
                        assert!(d.repo(&t.language, &t.repo).unwrap().content.contains_key(p));
                    }
                }
            }
        }
    }

    #[test]
    fn a_strip_joins_thin_files_and_still_tiles_the_prompt() {
        let d = demo();
        let tok = test_tokenizer();
        let options = ContextOptions { code_context_size: 16384, ..Default::default() };
        let mut builder = ContextBuilder::new(&d, options, tok);
        // The demo's task with the most file bands.
        let (placed, a) = task_specs(&d, None)
            .iter()
            .map(|spec| {
                let placed = builder.build_placed(spec).unwrap();
                let a = anatomy(&placed.task, placed.needle.clone(), &[], Some(&d), tok).unwrap();
                (placed, a)
            })
            .max_by_key(|(_, a)| a.bands.iter().filter(|b| b.part == Part::File).count())
            .unwrap();
        // Wide enough for every band: the strip is the bands.
        let all = a.strip(usize::MAX / a.total_tokens.max(1));
        assert_eq!(all.iter().map(|s| s.band.clone()).collect::<Vec<_>>(), a.bands);
        // Narrow: thin files joined, the rest kept, the prompt still tiled.
        let strip = a.strip(4);
        assert!(strip.len() < a.bands.len(), "{} of {}: {:?}", strip.len(), a.bands.len(), a.bands);
        assert_eq!(strip.iter().map(|s| s.files).sum::<usize>(), a.bands.len());
        let mut end = 0;
        for s in &strip {
            assert_eq!(s.band.bytes.start, end);
            end = s.band.bytes.end;
            if s.files > 1 {
                assert_eq!(s.band.part, Part::File);
                assert!(s.band.tokens * 4 < a.total_tokens * s.files);
            }
        }
        assert_eq!(end, placed.task.prompt().len());
        let tokens: usize = strip.iter().map(|s| s.band.tokens).sum();
        assert_eq!(tokens, a.total_tokens);
        assert_eq!(strip.iter().filter(|s| s.band.part == Part::Needle).count(), 1);
    }

    #[test]
    fn path_lines_start_bands_and_the_context_can_start_mid_file() {
        let d = demo();
        let tok = test_tokenizer();
        let spec = task_specs(&d, None)[5];
        let options = ContextOptions { code_context_size: 16384, ..Default::default() };
        let placed = ContextBuilder::new(&d, options, tok)
            .at_position_ratio(Some(0.9))
            .build_placed(&spec)
            .unwrap();
        assert_eq!(placed.task.position_ratio, 0.9);
        let a = anatomy(&placed.task, placed.needle.clone(), &[], Some(&d), tok).unwrap();
        let prompt = placed.task.prompt();
        let files: Vec<_> = a.context_bands().filter(|b| b.part == Part::File).collect();
        let mut paths: Vec<_> = files.iter().filter_map(|b| b.path.as_deref()).collect();
        paths.dedup();
        assert!(paths.len() > 2, "{files:?}");
        for b in files.iter().skip(1) {
            let text = &prompt[b.bytes.clone()];
            let p = b.path.as_deref().unwrap();
            // A band after the first starts at its `Path:` line, or is the
            // needle file's code right after the needle.
            assert!(text.contains(&format!("Path: {p}")) || p == placed.task.path, "{text:.80}");
        }
    }
}
