//! (being written)

#[derive(Debug, thiserror::Error)]
pub enum ScoreError {
    #[error("{0}")]
    Message(String),
}
