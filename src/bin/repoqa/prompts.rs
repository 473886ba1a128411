//! `repoqa prompts`: the official task dicts (JSONL) for a dataset.

use std::path::{Path, PathBuf};

use clap::ValueEnum;
use repoqa::context::{CommentMode, Protocol};

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

impl CleanArg {
    pub fn mode(self) -> CommentMode {
        match self {
            CleanArg::None => CommentMode::None,
            CleanArg::PositionalPadding => CommentMode::PositionalPadding,
            CleanArg::NoPadding => CommentMode::NoPadding,
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ProtocolArg {
    /// The official construction (default; byte-identical to the harness).
    Official,
    /// NOT OFFICIAL, not comparable with published scores: no P3 shift, no
    /// P6 line break, the K5 suffix built from the right files.
    Corrected,
}

impl ProtocolArg {
    pub fn protocol(self) -> Protocol {
        match self {
            ProtocolArg::Official => Protocol::Official,
            ProtocolArg::Corrected => Protocol::Corrected,
        }
    }
}

pub fn run(
    dataset_path: &Path,
    size: usize,
    languages: Option<Vec<String>>,
    clean: CleanArg,
    tokenizer: Option<PathBuf>,
    protocol: ProtocolArg,
    out: &Path,
    name_protocol: bool,
) -> Result<(), Failure> {
    use repoqa::context::{self, ContextBuilder, ContextOptions};
    use repoqa::lang::Language;
    let mut phases = Phases::start();
    let dataset = load_dataset(dataset_path)?;
    phases.mark("load-dataset");
    if name_protocol {
        eprintln!("repoqa: note: {}", repoqa::name_protocol::LABEL);
    }
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
        comment_mode: clean.mode(),
        protocol: protocol.protocol(),
        ..ContextOptions::default()
    };
    if !options.protocol.is_official() {
        eprintln!(
            "repoqa: NOTE: {}; every task carries \"protocol\": \"{}\"",
            options.protocol.label(),
            options.protocol
        );
    }
    let specs = context::task_specs(&dataset, selected.as_deref());
    let mut builder = ContextBuilder::new(&dataset, options, &tok);
    let mut text = String::new();
    let total = specs.len();
    for (i, spec) in specs.iter().enumerate() {
        let task = builder.build(spec).map_err(|e| bad(e.to_string()))?;
        let line = if name_protocol {
            repoqa::name_protocol::task_line(&task)
        } else {
            report::jsonl_line(&task)
        };
        text.push_str(&line.map_err(|e| bad(e.to_string()))?);
        if (i + 1) % 10 == 0 || i + 1 == total {
            eprint!("\rprompts: {}/{} tasks", i + 1, total);
        }
    }
    eprintln!();
    phases.mark("build-prompts");
    if out.exists() {
        eprintln!("repoqa: replacing {}", out.display());
    }
    let tag = options.protocol.as_str();
    if !options.protocol.is_official() && !out.to_string_lossy().contains(tag) {
        eprintln!("repoqa: NOTE: name the file after the protocol, e.g. tasks-{tag}.jsonl");
    }
    std::fs::write(out, text).map_err(|e| bad(format!("cannot write {}: {e}", out.display())))?;
    phases.mark("write");
    eprintln!("prompts: wrote {total} tasks to {}", out.display());
    Ok(())
}
