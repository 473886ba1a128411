//! Languages and tokens: what the dataset's code is parsed and counted
//! with. The six languages with their grammars and the official queries
//! (`lang`), token counts with a Hugging Face `tokenizer.json` (`tokenize`),
//! and the self-check that both work where the code runs (`selfcheck`, the
//! About page's and `repoqa self-check`'s). Below every stage that reads
//! code: nothing here knows a dataset, a prompt or a score. Reading a
//! tokenizer from a file a user names is the input stage's
//! (`Tokenizer::from_file`, beside `crate::input::input_file`).
//!
//! | module     | what it computes |
//! |------------|------------------|
//! | `lang`     | the six languages: grammars, FUNCTION_QUERY, COMMENT_QUERY, comment prefix |
//! | `tokenize` | token counts with a HF `tokenizer.json` (CodeLlama-compatible by default) |
//! | `selfcheck`| every grammar finds its function, the tokenizer counts a line (the About page's self-check) |

pub mod lang;
pub mod selfcheck;
pub mod tokenize;
