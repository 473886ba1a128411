//! `repoqa call-graph` (NOT UPSTREAM): each repository's static call graph
//! as the call-path task reads it from the dataset
//! (`repoqa::callpath::graph`, docs/call-path.md) — a line per repository,
//! or every node and edge as JSON.

use std::path::PathBuf;

use repoqa::callpath::graph::dataset_graphs;
use repoqa::callpath::select::{dataset_tasks, Selection};
use repoqa::code::lang::Language;

use crate::build_args::CallPathArgs;
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
    /// Also the call-path tasks each repository gives (seeded pairs; with
    /// --json, every pair and its gold path).
    #[arg(long)]
    pub tasks: bool,
    #[command(flatten)]
    pub selection: CallPathArgs,
}

pub fn run(a: CallGraphArgs, inflate: &InflateArgs) -> Result<(), CliError> {
    let languages =
        a.languages.iter().map(|l| Language::from_name(l)).collect::<Result<Vec<_>, _>>()?;
    let dataset = load_dataset(&a.dataset_path, inflate)?;
    let graphs = dataset_graphs(&dataset, &languages)?;
    let selection = a.selection.selection();
    if !a.tasks && selection != Selection::default() {
        return Err(CliError::usage(
            "--tasks-per-repo, --path-lengths and --no-path-share choose the tasks of --tasks: give --tasks",
        ));
    }
    if !(0.0..=1.0).contains(&selection.no_path_share) {
        return Err(CliError::usage(format!(
            "--no-path-share {}: a share from 0 to 1",
            selection.no_path_share
        )));
    }
    let tasks = if a.tasks { dataset_tasks(&graphs, &selection) } else { Vec::new() };
    for (g, t) in graphs.iter().zip(&tasks) {
        if t.shortfall.is_some() {
            eprintln!(
                "repoqa: warning: {} gives {} of the {} call-path tasks asked",
                g.repo,
                t.pairs.len(),
                selection.tasks_per_repo
            );
        }
    }
    if a.json {
        let out: Vec<serde_json::Value> = graphs
            .iter()
            .enumerate()
            .map(|(i, g)| {
                let mut v = serde_json::to_value(g).unwrap_or_default();
                if let Some(t) = tasks.get(i) {
                    v["tasks"] = serde_json::to_value(t).unwrap_or_default();
                }
                v
            })
            .collect();
        // Strings and numbers: serializing cannot fail.
        outln!("{}", serde_json::to_string(&out).unwrap_or_default());
        return Ok(());
    }
    eprintln!("repoqa: note: NOT UPSTREAM: the call-path task's call graphs (docs/call-path.md)");
    for (i, g) in graphs.iter().enumerate() {
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
        if let Some(t) = tasks.get(i) {
            let name = |n: usize| {
                let f = &g.graph.nodes[n];
                format!("{} ({})", f.name, f.path)
            };
            for p in &t.pairs {
                let what = match &p.no_path {
                    None => {
                        let names: Vec<&str> =
                            p.path.iter().map(|&n| g.graph.nodes[n].name.as_str()).collect();
                        format!("{} calls: {}", p.path.len() - 1, names.join(" -> "))
                    }
                    Some(why) => format!(
                        "NO PATH ({})",
                        serde_json::to_value(why).unwrap_or_default().as_str().unwrap_or("")
                    ),
                };
                out!("    {} => {}: {what}\n", name(p.source), name(p.target));
            }
        }
    }
    Ok(())
}
