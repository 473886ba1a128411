//! Floor 0: the UI's one error type. Every failure inside the app is a
//! [`UiError`]; it becomes text only where it is shown (`to_string()` at
//! the view). Core errors, JS exceptions and storage failures convert with
//! `From` / [`UiError::js`].

use std::sync::Arc;

use thiserror::Error;
use wasm_bindgen::{JsCast, JsValue};

use super::format::bytes_label;

#[derive(Clone, Debug, Error)]
pub enum UiError {
    /// A core error (any of `repoqa::for_each_error_type!`).
    #[error("{0}")]
    Core(Arc<repoqa::Error>),
    /// A thrown JS value: what was being done, and the exception's text.
    #[error("{what}: {text}")]
    Js { what: String, text: String },
    #[error("no window")]
    NoWindow,
    /// The request did not get an HTTP status (network, CORS).
    #[error(
        "Could not fetch {url}: {detail}. The server may be down, the address wrong, or — if it is another site — \
         it does not allow this page to read it (CORS: it must send Access-Control-Allow-Origin)."
    )]
    Unreachable { url: String, detail: String },
    #[error("Could not fetch {url}: HTTP {status} {text}")]
    Http { url: String, status: u16, text: String },
    #[error(
        "{what} is {size_label} — larger than the {max_label} this page accepts. Use the command-line tool (`repoqa`) for it, or a smaller file.",
        size_label = bytes_label(*size),
        max_label = bytes_label(*max)
    )]
    TooLarge { what: String, size: usize, max: usize },
    /// IndexedDB / localStorage refused or is missing.
    #[error("{0}")]
    Storage(String),
    /// The user stopped the job; the message says what was kept.
    #[error("{0}")]
    Cancelled(String),
    /// A job runs already on the same line.
    #[error("Busy ({0}): wait for it to finish or press Cancel, then try again.")]
    Busy(String),
    /// What the user asked for cannot be done as asked (nothing picked, no
    /// tasks built, a bad value): the message says what to do.
    #[error("{0}")]
    Invalid(String),
    /// The compute engine failed a request (it could not load, it stopped,
    /// it answered another question): not a verdict on what was asked.
    #[error("the compute engine failed: {0}")]
    Engine(String),
    /// Not an error: the compute engine has the work and its answer has
    /// not come back yet (a score being computed). Never shown as a failure.
    #[error("being scored in the compute engine…")]
    Pending,
}

impl UiError {
    /// A thrown JS value, read as text (`Error.message`, a DOMException's
    /// name and message, or the value itself).
    pub fn js(what: impl Into<String>, e: &JsValue) -> UiError {
        let text = e
            .as_string()
            .or_else(|| e.dyn_ref::<js_sys::Error>().map(|err| String::from(err.message())))
            .or_else(|| {
                e.dyn_ref::<web_sys::DomException>()
                    .map(|ex| format!("{}: {}", ex.name(), ex.message()))
            })
            .unwrap_or_else(|| format!("{e:?}"));
        UiError::Js { what: what.into(), text }
    }

    pub fn invalid(message: impl Into<String>) -> UiError {
        UiError::Invalid(message.into())
    }

    pub fn cancelled(message: impl Into<String>) -> UiError {
        UiError::Cancelled(message.into())
    }

    pub fn is_cancelled(&self) -> bool {
        matches!(self, UiError::Cancelled(_))
    }

    /// The work is with the compute engine (see [`UiError::Pending`]).
    pub fn is_pending(&self) -> bool {
        matches!(self, UiError::Pending)
    }

    /// The same error with `context` in front (e.g. the task it is about).
    pub fn context(self, context: impl std::fmt::Display) -> UiError {
        UiError::Invalid(format!("{context}: {self}"))
    }
}

/// Every core error type converts through `repoqa::Error`.
macro_rules! from_core {
    ($($t:ty),*) => {$(
        impl From<$t> for UiError {
            fn from(e: $t) -> UiError {
                UiError::Core(Arc::new(repoqa::Error::from(e)))
            }
        }
    )*};
}

repoqa::for_each_error_type!(from_core);

impl From<repoqa::Error> for UiError {
    fn from(e: repoqa::Error) -> UiError {
        UiError::Core(Arc::new(e))
    }
}

impl From<serde_json::Error> for UiError {
    fn from(e: serde_json::Error) -> UiError {
        UiError::Invalid(format!("JSON: {e}"))
    }
}
