//! "About / self-check": proves, in this browser, that the six grammars parse
//! and the tokenizer counts like the native build — checked by the compute
//! engine (the worker that builds and scores), not by the page. The browser
//! smoke test reads the `data-*` attributes of this page.

use leptos::prelude::*;
use leptos::task::spawn_local;
use repoqa::code::selfcheck::{self, GrammarCheck, TokenizerCheck};
use repoqa::engine::{Reply, Request};

use crate::ui::browser::engine;
use crate::ui::browser::fetch::fetch_bytes;
use crate::ui::browser::time::now_ms;
use crate::ui::error::UiError;
use crate::ui::jobs::tokenizer::{BUILTIN_SHA256, TOKENIZER_URL};

#[derive(Clone)]
enum Check {
    Loading,
    /// The grammars, the tokenizer's check, the time the check took (ms,
    /// the engine's start and the tokenizer's download included) and the
    /// tokenizer file's SHA-256.
    Ready(Vec<GrammarCheck>, TokenizerCheck, f64, String),
    Failed(UiError),
}

/// The engine's self-check with the built-in tokenizer.
async fn self_check() -> Result<(Vec<GrammarCheck>, TokenizerCheck, String), UiError> {
    let bytes = fetch_bytes(TOKENIZER_URL).await?;
    let sha = repoqa::input::identity::sha256_hex(&bytes);
    engine::tokenizer(&bytes, TOKENIZER_URL, &sha).await?;
    match engine::call(&Request::SelfCheck).await? {
        Reply::SelfCheck { grammars, tokenizer: Some(Ok(t)) } => Ok((grammars, t, sha)),
        Reply::SelfCheck { tokenizer: Some(Err(e)), .. } => {
            Err(UiError::invalid(format!("the tokenizer could not count: {e}")))
        }
        _ => Err(UiError::invalid("the engine answered another question than the self-check")),
    }
}

#[component]
pub fn About() -> impl IntoView {
    let check = RwSignal::new(Check::Loading);

    spawn_local(async move {
        let t0 = now_ms();
        check.set(match self_check().await {
            Ok((g, t, sha)) => Check::Ready(g, t, now_ms() - t0, sha),
            Err(e) => Check::Failed(e),
        });
    });

    let status = move || match check.get() {
        Check::Loading => "loading",
        Check::Ready(ref g, _, _, ref sha)
            if g.iter().all(GrammarCheck::ok) && sha == BUILTIN_SHA256 =>
        {
            "ok"
        }
        _ => "fail",
    };
    let grammars = move || match check.get() {
        Check::Ready(g, ..) => g,
        _ => Vec::new(),
    };

    view! {
        <section class="card" id="about-app">
            <h2>"About RepoQA Web"</h2>
            <p>
                "RepoQA's long-context code benchmark, Searching Needle Function (Liu et al., 2024), in the browser: "
                "the official prompts are built here in the page and answers are scored here with the official rules; "
                "nothing is sent anywhere unless you ask a model API on the Run page. "
                "The same core library is the " <code>"repoqa"</code> " command line, so the page and the CLI give the same answer."
            </p>
            <h3>"The parity claim, and its evidence"</h3>
            <p id="about-parity">
                "A score from this app is the official score: the prompts are byte-for-byte the official harness's "
                "(PyPI repoqa 0.1.2, quirks included) and each verdict and the pass@1 table equal its smoothed-BLEU scoring. "
                "The project's tests run the official Python code and this code on the same inputs — the demo, a corpus of third-party "
                "repositories no one here tuned to, and the 30 published SCORES files, whose tables this app re-derives from their 500 records each. "
                "The self-check below shows that this browser's grammars and tokenizer are the ones those tests ran."
            </p>
        </section>
        <section class="card" id="selfcheck" data-status=status>
            <h2>"Self-check"</h2>
            <p>"Each grammar parses a snippet and the official FUNCTION_QUERY must find its one function; the tokenizer counts a sample line. The compute engine runs the check: the same code that builds the prompts and scores the answers."</p>
            {move || match check.get() {
                Check::Loading => view! { <p id="selfcheck-loading"><span class="spinner" aria-hidden="true"></span>" Loading the compute engine and the tokenizer…"</p> }.into_any(),
                Check::Failed(e) => view! { <p class="fail" id="tok-error">"The self-check could not run: " {e.to_string()}</p> }.into_any(),
                Check::Ready(..) => ().into_any(),
            }}
            <div class="table-scroll" tabindex="0" role="region" aria-label="grammar self-check">
            <table class="grid">
                <thead><tr><th>"Language"</th><th>"Grammar"</th><th>"Parsed"</th><th>"Functions"</th><th>"Comments"</th><th>"Result"</th></tr></thead>
                <tbody>
                    {move || grammars().into_iter().map(|g| {
                        let ok = g.ok();
                        view! {
                            <tr class="grammar-row" data-lang=g.language.name() data-ok=ok.to_string()>
                                <td>{g.language.name()}</td>
                                <td>{g.grammar}</td>
                                <td>{if g.parsed { "yes" } else { "no" }}</td>
                                <td>{g.functions}</td>
                                <td>{g.comments}</td>
                                <td class=if ok { "pass" } else { "fail" }>{if ok { "ok" } else { "FAILED" }}{g.error.unwrap_or_default()}</td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
            </div>
            <h3>"Tokenizer"</h3>
            <p>"Sample line: " <code class="sample">{format!("{:?}", selfcheck::SAMPLE_LINE)}</code></p>
            {move || match check.get() {
                Check::Loading | Check::Failed(_) => ().into_any(),
                Check::Ready(_, c, ms, sha) => view! {
                    <dl class="facts">
                        <dt>"File"</dt><dd>{c.origin.clone()}</dd>
                        <dt>"SHA-256"</dt><dd><code id="tok-sha256">{sha.clone()}</code>
                            {if sha == BUILTIN_SHA256 { " (the pinned CodeLlama-compatible file)" } else { " (NOT the file this app was built with)" }}</dd>
                        <dt>"Vocabulary"</dt><dd id="tok-vocab">{c.vocab_size}</dd>
                        <dt>"Tokens in the sample line"</dt><dd id="tok-count" data-count=c.sample_count.to_string()>{c.sample_count}</dd>
                        <dt>"Tokens"</dt><dd><code>{c.sample_tokens.join(" ")}</code></dd>
                        <dt>"Check time"</dt><dd>{format!("{ms:.0} ms (the engine's start included)")}</dd>
                    </dl>
                }.into_any(),
            }}
            <h3>"Build"</h3>
            <dl class="facts">
                <dt>"repoqa-web"</dt><dd id="app-version">{env!("CARGO_PKG_VERSION")}</dd>
                <dt>"tree-sitter runtime"</dt><dd>"tree-sitter-c2rust 0.22.6 (pure Rust)"</dd>
                <dt>"tokenizer library"</dt><dd>"tokenizers 0.22 (unstable_wasm)"</dd>
            </dl>
        </section>
    }
}
