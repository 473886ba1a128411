//! The tokenizer: which file (built-in, URL, uploaded), its digest (part
//! of the tasks cache key), and the file given to the compute engine, which
//! reads it and counts with it (only when a build, an anatomy or a plan
//! needs it, and CoReQA's prompts). The page itself never parses it.

use std::cell::RefCell;

use leptos::prelude::*;
use repoqa::engine::{Reply, Request};

use super::digest::sha256_hex;
use super::fetch::{fetch_with_progress, read_file_with_progress};
use super::{Ctx, Job, Runner};
use crate::ui::browser::engine;
use crate::ui::error::UiError;
use crate::ui::state::{settings, AppState};
use crate::ui::storage;

/// The default tokenizer (a CodeLlama-compatible Llama-2 `tokenizer.json`),
/// copied into dist/assets by Trunk.
pub const TOKENIZER_URL: &str = "assets/tokenizer.json";

/// The SHA-256 of the built-in tokenizer (the file scripts/setup.sh pins
/// and Trunk copies to `TOKENIZER_URL`). Known without the file, so a visit
/// that only restores saved tasks, scores or verifies never downloads it
/// (1.7 MB): the file is fetched when a build needs it, and checked
/// against this digest then.
pub const BUILTIN_SHA256: &str = "fc4f0bd70b3709312d9d1d9e5ba674794b6bc5abc17429897a540f93882f25fc";

/// A tokenizer file larger than this is not a tokenizer.json.
const MAX_TOKENIZER_BYTES: usize = 64 << 20;

thread_local! {
    /// The bytes of the tokenizer whose digest is `AppState::tokenizer_id`
    /// (the build workers read their own copy of the tokenizer from them).
    static TOKENIZER_BYTES: RefCell<Option<(Vec<u8>, String)>> = const { RefCell::new(None) };
}

/// Forget the loaded tokenizer (after the source changed).
pub fn reset(state: AppState) {
    state.tokenizer_id.set(None);
    TOKENIZER_BYTES.with(|t| *t.borrow_mut() = None);
}

pub fn use_builtin(state: AppState) {
    reset(state);
    settings::update(state.settings, |s| s.build.tokenizer_source = "builtin".into());
}

/// Load and check a tokenizer.json from a URL, and make it current. Waits
/// for a running job (the session restore at startup) to end first.
pub async fn use_url(state: AppState, runner: Runner, url: String) -> Result<String, UiError> {
    runner
        .run(Job::new("Downloading the tokenizer").queue(), move |ctx| async move {
            let bytes =
                fetch_with_progress(&ctx, &url, "Downloading the tokenizer", MAX_TOKENIZER_BYTES)
                    .await?;
            adopt(&ctx, state, bytes, url.clone(), url).await
        })
        .await
}

/// Load and check an uploaded tokenizer.json, keep its bytes in IndexedDB,
/// and make it current.
pub async fn use_file(
    state: AppState,
    runner: Runner,
    file: web_sys::File,
) -> Result<String, UiError> {
    runner
        .run(Job::new("Reading the tokenizer").queue(), move |ctx| async move {
            let name = file.name();
            let bytes =
                read_file_with_progress(&ctx, &file, "Reading the tokenizer", MAX_TOKENIZER_BYTES)
                    .await?;
            // Checked before it replaces the stored one: a bad file must not
            // spoil the tokenizer the next visit restores.
            let msg = adopt(&ctx, state, bytes.clone(), format!("file:{name}"), name).await?;
            storage::save_bytes(storage::KEY_TOKENIZER_BYTES, &bytes).await.map_err(|e| {
                UiError::Storage(format!("{msg} It could not be kept for the next visit: {e}"))
            })?;
            Ok(msg)
        })
        .await
}

async fn adopt(
    ctx: &Ctx,
    state: AppState,
    bytes: Vec<u8>,
    source: String,
    origin: String,
) -> Result<String, UiError> {
    ctx.progress("Checking the tokenizer", 0, 0);
    let _ = ctx.turn().await;
    let digest = sha256_hex(ctx, &bytes).await;
    // The engine reads it (a file that is not a tokenizer is refused there).
    ctx.wait_for(engine::tokenizer(&bytes, &origin, &digest)).await?;
    let vocab = match ctx.wait_for(engine::call(&Request::TokenizerInfo)).await? {
        Reply::TokenizerInfo { vocab_size, .. } => vocab_size,
        _ => {
            return Err(UiError::invalid(
                "the engine answered another question than the tokenizer's",
            ))
        }
    };
    TOKENIZER_BYTES.with(|t| *t.borrow_mut() = Some((bytes, origin.clone())));
    state.tokenizer_id.set(Some(digest));
    settings::update(state.settings, |s| s.build.tokenizer_source = source);
    let msg = format!("Tokenizer {origin}: {vocab} tokens in the vocabulary.");
    ctx.done(msg.clone());
    Ok(msg)
}

/// The tokenizer file of the current settings, with its origin.
pub async fn bytes(ctx: &Ctx, state: AppState) -> Result<(Vec<u8>, String), UiError> {
    tokenizer_bytes(ctx, state).await
}

async fn tokenizer_bytes(ctx: &Ctx, state: AppState) -> Result<(Vec<u8>, String), UiError> {
    if let Some(b) = TOKENIZER_BYTES.with(|t| t.borrow().clone()) {
        return Ok(b);
    }
    let source = state.settings.get_untracked().build.tokenizer_source;
    if source == "builtin" {
        let bytes = fetch_with_progress(
            ctx,
            TOKENIZER_URL,
            "Downloading the tokenizer",
            MAX_TOKENIZER_BYTES,
        )
        .await?;
        let digest = sha256_hex(ctx, &bytes).await;
        if digest != BUILTIN_SHA256 {
            return Err(UiError::invalid(format!(
                "{TOKENIZER_URL} is not the built-in tokenizer this app was built for (SHA-256 {digest}, expected {BUILTIN_SHA256}); the site serves a different file"
            )));
        }
        Ok((bytes, TOKENIZER_URL.to_string()))
    } else if let Some(name) = source.strip_prefix("file:") {
        match storage::load_bytes(storage::KEY_TOKENIZER_BYTES).await? {
            Some(b) => Ok((b, name.to_string())),
            None => Err(UiError::invalid(format!(
                "the tokenizer file {name} is no longer stored; choose it again in Settings"
            ))),
        }
    } else {
        let bytes =
            fetch_with_progress(ctx, &source, "Downloading the tokenizer", MAX_TOKENIZER_BYTES)
                .await?;
        Ok((bytes, source))
    }
}

/// Make sure `tokenizer_id` is known (fetching the file, not parsing it).
pub async fn ensure_id(ctx: &Ctx, state: AppState) -> Result<String, UiError> {
    if let Some(id) = state.tokenizer_id.get_untracked() {
        return Ok(id);
    }
    if state.settings.with_untracked(|s| s.build.tokenizer_source == "builtin") {
        state.tokenizer_id.set(Some(BUILTIN_SHA256.to_string()));
        return Ok(BUILTIN_SHA256.to_string());
    }
    let (bytes, origin) = tokenizer_bytes(ctx, state).await?;
    let id = sha256_hex(ctx, &bytes).await;
    TOKENIZER_BYTES.with(|t| *t.borrow_mut() = Some((bytes, origin)));
    state.tokenizer_id.set(Some(id.clone()));
    Ok(id)
}

/// Give the compute engine the tokenizer of the current settings (fetched
/// once; the engine keeps it until another one comes).
pub async fn ensure_in_engine(ctx: &Ctx, state: AppState) -> Result<(), UiError> {
    let id = ensure_id(ctx, state).await?;
    let (bytes, origin) = tokenizer_bytes(ctx, state).await?;
    ctx.wait_for(engine::tokenizer(&bytes, &origin, &id)).await?;
    TOKENIZER_BYTES.with(|t| *t.borrow_mut() = Some((bytes, origin)));
    Ok(())
}

/// Prompts per request to the engine while counting.
pub const COUNT_CHUNK: usize = 50;

/// The token counts of `texts` by the tokenizer the engine holds (give it
/// one first: [`ensure_in_engine`]), asked in chunks so the engine answers
/// between them; `progress(done)` after each chunk, which may cancel.
pub async fn count_in_engine(
    ctx: &Ctx,
    texts: &[String],
    mut progress: impl FnMut(usize) -> Result<(), UiError>,
) -> Result<Vec<usize>, UiError> {
    let mut counts = Vec::with_capacity(texts.len());
    for chunk in texts.chunks(COUNT_CHUNK) {
        let texts = chunk.to_vec();
        match ctx.wait_for(engine::call(&Request::Count { texts })).await? {
            Reply::Count { counts: got } if got.len() == chunk.len() => counts.extend(got),
            _ => return Err(UiError::invalid("the compute engine did not count every text")),
        }
        progress(counts.len())?;
    }
    Ok(counts)
}
