//! `repoqa prompts`: the official task dicts (JSONL) for a dataset.

use std::path::{Path, PathBuf};

use clap::ValueEnum;

use repoqa::report;

use crate::input::load_dataset;
use crate::phases::Phases;
use crate::{bad, Failure};

/// Upstream's spellings (`search_needle_function --clean-ctx-comments`),
/// with the earlier kebab-case ones kept as aliases.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum CleanArg {
    None,
    #[value(name = "positional_padding", alias = "positional-padding")]
    PositionalPadding,
    #[value(name = "no_padding", alias = "no-padding")]
    NoPadding,
}

pub fn run(
    dataset_path: &Path,
    size: usize,
    languages: Option<Vec<String>>,
    clean: CleanArg,
    tokenizer: Option<PathBuf>,
    out: &Path,
) -> Result<(), Failure> {
    use repoqa::context::{self, CommentMode, ContextBuilder, ContextOptions};
    use repoqa::lang::Language;
    let mut phases = Phases::start();
    let dataset = load_dataset(dataset_path)?;
    phases.mark("load-dataset");
    let selected: Option<Vec<Language>> = match &languages {
        None => None,
        Some(names) => {
            let mut ls = Vec::new();
            for name in names {
                let l = Language::from_name(name.trim())
                    .map_err(|e| bad(format!("--languages: {e}")))?;
                if dataset.repos(l.name()).is_none() {
                    eprintln!(
                        "repoqa: note: the dataset {} has no {l} repos",
                        dataset_path.display()
                    );
                }
                ls.push(l);
            }
            Some(ls)
        }
    };
    let tok_path = tokenizer.unwrap_or_else(repoqa::tokenize::default_tokenizer_path);
    let tok = repoqa::tokenize::Tokenizer::from_file(&tok_path).map_err(|e| bad(e.to_string()))?;
    phases.mark("load-tokenizer");
    let options = ContextOptions {
        code_context_size: size,
        comment_mode: match clean {
            CleanArg::None => CommentMode::None,
            CleanArg::PositionalPadding => CommentMode::PositionalPadding,
            CleanArg::NoPadding => CommentMode::NoPadding,
        },
        ..ContextOptions::default()
    };
    let specs = context::task_specs(&dataset, selected.as_deref());
    let mut builder = ContextBuilder::new(&dataset, options, &tok);
    let mut text = String::new();
    let total = specs.len();
    for (i, spec) in specs.iter().enumerate() {
        let task = builder.build(spec).map_err(|e| bad(e.to_string()))?;
        text.push_str(&report::jsonl_line(&task).map_err(|e| bad(e.to_string()))?);
        if (i + 1) % 10 == 0 || i + 1 == total {
            eprint!("\rprompts: {}/{} tasks", i + 1, total);
        }
    }
    eprintln!();
    phases.mark("build-prompts");
    if out.exists() {
        eprintln!("repoqa: replacing {}", out.display());
    }
    std::fs::write(out, text).map_err(|e| bad(format!("cannot write {}: {e}", out.display())))?;
    phases.mark("write");
    eprintln!("prompts: wrote {total} tasks to {}", out.display());
    Ok(())
}
