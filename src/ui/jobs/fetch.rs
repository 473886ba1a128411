//! Download a URL or read a local file as a step of a job: the line shows
//! the bytes so far, Cancel stops it, and too-large inputs are refused.

use super::Ctx;
use crate::ui::browser::fetch;
use crate::ui::browser::time::now_ms;
use crate::ui::error::UiError;
use crate::ui::format::bytes_label;

/// GET `url` as bytes (streamed), `what` naming it on the line.
pub async fn fetch_with_progress(
    ctx: &Ctx,
    url: &str,
    what: &str,
    max: usize,
) -> Result<Vec<u8>, UiError> {
    ctx.progress(format!("{what}: connecting"), 0, 0);
    let mut last_update = now_ms();
    fetch::fetch_stream(url, max, |done, total| {
        if now_ms() - last_update > 50.0 {
            last_update = now_ms();
            let label = if total > 0 {
                format!("{what}: {} of {}", bytes_label(done), bytes_label(total))
            } else {
                format!("{what}: {}", bytes_label(done))
            };
            ctx.progress(label, done, total);
        }
        !ctx.cancelled()
    })
    .await
}

/// Read a local file in slices (progress, cancel, never one huge copy that
/// blocks the page).
pub async fn read_file_with_progress(
    ctx: &Ctx,
    file: &web_sys::File,
    what: &str,
    max: usize,
) -> Result<Vec<u8>, UiError> {
    let name = file.name();
    fetch::read_file(file, max, |done, total| {
        ctx.progress(
            format!("{what} {name}: {} of {}", bytes_label(done), bytes_label(total)),
            done,
            total,
        );
        !ctx.cancelled()
    })
    .await
}
