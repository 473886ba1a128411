//! Prompts: the official builder (`context`: `make_code_context` and the
//! task list, every count against the official code), the settings a build
//! is made with and the key they cache under (`settings`), and what is read
//! off a built prompt: its bands (`anatomy`), the artifacts that mark the
//! needle and the answerer that uses only them (`audit`); and the same
//! tasks asked other ways: for the name only (`name_protocol`, NOT
//! OFFICIAL), and as an agent harness takes them, its results read back
//! (`agent`). Reads the dataset and writes the official task record
//! (`crate::report::Task`); uses scoring to say how a build's comment mode
//! is scored (`settings`), to score the artifact-only answerer (`audit`) and
//! an agent's named functions (`agent`). Nothing here reviews a run
//! (`crate::review`) or calls a model.
//!
//! | module     | what it computes |
//! |------------|------------------|
//! | `context`  | `make_code_context`: the ~16k-token code context around each needle, tasks |
//! | `settings` | the build settings (size, comment mode, task filter, tokenizer) and the tasks cache key |
//! | `anatomy`  | a prompt as bands (instruction, each file, the needle, description) with token counts, artifacts placed |
//! | `audit`    | the artifacts by which official prompts mark the needle (P3, P6, K5); the artifact-only answerer |
//! | `name_protocol` | the same contexts asking for the name only (NOT the official protocol) |
//! | `agent`    | agent-style task export (`repoqa_<i>`) and import of agent results |

pub mod agent;
pub mod anatomy;
pub mod audit;
pub mod context;
pub mod name_protocol;
pub mod settings;
