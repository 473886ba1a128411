//! A similarity step by step (issue 24): an answer against one candidate,
//! from the scorer's own code path (`repoqa::scoring::score::Scorer::explain`, which
//! fills `repoqa::scoring::bleu::BleuSteps` with the numbers the score uses; asked of
//! the compute engine, `repoqa::engine::Request::Explain`): the
//! tokens both sides split into, each order's clipped matches over the
//! answer's n-grams with the matched tokens marked, method4's smoothing,
//! the weighted logs, their exact sum, the brevity penalty and the result.
//! Nothing here recomputes a number; text from the data is rendered as
//! text.

use leptos::prelude::*;
use repoqa::engine::{Reply, Request};
use repoqa::report::ModelOutput;
use repoqa::scoring::bleu::{matched_tokens, py_tokens, OrderStep};
use repoqa::scoring::score::{Evaluation, Explanation};

use crate::ui::browser::engine;
use crate::ui::format;
use crate::ui::state::use_state;

/// Up to this many tokens per side are drawn (a whole reply can be
/// megabytes); the counts are over all of them.
const SHOWN_TOKENS: usize = 600;

/// The candidates of an evaluation as the steps offer them: the task's own
/// needle (`needle`) first, then the rest from the closest down.
fn candidate_order(e: &Evaluation, needle: &str) -> Vec<(String, String)> {
    let mut cands = e.candidates.clone();
    cands.sort_by(|a, b| b.similarity.total_cmp(&a.similarity));
    let mut order: Vec<(String, String)> = cands
        .iter()
        .filter(|c| c.name == needle)
        .chain(cands.iter().filter(|c| c.name != needle))
        .map(|c| (c.name.clone(), c.path.clone()))
        .collect();
    order.dedup();
    order
}

/// The verdict of `output` (scored as `evaluation`) for the task whose
/// needle is `needle`: what the sanitizer took, every candidate ranked with
/// the threshold decision, then one candidate's similarity step by step
/// (the task's own needle first).
#[component]
pub fn VerdictSteps(output: ModelOutput, evaluation: Evaluation, needle: String) -> impl IntoView {
    let state = use_state();
    let candidates = candidate_order(&evaluation, &needle);
    let decision =
        decision_view(&evaluation, &needle, state.settings.with_untracked(|s| s.threshold));
    let chosen = RwSignal::new(0usize);
    let order = RwSignal::new(1usize);
    let names = candidates.clone();
    // The resource keeps its last value while the next one is computed:
    // each value carries the candidate it is for, so a result is never shown
    // under another candidate's name.
    let explained = LocalResource::new(move || {
        let i = chosen.get();
        let (name, path) = candidates.get(i).cloned().unwrap_or_default();
        let options = state.score_options();
        let dataset =
            state.dataset.with(|d| d.as_ref().map(|d| (d.dataset.clone(), d.origin.clone())));
        let output = Box::new(output.clone());
        async move { (i, explain(dataset, options, output, name.clone(), path).await, name) }
    });
    let picker = names
        .iter()
        .enumerate()
        .map(|(i, (name, path))| {
            view! { <option value=i.to_string() selected=i == 0>{format!("{name} ({path})")}</option> }
        })
        .collect_view();
    view! {
        <details class="verdict-steps" id="verdict-steps">
            <summary>"How this similarity was computed, step by step"</summary>
            {decision}
            <p class="row">
                <label for="steps-candidate">"The answer's function against "</label>
                <select id="steps-candidate" on:change=move |ev| {
                    if let Ok(i) = event_target_value(&ev).parse() { chosen.set(i) }
                }>{picker}</select>
            </p>
            {move || match explained.get().filter(|(i, ..)| *i == chosen.get()) {
                None => view! { <p class="muted" role="status">"Computing the steps in the compute engine…"</p> }.into_any(),
                Some((_, Err(e), _)) => view! { <p class="fail">{format!("Cannot explain: {e}")}</p> }.into_any(),
                Some((_, Ok(None), _)) => view! { <p class="muted">"That candidate is not among the scored ones."</p> }.into_any(),
                Some((_, Ok(Some(x)), name)) => steps_view(&x, &name, order).into_any(),
            }}
        </details>
    }
}

/// The engine's step-by-step similarity of `output` to candidate `name`
/// at `path`; `None` when the candidate is not among the scored ones.
async fn explain(
    dataset: Option<(std::sync::Arc<repoqa::input::dataset::Dataset>, String)>,
    options: repoqa::scoring::score::ScoreOptions,
    output: Box<ModelOutput>,
    name: String,
    path: String,
) -> Result<Option<Box<Explanation>>, String> {
    let (dataset, origin) = dataset.ok_or("no dataset is loaded")?;
    let id = engine::dataset(&dataset, &origin).await.map_err(|e| e.to_string())?;
    let request = Request::Explain { dataset: id, options, output, name, path };
    match engine::call(&request).await.map_err(|e| e.to_string())? {
        Reply::Explain { explanation } => explanation,
        _ => Err("the engine answered another question than the explanation".to_string()),
    }
}

/// Steps 1 and 2: what is compared, and every candidate ranked with the
/// threshold decision.
fn decision_view(e: &Evaluation, needle: &str, t: f64) -> impl IntoView {
    let mut ranked = e.candidates.clone();
    ranked.sort_by(|a, b| b.similarity.total_cmp(&a.similarity));
    let pass = e.passes(t);
    let best = e.best_target.as_deref();
    let why = match best {
        None => "No candidate is similar at all (every similarity is 0): FAIL.".to_string(),
        Some(b) if b != needle => format!(
            "The closest candidate is {b}, not this task's needle {needle}: FAIL whatever the similarity."
        ),
        Some(_) if pass => format!(
            "The closest candidate is this task's needle, and {} ≥ the threshold {t}: PASS.",
            format::similarity(e.best_similarity)
        ),
        Some(_) => format!(
            "The closest candidate is this task's needle, but {} < the threshold {t}: FAIL.",
            format::similarity(e.best_similarity)
        ),
    };
    let rows = ranked
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mark = match (c.name == needle, Some(c.name.as_str()) == best && i == 0) {
                (true, true) => "this task's needle; the closest",
                (true, false) => "this task's needle",
                (false, true) => "the closest",
                _ => "",
            };
            view! {
                <tr data-name=c.name.clone() class:truth=c.name == needle>
                    <td>{i + 1}</td><td><code>{c.name.clone()}</code></td><td><code>{c.path.clone()}</code></td>
                    <td>{format::similarity(c.similarity)}</td><td>{mark}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <p id="steps-sanitized"><strong>"1. What is compared: "</strong>{e.sanitize_source.describe()}
            {format!(" ({}).", format::count(py_tokens(&e.compared).len(), "token", "tokens"))}</p>
        <p><strong>"2. Every candidate of the repository, closest first:"</strong></p>
        <div class="table-scroll" tabindex="0" role="region" aria-label="every candidate, ranked">
            <table class="grid" id="steps-ranked">
                <thead><tr><th scope="col">"#"</th><th scope="col">"Function"</th><th scope="col">"File"</th><th scope="col">"Similarity"</th><th scope="col"><span class="sr-only">"Note"</span></th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
        <p id="steps-decision" data-pass=pass.to_string()><strong>{if pass { "PASS. " } else { "FAIL. " }}</strong>{why}</p>
        <p><strong>"3. One similarity, step by step:"</strong></p>
    }
}

/// The steps of `x`, the answer against the candidate named `candidate`.
fn steps_view(x: &Explanation, candidate: &str, order: RwSignal<usize>) -> impl IntoView {
    let s = &x.steps;
    let rows = s.orders.iter().map(order_row).collect_view();
    let (hyp, refr) = (x.hypothesis.clone(), x.reference.clone());
    let tokens = move || {
        let (h, r) = (py_tokens(&hyp), py_tokens(&refr));
        let m = matched_tokens(&h, &r, order.get());
        view! {
            <div class="steps-tokens">
                <h4>"The answer's function: " {format::count(h.len(), "token", "tokens")}</h4>
                <div class="tokens" id="steps-hyp-tokens" tabindex="0" role="region" aria-label="The answer's tokens">{token_spans(&h, &m.hypothesis)}</div>
                <h4>"The candidate: " {format::count(r.len(), "token", "tokens")}</h4>
                <div class="tokens" id="steps-ref-tokens" tabindex="0" role="region" aria-label="The candidate's tokens">{token_spans(&r, &m.reference)}</div>
            </div>
        }
    };
    let verdict = if s.no_unigram_match {
        "No token of the answer's function is in the candidate: NLTK returns 0 before any smoothing.".to_string()
    } else {
        format!(
            "brevity penalty {} × geometric mean exp({}) = {} → similarity {}",
            num(s.brevity_penalty),
            num(s.log_sum),
            num(s.geometric_mean),
            format::similarity(s.similarity)
        )
    };
    view! {
        <p class="muted">
            "Tokens are the texts split at whitespace (Python's " <code>"re.split(r\"\\s+\", s.strip())"</code>
            "). For each n from 1 to 4, the matches are the answer's n-grams also in the candidate, each counted at most as often as the candidate has it; "
            "the precision is matches ÷ the answer's n-grams. An order with no match is smoothed (NLTK method 4: 1 ÷ (2^c · 5 ÷ ln length), c = 1, 2, …). "
            "The similarity is the brevity penalty times the geometric mean of the four precisions (weights ¼)."
        </p>
        <div class="table-scroll" tabindex="0" role="region" aria-label="BLEU by n-gram order">
            <table class="grid" id="steps-orders">
                <thead><tr>
                    <th scope="col">"n"</th><th scope="col">"Matches / n-grams"</th><th scope="col">"Smoothing"</th>
                    <th scope="col">"Precision"</th><th scope="col">"¼ · ln precision"</th>
                </tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
        <p id="steps-result" data-candidate=candidate.to_string() data-similarity=repoqa::python::json::float_repr(s.similarity)
            data-brevity=repoqa::python::json::float_repr(s.brevity_penalty)
            data-hyp-len=s.hyp_len data-ref-len=s.ref_len>
            {format!("Lengths: answer {} tokens, candidate {} (brevity penalty is 1 when the answer is longer, else exp(1 − {} ÷ {})). ",
                s.hyp_len, s.ref_len, s.ref_len, s.hyp_len)}
            <strong>{verdict}</strong>
        </p>
        <fieldset class="row steps-order">
            <legend>"Mark the matched n-grams of order"</legend>
            {(1..=4).map(|n| view! {
                <label><input type="radio" name="steps-order" value=n.to_string() id=format!("steps-order-{n}")
                    prop:checked=move || order.get() == n on:change=move |_| order.set(n)/>{format!(" {n}")}</label>
            }).collect_view()}
        </fieldset>
        {tokens}
    }
}

fn order_row(o: &OrderStep) -> impl IntoView {
    let n = o.n;
    view! {
        <tr data-n=n data-matches=o.matches data-total=o.total
            data-precision=o.precision.map(repoqa::python::json::float_repr).unwrap_or_default()>
            <td>{n}</td>
            <td>{format!("{} / {}", o.matches, o.total)}</td>
            <td>{o.smoothing.map(|k| format!("1 ÷ {}", num(k))).unwrap_or_else(|| "—".into())}</td>
            <td>{o.precision.map(num).unwrap_or_else(|| "dropped (0)".into())}</td>
            <td>{o.weighted_log.map(num).unwrap_or_else(|| "—".into())}</td>
        </tr>
    }
}

/// Six significant digits: enough to follow the arithmetic (the exact
/// values are in the `data-` attributes).
fn num(x: f64) -> String {
    if x == 0.0 || (1e-4..1e6).contains(&x.abs()) {
        let s = format!("{x:.6}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        format!("{x:.5e}")
    }
}

/// The tokens as text, the matched ones marked; long sides cut.
fn token_spans(tokens: &[&str], marks: &[bool]) -> impl IntoView {
    let shown = tokens.len().min(SHOWN_TOKENS);
    let spans = tokens[..shown]
        .iter()
        .zip(marks)
        .map(|(t, m)| {
            view! { <span class=if *m { "tok matched" } else { "tok" }>{t.to_string()}</span>" " }
        })
        .collect_view();
    let more = (tokens.len() > shown).then(
        || view! { <span class="muted">{format!("… and {} more", tokens.len() - shown)}</span> },
    );
    view! { {spans}{more} }
}
