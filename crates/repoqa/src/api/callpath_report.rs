//! The call-path task's portable report (NOT UPSTREAM, docs/call-path.md):
//! one self-contained HTML file from call-path SCORES files — `repoqa
//! report --task call-path` writes it, the page's Results exports the same
//! bytes. For each file: pass@1 with its Wilson interval, `NO PATH`
//! precision and recall, the verdict counts, pass@1 by language, by path
//! length × depth spread and (a run at several lengths) by path length ×
//! context length, and every task's verdict with what was read; a model
//! given at two lengths or more also gets its ladder (`ladders`). The
//! settings and the SHA-256 of every input, and the tool's version, head it.
//!
//! Everything from a file (model names, repositories, function names,
//! replies read) is escaped; a Content-Security-Policy forbids scripts and
//! every request, as SNF's report does.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::callpath::{ladders, remembering, verdict_label, CallPathScoresFile};
use crate::callpath::score::{CallPathScores, PassRate};
use crate::callpath::verdict::Reading;
use crate::review::evidence::percent_span;
use crate::review::html_report::{escape, input_rows, open_document, TOOL};
use crate::review::stats::wilson;

/// What a call-path report holds.
pub struct CallPathReport<'a> {
    pub title: String,
    /// The confidence level of the Wilson intervals.
    pub level: f64,
    pub files: &'a [CallPathScoresFile],
    /// Each input file: its name and the SHA-256 of its bytes.
    pub inputs: Vec<(String, String)>,
}

/// The title when none is given: the models' names.
pub fn default_title(files: &[CallPathScoresFile]) -> String {
    let mut models: Vec<&str> = Vec::new();
    for f in files {
        if !models.contains(&f.model.as_str()) {
            models.push(&f.model);
        }
    }
    format!("Call-path report (NOT UPSTREAM): {}", models.join(", "))
}

/// A rate's cell: "59% (10/17)", or "-".
fn cell(r: Option<&PassRate>) -> String {
    r.and_then(|r| r.pass_at_1.map(|p| format!("{p:.1}% ({}/{})", r.passed, r.total)))
        .unwrap_or_else(|| "-".into())
}

fn share(x: Option<f64>) -> String {
    x.map_or("-".to_string(), |p| format!("{:.1}%", 100.0 * p))
}

/// A table of rates by one key, with the Wilson interval of each.
fn rate_table(out: &mut String, id: &str, head: &str, rows: &[(String, &PassRate)], level: f64) {
    let _ = write!(
        out,
        "<div class=\"scroll\"><table id=\"{id}\"><thead><tr><th>{}</th><th>pass@1</th><th>passed</th><th>n</th><th>Wilson {}%</th></tr></thead><tbody>",
        escape(head),
        100.0 * level
    );
    for (key, r) in rows {
        let _ = write!(
            out,
            "<tr data-key=\"{}\" data-passed=\"{}\" data-n=\"{}\"{}><th scope=\"row\">{}</th><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            escape(key),
            r.passed,
            r.total,
            if key == "all" { " class=\"all-row\"" } else { "" },
            escape(key),
            r.pass_at_1.map_or("-".into(), |p| format!("{p:.1}")),
            r.passed,
            r.total,
            percent_span(wilson(r.passed, r.total, level)),
        );
    }
    out.push_str("</tbody></table></div>");
}

/// A cross table: rows by path length, columns by `cols`, "all" last.
fn cross_table<K: Ord + Clone>(
    out: &mut String,
    id: &str,
    scores: &CallPathScores,
    cross: &BTreeMap<String, BTreeMap<K, PassRate>>,
    cols: &[(K, String)],
) {
    let _ = write!(out, "<div class=\"scroll\"><table id=\"{id}\"><thead><tr><th>Path</th>");
    for (_, label) in cols {
        let _ = write!(out, "<th>{}</th>", escape(label));
    }
    out.push_str("<th>all</th></tr></thead><tbody>");
    for (len, all) in &scores.by_path_length {
        let row = cross.get(len);
        let _ = write!(
            out,
            "<tr data-length=\"{}\"><th scope=\"row\">{}</th>",
            escape(len),
            escape(len)
        );
        for (k, _) in cols {
            let _ = write!(out, "<td class=\"num\">{}</td>", cell(row.and_then(|r| r.get(k))));
        }
        let _ = write!(out, "<td class=\"num\">{}</td></tr>", cell(Some(all)));
    }
    out.push_str("</tbody></table></div>");
}

/// What a reply was read as, in words.
fn reading_words(r: &Option<Reading>) -> String {
    match r {
        None => "-".into(),
        Some(Reading::NoPath) => "NO PATH".into(),
        Some(Reading::Path(names)) => names.join(" → "),
    }
}

fn file_section(out: &mut String, i: usize, f: &CallPathScoresFile, level: f64) {
    let s = &f.scores;
    let o = &s.overall;
    let _ = write!(
        out,
        "<section class=\"run\" id=\"run-{i}\" data-model=\"{}\" data-pass=\"{}\"><h2>{}</h2><p>eval_date {}; {}</p>",
        escape(&f.model),
        f.pass_at_1.map_or(String::new(), |p| p.to_string()),
        escape(&f.model),
        escape(&f.eval_date),
        escape(&f.protocol)
    );
    if let Some(d) = &f.dataset_freshness {
        let _ = write!(
            out,
            "<p class=\"provenance\">dataset: sources first released on {} or later</p>",
            escape(d)
        );
    }
    let _ = write!(
        out,
        "<p id=\"run-{i}-pass\"><strong>pass@1 {}</strong> ({} of {} tasks; Wilson {}% interval {}). NO PATH answers: precision {}, recall {} ({} said, {} right, {} no-path tasks).</p>",
        f.pass_at_1.map_or("-".into(), |p| format!("{p:.1}")),
        o.passed,
        o.total,
        100.0 * level,
        percent_span(wilson(o.passed, o.total, level)),
        share(s.no_path.precision),
        share(s.no_path.recall),
        s.no_path.answered,
        s.no_path.right,
        s.no_path.no_path_tasks
    );
    let verdicts: Vec<String> =
        s.verdicts.iter().map(|(k, n)| format!("{} {n}", k.replace('_', " "))).collect();
    let _ = write!(out, "<p>Verdicts: {}.</p>", escape(&verdicts.join(", ")));
    out.push_str("<h3>pass@1 by language</h3>");
    let mut rows: Vec<(String, &PassRate)> =
        s.by_language.iter().map(|(k, r)| (k.clone(), r)).collect();
    rows.push(("all".into(), o));
    rate_table(out, &format!("run-{i}-languages"), "Language", &rows, level);
    out.push_str("<h3>pass@1 by path length and depth spread</h3><p class=\"note\">Rows: calls on the shortest path (none: the no-path tasks). Columns: how far apart the path's functions sit in the window, the spread of their depths.</p>");
    let spreads: Vec<(String, String)> = ["0-25%", "25-50%", "50-75%", "75-100%"]
        .iter()
        .map(|b| (b.to_string(), format!("spread {b}")))
        .collect();
    cross_table(out, &format!("run-{i}-spread"), s, &s.by_path_length_and_spread, &spreads);
    if s.by_context_length.len() > 1 {
        out.push_str("<h3>pass@1 by path length and context length</h3>");
        let lengths: Vec<(usize, String)> =
            s.by_context_length.keys().map(|n| (*n, format!("{n} tokens"))).collect();
        cross_table(out, &format!("run-{i}-lengths"), s, &s.by_path_length_and_context, &lengths);
    }
    let _ = write!(
        out,
        "<h3>Each task</h3><div class=\"scroll\"><table id=\"run-{i}-tasks\"><thead><tr><th>Task</th><th>Calls</th><th>Read as</th><th>Verdict</th></tr></thead><tbody>"
    );
    for r in &f.results {
        let passed = r.verdict.passed();
        let _ = write!(
            out,
            "<tr data-id=\"{}\" data-passed=\"{passed}\"><td><code>{}</code></td><td class=\"num\">{}</td><td>{}</td><td class=\"{}\">{}</td></tr>",
            escape(&r.id),
            escape(&r.id),
            r.path_calls.map_or("none".into(), |c| c.to_string()),
            escape(&reading_words(&r.reading)),
            if passed { "pass" } else { "fail" },
            escape(&verdict_label(&r.verdict))
        );
    }
    out.push_str("</tbody></table></div></section>");
}

/// The report's HTML text.
pub fn render(input: &CallPathReport) -> String {
    let mut out = String::new();
    open_document(&mut out, &input.title);
    let _ = write!(
        out,
        "<h1>{}</h1><dl id=\"settings\"><dt>Task</dt><dd>call paths (NOT UPSTREAM): the shortest chain of calls from one function to another in the repository's static call graph, or NO PATH</dd><dt>Pass rule</dt><dd>a path of the graph from the source to the target of the shortest length (any shortest path), or NO PATH where there is none</dd><dt>Intervals</dt><dd>{}% Wilson score, by task</dd><dt>Written by</dt><dd data-tool=\"{}\">{}</dd>",
        escape(&input.title),
        100.0 * input.level,
        escape(TOOL),
        escape(TOOL)
    );
    input_rows(&mut out, &input.inputs);
    out.push_str("</dl><p class=\"note\">Every number is the SCORES files' own (repoqa verify checks them against the results, and the results against the replies judged again).</p>");
    for (i, f) in input.files.iter().enumerate() {
        file_section(&mut out, i, f, input.level);
    }
    for (i, l) in ladders(input.files).iter().enumerate().filter(|(_, l)| l.lengths.len() > 1) {
        let _ = write!(
            out,
            "<section class=\"ladder\" id=\"ladder-{i}\" data-model=\"{}\"><h2>{}: pass@1 by path length and context length</h2>",
            escape(&l.model),
            escape(&l.model)
        );
        let lengths: Vec<(usize, String)> =
            l.lengths.iter().map(|n| (*n, format!("{n} tokens"))).collect();
        cross_table(
            &mut out,
            &format!("ladder-{i}-table"),
            &l.scores,
            &l.scores.by_path_length_and_context,
            &lengths,
        );
        out.push_str("</section>");
    }
    let pairs = remembering(input.files);
    if !pairs.is_empty() {
        out.push_str("<section id=\"memorized\"><h2>Is the model remembering?</h2><p class=\"note\">Each model's call-path run with the code beside its closed-book run (the same tasks with no code in the prompt), over the tasks both answered. The memorized share is the share of them passed with no code.</p><div class=\"scroll\"><table class=\"memorized\"><thead><tr><th>Model</th><th>pass@1 with the code</th><th>closed-book: the memorized share</th><th>passed only with the code</th><th>passed only without</th><th>McNemar p</th><th>tasks</th></tr></thead><tbody>");
        for m in &pairs {
            let _ = write!(
                out,
                "<tr data-model=\"{}\" data-share=\"{}\" data-p=\"{}\"><th scope=\"row\">{}</th><td class=\"num\">{:.1}</td><td class=\"num quote\">{:.1}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{:.4}</td><td class=\"num\">{}</td></tr>",
                escape(&m.model),
                m.share(),
                m.mcnemar_p(),
                escape(&m.model),
                100.0 * m.open_pass(),
                100.0 * m.share(),
                m.only_open,
                m.only_closed,
                m.mcnemar_p(),
                m.tasks()
            );
        }
        out.push_str("</tbody></table></div></section>");
    }
    out.push_str("</body></html>\n");
    out
}
