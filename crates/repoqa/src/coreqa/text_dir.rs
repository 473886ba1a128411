//! A repository folder's text files, as CoReQA's retrieval reads them:
//! every regular file below the root (links are not followed, so nothing
//! outside the root is read and a FIFO or device is never opened), not
//! under a `.git` folder, whose bytes are UTF-8 without a NUL byte; paths
//! `/`-separated, sorted as UTF-8 bytes. A file over the size limit is
//! left out and named in `skipped`, as are unreadable ones.

use std::path::Path;

use super::{CoreqaError, TextFile};

/// What a repository folder may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextDirLimits {
    /// Bytes of one file; larger files are skipped (and named).
    pub max_file_bytes: u64,
    /// Bytes of all text files together.
    pub max_total_bytes: u64,
    /// Entries walked (files and folders).
    pub max_entries: usize,
}

impl Default for TextDirLimits {
    fn default() -> TextDirLimits {
        TextDirLimits { max_file_bytes: 16 << 20, max_total_bytes: 1 << 30, max_entries: 200_000 }
    }
}

/// The text files and what was left out (path and why).
#[derive(Debug, Default)]
pub struct TextDir {
    pub files: Vec<TextFile>,
    pub skipped: Vec<(String, String)>,
}

pub fn read_text_dir(root: &Path, limits: TextDirLimits) -> Result<TextDir, CoreqaError> {
    let io = |p: &Path, e: std::io::Error| CoreqaError::Io {
        path: p.display().to_string(),
        message: e.to_string(),
    };
    let meta = std::fs::metadata(root).map_err(|e| io(root, e))?;
    if !meta.is_dir() {
        return Err(CoreqaError::Io {
            path: root.display().to_string(),
            message: "not a directory".into(),
        });
    }
    let mut out = TextDir::default();
    let mut total = 0u64;
    let mut entries = 0usize;
    let mut stack = vec![(root.to_path_buf(), String::new())];
    while let Some((dir, prefix)) = stack.pop() {
        for entry in std::fs::read_dir(&dir).map_err(|e| io(&dir, e))? {
            let entry = entry.map_err(|e| io(&dir, e))?;
            entries += 1;
            if entries > limits.max_entries {
                return Err(CoreqaError::TooLarge {
                    path: root.display().to_string(),
                    what: format!("more than {} files and folders", limits.max_entries),
                });
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel = if prefix.is_empty() { name.clone() } else { format!("{prefix}/{name}") };
            // `file_type` does not follow links.
            let kind = entry.file_type().map_err(|e| io(&entry.path(), e))?;
            if kind.is_dir() {
                if name != ".git" {
                    stack.push((entry.path(), rel));
                }
                continue;
            }
            if !kind.is_file() {
                if kind.is_symlink() {
                    out.skipped.push((rel, "a link (not followed)".into()));
                }
                continue;
            }
            let size = entry.metadata().map_err(|e| io(&entry.path(), e))?.len();
            if size > limits.max_file_bytes {
                let limit = crate::limits::size_label(limits.max_file_bytes);
                out.skipped.push((rel, format!("larger than {limit}")));
                continue;
            }
            total += size;
            if total > limits.max_total_bytes {
                let limit = crate::limits::size_label(limits.max_total_bytes);
                return Err(CoreqaError::TooLarge {
                    path: root.display().to_string(),
                    what: format!("its files hold more than {limit}"),
                });
            }
            let bytes = match std::fs::read(entry.path()) {
                Ok(b) => b,
                Err(e) => {
                    out.skipped.push((rel, e.to_string()));
                    continue;
                }
            };
            if bytes.contains(&0) {
                continue;
            }
            if let Ok(text) = String::from_utf8(bytes) {
                out.files.push(TextFile { path: rel, text });
            }
        }
    }
    out.files.sort_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
    Ok(out)
}
