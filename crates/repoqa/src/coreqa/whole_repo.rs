//! CoReQA's third context setting: the whole repository as Markdown, when
//! it fits the answering model's window. Each text file (in path order) is
//! a `## path` heading and a fenced block tagged with its language by
//! extension; the fence is one backtick longer than the longest backtick
//! run in the file (at least three), so no file can close it early.

use super::TextFile;

/// The fence language of a path, by extension (empty when unknown).
pub fn fence_language(path: &str) -> &'static str {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    match ext.to_ascii_lowercase().as_str() {
        "py" => "python",
        "rs" => "rust",
        "go" => "go",
        "java" => "java",
        "ts" | "tsx" => "typescript",
        "js" | "jsx" | "mjs" | "cjs" => "javascript",
        "c" | "h" => "c",
        "cc" | "cpp" | "cxx" | "hpp" | "hh" | "hxx" => "cpp",
        "md" => "markdown",
        "json" => "json",
        "toml" => "toml",
        "yml" | "yaml" => "yaml",
        "sh" => "sh",
        _ => "",
    }
}

/// The repository `name`'s `files` as one Markdown text.
pub fn repo_markdown(name: &str, files: &[TextFile]) -> String {
    let mut out = format!("# Repository {name}\n");
    for f in files {
        out.push_str(&format!("\n## {}\n\n{}", f.path, fenced(fence_language(&f.path), &f.text)));
    }
    out
}

/// `text` as a fenced block tagged `tag`, ending in a newline; the fence is
/// one backtick longer than the longest backtick run in `text` (at least
/// three), so nothing in it closes the block early.
pub(crate) fn fenced(tag: &str, text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat((longest + 1).max(3));
    let newline = if text.ends_with('\n') || text.is_empty() { "" } else { "\n" };
    format!("{fence}{tag}\n{text}{newline}{fence}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_become_headed_blocks_that_cannot_close_early() {
        let files = [
            TextFile { path: "README.md".into(), text: "Use:\n```sh\nrun\n```\n".into() },
            TextFile { path: "src/a.py".into(), text: "x = 1".into() },
        ];
        assert_eq!(
            repo_markdown("a/b", &files),
            "# Repository a/b\n\n## README.md\n\n````markdown\nUse:\n```sh\nrun\n```\n````\n\n\
             ## src/a.py\n\n```python\nx = 1\n```\n"
        );
    }
}
