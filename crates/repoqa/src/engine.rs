//! The compute engine as requests and replies: what needs the grammars or
//! the tokenizer (scoring a reply, explaining a similarity, the self-check),
//! asked for in messages. The web app's page never links this code's
//! callees: it sends a [`Request`] (JSON) to its engine worker, whose wasm
//! runs [`Engine::handle_json`] and sends the [`Reply`] back. The messages
//! carry the core's own types, so an answer computed in the worker is the
//! answer the CLI computes: the same functions, serialised losslessly
//! (floats round-trip exactly).
//!
//! The engine keeps what many requests share: one dataset (by the id its
//! sender gave it, so a request can say which it was meant for) and one
//! tokenizer.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::dataset::Dataset;
use crate::report::ModelOutput;
use crate::score::{Evaluation, Explanation, ScoreOptions, Scorer};
use crate::selfcheck::{GrammarCheck, TokenizerCheck};
use crate::tokenize::Tokenizer;

#[derive(Debug, Error)]
pub enum EngineError {
    #[error("the engine has no dataset yet (it is sent before a request that needs it)")]
    NoDataset,
    #[error("the engine holds dataset {held}, not dataset {asked} this request was made for")]
    OtherDataset { held: u32, asked: u32 },
    #[error("the engine has no tokenizer yet (it is sent before a request that needs it)")]
    NoTokenizer,
    #[error("the engine could not read a request: {0}")]
    BadRequest(String),
}

/// What the engine is asked to compute.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    /// The six grammars, and the tokenizer if the engine has one.
    SelfCheck,
    /// `Scorer::evaluate` of each output against dataset `dataset`.
    Evaluate { dataset: u32, options: ScoreOptions, outputs: Vec<ModelOutput> },
    /// `Scorer::explain` of one output's similarity to candidate `name` at `path`.
    Explain {
        dataset: u32,
        options: ScoreOptions,
        output: Box<ModelOutput>,
        name: String,
        path: String,
    },
}

/// The engine's answer to a [`Request`], variant for variant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Reply {
    SelfCheck {
        grammars: Vec<GrammarCheck>,
        /// `None`: the engine has no tokenizer; `Err`: it could not count.
        tokenizer: Option<Result<TokenizerCheck, String>>,
    },
    /// One result per output, in order; an `Err` is that output's
    /// `ScoreError`, as its message.
    Evaluate {
        evaluations: Vec<Result<Evaluation, String>>,
    },
    Explain {
        explanation: Result<Option<Box<Explanation>>, String>,
    },
}

/// The engine's state between requests.
#[derive(Default)]
pub struct Engine {
    dataset: Option<(u32, Dataset)>,
    tokenizer: Option<Tokenizer>,
}

impl Engine {
    pub fn new() -> Engine {
        Engine::default()
    }

    /// Take the dataset file `bytes` (as its sender read it) as dataset `id`.
    pub fn set_dataset(&mut self, id: u32, bytes: &[u8], origin: &str) -> Result<(), crate::Error> {
        self.dataset = None;
        self.dataset = Some((id, Dataset::from_bytes(bytes, origin)?));
        Ok(())
    }

    /// The id of the dataset held, if any.
    pub fn dataset_id(&self) -> Option<u32> {
        self.dataset.as_ref().map(|(id, _)| *id)
    }

    /// Take the tokenizer file `bytes`.
    pub fn set_tokenizer(&mut self, bytes: &[u8], origin: &str) -> Result<(), crate::Error> {
        self.tokenizer = Some(Tokenizer::from_json_bytes(bytes, origin)?);
        Ok(())
    }

    pub fn tokenizer(&self) -> Result<&Tokenizer, EngineError> {
        self.tokenizer.as_ref().ok_or(EngineError::NoTokenizer)
    }

    fn dataset(&self, asked: u32) -> Result<&Dataset, EngineError> {
        match &self.dataset {
            None => Err(EngineError::NoDataset),
            Some((held, d)) if *held == asked => Ok(d),
            Some((held, _)) => Err(EngineError::OtherDataset { held: *held, asked }),
        }
    }

    /// Compute what `request` asks for.
    pub fn handle(&mut self, request: Request) -> Result<Reply, crate::Error> {
        Ok(match request {
            Request::SelfCheck => Reply::SelfCheck {
                grammars: crate::selfcheck::check_all_grammars(),
                tokenizer: self
                    .tokenizer
                    .as_ref()
                    .map(|t| crate::selfcheck::check_tokenizer(t).map_err(|e| e.to_string())),
            },
            Request::Evaluate { dataset, options, outputs } => {
                let mut scorer = Scorer::new(self.dataset(dataset)?, options);
                let evaluations =
                    outputs.iter().map(|o| scorer.evaluate(o).map_err(|e| e.to_string())).collect();
                Reply::Evaluate { evaluations }
            }
            Request::Explain { dataset, options, output, name, path } => {
                let mut scorer = Scorer::new(self.dataset(dataset)?, options);
                Reply::Explain {
                    explanation: scorer
                        .explain(&output, &name, &path)
                        .map(|e| e.map(Box::new))
                        .map_err(|e| e.to_string()),
                }
            }
        })
    }

    /// [`Engine::handle`] of a JSON request, the reply as JSON; an error
    /// (the request unreadable, no dataset, …) as its message.
    pub fn handle_json(&mut self, request: &str) -> Result<String, String> {
        let request: Request = serde_json::from_str(request)
            .map_err(|e| EngineError::BadRequest(e.to_string()).to_string())?;
        let reply = self.handle(request).map_err(|e| e.to_string())?;
        // The reply's types are strings, numbers and lists: serialising cannot fail.
        serde_json::to_string(&reply).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demo() -> (Engine, Dataset) {
        let bytes = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../public/demo/repoqa-demo.json"
        ))
        .expect("the demo dataset");
        let mut engine = Engine::new();
        engine.set_dataset(7, &bytes, "demo").expect("the demo reads");
        (engine, Dataset::from_bytes(&bytes, "demo").expect("the demo reads"))
    }

    /// A reply through JSON equals the scorer's own, float for float.
    #[test]
    fn evaluate_through_json_equals_the_scorer() {
        let (mut engine, dataset) = demo();
        let lang = dataset.languages.keys().next().expect("a language").clone();
        let repo = &dataset.repos(&lang).expect("repos")[0];
        let needle = &repo.needles[0];
        let text = format!(
            "{{\"language\":{lang:?},\"repo\":{:?},\"name\":{:?},\"output\":[\"```\\nnot it\\n```\"],\"position_ratio\":0.5,\"needle_token_start\":1,\"needle_token_end\":2}}",
            repo.repo, needle.name
        );
        let outputs = crate::report::read_model_outputs(&text).outputs;
        assert_eq!(outputs.len(), 1);
        let options = ScoreOptions::default();
        let request = Request::Evaluate { dataset: 7, options, outputs: outputs.clone() };
        let json = engine.handle_json(&serde_json::to_string(&request).unwrap()).unwrap();
        let Reply::Evaluate { evaluations } = serde_json::from_str(&json).unwrap() else {
            panic!("not an Evaluate reply: {json}")
        };
        let direct = Scorer::new(&dataset, options).evaluate(&outputs[0]).unwrap();
        assert_eq!(evaluations, vec![Ok(direct)]);
    }

    #[test]
    fn a_request_for_another_dataset_is_refused() {
        let (mut engine, _) = demo();
        let request =
            Request::Evaluate { dataset: 8, options: ScoreOptions::default(), outputs: vec![] };
        let err = engine.handle_json(&serde_json::to_string(&request).unwrap()).unwrap_err();
        assert!(err.contains("dataset 7, not dataset 8"), "{err}");
        assert!(Engine::new()
            .handle_json("{\"op\":\"nope\"}")
            .unwrap_err()
            .contains("could not read"));
    }

    #[test]
    fn self_check_passes_and_says_when_there_is_no_tokenizer() {
        let Reply::SelfCheck { grammars, tokenizer } =
            Engine::new().handle(Request::SelfCheck).unwrap()
        else {
            panic!("not a SelfCheck reply")
        };
        assert_eq!(grammars.len(), 6);
        assert!(grammars.iter().all(GrammarCheck::ok));
        assert!(tokenizer.is_none());
    }
}
