//! The call-path task (NOT UPSTREAM; docs/call-path.md): given functions A
//! and B of a repository, name the shortest chain of calls from A to B, or
//! say there is none — the "more complex task" RepoQA's paper promised and
//! upstream's `interprocedural` branch began.
//!
//! | module | what |
//! |---|---|
//! | `graph` | a repository's static call graph, from the dataset's `content` and `functions` |
//! | `select` | which pairs of functions become tasks: seeded, 2–4 calls, a share of tempting no-path pairs |
//! | `verdict` | a reply read leniently and judged: a shortest path or `NO PATH` passes, every other answer named |
//! | `window` | the task's code context: SNF's window holding every function of the path, their depths |
//! | `task` | the prompt (SNF's four parts, the question naming A and B) and the JSONL row |
//! | `score` | pass@1 overall, by language and path length; each verdict's count; `NO PATH` precision and recall |

pub mod graph;
pub mod score;
pub mod select;
pub mod task;
pub mod verdict;
pub mod window;
