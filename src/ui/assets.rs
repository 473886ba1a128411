//! Files the app fetches from its own origin (copied into dist/ by Trunk).

use gloo_net::http::Request;

/// The default tokenizer (a CodeLlama-compatible Llama-2 `tokenizer.json`).
pub const TOKENIZER_URL: &str = "assets/tokenizer.json";

/// Fetch a same-origin asset as bytes, with an error naming the URL.
pub async fn fetch_bytes(url: &str) -> Result<Vec<u8>, String> {
    let resp = Request::get(url).send().await.map_err(|e| format!("{url}: {e}"))?;
    if !resp.ok() {
        return Err(format!("{url}: HTTP {} {}", resp.status(), resp.status_text()));
    }
    resp.binary().await.map_err(|e| format!("{url}: {e}"))
}
