//! SHA-256 of a file's bytes as a job step (the dataset and tokenizer
//! digests of the tasks cache key): hashed in slices with a turn for the
//! page between them, so a 200 MB dataset never stops it for long. (Web
//! Crypto's digest copies the whole input on the main thread in one step.)

use super::Ctx;

/// SHA-256 of `bytes` in hex (the same digest Web Crypto gives). Not
/// cancellable: it is short, and a half digest is of no use.
pub async fn sha256_hex(ctx: &Ctx, bytes: &[u8]) -> String {
    use sha2::Digest;
    const SLICE: usize = 4 << 20;
    let mut hasher = sha2::Sha256::new();
    for chunk in bytes.chunks(SLICE) {
        hasher.update(chunk);
        if ctx.over_budget() {
            // A cancel here is seen by the job's next check.
            let _ = ctx.turn().await;
        }
    }
    hasher.finalize().iter().map(|b| format!("{b:02x}")).collect()
}
