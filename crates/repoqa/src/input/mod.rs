//! Inputs: what users give, read within limits. The dataset file
//! (`dataset`, read in steps so the page stays responsive), its identity
//! (`identity`), the ceilings every input file is read under (`limits`),
//! which of the project's files a file looks like (`sniff`) and, natively,
//! reading a file a user names (`input_file`). Nothing here builds a prompt
//! or scores an answer; every later stage takes its data from here.
//!
//! | module     | what it computes |
//! |------------|------------------|
//! | `dataset`  | the RepoQA dataset file (official schema, key order kept), file order |
//! | `identity` | a dataset's identity: SHA-256 of its JSON (the same for .json and .json.gz) |
//! | `freshness` | how fresh a dataset is: the earliest first release its repositories record |
//! | `limits`   | ceilings on what an input file can ask for (inflated bytes, counts, sizes) |
//! | `sniff`    | which of the project's files a file looks like (dataset, outputs, tasks, SCORES, tokenizer) |
//! | `input_file` | reading a file a user names: regular files whole, pipes up to a limit, devices refused (native) |

pub mod dataset;
pub mod freshness;
pub mod identity;
#[cfg(not(target_arch = "wasm32"))]
pub mod input_file;
pub mod limits;
pub mod sniff;
