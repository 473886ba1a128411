//! (being written)

#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("{0}")]
    Message(String),
}
