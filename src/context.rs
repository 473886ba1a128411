//! (being written)

#[derive(Debug, thiserror::Error)]
pub enum ContextError {
    #[error("{0}")]
    Message(String),
}
