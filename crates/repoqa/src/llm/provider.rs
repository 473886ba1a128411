//! Which API a model server speaks: [`Provider`], the `--backend` value,
//! with each API's public address, key variables and name. Below `wire`
//! (which speaks them) and `reasoning` (which maps an effort onto each).

use serde::{Deserialize, Serialize};

/// Which API the server speaks (`--backend`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[derive(strum::IntoStaticStr, strum::Display, strum::EnumString, strum::VariantArray)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Provider {
    /// OpenAI Chat Completions, and every server that copies it (vLLM,
    /// SGLang, TGI, Ollama, llama.cpp, LM Studio, OpenRouter…).
    #[default]
    #[cfg_attr(feature = "cli", value(name = "openai"))]
    OpenAi,
    /// Anthropic Messages.
    Anthropic,
    /// Google Gemini `generateContent`.
    Google,
}

impl Provider {
    pub const ALL: &[Provider] = <Provider as strum::VariantArray>::VARIANTS;

    /// The `--backend` value (also `Display` and `FromStr`).
    pub fn name(self) -> &'static str {
        self.into()
    }

    pub fn from_name(name: &str) -> Option<Provider> {
        name.trim().parse().ok()
    }

    /// The public API's base URL.
    pub fn default_base_url(self) -> &'static str {
        match self {
            Provider::OpenAi => "https://api.openai.com/v1",
            Provider::Anthropic => "https://api.anthropic.com/v1",
            Provider::Google => "https://generativelanguage.googleapis.com/v1beta",
        }
    }

    /// The environment variables the CLI reads the key from, in order
    /// (upstream reads `ANTHROPIC_KEY`; the SDK's own name is accepted too).
    pub fn key_env(self) -> &'static [&'static str] {
        match self {
            Provider::OpenAi => &["OPENAI_API_KEY"],
            Provider::Anthropic => &["ANTHROPIC_API_KEY", "ANTHROPIC_KEY"],
            Provider::Google => &["GOOGLE_API_KEY"],
        }
    }

    /// The API's name for people, in messages.
    pub fn label(self) -> &'static str {
        match self {
            Provider::OpenAi => "OpenAI-compatible",
            Provider::Anthropic => "Anthropic",
            Provider::Google => "Google Gemini",
        }
    }
}
