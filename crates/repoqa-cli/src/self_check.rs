//! `repoqa self-check`: the grammars and tokenizer check of the web app's
//! About page, natively (the browser test compares the two).

use std::path::PathBuf;

use crate::error::CliError;
use crate::stdout::outln;

pub fn run(tokenizer: Option<PathBuf>, json: bool) -> Result<(), CliError> {
    let path = tokenizer.unwrap_or_else(crate::tokenizer_path::default_tokenizer_path);
    let tok = repoqa::code::tokenize::Tokenizer::from_file(&path)?;
    let report = repoqa::code::selfcheck::report_json(&tok)?;
    let grammars_ok =
        report["grammars"].as_array().is_some_and(|gs| gs.iter().all(|g| g["ok"] == true));
    if json {
        outln!("{report}");
    } else {
        for g in report["grammars"].as_array().into_iter().flatten() {
            outln!(
                "{:<11} {:<28} {}",
                g["language"].as_str().unwrap_or("?"),
                g["grammar"].as_str().unwrap_or("?"),
                if g["ok"] == true { "ok" } else { "FAILED" }
            );
        }
        outln!(
            "tokenizer   {} tokens in the sample line (vocabulary {})",
            report["tokenizer"]["sample_count"],
            report["tokenizer"]["vocab_size"]
        );
    }
    if grammars_ok {
        Ok(())
    } else {
        Err(CliError::SelfCheckFailed)
    }
}
