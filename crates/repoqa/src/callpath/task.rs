//! A call-path task as a prompt and a JSONL row (NOT UPSTREAM;
//! docs/call-path.md): SNF's four-part template — instruction, code,
//! question, instruction — where the question names the source and the
//! target function by name and file, and the answer is one function name
//! per line from the source to the target, or `NO PATH`. The row carries
//! the gold path and each function's depth, so a file of tasks (or of
//! outputs: the rows plus `"output": [reply]`, as upstream's SNF outputs
//! are) is scored with the dataset alone.

use serde::{Deserialize, Serialize};

use super::graph::{CallGraph, FunctionNode};
use super::select::{PathPair, Temptation};

/// The value of every row's `task` field.
pub const TASK: &str = "call-path";

/// What every file of call-path tasks or scores says of itself.
pub const LABEL: &str =
    "call-path task (NOT UPSTREAM: RepoQA's unfinished interprocedural task, docs/call-path.md)";

/// What a closed-book call-path file says of itself (`--closed-book`).
pub const CLOSED_BOOK_LABEL: &str = "call-path task, closed-book (NOT UPSTREAM: the call-path task with no code in the prompt, so a right path is recalled from memory; docs/call-path.md)";

/// The instruction, before the code and again after the question.
pub const INSTRUCTION: &str = "Based on the code context, find the shortest chain of calls from the source function to the target function: the source calls the first function of the chain, which calls the next, and so on until the target. Reply with one function name per line, from the source to the target (both included), or NO PATH if no chain of calls leads from the source to the target:";

/// The fields the prompt is made of, in order (as SNF's `template`).
pub const TEMPLATE: &str = "instruction\ncode_context\nquestion\ninstruction";

/// A function the task names.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionRef {
    pub name: String,
    pub file: String,
    /// The record's first line (0-based), which tells same-named records
    /// of one file apart.
    pub start_line: usize,
}

impl FunctionRef {
    pub fn of(node: &FunctionNode) -> FunctionRef {
        FunctionRef {
            name: node.name.clone(),
            file: node.path.clone(),
            start_line: node.start_line,
        }
    }

    /// The node of `graph` this names.
    pub fn node(&self, graph: &CallGraph) -> Option<usize> {
        graph.nodes.iter().position(|n| {
            n.name == self.name && n.path == self.file && n.start_line == self.start_line
        })
    }

    /// `name` (in `file`), as the question says it.
    pub fn label(&self) -> String {
        format!("`{}` (in {})", self.name, self.file)
    }
}

/// One call-path task: a JSONL row of `repoqa prompts --task call-path`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CallPathTask {
    /// Always [`TASK`].
    pub task: String,
    pub repo: String,
    pub language: String,
    pub source: FunctionRef,
    pub target: FunctionRef,
    /// The gold shortest path's names, source to target; empty for a
    /// no-path task.
    pub path: Vec<String>,
    /// Why a no-path task tempts (`reversed`, `shared_caller`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_path: Option<Temptation>,
    /// The depth of each function of `path` (of the source and the target
    /// for a no-path task): the share of the context's tokens before it.
    pub depths: Vec<f64>,
    /// Where the span of those functions was put in the window (0 = top).
    pub placement: f64,
    pub code_context_size: usize,
    pub code_context_ntokens: usize,
    pub instruction: String,
    pub code_context: String,
    pub question: String,
    pub template: String,
    /// [`LABEL`], or [`CLOSED_BOOK_LABEL`]: a reader of the file alone
    /// sees what it is.
    pub protocol: String,
    /// The code context was left out (`--closed-book`): the same task, the
    /// instruction and the question only.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub closed_book: bool,
}

impl CallPathTask {
    /// The calls on the gold path; `None` for a no-path task.
    pub fn path_calls(&self) -> Option<usize> {
        (!self.path.is_empty()).then(|| self.path.len() - 1)
    }

    /// The spread of the functions' depths (deepest minus shallowest).
    pub fn depth_spread(&self) -> f64 {
        let max = self.depths.iter().copied().fold(f64::NAN, f64::max);
        let min = self.depths.iter().copied().fold(f64::NAN, f64::min);
        if max.is_nan() {
            0.0
        } else {
            max - min
        }
    }

    /// The prompt: the fields of `template`, concatenated (as SNF's).
    pub fn prompt(&self) -> String {
        crate::report::fill_template(&self.template, |key| match key {
            "instruction" => &self.instruction,
            "code_context" => &self.code_context,
            "question" => &self.question,
            _ => "",
        })
    }

    /// A stable id: `repo::source->target`.
    pub fn id(&self) -> String {
        format!(
            "{}::{}:{}->{}:{}",
            self.repo, self.source.file, self.source.name, self.target.file, self.target.name
        )
    }
}

/// A task and the model's reply: a line of an outputs file (the task's row
/// plus `"output": [reply]`, as upstream's SNF outputs are).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CallPathOutput {
    #[serde(flatten)]
    pub task: CallPathTask,
    pub output: Vec<String>,
}

impl CallPathTask {
    /// The pair of `graph` this task asks about, or what of it the graph
    /// lacks (the task was built from another dataset).
    pub fn pair(&self, graph: &CallGraph) -> Result<PathPair, String> {
        let missing = |f: &FunctionRef| {
            format!(
                "the dataset's {} has no function {} at line {}",
                self.repo,
                f.label(),
                f.start_line + 1
            )
        };
        let source = self.source.node(graph).ok_or_else(|| missing(&self.source))?;
        let target = self.target.node(graph).ok_or_else(|| missing(&self.target))?;
        let shortest = super::select::shortest_paths_len(graph, source, target);
        if shortest != self.path_calls() {
            return Err(format!(
                "the task's gold path ({}) is not the dataset's shortest ({}): the task was built from another dataset",
                self.path_calls().map_or("none".into(), |c| format!("{c} calls")),
                shortest.map_or("none".into(), |c| format!("{c} calls"))
            ));
        }
        Ok(PathPair { source, target, path: Vec::new(), no_path: self.no_path })
    }
}

/// A call-path task asked through the runner (`repoqa run --task
/// call-path`): its outputs line is the row plus `"output": [reply]`.
impl crate::llm::run::RunItem for CallPathTask {
    fn task_id(&self) -> String {
        self.id()
    }
    fn prompt(&self) -> String {
        CallPathTask::prompt(self)
    }
    fn prompt_ntokens(&self) -> usize {
        self.code_context_ntokens
    }
    fn output_line(
        &self,
        reply: &str,
        _asked: &crate::llm::wire::RequestParams,
    ) -> Result<String, String> {
        let line = CallPathOutput { task: self.clone(), output: vec![reply.to_string()] };
        serde_json::to_string(&line).map(|s| s + "\n").map_err(|e| e.to_string())
    }
}

/// The question between the code and the instruction.
pub fn question(source: &FunctionRef, target: &FunctionRef) -> String {
    format!(
        "\nSource function: {}\nTarget function: {}\nWhat is the shortest chain of calls from the source function to the target function?\n",
        source.label(),
        target.label()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prompt_is_the_four_parts_and_the_row_round_trips() {
        let source = FunctionRef { name: "main".into(), file: "a.py".into(), start_line: 3 };
        let target = FunctionRef { name: "read".into(), file: "b.py".into(), start_line: 9 };
        let t = CallPathTask {
            task: TASK.into(),
            repo: "o/r".into(),
            language: "python".into(),
            question: question(&source, &target),
            source,
            target,
            path: vec!["main".into(), "parse".into(), "read".into()],
            no_path: None,
            depths: vec![0.1, 0.5, 0.3],
            placement: 0.5,
            code_context_size: 2048,
            code_context_ntokens: 2000,
            instruction: INSTRUCTION.into(),
            code_context: "# Path: a.py\ndef main(): parse()\n".into(),
            template: TEMPLATE.into(),
            protocol: LABEL.into(),
            closed_book: false,
        };
        let p = t.prompt();
        assert!(p.starts_with(INSTRUCTION));
        assert!(p.ends_with(INSTRUCTION));
        assert!(p.contains("Source function: `main` (in a.py)\nTarget function: `read` (in b.py)"));
        assert_eq!(t.path_calls(), Some(2));
        assert!((t.depth_spread() - 0.4).abs() < 1e-12);
        let json = serde_json::to_string(&t).expect("json");
        assert!(json.starts_with("{\"task\":\"call-path\",\"repo\":\"o/r\""), "{json}");
        assert_eq!(serde_json::from_str::<CallPathTask>(&json).expect("reads"), t);
    }
}
