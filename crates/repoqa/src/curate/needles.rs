//! Step 4 of curation: needle candidates and the sample (C2).
//!
//! A candidate has a name no other function of the repo has, is at most
//! 2000 bytes long, and is the first function (in `functions` order) to
//! start in its bin: the repo's text is cut into 64 bins of
//! `total code points // 64` and `global_start_byte // bin_size` names the
//! bin. This spreads needles over the whole repo. The needles are then
//! `random.Random(seed).sample(candidates, 10)` (CPython's generator).

use std::collections::{HashMap, HashSet};

use indexmap::IndexMap;

use super::pyrandom::PyRandom;
use super::CurateError;
use crate::input::dataset::{Function, Needle};

pub const MAX_NEEDLE_BYTES: usize = 2000;
pub const NUM_BINS: usize = 64;
pub const NEEDLES_PER_REPO: usize = 10;

/// The default seed of a repo: `zlib.crc32(repo.encode())`, so a repo's
/// needles do not depend on the other repos of the dataset.
pub fn default_seed(repo: &str) -> u64 {
    let mut crc = flate2::Crc::new();
    crc.update(repo.as_bytes());
    u64::from(crc.sum())
}

/// The candidates (path, record) in function order.
pub(crate) fn candidates<'a>(
    repo: &str,
    content: &IndexMap<String, String>,
    functions: &'a IndexMap<String, Vec<Function>>,
) -> Result<Vec<(&'a str, &'a Function)>, CurateError> {
    let chars: usize = content.values().map(|c| c.chars().count()).sum();
    let bin_size = chars / NUM_BINS;
    if bin_size == 0 {
        return Err(CurateError::TooSmall { repo: repo.to_string(), chars, bins: NUM_BINS });
    }
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for f in functions.values().flatten() {
        *counts.entry(f.name.as_str()).or_default() += 1;
    }
    let mut taken = HashSet::new();
    let mut out = Vec::new();
    for (path, fns) in functions {
        for f in fns {
            if counts[f.name.as_str()] != 1 || f.end_byte - f.start_byte > MAX_NEEDLE_BYTES {
                continue;
            }
            let bin = f.global_start_byte.unwrap_or(f.start_byte) / bin_size;
            if taken.insert(bin) {
                out.push((path.as_str(), f));
            }
        }
    }
    Ok(out)
}

/// `sample(candidates, min(10, len))` as needles without descriptions.
pub(crate) fn sample(candidates: &[(&str, &Function)], seed: u64) -> Vec<Needle> {
    let k = NEEDLES_PER_REPO.min(candidates.len());
    let picked = PyRandom::new(seed).sample(candidates, k).unwrap_or_default();
    picked.into_iter().map(|(path, f)| Needle::of_function(path, f)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn func(name: &str, start: usize, len: usize) -> Function {
        let mut f = Function::default();
        f.name = name.to_string();
        f.start_byte = start;
        f.end_byte = start + len;
        f.global_start_byte = Some(start);
        f.global_end_byte = Some(start + len);
        f
    }

    #[test]
    fn unique_short_first_in_bin() {
        // 640 code points: bins of 10.
        let content: IndexMap<String, String> =
            [("a".to_string(), "x".repeat(640))].into_iter().collect();
        let functions: IndexMap<String, Vec<Function>> = [(
            "a".to_string(),
            vec![
                func("dup", 0, 5),
                func("first", 12, 5),
                func("second_in_bin", 15, 5),
                func("dup", 30, 5),
                func("too_long", 40, 2001),
                func("limit", 50, 2000),
            ],
        )]
        .into_iter()
        .collect();
        let c = candidates("o/r", &content, &functions).unwrap();
        let names: Vec<&str> = c.iter().map(|(_, f)| f.name.as_str()).collect();
        assert_eq!(names, ["first", "limit"]);
        let small: IndexMap<String, String> =
            [("a".to_string(), "é".repeat(63))].into_iter().collect();
        let e = candidates("o/r", &small, &functions).unwrap_err().to_string();
        assert_eq!(
            e,
            "o/r: the content has 63 characters, too small to spread needles over 64 bins"
        );
    }

    #[test]
    fn default_seed_is_zlib_crc32() {
        assert_eq!(default_seed("psf/black"), 1699660289);
        assert_eq!(default_seed(""), 0);
    }
}
