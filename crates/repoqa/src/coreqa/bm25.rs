//! rank-bm25 0.2.2's `BM25Okapi` (k1 = 1.5, b = 0.75, epsilon = 0.25), in
//! its own order of floating-point operations, so scores are equal to the
//! last bit natively:
//!
//! - idf(w) = ln(N − n(w) + 0.5) − ln(n(w) + 0.5), with N documents and n(w)
//!   of them holding w; a negative idf is replaced by epsilon × the mean idf
//!   (the mean summed in the order words first occur in the corpus);
//! - score(d, q) = Σ over the query's tokens (repeats count again) of
//!   idf(t) × f·(k1 + 1) / (f + k1·((1 − b) + b·|d| / avgdl)), f the count of
//!   t in d; a token no document holds adds 0.
//!
//! Tokens: [`Bm25Tokenize::Split`] is Python's `str.split()` (runs of
//! `str.isspace()` characters), as the contract of `repoqa coreqa retrieve
//! --bm25-tokenize split` states.

use indexmap::IndexMap;
use std::collections::HashMap;

/// How texts become BM25 tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[derive(strum::IntoStaticStr, strum::Display, strum::EnumString, strum::VariantArray)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Bm25Tokenize {
    /// Python's `str.split()`: the text cut at runs of whitespace.
    #[default]
    Split,
}

impl Bm25Tokenize {
    pub fn tokens(self, text: &str) -> Vec<&str> {
        match self {
            Bm25Tokenize::Split => {
                text.split(crate::scoring::bleu::is_py_space).filter(|t| !t.is_empty()).collect()
            }
        }
    }
}

pub const K1: f64 = 1.5;
pub const B: f64 = 0.75;
pub const EPSILON: f64 = 0.25;

/// The index of a corpus of token lists.
pub struct Bm25Okapi {
    doc_freqs: Vec<HashMap<String, u32>>,
    doc_len: Vec<usize>,
    avgdl: f64,
    idf: HashMap<String, f64>,
}

impl Bm25Okapi {
    /// `BM25Okapi(corpus)`; `None` for an empty corpus (where rank-bm25
    /// divides by zero).
    pub fn new<S: AsRef<str>>(corpus: &[Vec<S>]) -> Option<Bm25Okapi> {
        if corpus.is_empty() {
            return None;
        }
        let mut nd: IndexMap<&str, u32> = IndexMap::new();
        let mut doc_freqs = Vec::with_capacity(corpus.len());
        let mut doc_len = Vec::with_capacity(corpus.len());
        let mut num_doc = 0usize;
        for document in corpus {
            doc_len.push(document.len());
            num_doc += document.len();
            let mut frequencies: IndexMap<&str, u32> = IndexMap::new();
            for word in document {
                *frequencies.entry(word.as_ref()).or_insert(0) += 1;
            }
            for word in frequencies.keys() {
                *nd.entry(word).or_insert(0) += 1;
            }
            doc_freqs.push(frequencies.into_iter().map(|(w, f)| (w.to_string(), f)).collect());
        }
        let corpus_size = corpus.len() as f64;
        let avgdl = num_doc as f64 / corpus_size;
        let mut idf: HashMap<String, f64> = HashMap::with_capacity(nd.len());
        let mut idf_sum = 0.0;
        let mut negative = Vec::new();
        for (word, &freq) in &nd {
            let freq = f64::from(freq);
            let value = crate::scoring::bleu::ln(corpus_size - freq + 0.5)
                - crate::scoring::bleu::ln(freq + 0.5);
            idf.insert(word.to_string(), value);
            idf_sum += value;
            if value < 0.0 {
                negative.push(*word);
            }
        }
        let average_idf = idf_sum / nd.len().max(1) as f64;
        let eps = EPSILON * average_idf;
        for word in negative {
            idf.insert(word.to_string(), eps);
        }
        Some(Bm25Okapi { doc_freqs, doc_len, avgdl, idf })
    }

    pub fn len(&self) -> usize {
        self.doc_len.len()
    }

    pub fn is_empty(&self) -> bool {
        self.doc_len.is_empty()
    }

    /// `get_scores(query)`: one score per document.
    pub fn scores<S: AsRef<str>>(&self, query: &[S]) -> Vec<f64> {
        let mut score = vec![0.0; self.doc_len.len()];
        for q in query {
            let q = q.as_ref();
            let idf = self.idf.get(q).copied().unwrap_or(0.0);
            for (i, s) in score.iter_mut().enumerate() {
                let f = f64::from(self.doc_freqs[i].get(q).copied().unwrap_or(0));
                let dl = self.doc_len[i] as f64;
                let ratio = f * (K1 + 1.0) / (f + K1 * ((1.0 - B) + B * dl / self.avgdl));
                *s += idf * ratio;
            }
        }
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_is_python_str_split() {
        assert_eq!(Bm25Tokenize::Split.tokens(" a\tb\u{1c}c\u{a0} d \n"), ["a", "b", "c", "d"]);
        assert!(Bm25Tokenize::Split.tokens(" \n").is_empty());
    }

    #[test]
    fn scores_of_a_small_corpus() {
        // rank_bm25.BM25Okapi([["a", "b"], ["b", "c", "c"], ["d"]]).get_scores(["c", "b", "x"])
        let corpus = vec![vec!["a", "b"], vec!["b", "c", "c"], vec!["d"]];
        let index = Bm25Okapi::new(&corpus).unwrap();
        let got = index.scores(&["c", "b", "x"]);
        let want = [0.06385320297074884, 0.6808335236692719, 0.0];
        assert_eq!(got, want);
        assert!(Bm25Okapi::new::<&str>(&[]).is_none());
    }
}
