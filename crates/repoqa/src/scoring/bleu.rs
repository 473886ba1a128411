//! The similarity RepoQA scores with (docs/parity.md S5): `repoqa.metric.
//! compute_function_similarity`, i.e. NLTK 3.8.1 `sentence_bleu([ref], hyp,
//! smoothing_function=SmoothingFunction().method4)` over the tokens
//! `re.split(r"\s+", s.strip())`, reproduced bit for bit.
//!
//! What has to match, and why it is done the way it is here:
//! - Tokens use Python's notion of whitespace (`str.isspace()`, which is what
//!   both `strip()` and a `\s` in a `str` pattern mean), not Rust's.
//! - NLTK keeps each modified precision as an *unreduced* `Fraction`
//!   (clipped matches / max(1, #hyp n-grams)); `math.log(Fraction)` takes the
//!   log of `num / den` rounded once to f64, which is what we do.
//! - The geometric mean is summed with `math.fsum` (exactly rounded), so we
//!   sum exactly too ([`fsum`]); a naive sum differs in the last ulp.
//! - `log`/`exp` are the platform libm's, as in CPython. Natively (glibc) that
//!   is the very same function CPython calls, and results are bit-identical.
//!   On wasm32 Rust's bundled libm (fdlibm-based) rounds differently from
//!   glibc for ~7-10% of arguments, so ~8% of similarities differ by one ulp
//!   (measured ≤ 2.3e-16; docs/parity.md allows 1e-12).
//!
//! Speed matters (every needle of a repo is scored against each answer, and
//! more in context-candidate mode), so tokens stay borrowed `&str`, tokens
//! and n-grams are interned to dense integer ids in small open-addressing
//! tables, and a [`Hypothesis`] can be prepared once and compared against
//! many references.

/// Python's `str.isspace()`: Unicode White_Space-like set of CPython
/// (bidi class WS/B/S or category Zs). It is what `str.strip()` and `\s`
/// (for `str` patterns) use. Unlike `char::is_whitespace` it includes the
/// information separators U+001C..U+001F.
#[inline]
pub fn is_py_space(c: char) -> bool {
    matches!(
        c,
        '\t'..='\r'
            | '\u{1c}'..='\u{1f}'
            | ' '
            | '\u{85}'
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
    )
}

/// `re.split(r"\s+", s.strip())`. After the strip no token can be empty,
/// except that an empty (or all-whitespace) string yields `[""]`: one empty
/// token, which takes part in BLEU like any other token.
pub fn py_tokens(s: &str) -> Vec<&str> {
    let mut out = Vec::with_capacity(s.len() / 8 + 1);
    for_each_token(s, |t| out.push(t));
    out
}

/// The tokens of [`py_tokens`], one at a time, without collecting them
/// (a reply of megabytes has millions).
pub fn for_each_token<'s>(s: &'s str, mut f: impl FnMut(&'s str)) {
    let b = s.as_bytes();
    let n = b.len();
    let mut any = false;
    let mut i = 0;
    loop {
        while i < n {
            match space_len(b, i) {
                0 => break,
                l => i += l,
            }
        }
        if i >= n {
            break;
        }
        let start = i;
        while i < n {
            // Printable ASCII (the bulk of code) is never a space: test it
            // before the general check.
            if b[i].wrapping_sub(0x21) < 0x5f || space_len(b, i) == 0 {
                i += 1;
            } else {
                break;
            }
        }
        any = true;
        f(&s[start..i]);
    }
    if !any {
        f("");
    }
}

/// ASCII bytes that are Python whitespace: \t..\r, \x1c..\x1f, space.
const ASCII_SPACE: [bool; 128] = {
    let mut t = [false; 128];
    let mut c = 0;
    while c < 128 {
        t[c] = matches!(c, 0x09..=0x0d | 0x1c..=0x20);
        c += 1;
    }
    t
};

/// UTF-8 length of the Python whitespace character at byte `i`, or 0.
/// Scanning byte by byte is sound: continuation bytes (0x80..=0xBF) are
/// neither ASCII nor one of the lead bytes tested here, so a space is only
/// ever recognised at a character boundary.
#[inline]
fn space_len(b: &[u8], i: usize) -> usize {
    let c = b[i];
    if c < 0x80 {
        return usize::from(ASCII_SPACE[c as usize]);
    }
    let (c1, c2) = (b.get(i + 1).copied(), b.get(i + 2).copied());
    match (c, c1, c2) {
        // U+0085, U+00A0
        (0xc2, Some(0x85 | 0xa0), _) => 2,
        // U+1680
        (0xe1, Some(0x9a), Some(0x80)) => 3,
        // U+2000..U+200A, U+2028, U+2029, U+202F
        (0xe2, Some(0x80), Some(0x80..=0x8a | 0xa8 | 0xa9 | 0xaf)) => 3,
        // U+205F
        (0xe2, Some(0x81), Some(0x9f)) => 3,
        // U+3000
        (0xe3, Some(0x80), Some(0x80)) => 3,
        _ => 0,
    }
}

/// `repoqa.metric.compute_function_similarity(candidate, reference)`.
///
/// The official function returns the *int* `0` when no unigram matches;
/// this returns `0.0` then (the caller's strict `>` against an initial int 0
/// treats both alike).
pub fn function_similarity(candidate: &str, reference: &str) -> f64 {
    References::new(&[reference]).similarities(candidate)[0]
}

/// NLTK 3.8.1 `sentence_bleu([reference], hypothesis, weights=(0.25,)*4,
/// smoothing_function=SmoothingFunction().method4)` (k = 5). Returns `0.0`
/// where NLTK returns the int `0` (no unigram match, empty hypothesis).
pub fn sentence_bleu(reference: &[&str], hypothesis: &[&str]) -> f64 {
    Hypothesis::new(hypothesis).bleu(reference)
}

/// Maximum n-gram order (weights are 4 × 0.25).
const N: usize = 4;

/// Several references (the candidate functions of a task) prepared
/// together, for the BLEU of one hypothesis (the reply) against each.
///
/// Only the n-grams of the references can match, so only they are
/// interned; the hypothesis is streamed once, token by token, counting the
/// occurrences of those n-grams, and its other n-grams count only towards
/// its length. Memory is proportional to the references, not to the reply
/// (a reply of megabytes costs no more memory than a short one), and the
/// time is one pass over the reply plus one over each reference. The
/// counts are NLTK's exactly: Σ over reference n-grams of
/// min(count in hypothesis, count in reference), the same integers
/// [`Hypothesis`] finds, so the similarities are the same bits.
pub struct References<'a> {
    vocab: Vocab<'a>,
    /// Orders 2..=N (index n-2): (id of the (n-1)-gram, id of the last
    /// token) → id of the n-gram, over all references.
    grams: [IdTable; N - 1],
    /// Per order (index n-1): number of distinct n-grams of all references.
    distinct: [usize; N],
    refs: Vec<RefGrams>,
}

/// One reference: its token count and, per order, (n-gram id, count).
struct RefGrams {
    len: usize,
    counts: [Vec<(u32, u32)>; N],
}

impl<'a> References<'a> {
    pub fn new(texts: &[&'a str]) -> Self {
        let tokens: Vec<Vec<&'a str>> = texts.iter().map(|t| py_tokens(t)).collect();
        let total: usize = tokens.iter().map(Vec::len).sum();
        let mut vocab = Vocab::with_capacity(total);
        let mut grams: [IdTable; N - 1] = Default::default();
        for table in &mut grams {
            *table = IdTable::with_capacity(total);
        }
        let mut refs = Vec::with_capacity(texts.len());
        for toks in &tokens {
            let len = toks.len();
            let first: Vec<u32> = toks.iter().map(|t| vocab.intern(t).0).collect();
            let mut ids = first.clone();
            let mut counts: [Vec<(u32, u32)>; N] = Default::default();
            counts[0] = run_lengths(ids.clone());
            for n in 2..=N {
                if len < n {
                    break;
                }
                let table = &mut grams[n - 2];
                for i in 0..=len - n {
                    ids[i] = table.intern(pair_key(ids[i], first[i + n - 1])).0;
                }
                ids.truncate(len + 1 - n);
                counts[n - 1] = run_lengths(ids.clone());
            }
            refs.push(RefGrams { len, counts });
        }
        let distinct = [
            vocab.words.len(),
            grams[0].len as usize,
            grams[1].len as usize,
            grams[2].len as usize,
        ];
        References { vocab, grams, distinct, refs }
    }

    /// BLEU of `hypothesis` (tokenized like the official code) against each
    /// reference, in order.
    pub fn similarities(&self, hypothesis: &str) -> Vec<f64> {
        let (len, counts) = self.match_counts(hypothesis);
        counts.iter().zip(&self.refs).map(|(num, r)| bleu_of_counts(*num, len, r.len)).collect()
    }

    /// The same similarities, each with its steps ([`BleuSteps`]): the
    /// counts and the arithmetic the scorer uses, not a second version.
    pub fn steps(&self, hypothesis: &str) -> Vec<BleuSteps> {
        let (len, counts) = self.match_counts(hypothesis);
        counts.iter().zip(&self.refs).map(|(num, r)| bleu_steps(*num, len, r.len)).collect()
    }

    /// The hypothesis's token count, and the clipped match counts per
    /// order against each reference.
    fn match_counts(&self, hypothesis: &str) -> (usize, Vec<[u64; N]>) {
        // How often each reference n-gram occurs in the hypothesis.
        let mut hyp: [Vec<u32>; N] = std::array::from_fn(|n| vec![0u32; self.distinct[n]]);
        // Ids of the n-grams ending at the previous token (ABSENT: none,
        // or not a reference n-gram).
        let mut prev = [ABSENT; N];
        let mut len = 0usize;
        for_each_token(hypothesis, |t| {
            let mut cur = [ABSENT; N];
            cur[0] = self.vocab.get(t);
            for n in 2..=N.min(len + 1) {
                let (a, b) = (prev[n - 2], cur[0]);
                if a != ABSENT && b != ABSENT {
                    cur[n - 1] = self.grams[n - 2].get(pair_key(a, b));
                }
            }
            for (n, id) in cur.iter().enumerate() {
                if *id != ABSENT {
                    hyp[n][*id as usize] += 1;
                }
            }
            prev = cur;
            len += 1;
        });
        let counts = self
            .refs
            .iter()
            .map(|r| {
                let mut num = [0u64; N];
                for n in 0..N {
                    num[n] = r.counts[n]
                        .iter()
                        .map(|&(id, c)| u64::from(c.min(hyp[n][id as usize])))
                        .sum();
                }
                num
            })
            .collect();
        (len, counts)
    }
}

/// (value, count) of each distinct value.
fn run_lengths(mut ids: Vec<u32>) -> Vec<(u32, u32)> {
    ids.sort_unstable();
    let mut out: Vec<(u32, u32)> = Vec::new();
    for id in ids {
        match out.last_mut() {
            Some((last, c)) if *last == id => *c += 1,
            _ => out.push((id, 1)),
        }
    }
    out
}

/// A hypothesis (candidate) prepared for BLEU against any number of
/// references: its tokens and n-grams are interned once, so each reference
/// costs one pass of table look-ups per order.
pub struct Hypothesis<'a> {
    len: usize,
    /// Token text → dense token id (ids 0..distinct tokens).
    vocab: Vocab<'a>,
    /// For orders 2..=N (index n-2): (id of the (n-1)-gram prefix, id of
    /// the last token) → dense id of the n-gram.
    grams: [IdTable; N - 1],
    /// For each order (index n-1): how often each dense n-gram id occurs in
    /// the hypothesis.
    counts: [Vec<u32>; N],
}

impl<'a> Hypothesis<'a> {
    /// Tokens of a candidate text, as `compute_function_similarity` makes them.
    pub fn from_text(candidate: &'a str) -> Self {
        Self::new(&py_tokens(candidate))
    }

    pub fn new(tokens: &[&'a str]) -> Self {
        let len = tokens.len();
        let mut vocab = Vocab::with_capacity(len);
        let mut counts: [Vec<u32>; N] = Default::default();
        let mut ids: Vec<u32> = Vec::with_capacity(len);
        for &t in tokens {
            let (id, new) = vocab.intern(t);
            if new {
                counts[0].push(0);
            }
            counts[0][id as usize] += 1;
            ids.push(id);
        }
        let first = ids.clone();
        let mut grams: [IdTable; N - 1] = Default::default();
        for n in 2..=N {
            if len < n {
                break;
            }
            let table = &mut grams[n - 2];
            *table = IdTable::with_capacity(len + 1 - n);
            let cnt = &mut counts[n - 1];
            // ids[i] holds the (n-1)-gram id starting at i; overwrite it in
            // place with the n-gram id (ids[i] is read before it is written).
            for i in 0..=len - n {
                let (id, new) = table.intern(pair_key(ids[i], first[i + n - 1]));
                if new {
                    cnt.push(0);
                }
                cnt[id as usize] += 1;
                ids[i] = id;
            }
            ids.truncate(len + 1 - n);
        }
        Hypothesis { len, vocab, grams, counts }
    }

    /// Number of hypothesis tokens.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Similarity against a reference text (tokenized like the official code).
    pub fn similarity(&self, reference: &str) -> f64 {
        self.bleu(&py_tokens(reference))
    }

    /// Clipped n-gram match counts (the `Fraction` numerators) per order.
    fn matches(&self, reference: &[&str]) -> [u64; N] {
        let mut num = [0u64; N];
        if self.len == 0 || reference.is_empty() {
            return num;
        }
        // Reference tokens absent from the hypothesis can match nothing, nor
        // can any n-gram containing them.
        let first: Vec<u32> = reference.iter().map(|t| self.vocab.get(t)).collect();
        let mut ids = first.clone();
        let mut seen: Vec<u32> = Vec::with_capacity(self.counts[0].len());
        for n in 1..=N {
            if n > 1 {
                if reference.len() < n || self.len < n {
                    break;
                }
                let table = &self.grams[n - 2];
                for i in 0..=reference.len() - n {
                    let (a, b) = (ids[i], first[i + n - 1]);
                    ids[i] =
                        if a == ABSENT || b == ABSENT { ABSENT } else { table.get(pair_key(a, b)) };
                }
                ids.truncate(reference.len() + 1 - n);
            }
            let hyp_counts = &self.counts[n - 1];
            seen.clear();
            seen.resize(hyp_counts.len(), 0);
            // Each reference occurrence counts while the hypothesis still has
            // an unclipped occurrence of that n-gram: Σ min(hyp, ref).
            let mut m = 0u64;
            for &id in &ids {
                if id != ABSENT {
                    let s = &mut seen[id as usize];
                    if *s < hyp_counts[id as usize] {
                        *s += 1;
                        m += 1;
                    }
                }
            }
            num[n - 1] = m;
        }
        num
    }

    /// BLEU of this hypothesis against one reference (NLTK 3.8.1, method4).
    pub fn bleu(&self, reference: &[&str]) -> f64 {
        bleu_of_counts(self.matches(reference), self.len, reference.len())
    }
}

/// NLTK 3.8.1 `sentence_bleu` (method4) from the clipped match counts per
/// order and the two lengths.
#[inline]
fn bleu_of_counts(num: [u64; N], hyp_len: usize, ref_len: usize) -> f64 {
    bleu_steps(num, hyp_len, ref_len).similarity
}

/// One n-gram order of a similarity, as NLTK takes it.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct OrderStep {
    /// 1 to 4.
    pub n: usize,
    /// Clipped matches: Σ over the reference's n-grams of min(count in
    /// the hypothesis, count in the reference).
    pub matches: u64,
    /// The hypothesis's n-grams (at least 1): the precision's denominator.
    pub total: u64,
    /// method4's stand-in for a zero count, `2^c · 5 / ln(hyp_len)`
    /// (c = 1, 2, … over the orders without a match); the precision is then
    /// `1 / smoothing / total`. None when the order matched (or the
    /// hypothesis is one token, when nothing is smoothed).
    pub smoothing: Option<f64>,
    /// The precision p_n that enters the mean; None when the order is
    /// dropped (p = 0).
    pub precision: Option<f64>,
    /// `0.25 · ln p_n`, the order's term of the log mean.
    pub weighted_log: Option<f64>,
}

/// A similarity step by step, with the scorer's own numbers: the
/// similarity here is the value the score uses, bit for bit.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BleuSteps {
    pub hyp_len: usize,
    pub ref_len: usize,
    pub orders: [OrderStep; N],
    /// No unigram matched: NLTK returns 0 before any smoothing (the
    /// other fields after `orders` are then 0).
    pub no_unigram_match: bool,
    /// 1 when the hypothesis is longer than the reference, else
    /// `exp(1 − ref_len / hyp_len)`.
    pub brevity_penalty: f64,
    /// The weighted logs summed exactly (`math.fsum`).
    pub log_sum: f64,
    /// `exp(log_sum)`: the geometric mean of the precisions.
    pub geometric_mean: f64,
    /// `brevity_penalty × geometric_mean`.
    pub similarity: f64,
}

/// [`BleuSteps`] from the clipped match counts per order and the two
/// lengths: NLTK 3.8.1 `sentence_bleu` with method4 smoothing.
fn bleu_steps(num: [u64; N], hyp_len: usize, ref_len: usize) -> BleuSteps {
    // Denominators: max(1, number of hypothesis n-grams).
    let den = |n: usize| (hyp_len + 1).saturating_sub(n).max(1) as u64;
    let mut steps = BleuSteps {
        hyp_len,
        ref_len,
        orders: std::array::from_fn(|i| OrderStep {
            n: i + 1,
            matches: num[i],
            total: den(i + 1),
            ..OrderStep::default()
        }),
        ..BleuSteps::default()
    };
    // `if p_numerators[1] == 0: return 0` — before any smoothing.
    if num[0] == 0 {
        steps.no_unigram_match = true;
        return steps;
    }
    let mut terms = [0f64; N];
    let mut used = 0;
    // method4: zero-numerator orders get `1 / (2**c * k / log(hyp_len))
    // / denominator`, c = 1, 2, … over those orders, only if hyp_len > 1;
    // otherwise they stay 0 and `if p_i > 0` drops them from the sum.
    let mut incvnt = 1u32;
    for n in 1..=N {
        let order = &mut steps.orders[n - 1];
        let p = if num[n - 1] != 0 {
            num[n - 1] as f64 / den(n) as f64
        } else if hyp_len > 1 {
            let scaled = (2u64.pow(incvnt) * 5) as f64 / ln(hyp_len as f64);
            incvnt += 1;
            order.smoothing = Some(scaled);
            (1.0 / scaled) / den(n) as f64
        } else {
            continue;
        };
        if p > 0.0 {
            terms[used] = 0.25 * ln(p);
            order.precision = Some(p);
            order.weighted_log = Some(terms[used]);
            used += 1;
        }
    }
    // brevity_penalty(closest_ref_len, hyp_len); with one reference the
    // closest length is its length. hyp_len == 0 never gets here.
    steps.brevity_penalty =
        if hyp_len > ref_len { 1.0 } else { exp(1.0 - ref_len as f64 / hyp_len as f64) };
    steps.log_sum = fsum(&terms[..used]);
    steps.geometric_mean = exp(steps.log_sum);
    steps.similarity = steps.brevity_penalty * steps.geometric_mean;
    steps
}

/// `function_similarity(candidate, reference)` step by step.
pub fn explain(candidate: &str, reference: &str) -> BleuSteps {
    References::new(&[reference]).steps(candidate).remove(0)
}

/// Which tokens of each side an order's clipped matches cover, for
/// showing them: an n-gram occurrence is matched while the other side
/// still has an unmatched occurrence of it (left to right), so
/// `matches` equals [`OrderStep::matches`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MatchedTokens {
    pub hypothesis: Vec<bool>,
    pub reference: Vec<bool>,
    pub matches: u64,
}

/// [`MatchedTokens`] of order `n` (1 to 4) between two token lists.
pub fn matched_tokens(hypothesis: &[&str], reference: &[&str], n: usize) -> MatchedTokens {
    use std::collections::HashMap;
    fn mark(side: &[&str], other: &[&str], n: usize) -> (Vec<bool>, u64) {
        let mut left: HashMap<&[&str], u64> = HashMap::new();
        if n > 0 && other.len() >= n {
            for g in other.windows(n) {
                *left.entry(g).or_default() += 1;
            }
        }
        let mut marks = vec![false; side.len()];
        let mut matches = 0;
        if n > 0 && side.len() >= n {
            for (i, g) in side.windows(n).enumerate() {
                if let Some(c) = left.get_mut(g).filter(|c| **c > 0) {
                    *c -= 1;
                    matches += 1;
                    marks[i..i + n].iter_mut().for_each(|m| *m = true);
                }
            }
        }
        (marks, matches)
    }
    let (hyp, matches) = mark(hypothesis, reference, n);
    let (reference, _) = mark(reference, hypothesis, n);
    MatchedTokens { hypothesis: hyp, reference, matches }
}

/// Reference n-gram that does not occur in the hypothesis.
const ABSENT: u32 = u32::MAX;

#[inline]
fn pair_key(prefix: u32, last: u32) -> u64 {
    (u64::from(prefix) << 32) | u64::from(last)
}

/// `math.fsum`: Shewchuk's exact summation with CPython's final
/// round-half-even correction, so the result is the exactly rounded sum.
/// Inputs here are finite (logs of positive numbers), so CPython's
/// inf/nan bookkeeping is not needed.
pub fn fsum(xs: &[f64]) -> f64 {
    let mut partials: Vec<f64> = Vec::with_capacity(8);
    for &x0 in xs {
        let mut x = x0;
        let mut i = 0;
        for j in 0..partials.len() {
            let mut y = partials[j];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            let hi = x + y;
            let lo = y - (hi - x);
            if lo != 0.0 {
                partials[i] = lo;
                i += 1;
            }
            x = hi;
        }
        partials.truncate(i);
        partials.push(x);
    }
    let mut n = partials.len();
    let mut hi = 0.0f64;
    if n > 0 {
        n -= 1;
        hi = partials[n];
        let mut lo = 0.0f64;
        // Sum from the top, stopping at the first inexact addition.
        while n > 0 {
            let x = hi;
            n -= 1;
            let y = partials[n];
            hi = x + y;
            let yr = hi - x;
            lo = y - yr;
            if lo != 0.0 {
                break;
            }
        }
        // Round half to even correctly: if the rest of the partials has the
        // same sign as `lo`, the exact sum is past the halfway point.
        if n > 0 && ((lo < 0.0 && partials[n - 1] < 0.0) || (lo > 0.0 && partials[n - 1] > 0.0)) {
            let y = lo * 2.0;
            let x = hi + y;
            let yr = x - hi;
            if y == yr {
                hi = x;
            }
        }
    }
    hi
}

/// Multiplier of FxHash (rustc); the high bits of the product are well
/// mixed, so table indices are taken from the top (Fibonacci hashing).
const MUL: u64 = 0xf135_7aea_2e62_a9c5;

/// Hash of a token's bytes: one multiply-add per 8-byte word, plus the
/// length so that "a" and "a\0" differ.
#[inline]
fn hash_str(s: &str) -> u64 {
    let b = s.as_bytes();
    let mut h = (b.len() as u64).wrapping_mul(MUL);
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = (h ^ u64::from_le_bytes(w)).wrapping_mul(MUL).rotate_left(23);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        h = (h ^ u64::from_le_bytes(w)).wrapping_mul(MUL).rotate_left(23);
    }
    h.wrapping_mul(MUL)
}

/// Slot count (a power of two ≥ 2n, so probes stay short) and index shift.
fn table_shape(n: usize) -> (usize, u32) {
    let cap = (2 * n).next_power_of_two().max(8);
    (cap, 64 - cap.trailing_zeros())
}

/// Open-addressing (linear probing) interner of token strings to dense ids.
/// Far cheaper than a general `HashMap` for the few hundred short keys of a
/// function; equality is always checked on the text, so hash collisions
/// only cost time.
struct Vocab<'a> {
    /// (hash, id); id `ABSENT` marks an empty slot.
    slots: Vec<(u64, u32)>,
    shift: u32,
    words: Vec<&'a str>,
}

impl<'a> Vocab<'a> {
    fn with_capacity(n: usize) -> Self {
        let (cap, shift) = table_shape(n);
        Vocab { slots: vec![(0, ABSENT); cap], shift, words: Vec::with_capacity(n) }
    }

    /// Id of `w`, and whether it was just added.
    #[inline]
    fn intern(&mut self, w: &'a str) -> (u32, bool) {
        let h = hash_str(w);
        let mask = self.slots.len() - 1;
        let mut i = (h >> self.shift) as usize;
        loop {
            let (sh, id) = self.slots[i];
            if id == ABSENT {
                let id = self.words.len() as u32;
                self.slots[i] = (h, id);
                self.words.push(w);
                return (id, true);
            }
            if sh == h && self.words[id as usize] == w {
                return (id, false);
            }
            i = (i + 1) & mask;
        }
    }

    /// Id of `w`, or `ABSENT`.
    #[inline]
    fn get(&self, w: &str) -> u32 {
        let h = hash_str(w);
        let mask = self.slots.len() - 1;
        let mut i = (h >> self.shift) as usize;
        loop {
            let (sh, id) = self.slots[i];
            if id == ABSENT || (sh == h && self.words[id as usize] == w) {
                return id;
            }
            i = (i + 1) & mask;
        }
    }
}

/// Open-addressing interner of packed (prefix id, last id) pairs. The key
/// `u64::MAX` would need two `ABSENT` ids and is never stored, so it marks
/// an empty slot.
#[derive(Default)]
struct IdTable {
    slots: Vec<(u64, u32)>,
    shift: u32,
    len: u32,
}

const EMPTY_KEY: u64 = u64::MAX;

impl IdTable {
    fn with_capacity(n: usize) -> Self {
        let (cap, shift) = table_shape(n);
        IdTable { slots: vec![(EMPTY_KEY, 0); cap], shift, len: 0 }
    }

    #[inline]
    fn index(&self, key: u64) -> usize {
        ((key ^ (key >> 32)).wrapping_mul(MUL) >> self.shift) as usize
    }

    #[inline]
    fn intern(&mut self, key: u64) -> (u32, bool) {
        let mask = self.slots.len() - 1;
        let mut i = self.index(key);
        loop {
            let (k, id) = self.slots[i];
            if k == key {
                return (id, false);
            }
            if k == EMPTY_KEY {
                let id = self.len;
                self.slots[i] = (key, id);
                self.len += 1;
                return (id, true);
            }
            i = (i + 1) & mask;
        }
    }

    /// Id of `key`, or `ABSENT` (also when the table was never built).
    #[inline]
    fn get(&self, key: u64) -> u32 {
        if self.slots.is_empty() {
            return ABSENT;
        }
        let mask = self.slots.len() - 1;
        let mut i = self.index(key);
        loop {
            let (k, id) = self.slots[i];
            if k == key {
                return id;
            }
            if k == EMPTY_KEY {
                return ABSENT;
            }
            i = (i + 1) & mask;
        }
    }
}

/// `math.log`. Natively this is the platform libm, as in CPython (glibc on
/// Linux, where parity is tested bit for bit). In wasm, Rust's bundled libm
/// (fdlibm) rounds differently from glibc for ~8% of arguments; `pxfm` is
/// correctly rounded, and glibc's log is within 0.52 ulp, so the two agree
/// except in the rare cases glibc itself is not correctly rounded.
#[inline]
pub(crate) fn ln(x: f64) -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        pxfm::f_log(x)
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        x.ln()
    }
}

/// `math.exp`; see [`ln`].
#[inline]
fn exp(x: f64) -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        pxfm::f_exp(x)
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        x.exp()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sim(c: &str, r: &str) -> f64 {
        function_similarity(c, r)
    }

    #[test]
    fn steps_give_the_scorers_value_and_the_shown_matches_its_counts() {
        let texts = [
            "def f(x):\n    return x + 1\n",
            "def f(x):\n    return x + 2\n",
            "def g(a, b):\n    if a:\n        return b\n    return a + b\n",
            "x",
            "",
            "return x x x + 1 + 1",
            "fn main() { println!(\"hi\"); }",
        ];
        for c in texts {
            for r in texts {
                let s = explain(c, r);
                assert_eq!(s.similarity.to_bits(), sim(c, r).to_bits(), "{c:?} vs {r:?}");
                let (ct, rt) = (py_tokens(c), py_tokens(r));
                for o in &s.orders {
                    assert_eq!(
                        matched_tokens(&ct, &rt, o.n).matches,
                        o.matches,
                        "{c:?} vs {r:?} n={}",
                        o.n
                    );
                }
                if !s.no_unigram_match {
                    let used: Vec<f64> = s.orders.iter().filter_map(|o| o.weighted_log).collect();
                    assert_eq!(s.log_sum.to_bits(), fsum(&used).to_bits());
                    assert_eq!(s.similarity, s.brevity_penalty * s.geometric_mean);
                }
            }
        }
        let s = explain("return x + 2", "return x + 1");
        assert_eq!(s.orders.map(|o| (o.matches, o.total)), [(3, 4), (2, 3), (1, 2), (0, 1)]);
        assert!(s.orders[3].smoothing.is_some() && s.orders[3].precision.is_some());
        let m = matched_tokens(&["a", "b", "a"], &["a", "a", "a"], 1);
        assert_eq!(
            (m.hypothesis, m.reference, m.matches),
            (vec![true, false, true], vec![true, true, false], 2)
        );
    }

    #[test]
    fn python_whitespace_set() {
        for c in ['\t', '\n', '\u{b}', '\u{c}', '\r', '\u{1c}', '\u{1f}', ' ', '\u{85}', '\u{a0}'] {
            assert!(is_py_space(c), "{c:?}");
        }
        for c in [
            '\u{1680}', '\u{2000}', '\u{200a}', '\u{2028}', '\u{2029}', '\u{202f}', '\u{205f}',
            '\u{3000}',
        ] {
            assert!(is_py_space(c), "{c:?}");
        }
        // Not whitespace for Python: zero-width space, BOM, Mongolian vowel
        // separator (since Unicode 6.3), U+001B.
        for c in ['\u{200b}', '\u{feff}', '\u{180e}', '\u{1b}', 'a', '\u{0}'] {
            assert!(!is_py_space(c), "{c:?}");
        }
    }

    #[test]
    fn tokens_like_re_split() {
        assert_eq!(py_tokens(""), vec![""]);
        assert_eq!(py_tokens(" \t\n "), vec![""]);
        assert_eq!(py_tokens("a"), vec!["a"]);
        assert_eq!(py_tokens("  def f(x):\n\treturn x  \n"), vec!["def", "f(x):", "return", "x"]);
        assert_eq!(py_tokens("a\u{1c}b\u{3000}c\u{a0}\u{85}d"), vec!["a", "b", "c", "d"]);
        assert_eq!(py_tokens("a\u{200b}b"), vec!["a\u{200b}b"]);
        assert_eq!(py_tokens("\u{2028}é ü\u{2029}"), vec!["é", "ü"]);
    }

    #[test]
    fn fsum_is_exact() {
        assert_eq!(fsum(&[]), 0.0);
        assert_eq!(fsum(&[1e100, 1.0, -1e100]), 1.0);
        assert_eq!(fsum(&[0.1; 10]), 1.0);
        // Half-way case needing the final correction (CPython's test_fsum).
        assert_eq!(fsum(&[1.0, 1e-16, 1e-16]), 1.0000000000000002);
        assert_eq!(fsum(&[2f64.powi(53), -0.5, -2f64.powi(-54)]), 2f64.powi(53) - 1.0);
    }

    /// The streaming path (`References`, what scoring and
    /// `function_similarity` use) gives the bits of the interning path
    /// (`Hypothesis`) on texts with repeats, short texts and empties.
    #[test]
    fn references_equal_hypothesis() {
        let texts = [
            "",
            " ",
            "x",
            "a b",
            "a a a a a",
            "def f(x):\n    return x + 1\n",
            "def f(x): return x + 2 + x + 2 + x",
            "def g(y):\n    if y:\n        return y\n    return f(y) + f(y)\n",
            "return x + 1 return x + 1 return x + 1 def f(x):",
            "é ü \u{3000} é ü é",
        ];
        let refs: Vec<&str> = texts.to_vec();
        let prepared = References::new(&refs);
        for hyp in texts {
            let all = prepared.similarities(hyp);
            for (r, got) in refs.iter().zip(&all) {
                let want = Hypothesis::from_text(hyp).similarity(r);
                assert_eq!(got.to_bits(), want.to_bits(), "{hyp:?} vs {r:?}");
                assert_eq!(function_similarity(hyp, r).to_bits(), want.to_bits());
            }
        }
        assert!(References::new(&[]).similarities("a b").is_empty());
    }

    #[test]
    fn identical_is_one() {
        assert_eq!(sim("def f(x):\n    return x + 1\n", "def f(x): return x + 1"), 1.0);
        assert_eq!(sim("", ""), 1.0);
        assert_eq!(sim("   ", "\n"), 1.0);
        assert_eq!(sim("x", "x"), 1.0);
    }

    #[test]
    fn no_overlap_is_zero() {
        assert_eq!(sim("a b c d", "e f g h"), 0.0);
        assert_eq!(sim("", "a b"), 0.0);
        assert_eq!(sim("a b", ""), 0.0);
        assert_eq!(sim("x", "y"), 0.0);
    }

    #[test]
    fn one_token_hypothesis() {
        // hyp_len 1: p_2..p_4 stay 0 and are skipped; p_1 = 1/1.
        // bp = exp(1 - 3/1).
        assert_eq!(sim("a", "a b c"), (1.0f64 - 3.0).exp());
        // Longer than the reference: bp = 1.
        assert_eq!(sim("a a", "a"), {
            // p1 = 1/2, p2..p4 smoothed with log(2).
            let l = 2f64.ln();
            let p2 = (1.0 / (10.0 / l)) / 1.0;
            let p3 = (1.0 / (20.0 / l)) / 1.0;
            let p4 = (1.0 / (40.0 / l)) / 1.0;
            fsum(&[0.25 * 0.5f64.ln(), 0.25 * p2.ln(), 0.25 * p3.ln(), 0.25 * p4.ln()]).exp()
        });
    }

    #[test]
    fn clipping_and_smoothing() {
        // "the the the" vs "the cat": p1 = 1/3 (clipped), p2 = 0/2, p3 = 0/1,
        // p4 = 0/1 (denominator floor); bp = 1 (3 > 2).
        let l = 3f64.ln();
        let p2 = (1.0 / (10.0 / l)) / 2.0;
        let p3 = (1.0 / (20.0 / l)) / 1.0;
        let p4 = (1.0 / (40.0 / l)) / 1.0;
        let want =
            fsum(&[0.25 * (1.0f64 / 3.0).ln(), 0.25 * p2.ln(), 0.25 * p3.ln(), 0.25 * p4.ln()])
                .exp();
        assert_eq!(sim("the the the", "the cat"), want);
    }

    #[test]
    fn shorter_hypothesis_pays_brevity() {
        let full = "a b c d e f g h";
        let s = sim("a b c d", full);
        // All n-grams match: p_n = 1, score = bp = exp(1 - 8/4).
        assert_eq!(s, (1.0f64 - 2.0).exp());
        assert_eq!(sim(full, "a b c d"), {
            // p1 = 4/8, p2 = 3/7, p3 = 2/6, p4 = 1/5; bp = 1.
            fsum(&[
                0.25 * (4.0f64 / 8.0).ln(),
                0.25 * (3.0f64 / 7.0).ln(),
                0.25 * (2.0f64 / 6.0).ln(),
                0.25 * (1.0f64 / 5.0).ln(),
            ])
            .exp()
        });
    }

    #[test]
    fn prepared_hypothesis_matches_one_shot() {
        let cand = "fn main() { let x = foo(1, 2); println!(\"{x}\"); }";
        let h = Hypothesis::from_text(cand);
        for r in [
            "fn main() { }",
            "let x = foo(1, 2);",
            "",
            "fn main() { let x = foo(1, 2); println!(\"{x}\"); }",
        ] {
            assert_eq!(h.similarity(r).to_bits(), sim(cand, r).to_bits());
        }
    }

    #[test]
    fn interning_is_exact() {
        assert_ne!(hash_str("a"), hash_str("a\0"));
        let toks = ["a", "a\0", "", "abcdefgh", "abcdefgh\0", "a", ""];
        let mut v = Vocab::with_capacity(toks.len());
        let ids: Vec<u32> = toks.iter().map(|t| v.intern(t).0).collect();
        assert_eq!(ids, vec![0, 1, 2, 3, 4, 0, 2]);
        assert_eq!(v.get("abcdefgh"), 3);
        assert_eq!(v.get("b"), ABSENT);
        // A full-ish table of many keys still finds each one.
        let mut t = IdTable::with_capacity(1000);
        for k in 0..1000u64 {
            assert_eq!(t.intern(pair_key(k as u32 % 7, k as u32)), (k as u32, true));
        }
        for k in 0..1000u64 {
            assert_eq!(t.get(pair_key(k as u32 % 7, k as u32)), k as u32);
        }
        assert_eq!(t.get(pair_key(8, 0)), ABSENT);
        assert_eq!(IdTable::default().get(0), ABSENT);
    }
}
