//! The audit of a built task: the artifacts by which the official prompt
//! construction gives the needle's place away (docs/parity.md P3, P6, K5).
//!
//! The builder says where it put the needle in the context and where it cut
//! the needle file ([`NeedlePlacement`]); everything else is read from the
//! texts: the context around the needle is compared with the needle file
//! around the needle. So the same checks run on official and on corrected
//! prompts, and find nothing in a faithful one.
//!
//! | artifact | doc | what is in the context |
//! |----------|-----|------------------------|
//! | `stray-line-break` | P6 | a line break where the source has none, just before the needle (`"    \ndef f"`, `"template <typename T> \nconstexpr"`) |
//! | `extra-blank-line` | P6 | one more blank line before a needle at column 0 than the source has (also between a doc comment and its function) |
//! | `shifted-needle` | P3 | the needle cut at byte offsets used as character offsets: it starts and ends a few characters late |
//! | `glued-path` | K5 | the last file's `Path:` line glued to the needle's end (`return x# Path: last.py`) |

pub mod answerer;
pub mod locate;
pub mod measure;

use std::fmt;
use std::ops::Range;
use std::str::FromStr;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::code::lang::Language;
use crate::input::dataset::Needle;
use crate::prompt::context::{CommentMode, NeedlePlacement};
use crate::report::Task;
use crate::scoring::sanitize::remove_comments;

/// An artifact of the prompt construction that marks the needle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Artifact {
    StrayLineBreak,
    ExtraBlankLine,
    ShiftedNeedle,
    GluedPath,
}

impl Artifact {
    pub const ALL: [Artifact; 4] = [
        Artifact::StrayLineBreak,
        Artifact::ExtraBlankLine,
        Artifact::ShiftedNeedle,
        Artifact::GluedPath,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Artifact::StrayLineBreak => "stray-line-break",
            Artifact::ExtraBlankLine => "extra-blank-line",
            Artifact::ShiftedNeedle => "shifted-needle",
            Artifact::GluedPath => "glued-path",
        }
    }

    /// The docs/parity.md quirk it comes from.
    pub fn parity_id(self) -> &'static str {
        match self {
            Artifact::StrayLineBreak | Artifact::ExtraBlankLine => "P6",
            Artifact::ShiftedNeedle => "P3",
            Artifact::GluedPath => "K5",
        }
    }

    /// One line for people.
    pub fn explain(self) -> &'static str {
        match self {
            Artifact::StrayLineBreak => {
                "a line break inserted just before the needle: its first line starts a line of its own"
            }
            Artifact::ExtraBlankLine => {
                "one blank line more before the needle (at column 0) than the source has"
            }
            Artifact::ShiftedNeedle => {
                "the needle cut a few characters late: byte offsets used as character offsets"
            }
            Artifact::GluedPath => "the last file's Path: line glued to the needle's end",
        }
    }
}

impl fmt::Display for Artifact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Debug, Error)]
#[error("unknown artifact {0:?} (expected stray-line-break, extra-blank-line, shifted-needle or glued-path)")]
pub struct UnknownArtifact(pub String);

impl FromStr for Artifact {
    type Err = UnknownArtifact;
    fn from_str(s: &str) -> Result<Artifact, UnknownArtifact> {
        Artifact::ALL.into_iter().find(|a| a.name() == s).ok_or_else(|| UnknownArtifact(s.into()))
    }
}

impl Serialize for Artifact {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Artifact {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Artifact, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// One artifact found in a task: `spot` is a byte range of the task's
/// `code_context` (empty ranges are widened by the UI to one character).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArtifactSpot {
    pub artifact: Artifact,
    pub spot: Range<usize>,
}

/// The audit of one task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskAudit {
    pub language: String,
    pub repo: String,
    pub name: String,
    pub findings: Vec<ArtifactSpot>,
}

impl TaskAudit {
    /// The artifact names, each once, in `Artifact::ALL` order.
    pub fn artifacts(&self) -> Vec<Artifact> {
        let mut out: Vec<Artifact> = self.findings.iter().map(|f| f.artifact).collect();
        out.sort();
        out.dedup();
        out
    }
}

/// Find the artifacts of one built task.
///
/// `source` is the needle file's text, `needle` the dataset's needle (its
/// `start_byte`/`end_byte` are UTF-8 byte offsets into `source`), `placement`
/// what the builder did.
pub fn audit_task(
    task: &Task,
    language: Language,
    source: &str,
    needle: &Needle,
    placement: &NeedlePlacement,
    mode: CommentMode,
) -> TaskAudit {
    let ctx = task.code_context.as_str();
    let mut findings = Vec::new();
    let cut = placement.cut.clone();
    let at = placement.needle.start.min(ctx.len());
    let end = placement.needle.end.clamp(at, ctx.len());

    // P3: the needle was cut elsewhere than where it is.
    if cut != true_cut(source, needle) {
        findings.push(ArtifactSpot { artifact: Artifact::ShiftedNeedle, spot: at..end });
    }

    // P6: what precedes the needle in the context against what precedes the
    // cut in the source. In the cleaning modes the context holds cleaned
    // text (K3: each comment's own bytes deleted), so the source is cleaned
    // the same way first. Counting comment lines as blank lines instead is
    // wrong both ways: a block comment spanning lines leaves one line, not
    // one per line (a JSDoc block before the needle hid the official
    // artifact), and its lines need not look like comments (`}*/`,
    // ` \endrst */` closing a C++ block made a faithful context look
    // like one with an extra blank line).
    let before = &ctx[..at];
    let raw_before = source.get(..cut.start).unwrap_or(source);
    let cleaned;
    let src_before = if mode == CommentMode::None {
        raw_before
    } else {
        cleaned = remove_comments(raw_before, language);
        cleaned.as_str()
    };
    if !before.is_empty() {
        let partial = src_before.rsplit('\n').next().unwrap_or("");
        if !partial.is_empty() {
            // Mid-line cut: the source has no line break here.
            if before.ends_with('\n') {
                findings
                    .push(ArtifactSpot { artifact: Artifact::StrayLineBreak, spot: at - 1..at });
            }
        } else {
            let ctx_run = blank_run(before);
            let src_run = if cut.start == 0 { 0 } else { blank_run(src_before) };
            // A context made only of blank lines says nothing: it starts
            // inside a run of blank lines, so no reader can count them
            // against the source.
            let all_blank = before.split('\n').all(|l| l.trim().is_empty());
            if ctx_run > src_run && !all_blank {
                findings
                    .push(ArtifactSpot { artifact: Artifact::ExtraBlankLine, spot: at - 1..at });
            }
        }
    }

    // K5: a path line right after the needle's end.
    let after = &ctx[end..];
    let marker = format!("{} Path: ", language.comment_prefix());
    let first_line = after.split('\n').next().unwrap_or("");
    if end > 0
        && !ctx[..end].ends_with('\n')
        && first_line.trim_start_matches([' ', '\t']).starts_with(&marker)
    {
        let p = end + (first_line.len() - first_line.trim_start_matches([' ', '\t']).len());
        findings.push(ArtifactSpot { artifact: Artifact::GluedPath, spot: p..p + marker.len() });
    }

    TaskAudit {
        language: task.language.clone(),
        repo: task.repo.clone(),
        name: task.name.clone(),
        findings,
    }
}

/// Where the needle is in its file: its byte offsets, moved down to
/// character boundaries and clamped.
pub fn true_cut(source: &str, needle: &Needle) -> Range<usize> {
    let floor = |mut b: usize| {
        b = b.min(source.len());
        while !source.is_char_boundary(b) {
            b -= 1;
        }
        b
    };
    let a = floor(needle.start_byte);
    a..floor(needle.end_byte).max(a)
}

/// Number of blank lines that end `text` (lines before its last "\n"; the
/// piece after the last "\n" must itself be empty).
fn blank_run(text: &str) -> usize {
    let Some(body) = text.strip_suffix('\n') else { return 0 };
    // Only blank lines: the path line or the context start came first.
    body.split('\n').rev().take_while(|l| l.trim().is_empty()).count()
}

/// A finding's spot with about `radius` characters around it, for display
/// as text: (before, spot, after). Line breaks in the spot are shown as
/// `⏎` followed by the break, so an inserted one is visible; an empty spot
/// shows as `▹` (the place between two characters). The excerpt ends at a
/// line's edge when one is within `radius` more characters, else at a
/// token's (whitespace), never in the middle of a word.
pub fn excerpt(code_context: &str, spot: &Range<usize>, radius: usize) -> (String, String, String) {
    let floor = |mut i: usize| {
        i = i.min(code_context.len());
        while !code_context.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let (a, b) = (floor(spot.start), floor(spot.end.max(spot.start)));
    let from =
        code_context[..a].char_indices().rev().nth(radius.saturating_sub(1)).map_or(0, |(i, _)| i);
    let to =
        code_context[b..].char_indices().nth(radius).map_or(code_context.len(), |(i, _)| b + i);
    let (from, to) =
        (start_edge(code_context, from, a, radius), end_edge(code_context, to, b, radius));
    let marked = if a == b {
        "\u{25b9}".to_string()
    } else {
        code_context[a..b].replace('\n', "\u{23ce}\n")
    };
    (code_context[from..a].to_string(), marked, code_context[b..to].to_string())
}

/// Where an excerpt starting at `from` (before the spot at `a`) should
/// start: its line's start if near, else after the next whitespace.
fn start_edge(s: &str, from: usize, a: usize, radius: usize) -> usize {
    if from == 0 || s[..from].ends_with('\n') {
        return from;
    }
    if from < a && s[from..].starts_with('\n') {
        return from + 1;
    }
    let line_start = s[..from].rfind('\n').map_or(0, |i| i + 1);
    if s[line_start..from].chars().count() <= radius {
        return line_start;
    }
    match s[from..a].char_indices().find(|(_, c)| c.is_whitespace()) {
        Some((i, c)) => from + i + c.len_utf8(),
        None => from,
    }
}

/// Where an excerpt ending at `to` (after the spot ending at `b`) should
/// end: its line's end if near, else at the last whitespace before it.
fn end_edge(s: &str, to: usize, b: usize, radius: usize) -> usize {
    if to >= s.len() || s[to..].starts_with('\n') {
        return to;
    }
    let line_end = s[to..].find('\n').map_or(s.len(), |i| to + i);
    if s[to..line_end].chars().count() <= radius {
        return line_end;
    }
    match s[b..to].char_indices().rev().find(|(_, c)| c.is_whitespace()) {
        Some((i, _)) => b + i,
        None => to,
    }
}

/// Tasks affected per artifact and language: `{NAME: {LANG: N}}`, every
/// artifact and every language of `tasks` present (zeros included).
pub fn counts(tasks: &[TaskAudit]) -> IndexMap<String, IndexMap<String, usize>> {
    let mut languages: Vec<&str> = Vec::new();
    for t in tasks {
        if !languages.contains(&t.language.as_str()) {
            languages.push(&t.language);
        }
    }
    let mut out = IndexMap::new();
    for a in Artifact::ALL {
        let mut per: IndexMap<String, usize> =
            languages.iter().map(|l| (l.to_string(), 0)).collect();
        for t in tasks {
            if t.artifacts().contains(&a) {
                *per.entry(t.language.clone()).or_default() += 1;
            }
        }
        out.insert(a.name().to_string(), per);
    }
    out
}

/// The `repoqa audit --json` document:
/// `{"tasks": [{"language", "repo", "name", "artifacts": [NAME…]}], "counts": {NAME: {LANG: N}}}`.
pub fn report_json(tasks: &[TaskAudit]) -> serde_json::Value {
    let list: Vec<serde_json::Value> = tasks
        .iter()
        .map(|t| {
            serde_json::json!({
                "language": t.language,
                "repo": t.repo,
                "name": t.name,
                "artifacts": t.artifacts().iter().map(|a| a.name()).collect::<Vec<_>>(),
            })
        })
        .collect();
    serde_json::json!({"tasks": list, "counts": counts(tasks)})
}

/// The counts as a text table: one row per artifact, one column per language.
pub fn counts_table(tasks: &[TaskAudit]) -> String {
    let counts = counts(tasks);
    let languages: Vec<String> =
        counts.values().next().map(|m| m.keys().cloned().collect()).unwrap_or_default();
    let mut totals: IndexMap<&str, usize> = IndexMap::new();
    for t in tasks {
        *totals.entry(t.language.as_str()).or_default() += 1;
    }
    let mut out = format!("{:<18}", "artifact");
    for l in &languages {
        out.push_str(&format!("{:>12}", l));
    }
    out.push_str(&format!("{:>8}\n", "all"));
    for (name, per) in &counts {
        out.push_str(&format!("{name:<18}"));
        for l in &languages {
            out.push_str(&format!("{:>12}", per.get(l).copied().unwrap_or(0)));
        }
        out.push_str(&format!("{:>8}\n", per.values().sum::<usize>()));
    }
    let any = tasks.iter().filter(|t| !t.findings.is_empty()).count();
    out.push_str(&format!("{:<18}", "any"));
    for l in &languages {
        let n = tasks.iter().filter(|t| &t.language == l && !t.findings.is_empty()).count();
        out.push_str(&format!("{n:>12}"));
    }
    out.push_str(&format!("{any:>8}\n{:<18}", "tasks"));
    for l in &languages {
        out.push_str(&format!("{:>12}", totals.get(l.as_str()).copied().unwrap_or(0)));
    }
    out.push_str(&format!("{:>8}\n", tasks.len()));
    out
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::measure::{audit_dataset, score_baseline};
    use super::*;
    use crate::code::tokenize::test_tokenizer;
    use crate::input::dataset::Dataset;
    use crate::prompt::context::task_specs;
    use crate::prompt::settings::BuildSettings;
    use crate::report::Protocol;

    use crate::prompt::context::tests::dataset;

    fn run(d: &Dataset, mode: CommentMode, protocol: Protocol) -> measure::AuditRun {
        let settings = BuildSettings {
            code_context_size: 4000,
            comment_mode: mode,
            protocol,
            ..BuildSettings::default()
        };
        audit_dataset(d, &task_specs(d, None), &settings, test_tokenizer(), |_, _| {}).unwrap()
    }

    /// (official artifacts, corrected artifacts) of the only task.
    fn both(d: &Dataset, mode: CommentMode) -> (Vec<Artifact>, Vec<Artifact>) {
        let o = run(d, mode, Protocol::Official);
        let c = run(d, mode, Protocol::Corrected);
        (o.audits[0].artifacts(), c.audits[0].artifacts())
    }

    fn span(text: &str, from: &str, to: &str) -> (usize, usize) {
        let s = text.find(from).unwrap();
        (s, text[s..].find(to).unwrap() + s + to.len())
    }

    #[test]
    fn stray_line_break_before_an_indented_method() {
        let text =
            "class A:\n    def g(self):\n        pass\n\n    def visit(self):\n        return 1\n";
        let (s, e) = span(text, "def visit", "return 1");
        let d = dataset("python", &[("a.py", text)], &[("a.py", "visit", s, e)]);
        let (off, cor) = both(&d, CommentMode::None);
        assert_eq!(off, [Artifact::StrayLineBreak]);
        assert_eq!(cor, []);
        let o = run(&d, CommentMode::None, Protocol::Official);
        let spot = o.audits[0].findings[0].spot.clone();
        assert_eq!(&o.tasks[0].code_context[spot.start - 4..spot.end + 3], "    \ndef");
        let c = run(&d, CommentMode::None, Protocol::Corrected);
        assert!(c.tasks[0].code_context.contains("\n    def visit(self):\n        return 1\n"));
    }

    #[test]
    fn stray_line_break_after_a_cpp_template_head() {
        let text = "int a;\ntemplate <typename T> constexpr T twice(T x) {\n    return x + x;\n}\n";
        let (s, e) = span(text, "constexpr", "\n}");
        let d = dataset("cpp", &[("a.cpp", text)], &[("a.cpp", "twice", s, e)]);
        assert_eq!(both(&d, CommentMode::None), (vec![Artifact::StrayLineBreak], vec![]));
    }

    #[test]
    fn extra_blank_line_at_column_zero_and_after_a_doc_comment() {
        let text = "fn g() {}\n\n/// Doc.\nfn f() -> u8 {\n    1\n}\n";
        let (s, e) = span(text, "fn f", "\n}");
        let d = dataset("rust", &[("a.rs", text)], &[("a.rs", "f", s, e)]);
        assert_eq!(both(&d, CommentMode::None), (vec![Artifact::ExtraBlankLine], vec![]));
        let o = run(&d, CommentMode::None, Protocol::Official);
        assert!(o.tasks[0].code_context.contains("/// Doc.\n\nfn f()"));
        // The needle on the file's first line: a blank line after its Path line.
        let text = "def f():\n    return 1\n\nx = 2\n";
        let d = dataset("python", &[("a.py", text)], &[("a.py", "f", 0, 20)]);
        assert_eq!(both(&d, CommentMode::None), (vec![Artifact::ExtraBlankLine], vec![]));
        // A blank line in the source is no artifact: one more is.
        let text = "x = 1\n\n\ndef f():\n    return 1\n";
        let (s, e) = span(text, "def f", "return 1");
        let d = dataset("python", &[("a.py", text)], &[("a.py", "f", s, e)]);
        assert_eq!(both(&d, CommentMode::None), (vec![Artifact::ExtraBlankLine], vec![]));
    }

    #[test]
    fn cleaning_modes_compare_with_the_source_cleaned_alike() {
        // A C++ block comment whose closing line does not look like a
        // comment (`}*/`, ` \endrst */`): cleaning deletes the whole block,
        // so the corrected context has as many blank lines as the cleaned
        // source, and only the official one has one more (P6).
        for close in ["}*/", " \\endrst */"] {
            let text = format!(
                "int a;\n/*\nint old()\n{{\n{close}\n\nbool f(int x)\n{{\n\treturn x > 0;\n}}\n"
            );
            let (s, e) = span(&text, "bool f", "\n}");
            let d = dataset("cpp", &[("a.cpp", &text)], &[("a.cpp", "f", s, e)]);
            for mode in [CommentMode::NoPadding, CommentMode::PositionalPadding] {
                let (off, cor) = both(&d, mode);
                assert_eq!((off, cor), (vec![Artifact::ExtraBlankLine], vec![]), "{close} {mode}");
            }
        }
        // A JSDoc block spanning lines leaves one (blank) line, not one per
        // line: counting its lines as blank hid the official artifact.
        let text = "type F = () => void;\n\n/**\n * Makes one.\n * - and more\n */\nfunction make(): number {\n  return 1;\n}\n";
        let (s, e) = span(text, "function make", "\n}");
        let d = dataset("typescript", &[("a.ts", text)], &[("a.ts", "make", s, e)]);
        for mode in [CommentMode::NoPadding, CommentMode::PositionalPadding] {
            assert_eq!(both(&d, mode), (vec![Artifact::ExtraBlankLine], vec![]), "{mode}");
        }
        let o = run(&d, CommentMode::NoPadding, Protocol::Official);
        assert!(o.tasks[0].code_context.contains("void;\n\n\n\nfunction make"));
    }

    #[test]
    fn a_context_starting_inside_blank_lines_shows_no_artifact() {
        // Cleaning leaves only blank lines before the needle and the budget
        // cuts into them: the official context has one more than the
        // corrected one (P6), but no reader can count them against the
        // source, so neither gets a finding. crates/repoqa/tests/it/audit_prompts.rs allows
        // exactly this difference.
        let text =
            format!("package p\n\n{}\nfunc f() int {{\n\treturn 1\n}}\n", "// note\n".repeat(1500));
        let (s, e) = span(&text, "func f", "\n}");
        let d = dataset("go", &[("a.go", &text)], &[("a.go", "f", s, e)]);
        assert_eq!(both(&d, CommentMode::NoPadding), (vec![], vec![]));
        let o = run(&d, CommentMode::NoPadding, Protocol::Official);
        let c = run(&d, CommentMode::NoPadding, Protocol::Corrected);
        let (oc, cc) = (&o.tasks[0].code_context, &c.tasks[0].code_context);
        let at = oc.find("func f").unwrap();
        assert!(oc[..at].trim().is_empty() && at > 100);
        let mut fixed = oc.clone();
        fixed.remove(at - 1);
        assert_eq!(&fixed, cc);
        // In mode none the comments are there to see, and so is the artifact.
        assert_eq!(both(&d, CommentMode::None), (vec![Artifact::ExtraBlankLine], vec![]));
    }

    #[test]
    fn shifted_needle_after_non_ascii_text() {
        let text = "# café ✓\ndef f():\n    return 1\n\ndef g():\n    return 2\n";
        let (s, e) = span(text, "def f", "return 1");
        let d = dataset("python", &[("a.py", text)], &[("a.py", "f", s, e)]);
        let (off, cor) = both(&d, CommentMode::None);
        assert_eq!(off, [Artifact::StrayLineBreak, Artifact::ShiftedNeedle]);
        assert_eq!(cor, []);
        let o = run(&d, CommentMode::None, Protocol::Official);
        assert!(
            o.tasks[0].code_context.contains("# café ✓\ndef\n f():"),
            "{}",
            o.tasks[0].code_context
        );
    }

    #[test]
    fn glued_path_in_the_cleaning_modes() {
        let a = "def a():\n    # note\n    return 1\n";
        let b = "def b():\n    return 2  # two\n\nx = 3\n";
        let c = "def c():\n    # see\n    return 3\n";
        let files = [("a.py", a), ("b.py", b), ("c.py", c)];
        let d = dataset("python", &files, &[("b.py", "b", 0, 28)]);
        for mode in [CommentMode::NoPadding, CommentMode::PositionalPadding] {
            let (off, cor) = both(&d, mode);
            assert!(off.contains(&Artifact::GluedPath), "{mode}: {off:?}");
            assert_eq!(cor, [], "{mode}");
        }
        // Mode none has no K5.
        assert!(!both(&d, CommentMode::None).0.contains(&Artifact::GluedPath));
    }

    #[test]
    fn excerpts_show_the_spot_as_text() {
        let ctx = "ab\ncd\nef";
        assert_eq!(excerpt(ctx, &(2..3), 2), ("ab".into(), "\u{23ce}\n".into(), "cd".into()));
        assert_eq!(excerpt(ctx, &(0..0), 1), ("".into(), "\u{25b9}".into(), "ab".into()));
        assert_eq!(excerpt("é\nx", &(2..3), 9).0, "é");
        // Never in the middle of a word: a line's edge when near, else a
        // token's.
        let ctx = "x\nalpha beta gamma delta epsilon zeta\nnext";
        let at = ctx.find("gamma").unwrap();
        let (before, spot, after) = excerpt(ctx, &(at..at + 5), 4);
        assert_eq!((before.as_str(), spot.as_str(), after.as_str()), ("", "gamma", ""));
        let (before, _, after) = excerpt(ctx, &(at..at + 5), 12);
        assert_eq!((before.as_str(), after.as_str()), ("alpha beta ", " delta epsilon zeta"));
        let (before, _, after) = excerpt(ctx, &(at..at + 5), 40);
        assert_eq!(
            (before.as_str(), after.as_str()),
            ("x\nalpha beta ", " delta epsilon zeta\nnext")
        );
    }

    #[test]
    fn a_built_task_found_again_gives_the_same_audit() {
        let text = "# café ✓\nclass A:\n    def g(self):\n        pass\n\n    def visit(self):\n        # c\n        return 1\n";
        let (s, e) = span(text, "def visit", "return 1");
        let d = dataset("python", &[("a.py", text)], &[("a.py", "visit", s, e)]);
        for mode in CommentMode::ALL.iter().copied() {
            for protocol in Protocol::ALL.iter().copied().filter(|p| p.has_context()) {
                let r = run(&d, mode, protocol);
                let again = locate::audit_built_task(&d, &r.tasks[0], mode);
                assert_eq!(again.as_ref(), Some(&r.audits[0]), "{mode} {protocol}");
            }
        }
    }

    #[test]
    fn corrected_differs_from_official_only_at_the_spots() {
        let text = "# café\nclass A:\n    def g(self):\n        pass\n\n    def visit(self):\n        return 1\n\nx = 1\n";
        let (s, e) = span(text, "def visit", "return 1");
        let d = dataset("python", &[("a.py", text)], &[("a.py", "visit", s, e)]);
        let o = run(&d, CommentMode::None, Protocol::Official);
        let c = run(&d, CommentMode::None, Protocol::Corrected);
        let (oc, cc) = (&o.tasks[0].code_context, &c.tasks[0].code_context);
        let spot = o.audits[0]
            .findings
            .iter()
            .find(|f| f.artifact == Artifact::StrayLineBreak)
            .unwrap()
            .spot
            .clone();
        // Deleting the inserted break gives the corrected text.
        let mut fixed = oc.clone();
        fixed.replace_range(spot, "");
        assert_eq!(&fixed, cc);
        assert!(cc.contains(&text[..text.len() - 1]));
    }

    #[test]
    fn the_answerer_scores_on_official_prompts_and_not_on_corrected_ones() {
        let text = "class A:\n    def g(self):\n        return 'x' * 3\n\n    def visit(self, node):\n        total = node.left + node.right\n        return total * 2\n";
        let (s, e) = span(text, "def visit", "total * 2");
        let (gs, ge) = span(text, "def g", "* 3");
        let d =
            dataset("python", &[("a.py", text)], &[("a.py", "visit", s, e), ("a.py", "g", gs, ge)]);
        let o = run(&d, CommentMode::None, Protocol::Official);
        let c = run(&d, CommentMode::None, Protocol::Corrected);
        let none = BuildSettings::default();
        let so = score_baseline(&d, &o.tasks, &none).unwrap();
        let sc = score_baseline(&d, &c.tasks, &none).unwrap();
        assert_eq!(so.table.rows[0].passed[8], 2, "both are found by their artifact");
        assert_eq!(sc.table.rows[0].passed[8], 0);
        let json = report_json(&o.audits);
        assert_eq!(json["counts"]["stray-line-break"]["python"], 2);
        assert_eq!(json["tasks"][0]["artifacts"][0], "stray-line-break");
    }
}
