//! Reading a repository folder's text files for CoReQA (`coreqa answer
//! --repo/--repos`, `coreqa build`, `coreqa retrieve`): every regular file
//! below the root, links not followed (so nothing outside the root is read
//! and a FIFO or device is never opened), unreadable files named in
//! `skipped`. Which files are text and the size limits are the core's
//! rules (`repoqa::coreqa::text_dir`), the page's too.

use repoqa::coreqa::text_dir::{text_of, SizeBudget, TextDir, TextDirLimits};
use repoqa::coreqa::{CoreqaError, TextFile};

/// The text files of the folder `root` (`--repo`, `--repos`' folders).
pub fn read_text_dir(
    root: &std::path::Path,
    limits: TextDirLimits,
) -> Result<TextDir, CoreqaError> {
    let io = |p: &std::path::Path, e: std::io::Error| CoreqaError::Io {
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
    let mut budget = SizeBudget::new(&root.display().to_string(), limits);
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
            if let Some(why) = budget.admit(size)? {
                out.skipped.push((rel, why));
                continue;
            }
            let bytes = match std::fs::read(entry.path()) {
                Ok(b) => b,
                Err(e) => {
                    out.skipped.push((rel, e.to_string()));
                    continue;
                }
            };
            if let Some(text) = text_of(bytes) {
                out.files.push(TextFile { path: rel, text });
            }
        }
    }
    out.files.sort_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
    Ok(out)
}
