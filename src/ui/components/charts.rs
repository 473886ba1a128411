//! The result charts, drawn as SVG by Leptos itself, with SVG / PNG export.
//!
//! Why no JavaScript chart library: the app is one wasm bundle built
//! offline by Trunk with no npm step; the charts are four small, fixed
//! layouts whose numbers come straight from `repoqa::scoring::breakdown` (so they
//! cannot disagree with the SCORES file); and plain SVG elements let us
//! give every point, bar and cell a keyboard focus, an `aria-label`, a
//! `<title>` tooltip and `data-*` attributes the browser tests count. A
//! library would add a second rendering model, a bundle-size cost and
//! canvas output that screen readers cannot read.
//!
//! Styles are attributes on the elements (not CSS classes) so an exported
//! SVG, or the PNG drawn from it on an offscreen canvas, looks the same as
//! on the page.

use leptos::prelude::*;
use repoqa::review::ladder::Ladder;
use repoqa::review::stats::wilson;
use repoqa::scoring::breakdown::{depth_bin_label, Count, Series, DEPTH_BINS};
use repoqa::scoring::score::THRESHOLD_KEYS;
use wasm_bindgen::{JsCast, JsValue};

use crate::ui::browser::download::{download_text, download_url};
use crate::ui::error::UiError;
use crate::ui::format::thousands;

const W: f64 = 640.0;
const H: f64 = 300.0;
/// Plot area margins: left, right, top, bottom.
const ML: f64 = 48.0;
const MR: f64 = 120.0;
const MT: f64 = 16.0;
const MB: f64 = 40.0;
const FONT: &str = "system-ui, sans-serif";

/// The depth charts' x axis: what is plotted is each task's
/// `position_ratio` (the SCORES file's `needle_position`), binned by tenths.
const DEPTH_AXIS: &str = "needle position ratio bin (%)";

/// What the depth axis is, and is not.
const DEPTH_NOTE: &str = "Depth is each task's position ratio (upstream's needle_position): the builder aims the needle's middle at that share of the token budget. Where the needle sits in the prompt can differ: by half the needle's length, and by much more when the repository has less code than the budget (as in the demo's short contexts).";

/// Series colours: Okabe–Ito's seven (distinguishable with colour
/// blindness), then five of Paul Tol's, so that twelve series never share a
/// colour; `all` is drawn in near-black and thicker.
const PALETTE: [&str; 12] = [
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#8a7a00", "#332288",
    "#882255", "#44AA99", "#999933", "#AA4499",
];

/// `name` cut to `max` characters with an ellipsis (the full name is in the
/// element's tooltip and accessible name).
fn fit(name: &str, max: usize) -> String {
    if name.chars().count() <= max {
        name.to_string()
    } else {
        let mut s: String = name.chars().take(max.saturating_sub(1)).collect();
        s.push('…');
        s
    }
}

fn colour(i: usize, name: &str) -> &'static str {
    if name == "all" {
        "#1d2330"
    } else {
        PALETTE[i % PALETTE.len()]
    }
}

fn pct(v: f64) -> String {
    format!("{:.1}%", 100.0 * v)
}

/// "7 of 10 passed (70.0%; 95% CI 39.7%–89.2%, Wilson)": the count, the
/// rate and its interval (`repoqa::review::stats::wilson`).
fn count_text(c: Count) -> String {
    match c.rate() {
        Some(r) => {
            let ci = wilson(c.passed, c.n, 0.95)
                .map(|i| format!("; 95% CI {}–{}, Wilson", pct(i.low), pct(i.high)))
                .unwrap_or_default();
            format!("{} of {} passed ({}{ci})", c.passed, c.n, pct(r))
        }
        None => "no tasks".to_string(),
    }
}

/// The four charts for a breakdown (`series[0]` is `all`), with a row of
/// checkboxes that shows or hides each series (`hidden` holds the names
/// hidden; the caller keeps it so the choice survives a re-score). A
/// series keeps its colour whatever else is hidden.
#[component]
pub fn Charts(
    series: Vec<Series>,
    threshold: f64,
    hidden: RwSignal<Vec<String>>,
    /// What a series is: "language" on Results, "model" on the Leaderboard.
    #[prop(default = "language")]
    rows: &'static str,
) -> impl IntoView {
    let toggles = series
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let (shown_name, flip_name) = (s.name.clone(), s.name.clone());
            view! {
                <label class="series-toggle">
                    <input type="checkbox" data-series=s.name.clone()
                        prop:checked=move || !hidden.with(|h| h.contains(&shown_name))
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            hidden.update(|h| {
                                h.retain(|x| x != &flip_name);
                                if !on {
                                    h.push(flip_name.clone());
                                }
                            });
                        }/>
                    <span class="swatch" style:background=colour(i, &s.name)></span>
                    {s.name.clone()}
                </label>
            }
        })
        .collect_view();
    let charts = move || {
        let hid = hidden.get();
        let shown: Vec<(usize, Series)> =
            series.iter().cloned().enumerate().filter(|(_, s)| !hid.contains(&s.name)).collect();
        // The heatmap's rows: every series shown but the "all" row.
        let langs: Vec<Series> =
            shown.iter().filter(|(_, s)| s.name != "all").map(|(_, s)| s.clone()).collect();
        let depth_lines: Vec<Line> = shown
            .iter()
            .map(|(i, s)| Line {
                name: s.name.clone(),
                colour: colour(*i, &s.name),
                points: s
                    .by_depth
                    .iter()
                    .enumerate()
                    .map(|(b, c)| (b, *c, depth_bin_label(b)))
                    .collect(),
            })
            .collect();
        let threshold_lines: Vec<Line> = shown
            .iter()
            .map(|(i, s)| Line {
                name: s.name.clone(),
                colour: colour(*i, &s.name),
                points: s
                    .by_threshold
                    .iter()
                    .enumerate()
                    .map(|(k, c)| (k, *c, format!("threshold {}", THRESHOLD_KEYS[k])))
                    .collect(),
            })
            .collect();
        let depth_labels: Vec<String> = (0..DEPTH_BINS).map(|b| format!("{}", b * 10)).collect();
        let thr_labels: Vec<String> = THRESHOLD_KEYS.iter().map(|k| k.to_string()).collect();
        view! {
            <div class="charts">
                <ChartFrame id="depth" title=format!("Pass rate at threshold {threshold} by needle depth (the task's position ratio)")>
                    {line_chart("depth", depth_lines, depth_labels, DEPTH_AXIS)}
                    <p class="note" id="depth-note">{DEPTH_NOTE}</p>
                </ChartFrame>
                <ChartFrame id="language" title=format!("Pass rate at threshold {threshold} by {rows}")>
                    {bar_chart(&shown, rows)}
                </ChartFrame>
                <ChartFrame id="threshold" title="Pass rate against the similarity threshold".to_string()>
                    {line_chart("threshold", threshold_lines, thr_labels, "BLEU threshold")}
                </ChartFrame>
                <ChartFrame id="heatmap" title=format!("Needle in a haystack: pass rate at threshold {threshold}, depth × {rows}")>
                    {heatmap("heatmap", langs.iter().map(|s| (s.name.clone(), s.by_depth)).collect())}
                </ChartFrame>
            </div>
        }
    };
    view! {
        <div class="series-toggles" role="group" aria-label="Series shown in the charts">"Show: " {toggles}</div>
        {charts}
    }
}

/// Pass rate by needle depth for a few named series, as the Results depth
/// chart draws it (the Teach page: the class against the models).
#[component]
pub fn DepthChart(
    id: &'static str,
    title: String,
    series: Vec<(String, [Count; DEPTH_BINS])>,
) -> impl IntoView {
    let lines: Vec<Line> = series
        .into_iter()
        .enumerate()
        .map(|(i, (name, by_depth))| Line {
            colour: colour(i, &name),
            name,
            points: by_depth.iter().enumerate().map(|(b, c)| (b, *c, depth_bin_label(b))).collect(),
        })
        .collect();
    let labels: Vec<String> = (0..DEPTH_BINS).map(|b| format!("{}", b * 10)).collect();
    view! {
        <ChartFrame id=id title=title>
            {line_chart(id, lines, labels, DEPTH_AXIS)}
        </ChartFrame>
    }
}

/// The length ladders (`repoqa::review::ladder`): pass@1 by code-context length,
/// a line per model over the lengths any of them has; and the needle depth
/// × length heatmap, a row per model and length.
#[component]
pub fn LadderCharts(ladders: Vec<Ladder>, threshold: String) -> impl IntoView {
    let mut lengths: Vec<usize> =
        ladders.iter().flat_map(|l| l.rungs.iter().map(|r| r.ntoken)).collect();
    lengths.sort_unstable();
    lengths.dedup();
    let several = ladders.len() > 1;
    let lines: Vec<Line> = ladders
        .iter()
        .enumerate()
        .map(|(i, l)| Line {
            name: l.model.clone(),
            colour: colour(i, &l.model),
            points: l
                .rungs
                .iter()
                .filter_map(|r| {
                    let at = lengths.iter().position(|n| *n == r.ntoken)?;
                    let c = Count { passed: r.all.passed, n: r.all.n };
                    Some((at, c, format!("{} tokens", thousands(r.ntoken))))
                })
                .collect(),
        })
        .collect();
    let labels: Vec<String> = lengths.iter().map(|n| short_tokens(*n)).collect();
    let rows: Vec<(String, [Count; DEPTH_BINS])> = ladders
        .iter()
        .flat_map(|l| {
            l.rungs.iter().map(move |r| {
                let tokens = format!("{} tokens", thousands(r.ntoken));
                let name = if several { format!("{} · {tokens}", l.model) } else { tokens };
                (name, r.by_depth)
            })
        })
        .collect();
    view! {
        <div class="charts">
            <ChartFrame id="ladder-length" title=format!("pass@1 at threshold {threshold} by code-context length")>
                {line_chart("ladder-length", lines, labels, "code-context length (tokens)")}
            </ChartFrame>
            <ChartFrame id="ladder-heatmap" title=format!("Needle in a haystack: pass rate at threshold {threshold}, depth × length")>
                {heatmap("ladder-heatmap", rows)}
            </ChartFrame>
        </div>
    }
}

/// 4096 → "4k", 131072 → "128k", 1000 → "1000".
fn short_tokens(n: usize) -> String {
    if n >= 1024 && n.is_multiple_of(1024) {
        format!("{}k", n / 1024)
    } else {
        n.to_string()
    }
}

/// A captioned chart with its SVG / PNG export buttons.
#[component]
fn ChartFrame(id: &'static str, title: String, children: Children) -> impl IntoView {
    let status = RwSignal::new(None::<String>);
    let svg_id = format!("chart-{id}-svg");
    let (a, b) = (svg_id.clone(), svg_id.clone());
    let export_svg = move |_| {
        let r = svg_text(&a)
            .and_then(|t| download_text(&format!("repoqa-{id}.svg"), "image/svg+xml", &t));
        status.set(r.err().map(|e| e.to_string()));
    };
    let export_png = move |_| {
        status.set(export_png(&b, &format!("repoqa-{id}.png")).err().map(|e| e.to_string()))
    };
    view! {
        <figure class="chart" data-chart=id>
            <figcaption id=format!("chart-{id}-title")>{title}</figcaption>
            // Shown on a phone, where the chart keeps readable text and is
            // wider than the screen.
            <p class="chart-scroll-cue muted" id=format!("chart-{id}-cue")>"Wider than the screen: swipe the chart sideways (or focus it and use the arrow keys) to see all of it."</p>
            <div class="chart-body" id=format!("chart-{id}-body") tabindex="0" role="region"
                aria-labelledby=format!("chart-{id}-title")>
                {children()}
            </div>
            <div class="row">
                <button type="button" class="export-svg" on:click=export_svg>"Save SVG"</button>
                <button type="button" class="export-png" on:click=export_png>"Save PNG"</button>
                {move || status.get().map(|e| view! { <span class="fail">{e}</span> })}
            </div>
        </figure>
    }
}

struct Line {
    name: String,
    colour: &'static str,
    /// (x index, count, x description for labels).
    points: Vec<(usize, Count, String)>,
}

fn y_of(rate: f64) -> f64 {
    MT + (1.0 - rate) * (H - MT - MB)
}

fn x_of(i: usize, n: usize) -> f64 {
    let w = W - ML - MR;
    if n <= 1 {
        ML + w / 2.0
    } else {
        ML + w * i as f64 / (n - 1) as f64
    }
}

/// Y grid (0, 25, …, 100 %) and the x labels.
fn axes(x_labels: &[String], x_title: &str) -> impl IntoView {
    let n = x_labels.len();
    let grid = [0.0, 0.25, 0.5, 0.75, 1.0]
        .into_iter()
        .map(|v| {
            let y = y_of(v);
            view! {
                <line x1=ML x2=W - MR y1=y y2=y stroke="#dde1e8" stroke-width="1"/>
                <text x=ML - 6.0 y=y + 4.0 text-anchor="end" font-size="11" font-family=FONT fill="#5b6475">{format!("{:.0}%", v * 100.0)}</text>
            }
        })
        .collect_view();
    let xl = x_labels
        .iter()
        .enumerate()
        .map(|(i, l)| {
            view! { <text x=x_of(i, n) y=H - MB + 16.0 text-anchor="middle" font-size="11" font-family=FONT fill="#5b6475">{l.clone()}</text> }
        })
        .collect_view();
    view! {
        {grid}
        {xl}
        <text x=ML + (W - ML - MR) / 2.0 y=H - 6.0 text-anchor="middle" font-size="12" font-family=FONT fill="#1d2330">{x_title.to_string()}</text>
    }
}

fn line_chart(
    id: &'static str,
    lines: Vec<Line>,
    x_labels: Vec<String>,
    x_title: &'static str,
) -> impl IntoView {
    let n = x_labels.len();
    let legend = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let y = MT + 8.0 + 18.0 * i as f64;
            view! {
                <line x1=W - MR + 12.0 x2=W - MR + 32.0 y1=y y2=y stroke=l.colour stroke-width=if l.name == "all" { "3" } else { "2" }/>
                <text x=W - MR + 38.0 y=y + 4.0 font-size="11" font-family=FONT fill="#1d2330">{fit(&l.name, 11)}<title>{l.name.clone()}</title></text>
            }
        })
        .collect_view();
    let mut first = true;
    let drawn = lines
        .into_iter()
        .map(|l| {
            let pts: Vec<(f64, f64, Count, usize, String)> = l
                .points
                .iter()
                .filter_map(|(i, c, desc)| c.rate().map(|r| (x_of(*i, n), y_of(r), *c, *i, desc.clone())))
                .collect();
            let path = pts.iter().map(|(x, y, ..)| format!("{x:.1},{y:.1}")).collect::<Vec<_>>().join(" ");
            let width = if l.name == "all" { "3" } else { "2" };
            let name = l.name.clone();
            let dots = pts
                .into_iter()
                .map(|(x, y, c, i, desc)| {
                    let label = format!("{name}, {desc}: {}", count_text(c));
                    let stop = if first { first = false; "0" } else { "-1" };
                    view! {
                        <circle class="point" cx=format!("{x:.1}") cy=format!("{y:.1}") r="5" fill=l.colour stroke="#fff" stroke-width="1.5"
                            tabindex=stop role="img" aria-label=label.clone()
                            data-series=name.clone() data-bin=i data-value=c.rate().map(repoqa::python::json::float_repr) data-n=c.n>
                            <title>{label.clone()}</title>
                        </circle>
                    }
                })
                .collect_view();
            view! {
                <g class="series" data-series=l.name.clone()>
                    <polyline points=path fill="none" stroke=l.colour stroke-width=width/>
                    {dots}
                </g>
            }
        })
        .collect_view();
    view! {
        <svg id=format!("chart-{id}-svg") xmlns="http://www.w3.org/2000/svg" width=W height=H viewBox=format!("0 0 {W} {H}")
            role="group" aria-labelledby=format!("chart-{id}-title") on:keydown=move |ev| arrow_keys(ev, 1)>
            <rect x="0" y="0" width=W height=H fill="#ffffff"/>
            {axes(&x_labels, x_title)}
            {drawn}
            {legend}
        </svg>
    }
}

fn bar_chart(series: &[(usize, Series)], rows: &str) -> impl IntoView {
    let n = series.len().max(1);
    let slot = (W - ML - MR) / n as f64;
    let bw = (slot * 0.6).min(60.0);
    let labels: Vec<String> = Vec::new();
    let bars = series
        .iter()
        .enumerate()
        .map(|(slot_i, (i, s))| {
            let i = *i;
            let r = s.total.rate().unwrap_or(0.0);
            let x = ML + slot * (slot_i as f64 + 0.5);
            let y = y_of(r);
            let label = format!("{}: {}", s.name, count_text(s.total));
            let label_y = wilson(s.total.passed, s.total.n, 0.95).map_or(y, |ci| y_of(ci.high).min(y));
            view! {
                <rect class="bar" x=format!("{:.1}", x - bw / 2.0) y=format!("{y:.1}") width=format!("{bw:.1}") height=format!("{:.1}", y_of(0.0) - y)
                    fill=colour(i, &s.name) tabindex=if slot_i == 0 { "0" } else { "-1" } role="img" aria-label=label.clone()
                    data-series=s.name.clone() data-value=s.total.rate().map(repoqa::python::json::float_repr) data-n=s.total.n>
                    <title>{label.clone()}</title>
                </rect>
                {wilson(s.total.passed, s.total.n, 0.95).map(|ci| {
                    let (top, bottom) = (y_of(ci.high), y_of(ci.low));
                    view! {
                        <path class="error-bar" d=format!("M{x:.1} {top:.1}V{bottom:.1}M{:.1} {top:.1}H{:.1}M{:.1} {bottom:.1}H{:.1}", x - 5.0, x + 5.0, x - 5.0, x + 5.0)
                            stroke="#1d2330" stroke-width="1.5" fill="none" pointer-events="none"
                            data-series=s.name.clone() data-low=repoqa::python::json::float_repr(ci.low) data-high=repoqa::python::json::float_repr(ci.high)/>
                    }
                })}
                // Above the error bar's top.
                <text x=x y=label_y - 4.0 text-anchor="middle" font-size="11" font-family=FONT fill="#1d2330">{pct(r)}</text>
                // Many bars: shorter names, turned, so that neighbours never overlap.
                {if n > 5 {
                    view! { <text x=x y=H - MB + 6.0 text-anchor="end" font-size="10" font-family=FONT fill="#1d2330"
                        transform=format!("rotate(-40 {x:.1} {:.1})", H - MB + 6.0)>{fit(&s.name, 7)}<title>{s.name.clone()}</title></text> }.into_any()
                } else {
                    view! { <text x=x y=H - MB + 16.0 text-anchor="middle" font-size="12" font-family=FONT fill="#1d2330">{fit(&s.name, 14)}<title>{s.name.clone()}</title></text> }.into_any()
                }}
            }
        })
        .collect_view();
    view! {
        <svg id="chart-language-svg" xmlns="http://www.w3.org/2000/svg" width=W height=H viewBox=format!("0 0 {W} {H}")
            role="group" aria-labelledby="chart-language-title" on:keydown=move |ev| arrow_keys(ev, 1)>
            <rect x="0" y="0" width=W height=H fill="#ffffff"/>
            // Turned labels take the axis title's place; the caption names the axis.
            {axes(&labels, if n > 5 { "" } else { rows })}
            {bars}
        </svg>
    }
}

/// White → blue by pass rate; grey when the cell has no tasks.
fn heat_colour(rate: Option<f64>) -> (String, &'static str) {
    match rate {
        None => ("#eceef2".into(), "#5b6475"),
        Some(r) => {
            let mix = |a: f64, b: f64| (a + (b - a) * r).round() as u8;
            let fill = format!(
                "#{:02x}{:02x}{:02x}",
                mix(247.0, 0.0),
                mix(250.0, 84.0),
                mix(255.0, 160.0)
            );
            (fill, if r > 0.55 { "#ffffff" } else { "#1d2330" })
        }
    }
}

/// Rows of depth bins, a cell per bin: its pass rate as colour and
/// number, its count and Wilson interval in its name and tooltip.
fn heatmap(id: &'static str, langs: Vec<(String, [Count; DEPTH_BINS])>) -> impl IntoView {
    let rows = langs.len().max(1);
    // Room for the row labels (model names are long): up to 24 characters.
    let longest = langs.iter().map(|(name, _)| name.chars().count().min(24)).max().unwrap_or(0);
    let left = (7.2 * longest as f64 + 14.0).max(ML + 40.0);
    let cw = (W - left - 20.0) / DEPTH_BINS as f64;
    let ch = ((H - MT - MB) / rows as f64).min(40.0);
    let height = MT + ch * rows as f64 + MB;
    let cells = langs
        .iter()
        .enumerate()
        .map(|(row, (name, by_depth))| {
            let y = MT + ch * row as f64;
            let cells = by_depth
                .iter()
                .enumerate()
                .map(|(b, c)| {
                    let (fill, ink) = heat_colour(c.rate());
                    let x = left + cw * b as f64;
                    let label = format!("{name}, depth {}: {}", depth_bin_label(b), count_text(*c));
                    let text = c.rate().map(|r| format!("{:.0}", 100.0 * r)).unwrap_or_else(|| "–".into());
                    view! {
                        <rect class="cell" x=format!("{x:.1}") y=format!("{y:.1}") width=format!("{:.1}", cw - 2.0) height=format!("{:.1}", ch - 2.0)
                            fill=fill tabindex=if row == 0 && b == 0 { "0" } else { "-1" } role="img" aria-label=label.clone()
                            data-series=name.clone() data-bin=b data-value=c.rate().map(repoqa::python::json::float_repr).unwrap_or_default() data-passed=c.passed data-n=c.n>
                            <title>{label.clone()}</title>
                        </rect>
                        <text class="cell-label" x=x + cw / 2.0 - 1.0 y=y + ch / 2.0 + 3.0 text-anchor="middle" font-size="11" font-family=FONT fill=ink pointer-events="none">{text}</text>
                    }
                })
                .collect_view();
            view! {
                <text x=left - 6.0 y=y + ch / 2.0 + 4.0 text-anchor="end" font-size="12" font-family=FONT fill="#1d2330">{fit(name, 24)}<title>{name.clone()}</title></text>
                {cells}
            }
        })
        .collect_view();
    let xl = (0..DEPTH_BINS)
        .map(|b| {
            view! { <text x=left + cw * (b as f64 + 0.5) - 1.0 y=MT + ch * rows as f64 + 14.0 text-anchor="middle" font-size="11" font-family=FONT fill="#5b6475">{format!("{}–{}", b * 10, b * 10 + 10)}</text> }
        })
        .collect_view();
    view! {
        <svg id=format!("chart-{id}-svg") xmlns="http://www.w3.org/2000/svg" width=W height=height viewBox=format!("0 0 {W} {height}")
            role="group" aria-labelledby=format!("chart-{id}-title") on:keydown=move |ev| arrow_keys(ev, DEPTH_BINS)>
            <rect x="0" y="0" width=W height=height fill="#ffffff"/>
            {cells}
            {xl}
            <text x=left + cw * 5.0 y=height - 8.0 text-anchor="middle" font-size="12" font-family=FONT fill="#1d2330">"position ratio bin (%); cell = pass rate (%)"</text>
        </svg>
    }
}

/// A chart is one tab stop: its first point (bar, cell) takes the focus,
/// and the arrow keys move it to the others (Right/Left: the next and the
/// previous; Down/Up: `row` further, a heatmap row; Home/End: the ends).
/// The one focused holds `tabindex="0"`, so Tab returns to it.
fn arrow_keys(ev: leptos::ev::KeyboardEvent, row: usize) {
    let step: isize = match ev.key().as_str() {
        "ArrowRight" => 1,
        "ArrowLeft" => -1,
        "ArrowDown" => row as isize,
        "ArrowUp" => -(row as isize),
        "Home" => isize::MIN,
        "End" => isize::MAX,
        _ => return,
    };
    let Some(svg) = ev.current_target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else {
        return;
    };
    let Ok(list) = svg.query_selector_all("[tabindex]") else { return };
    let items: Vec<web_sys::Element> =
        (0..list.length()).filter_map(|i| list.item(i)?.dyn_into().ok()).collect();
    if items.is_empty() {
        return;
    }
    ev.prevent_default();
    let active = document().active_element();
    let at = items.iter().position(|e| Some(e) == active.as_ref()).unwrap_or(0);
    let to = match step {
        isize::MIN => 0,
        isize::MAX => items.len() - 1,
        s => (at as isize + s).clamp(0, items.len() as isize - 1) as usize,
    };
    for (k, e) in items.iter().enumerate() {
        let _ = e.set_attribute("tabindex", if k == to { "0" } else { "-1" });
    }
    let target = &items[to];
    if let Ok(focus) = js_sys::Reflect::get(target, &JsValue::from_str("focus")) {
        if let Ok(f) = focus.dyn_into::<js_sys::Function>() {
            let _ = f.call0(target);
        }
    }
}

/// The chart's SVG as a standalone document.
fn svg_text(svg_id: &str) -> Result<String, UiError> {
    let el = document()
        .get_element_by_id(svg_id)
        .ok_or_else(|| UiError::invalid(format!("chart {svg_id} is not on the page")))?;
    let s = web_sys::XmlSerializer::new().map_err(|e| UiError::js("XMLSerializer", &e))?;
    let text = s.serialize_to_string(&el).map_err(|e| UiError::js("XMLSerializer", &e))?;
    Ok(format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{text}\n"))
}

/// Draw the SVG on an offscreen canvas (2× for sharpness) and download it as PNG.
fn export_png(svg_id: &str, name: &str) -> Result<(), UiError> {
    let text = svg_text(svg_id)?;
    let el = document()
        .get_element_by_id(svg_id)
        .ok_or_else(|| UiError::invalid(format!("chart {svg_id} is not on the page")))?;
    let attr = |k: &str| el.get_attribute(k).and_then(|v| v.parse::<f64>().ok()).unwrap_or(W);
    let (w, h) = (attr("width"), attr("height"));
    let img = web_sys::HtmlImageElement::new().map_err(|e| UiError::js("Image", &e))?;
    let url = format!("data:image/svg+xml;charset=utf-8,{}", js_sys::encode_uri_component(&text));
    let (img2, name) = (img.clone(), name.to_string());
    let onload = wasm_bindgen::closure::Closure::once_into_js(move || {
        let r = (|| -> Result<(), JsValue> {
            let canvas =
                document().create_element("canvas")?.dyn_into::<web_sys::HtmlCanvasElement>()?;
            canvas.set_width((w * 2.0) as u32);
            canvas.set_height((h * 2.0) as u32);
            let ctx = canvas
                .get_context("2d")?
                .ok_or("no 2d context")?
                .dyn_into::<web_sys::CanvasRenderingContext2d>()?;
            ctx.set_fill_style_str("#ffffff");
            ctx.fill_rect(0.0, 0.0, w * 2.0, h * 2.0);
            ctx.draw_image_with_html_image_element_and_dw_and_dh(
                &img2,
                0.0,
                0.0,
                w * 2.0,
                h * 2.0,
            )?;
            let data = canvas.to_data_url_with_type("image/png")?;
            download_url(&name, &data).map_err(|e| JsValue::from_str(&e.to_string()))
        })();
        if let Err(e) = r {
            leptos::logging::warn!("PNG export failed: {e:?}");
        }
    });
    img.set_onload(Some(onload.unchecked_ref()));
    img.set_src(&url);
    Ok(())
}
