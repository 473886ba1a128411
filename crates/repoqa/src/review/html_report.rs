//! A portable report: one self-contained HTML file that needs no network
//! and no script to read — the official pass@1 table of each run, its
//! pass@1 with Wilson and bootstrap intervals (`evidence`), inline SVG
//! charts (by language with error bars, by needle depth with counts), the
//! settings and the SHA-256 of every input that produced it, the tool's
//! version; for two runs, the paired comparison (`compare`) and the tasks
//! that flipped; for a model at several code-context lengths (`ladder`),
//! pass@1 by length and the needle depth × length heatmap, each cell its
//! rate with passed of n. `repoqa report` writes it; the app exports the
//! same bytes.
//!
//! Everything from a file (model names, repositories, needles) is escaped;
//! a Content-Security-Policy forbids scripts and every request.

use std::fmt::Write as _;

use crate::python::json::float_repr;
use crate::report::{ModelScores, Protocol};
use crate::review::bootstrap::Resampling;
use crate::review::compare::{DifferenceIntervals, Paired};
use crate::review::evidence::{
    bounds_repr, evidence, percent_span, points, points_span, EvidenceTable,
};
use crate::review::leaderboard::fmt_threshold;
use crate::review::memorized::{closed_book_pairs, Memorized};
use crate::scoring::breakdown::{breakdown, depth_bin_label, DEPTH_BINS};
use crate::scoring::score::THRESHOLD_KEYS;

/// The tool that wrote a report.
pub const TOOL: &str = concat!("RepoQA Web ", env!("CARGO_PKG_VERSION"));

/// One run in the report.
pub struct ReportRun<'a> {
    pub model: String,
    pub scores: &'a ModelScores,
}

/// What a report holds.
pub struct ReportInput<'a> {
    pub title: String,
    pub threshold: f64,
    pub resampling: Resampling,
    pub runs: Vec<ReportRun<'a>>,
    /// Each input file: its name and the SHA-256 of its bytes (SCORES
    /// files, and the dataset or tokenizer when given).
    pub inputs: Vec<(String, String)>,
    /// The first two runs compared, when asked (and on the same tasks).
    pub paired: Option<Paired>,
    /// Why the runs were not compared, when that was asked and refused.
    pub paired_error: Option<String>,
    /// Models run at several code-context lengths (`ladder`): each gets
    /// pass@1 by length and the needle depth × length heatmap.
    pub ladders: Vec<crate::review::ladder::Ladder>,
}

/// The title when none is given: the models' names.
pub fn default_title(models: &[&str]) -> String {
    format!("RepoQA SNF report: {}", models.join(", "))
}

/// How an input is named in a report: its kind and the file's name
/// without folders (the app knows no more than that, so both fronts agree).
pub fn input_label(kind: &str, path: &str) -> String {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    format!("{kind} {name}")
}

/// Text safe in HTML content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font:15px/1.45 system-ui,sans-serif;color:#1d2330;background:#fff;max-width:1100px;margin:0 auto;padding:16px}\
h1{font-size:24px}h2{font-size:20px;margin-top:32px;border-top:1px solid #dde1e8;padding-top:16px}h3{font-size:16px}\
table{border-collapse:collapse;margin:8px 0;font-variant-numeric:tabular-nums}th,td{border-bottom:1px solid #dde1e8;padding:3px 8px;text-align:left}\
td.num{text-align:right;white-space:nowrap}tr.all-row{background:#fffbe6;font-weight:600}.quote{font-weight:600}\
.note{color:#5b6475;font-size:13px}.scroll{overflow-x:auto}code{font-size:13px;overflow-wrap:anywhere}\
dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px}dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere}\
svg{max-width:100%;height:auto}.fail{color:#b42318}.pass{color:#1a7f37}";

fn evidence_rows(out: &mut String, table: &EvidenceTable) {
    for row in &table.rows {
        let (wl, wh) = bounds_repr(row.wilson);
        let (tl, th) = bounds_repr(row.by_task);
        let (rl, rh) = bounds_repr(row.by_repo);
        let all = row.name == "all";
        let _ = write!(
            out,
            "<tr data-row=\"{}\"{} data-pass=\"{}\" data-passed=\"{}\" data-n=\"{}\" data-wilson-low=\"{wl}\" data-wilson-high=\"{wh}\" data-task-low=\"{tl}\" data-task-high=\"{th}\" data-repo-low=\"{rl}\" data-repo-high=\"{rh}\"><th scope=\"row\">{}</th><td class=\"num\">{:.1}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num quote\">{}</td></tr>",
            escape(&row.name),
            if all { " class=\"all-row\"" } else { "" },
            float_repr(row.pass()),
            row.passed,
            row.n,
            if all { "all languages".to_string() } else { escape(&row.name) },
            100.0 * row.pass(),
            row.n,
            percent_span(row.wilson),
            percent_span(row.by_task),
            percent_span(row.by_repo),
        );
    }
}

fn official_table(out: &mut String, scores: &ModelScores) {
    let Some(rows) = scores.scores.as_object() else { return };
    out.push_str("<div class=\"scroll\"><table class=\"official\"><caption>pass@1 (%) at each threshold, as the SCORES file holds it</caption><thead><tr><th>Threshold</th>");
    for k in THRESHOLD_KEYS {
        let _ = write!(out, "<th>{k}</th>");
    }
    out.push_str("</tr></thead><tbody>");
    for (row, cells) in rows {
        let label = if row == "all" { "all languages".to_string() } else { escape(row) };
        let _ = write!(out, "<tr data-row=\"{}\"><th scope=\"row\">{label}</th>", escape(row));
        for k in THRESHOLD_KEYS {
            let v = cells.get(k).and_then(|c| c.get("pass@1")).and_then(|v| v.as_f64());
            match v {
                Some(v) => {
                    let _ = write!(
                        out,
                        "<td class=\"num\" data-threshold=\"{k}\" data-value=\"{}\">{:.1}</td>",
                        float_repr(v),
                        100.0 * v
                    );
                }
                None => out.push_str("<td class=\"num\">–</td>"),
            }
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table></div>");
}

/// Horizontal bars of each row's pass@1 with its repository interval (the
/// Wilson one where a language has a single repository) as error bars.
fn language_chart(out: &mut String, table: &EvidenceTable) {
    let (left, width, row_h) = (130.0, 420.0, 26.0);
    let h = 30.0 + row_h * table.rows.len() as f64;
    let _ = write!(
        out,
        "<svg role=\"img\" aria-label=\"pass@1 by language with intervals\" viewBox=\"0 0 {} {h}\" width=\"{}\" height=\"{h}\" xmlns=\"http://www.w3.org/2000/svg\" font-size=\"12\" font-family=\"system-ui,sans-serif\">",
        left + width + 80.0,
        left + width + 80.0
    );
    for t in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let x = left + width * t;
        let _ = write!(
            out,
            "<line x1=\"{x}\" y1=\"18\" x2=\"{x}\" y2=\"{}\" stroke=\"#dde1e8\"/><text x=\"{x}\" y=\"12\" text-anchor=\"middle\" fill=\"#5b6475\">{}%</text>",
            h - 6.0,
            (t * 100.0) as u32
        );
    }
    for (i, row) in table.rows.iter().enumerate() {
        let y = 24.0 + row_h * i as f64;
        let bar = width * row.pass();
        let (interval, kind) = match row.by_repo {
            Some(i) => (Some(i), "by repository"),
            None => (row.wilson, "Wilson"),
        };
        let label = if row.name == "all" { "all languages" } else { row.name.as_str() };
        let tip = format!(
            "{label}: {:.1}% ({} of {}); {}% CI {kind} {}",
            100.0 * row.pass(),
            row.passed,
            row.n,
            100.0 * table.resampling.level,
            percent_span(interval)
        );
        let _ = write!(
            out,
            "<g><title>{}</title><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text><rect x=\"{left}\" y=\"{y}\" width=\"{bar:.2}\" height=\"16\" fill=\"{}\"/>",
            escape(&tip),
            left - 8.0,
            y + 12.0,
            escape(label),
            if row.name == "all" { "#2f5fd0" } else { "#8aa4e6" }
        );
        if let Some(i) = interval {
            let (x1, x2, ym) = (left + width * i.low, left + width * i.high, y + 8.0);
            let _ = write!(
                out,
                "<path d=\"M{x1:.2} {ym}H{x2:.2}M{x1:.2} {}V{}M{x2:.2} {}V{}\" stroke=\"#1d2330\" stroke-width=\"1.5\" fill=\"none\"/>",
                ym - 5.0,
                ym + 5.0,
                ym - 5.0,
                ym + 5.0
            );
        }
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{}\">{:.1}%</text></g>",
            left + width + 8.0,
            y + 12.0,
            100.0 * row.pass()
        );
    }
    out.push_str("</svg>");
}

/// Columns of pass@1 by needle depth over all languages, with Wilson
/// error bars and each bin's count.
fn depth_chart(out: &mut String, scores: &ModelScores, threshold: f64, level: f64) {
    let Some(all) = breakdown(&scores.results, threshold).into_iter().next() else { return };
    let (left, top, w, h) = (40.0, 14.0, 52.0, 160.0);
    let _ = write!(
        out,
        "<svg role=\"img\" aria-label=\"pass@1 by needle depth\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" font-size=\"11\" font-family=\"system-ui,sans-serif\">",
        left + w * DEPTH_BINS as f64 + 10.0,
        top + h + 40.0,
        left + w * DEPTH_BINS as f64 + 10.0,
        top + h + 40.0
    );
    for t in [0.0, 0.5, 1.0] {
        let y = top + h * (1.0 - t);
        let _ = write!(
            out,
            "<line x1=\"{left}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#dde1e8\"/><text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#5b6475\">{}%</text>",
            left + w * DEPTH_BINS as f64,
            left - 4.0,
            y + 4.0,
            (t * 100.0) as u32
        );
    }
    for (bin, count) in all.by_depth.iter().enumerate() {
        let x = left + w * bin as f64;
        let label = depth_bin_label(bin);
        let Some(rate) = count.rate() else {
            let _ = write!(
                out,
                "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#5b6475\">{label}</text>",
                x + w / 2.0,
                top + h + 16.0
            );
            continue;
        };
        let ci = crate::review::stats::wilson(count.passed, count.n, level);
        let bar = h * rate;
        let _ = write!(
            out,
            "<g data-bin=\"{bin}\" data-passed=\"{}\" data-n=\"{}\"><title>depth {label}: {:.1}% ({} of {}); {}% Wilson {}</title><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{bar:.2}\" fill=\"#8aa4e6\"/>",
            count.passed,
            count.n,
            100.0 * rate,
            count.passed,
            count.n,
            100.0 * level,
            percent_span(ci),
            x + 6.0,
            top + h - bar,
            w - 12.0
        );
        if let Some(i) = ci {
            let (y1, y2, xm) = (top + h * (1.0 - i.high), top + h * (1.0 - i.low), x + w / 2.0);
            let _ = write!(
                out,
                "<path d=\"M{xm} {y1:.2}V{y2:.2}M{} {y1:.2}H{}M{} {y2:.2}H{}\" stroke=\"#1d2330\" stroke-width=\"1.5\" fill=\"none\"/>",
                xm - 5.0,
                xm + 5.0,
                xm - 5.0,
                xm + 5.0
            );
        }
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#5b6475\">{label}</text><text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#5b6475\">n={}</text></g>",
            x + w / 2.0,
            top + h + 16.0,
            x + w / 2.0,
            top + h + 30.0,
            count.n
        );
    }
    out.push_str("</svg>");
}

/// What a run's SCORES file says of its tasks beyond the official fields:
/// closed-book, the dataset's freshness, the stated training cutoff (and a
/// warning when the cutoff is not before the freshness). Nothing for an
/// official file.
fn provenance(out: &mut String, scores: &ModelScores) {
    let mut said = Vec::new();
    if scores.protocol == Protocol::NoContext {
        said.push("closed-book: no code in the prompts (the no-context control)".to_string());
    }
    if let Some(d) = &scores.dataset_freshness {
        said.push(format!("dataset: sources first released on {d} or later"));
    }
    if let Some(c) = &scores.model_cutoff {
        said.push(format!("stated training cutoff {c}"));
    }
    if !said.is_empty() {
        let _ = write!(out, "<p class=\"provenance\">{}</p>", escape(&said.join("; ")));
    }
    if scores.cutoff_after_freshness() {
        let _ = write!(
            out,
            "<p class=\"fail\">The stated training cutoff is on or after the dataset's freshness: the model may have been trained on some of these sources.</p>"
        );
    }
}

fn run_section(out: &mut String, i: usize, run: &ReportRun, input: &ReportInput) {
    let table = evidence(&run.scores.results, input.threshold, input.resampling);
    let r = input.resampling;
    let _ = write!(
        out,
        "<section class=\"run\" id=\"run-{i}\" data-model=\"{}\"><h2>{}</h2><p>eval_date {}; train_size {}</p>",
        escape(&run.model),
        escape(&run.model),
        escape(&run.scores.eval_date),
        escape(&run.scores.train_size)
    );
    if let Some(u) = &run.scores.unanswered {
        let _ = write!(out, "<p class=\"fail\">{}</p>", escape(&u.label()));
    }
    provenance(out, run.scores);
    official_table(out, run.scores);
    let _ = write!(
        out,
        "<h3>pass@1 at threshold {} with {}% intervals</h3><div class=\"scroll\"><table class=\"evidence\" data-threshold=\"{}\" data-level=\"{}\" data-resamples=\"{}\" data-seed=\"{}\"><thead><tr><th>Language</th><th>pass@1</th><th>n</th><th>Wilson</th><th>by task</th><th>by repository</th></tr></thead><tbody>",
        fmt_threshold(input.threshold),
        100.0 * r.level,
        fmt_threshold(input.threshold),
        r.level,
        r.resamples,
        r.seed
    );
    evidence_rows(out, &table);
    out.push_str("</tbody></table></div>");
    language_chart(out, &table);
    out.push_str("<h3>pass@1 by needle depth (all languages)</h3>");
    depth_chart(out, run.scores, input.threshold, r.level);
    out.push_str("</section>");
}

/// Each model's run with the code beside its closed-book run
/// (`memorized`): the memorized share and McNemar's test.
fn memorized_section(
    out: &mut String,
    pairs: &[Result<Memorized, (String, String)>],
    threshold: f64,
) {
    let _ = write!(
        out,
        "<section id=\"memorized\"><h2>Is the model remembering?</h2><p class=\"note\">Each model's run with the code beside its closed-book run (NOT UPSTREAM: the no-context control, the same tasks with the instruction and the description only, no code), at threshold {}. The memorized share is the share of the tasks passed with no code.</p><div class=\"scroll\"><table class=\"memorized\"><thead><tr><th>Model</th><th>pass@1 with the code</th><th>closed-book: the memorized share</th><th>passes with the code also passed without</th><th>passed only with the code</th><th>passed only without</th><th>McNemar p</th></tr></thead><tbody>",
        fmt_threshold(threshold)
    );
    let mut failed = Vec::new();
    for p in pairs {
        let m = match p {
            Ok(m) => m,
            Err(e) => {
                failed.push(e);
                continue;
            }
        };
        let c = &m.paired.all;
        let _ = write!(
            out,
            "<tr data-model=\"{}\" data-open=\"{}\" data-share=\"{}\" data-both=\"{}\" data-only-open=\"{}\" data-only-closed=\"{}\" data-p=\"{}\"><th scope=\"row\">{}<br><span class=\"note\">{}</span></th><td class=\"num\">{:.1}</td><td class=\"num quote\">{:.1}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{:.4}</td></tr>",
            escape(&m.model),
            float_repr(m.open_pass()),
            float_repr(m.share()),
            c.both,
            c.only_a,
            c.only_b,
            float_repr(c.mcnemar_p()),
            escape(&m.model),
            escape(m.open_label),
            100.0 * m.open_pass(),
            100.0 * m.share(),
            m.of_open_passes().map_or("-".to_string(), |x| format!("{} of {} ({:.1}%)", c.both, c.both + c.only_a, 100.0 * x)),
            c.only_a,
            c.only_b,
            c.mcnemar_p()
        );
    }
    out.push_str("</tbody></table></div>");
    for (model, why) in failed {
        let _ = write!(
            out,
            "<p class=\"fail\">{}: its two runs were not compared: {}</p>",
            escape(model),
            escape(why)
        );
    }
    out.push_str("</section>");
}

fn paired_section(out: &mut String, p: &Paired, ci: &DifferenceIntervals, a: &str, b: &str) {
    let _ = write!(
        out,
        "<section id=\"paired\"><h2>A = {}, B = {}: task by task</h2><div class=\"scroll\"><table class=\"paired\"><thead><tr><th>Language</th><th>both</th><th>only A</th><th>only B</th><th>neither</th><th>McNemar p</th><th>A − B (points)</th><th>CI by task</th><th>by repository</th></tr></thead><tbody>",
        escape(a),
        escape(b)
    );
    let mut row = |name: &str, c: &crate::review::compare::Counts, lang: Option<&str>| {
        let (tl, th) = bounds_repr(ci.tasks.get(lang));
        let (rl, rh) = bounds_repr(ci.repos.get(lang));
        let _ = write!(
            out,
            "<tr data-row=\"{}\"{} data-both=\"{}\" data-only-a=\"{}\" data-only-b=\"{}\" data-neither=\"{}\" data-p=\"{}\" data-difference=\"{}\" data-task-low=\"{tl}\" data-task-high=\"{th}\" data-repo-low=\"{rl}\" data-repo-high=\"{rh}\"><th scope=\"row\">{}</th><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{:.4}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num quote\">{}</td></tr>",
            escape(name),
            if name == "all" { " class=\"all-row\"" } else { "" },
            c.both,
            c.only_a,
            c.only_b,
            c.neither,
            float_repr(c.mcnemar_p()),
            float_repr(c.difference()),
            if name == "all" { "all languages".to_string() } else { escape(name) },
            c.both,
            c.only_a,
            c.only_b,
            c.neither,
            c.mcnemar_p(),
            points(c.difference()),
            points_span(ci.tasks.get(lang)),
            points_span(ci.repos.get(lang)),
        );
    };
    row("all", &p.all, None);
    for (l, c) in &p.languages {
        row(l, c, Some(l));
    }
    let pv = p.all.mcnemar_p();
    let verdict = if pv < 0.05 {
        "the runs differ at the 0.05 level"
    } else {
        "no difference at the 0.05 level: the gap is within the noise of these tasks"
    };
    let _ = write!(
        out,
        "</tbody></table></div><p id=\"verdict\">McNemar's exact test: p = {pv:.4}; {verdict}. The repository interval of A − B: {}.</p><h3>{} task(s) flipped</h3>",
        points_span(ci.repos.all),
        p.flipped.len()
    );
    if !p.flipped.is_empty() {
        out.push_str("<div class=\"scroll\"><table class=\"flipped\"><thead><tr><th>Language</th><th>Repo</th><th>Needle</th><th>Depth</th><th>Passed by</th><th>Similarity A</th><th>Closest A</th><th>Similarity B</th><th>Closest B</th></tr></thead><tbody>");
        for f in &p.flipped {
            let target = |t: &Option<String>| {
                t.as_deref()
                    .map(|t| format!("<code>{}</code>", escape(t)))
                    .unwrap_or_else(|| "nothing".into())
            };
            let _ = write!(
                out,
                "<tr class=\"flip\" data-language=\"{}\" data-repo=\"{}\" data-name=\"{}\" data-a=\"{}\" data-b=\"{}\"><td>{}</td><td>{}</td><td><code>{}</code></td><td class=\"num\">{:.0}%</td><td>{}</td><td class=\"num\">{:.4}</td><td>{}</td><td class=\"num\">{:.4}</td><td>{}</td></tr>",
                escape(&f.language),
                escape(&f.repo),
                escape(&f.name),
                f.a,
                f.b,
                escape(&f.language),
                escape(&f.repo),
                escape(&f.name),
                100.0 * f.depth(),
                if f.a { "A only" } else { "B only" },
                f.a_similarity,
                target(&f.a_target),
                f.b_similarity,
                target(&f.b_target),
            );
        }
        out.push_str("</tbody></table></div>");
    }
    out.push_str("</section>");
}

/// The colour of a pass rate in the heatmap: from a light red (0) to a
/// light green (1), dark text readable on every cell.
fn heat(rate: f64) -> String {
    let r = rate.clamp(0.0, 1.0);
    let mix = |a: f64, b: f64| (a + (b - a) * r).round() as u8;
    format!("#{:02x}{:02x}{:02x}", mix(255.0, 190.0), mix(205.0, 235.0), mix(200.0, 195.0))
}

/// A file's folder and name (`ntoken_4096/m-SCORES.json`): a ladder's
/// files share their names.
fn last_two(path: &str) -> String {
    let parts: Vec<&str> = path.rsplit(['/', '\\']).take(2).collect();
    parts.into_iter().rev().collect::<Vec<_>>().join("/")
}

/// A length's attributes, read by tests and tools: its tokens and pass@1.
fn rung_attrs(r: &crate::review::ladder::Rung) -> String {
    format!("data-ntoken=\"{}\" data-pass=\"{}\"", r.ntoken, float_repr(r.pass()))
}

/// pass@1 by length as a line (lengths on a log2 axis), with the
/// interval by repository as error bars.
fn length_chart(out: &mut String, l: &crate::review::ladder::Ladder) {
    let (left, top, w, h) = (40.0, 14.0, 560.0, 160.0);
    let logs: Vec<f64> = l.rungs.iter().map(|r| (r.ntoken as f64).log2()).collect();
    let (lo, hi) = logs.iter().fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
    let span = if hi > lo { hi - lo } else { 1.0 };
    let x_of = |v: f64| left + 20.0 + (w - 40.0) * (v - lo) / span;
    let y_of = |rate: f64| top + h * (1.0 - rate);
    let _ = write!(
        out,
        "<svg role=\"img\" aria-label=\"pass@1 by code-context length\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" xmlns=\"http://www.w3.org/2000/svg\" font-size=\"11\" font-family=\"system-ui,sans-serif\">",
        left + w + 10.0,
        top + h + 40.0
    );
    for t in [0.0, 0.5, 1.0] {
        let _ = write!(
            out,
            "<line x1=\"{left}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#dde1e8\"/><text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#5b6475\">{}%</text>",
            left + w,
            left - 4.0,
            y_of(t) + 4.0,
            (t * 100.0) as u32,
            y = y_of(t)
        );
    }
    let points: Vec<String> = l
        .rungs
        .iter()
        .zip(&logs)
        .map(|(r, v)| format!("{:.2},{:.2}", x_of(*v), y_of(r.pass())))
        .collect();
    let _ = write!(
        out,
        "<polyline points=\"{}\" fill=\"none\" stroke=\"#2f5fd0\" stroke-width=\"2\"/>",
        points.join(" ")
    );
    for (r, v) in l.rungs.iter().zip(&logs) {
        let (x, y) = (x_of(*v), y_of(r.pass()));
        let _ = write!(
            out,
            "<g {}><title>{} tokens: {:.1}% ({} of {}); by repository {}</title>",
            rung_attrs(r),
            r.ntoken,
            100.0 * r.pass(),
            r.all.passed,
            r.all.n,
            percent_span(r.all.by_repo)
        );
        if let Some(i) = r.all.by_repo {
            let _ = write!(
                out,
                "<path d=\"M{x:.2} {:.2}V{:.2}\" stroke=\"#1d2330\" stroke-width=\"1.5\"/>",
                y_of(i.high),
                y_of(i.low)
            );
        }
        let _ = write!(
            out,
            "<circle cx=\"{x:.2}\" cy=\"{y:.2}\" r=\"4\" fill=\"#2f5fd0\"/><text x=\"{x:.2}\" y=\"{}\" text-anchor=\"middle\" fill=\"#5b6475\">{}</text></g>",
            top + h + 16.0,
            r.ntoken
        );
    }
    let _ = write!(
        out,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#5b6475\">code-context length (tokens)</text></svg>",
        left + w / 2.0,
        top + h + 34.0
    );
}

/// A model at several lengths: pass@1 by length (table and line), the
/// needle depth × length heatmap (a table: each cell its rate, passed of
/// n, coloured), and the effective length with its rule.
fn ladder_section(out: &mut String, i: usize, l: &crate::review::ladder::Ladder) {
    let _ = write!(
        out,
        "<section class=\"ladder\" id=\"ladder-{i}\" data-model=\"{}\" data-effective=\"{}\"><h2>{} by code-context length</h2>",
        escape(&l.model),
        l.effective.map_or(String::new(), |n| n.to_string()),
        escape(&l.model)
    );
    let _ = write!(
        out,
        "<h3>pass@1 at threshold {} by length</h3><div class=\"scroll\"><table class=\"ladder-lengths\"><thead><tr><th>Tokens</th><th>pass@1</th><th>n</th><th>by repository</th><th>SCORES file</th></tr></thead><tbody>",
        fmt_threshold(l.threshold)
    );
    for r in &l.rungs {
        let _ = write!(
            out,
            "<tr {}><td class=\"num\">{}</td><td class=\"num\">{:.1}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td><code>{}</code></td></tr>",
            rung_attrs(r),
            r.ntoken,
            100.0 * r.pass(),
            r.all.n,
            percent_span(r.all.by_repo),
            escape(&last_two(&r.source))
        );
    }
    out.push_str("</tbody></table></div>");
    length_chart(out, l);
    out.push_str("<h3>Needle depth × length (pass@1 %)</h3><div class=\"scroll\"><table class=\"heatmap\"><thead><tr><th>Tokens</th>");
    for b in 0..DEPTH_BINS {
        let _ = write!(out, "<th>{}</th>", depth_bin_label(b));
    }
    out.push_str("</tr></thead><tbody>");
    for r in &l.rungs {
        let _ = write!(out, "<tr data-ntoken=\"{}\"><th scope=\"row\">{}</th>", r.ntoken, r.ntoken);
        for (b, c) in r.by_depth.iter().enumerate() {
            match c.rate() {
                Some(rate) => {
                    let _ = write!(
                        out,
                        "<td class=\"num\" data-bin=\"{b}\" data-passed=\"{}\" data-n=\"{}\" style=\"background:{}\" title=\"{} tokens, depth {}: {} of {}\">{:.0}</td>",
                        c.passed,
                        c.n,
                        heat(rate),
                        r.ntoken,
                        depth_bin_label(b),
                        c.passed,
                        c.n,
                        100.0 * rate
                    );
                }
                None => {
                    let _ = write!(out, "<td class=\"num\" data-bin=\"{b}\" data-n=\"0\">-</td>");
                }
            }
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table></div>");
    depth_grid(out, l);
    let rule = match (l.effective, l.rungs.first()) {
        (Some(n), Some(b)) => format!(
            "Effective context length: {n} tokens — every length up to it keeps at least {:.0}% of the {}-token pass@1 ({:.1}%).",
            100.0 * l.fraction,
            b.ntoken,
            100.0 * b.pass()
        ),
        (None, Some(b)) if l.rungs.len() > 1 => format!(
            "Effective context length: none above {} tokens — the next length keeps less than {:.0}% of its pass@1 ({:.1}%).",
            b.ntoken,
            100.0 * l.fraction,
            100.0 * b.pass()
        ),
        _ => "One length only: no effective length to find; the depth grid compares its depths."
            .to_string(),
    };
    let _ = write!(out, "<p class=\"effective\">{}</p></section>", escape(&rule));
}

/// A depth grid's table (NOT UPSTREAM, `repoqa run --depths`): a row per
/// depth, a column per length, each cell one SCORES file's pass@1,
/// coloured as the heatmap; nothing without a grid.
fn depth_grid(out: &mut String, l: &crate::review::ladder::Ladder) {
    if l.grid.is_empty() {
        return;
    }
    let (depths, lengths) = l.grid_axes();
    out.push_str("<h3>Depth grid (NOT UPSTREAM, <code>--depths</code>: every needle at each depth), pass@1 %</h3><div class=\"scroll\"><table class=\"heatmap depth-grid\"><thead><tr><th>Depth</th>");
    for n in &lengths {
        let _ = write!(out, "<th>{n}</th>");
    }
    out.push_str("</tr></thead><tbody>");
    for d in depths {
        let _ = write!(out, "<tr><th scope=\"row\">{:.0}%</th>", 100.0 * d);
        for n in &lengths {
            match l.grid_cell(d, *n).and_then(|c| c.count.rate().map(|r| (r, c))) {
                Some((rate, c)) => {
                    let _ = write!(
                        out,
                        "<td class=\"num\" data-depth=\"{}\" data-ntoken=\"{n}\" data-pass=\"{}\" data-passed=\"{}\" data-n=\"{}\" style=\"background:{}\" title=\"{}: {} of {}\">{:.0}</td>",
                        float_repr(d),
                        float_repr(rate),
                        c.count.passed,
                        c.count.n,
                        heat(rate),
                        escape(&last_two(&c.source)),
                        c.count.passed,
                        c.count.n,
                        100.0 * rate
                    );
                }
                None => out.push_str("<td class=\"num\">-</td>"),
            }
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table></div>");
}

/// A report's start, to `<body>`: its title, and a Content-Security-Policy
/// that forbids scripts and every request (the style is inline).
pub fn open_document(out: &mut String, title: &str) {
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\"><title>{}</title><style>{STYLE}</style></head><body>",
        escape(title)
    );
}

/// The settings list's input lines: each file's name and SHA-256.
pub fn input_rows(out: &mut String, inputs: &[(String, String)]) {
    for (name, sha) in inputs {
        let _ = write!(
            out,
            "<dt>Input</dt><dd><code>{}</code> SHA-256 <code class=\"sha256\">{}</code></dd>",
            escape(name),
            escape(sha)
        );
    }
}

/// The report's HTML text.
pub fn render(input: &ReportInput) -> String {
    let r = input.resampling;
    let mut out = String::new();
    open_document(&mut out, &input.title);
    let _ = write!(
        out,
        "<h1>{}</h1><dl id=\"settings\"><dt>Pass rule</dt><dd>the best target is the needle and its similarity is at least {}</dd><dt>Intervals</dt><dd>{}% Wilson score; percentile bootstrap by task and by repository, stratified by language, {} resamples, seed {}</dd><dt>Written by</dt><dd data-tool=\"{}\">{}</dd>",
        escape(&input.title),
        fmt_threshold(input.threshold),
        100.0 * r.level,
        r.resamples,
        r.seed,
        escape(TOOL),
        escape(TOOL)
    );
    input_rows(&mut out, &input.inputs);
    out.push_str("</dl><p class=\"note\">Quote the repository interval: a repository's needles come from one code base, so its tasks are not independent and the task-based intervals are too narrow. A language with one repository has none (-). The official table is the SCORES file's own; every other number is recomputed from its per-task records.</p>");
    for (i, run) in input.runs.iter().enumerate() {
        run_section(&mut out, i, run, input);
    }
    let memorized =
        closed_book_pairs(input.runs.iter().map(|r| (r.model.as_str(), r.scores)), input.threshold);
    if !memorized.is_empty() {
        memorized_section(&mut out, &memorized, input.threshold);
    }
    if let (Some(p), [a, b, ..]) = (&input.paired, input.runs.as_slice()) {
        let ci = p.intervals(r);
        paired_section(&mut out, p, &ci, &a.model, &b.model);
    }
    for (i, l) in input.ladders.iter().enumerate() {
        ladder_section(&mut out, i, l);
    }
    if let Some(e) = &input.paired_error {
        let _ = write!(
            out,
            "<section id=\"paired\"><h2>Task by task</h2><p class=\"fail\">{}</p></section>",
            escape(e)
        );
    }
    out.push_str("</body></html>\n");
    out
}
