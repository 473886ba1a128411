//! Ctrl-C during a model run: say what is kept and how to go on, then exit
//! 130 (what a shell reports for an interrupt). Every answer is written and
//! flushed the moment it arrives, so nothing is lost by stopping there.
//! Outside a run, Ctrl-C ends the process as it always does.

use std::sync::{Mutex, Once};

static HINT: Mutex<Option<String>> = Mutex::new(None);
static INSTALLED: Once = Once::new();

/// From now until [`clear`], Ctrl-C prints `hint` and exits 130.
pub fn on_ctrl_c(hint: String) {
    if let Ok(mut h) = HINT.lock() {
        *h = Some(hint);
    }
    INSTALLED.call_once(|| {
        // Refused only if another handler is set: Ctrl-C then works as before.
        let _ = ctrlc::set_handler(|| {
            if let Some(hint) = HINT.lock().ok().and_then(|h| h.clone()) {
                eprintln!("\n{hint}");
            }
            std::process::exit(130);
        });
    });
}

/// The run is over: Ctrl-C says nothing more.
pub fn clear() {
    if let Ok(mut h) = HINT.lock() {
        *h = None;
    }
}
