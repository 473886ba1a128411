//! (being written)

#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    #[error("{0}")]
    Message(String),
}
