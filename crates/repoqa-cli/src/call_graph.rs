//! `repoqa call-graph` (NOT UPSTREAM): each repository's static call graph
//! as the call-path task reads it from the dataset
//! (`repoqa::callpath::graph`, docs/call-path.md) — a line per repository,
//! or every node and edge as JSON.

use std::path::PathBuf;

use repoqa::callpath::graph::dataset_graphs;
use repoqa::code::lang::Language;

use crate::error::CliError;
use crate::input::{load_dataset, InflateArgs};
use crate::stdout::{out, outln};

#[derive(clap::Args)]
pub struct CallGraphArgs {
    /// The dataset file.
    #[arg(long)]
    pub dataset_path: PathBuf,
    /// Only these languages (comma-separated; default all).
    #[arg(long, value_delimiter = ',')]
    pub languages: Vec<String>,
    /// Every node (file, class, name, lines) and edge as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: CallGraphArgs, inflate: &InflateArgs) -> Result<(), CliError> {
    let languages =
        a.languages.iter().map(|l| Language::from_name(l)).collect::<Result<Vec<_>, _>>()?;
    let dataset = load_dataset(&a.dataset_path, inflate)?;
    let graphs = dataset_graphs(&dataset, &languages)?;
    if a.json {
        // Strings and numbers: serializing cannot fail.
        outln!("{}", serde_json::to_string(&graphs).unwrap_or_default());
        return Ok(());
    }
    eprintln!("repoqa: note: NOT UPSTREAM: the call-path task's call graphs (docs/call-path.md)");
    for g in &graphs {
        let edges: usize = g.graph.edges.iter().map(Vec::len).sum();
        let callers = g.graph.edges.iter().filter(|e| !e.is_empty()).count();
        out!(
            "{:<10} {:<40} {:>5} functions {:>6} calls between them ({} callers), {} names shared by several functions\n",
            g.language.name(),
            g.repo,
            g.graph.nodes.len(),
            edges,
            callers,
            g.graph.ambiguous.len()
        );
    }
    Ok(())
}
