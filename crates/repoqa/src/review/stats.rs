//! Statistics of pass rates, to read a score with its evidence: the Wilson
//! score interval of a pass@1 and McNemar's exact test of two runs on the
//! same tasks. Checked against scipy (`binomtest(...).proportion_ci(method=
//! "wilson")` and `binomtest(b, b + c, 0.5).pvalue`) to 1e-9 in
//! crates/repoqa-cli/tests/it/stats_scipy.rs.

/// A two-sided interval of a proportion.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateInterval {
    pub low: f64,
    pub high: f64,
}

/// The standard normal quantile (Wichura's AS241, PPND16: about 1e-16
/// relative accuracy) for `p` in (0, 1). The coefficients are the
/// published ones (as CPython's `statistics.NormalDist.inv_cdf` has them),
/// grouped by three after the point only.
#[allow(clippy::inconsistent_digit_grouping, clippy::excessive_precision)]
pub fn normal_quantile(p: f64) -> f64 {
    let q = p - 0.5;
    if q.abs() <= 0.425 {
        let r = 0.180625 - q * q;
        return q
            * (((((((2509.080_928_730_122_7 * r + 33430.575_583_588_128) * r
                + 67265.770_927_008_7)
                * r
                + 45921.953_931_549_87)
                * r
                + 13731.693_765_509_461)
                * r
                + 1971.590_950_306_551_3)
                * r
                + 133.141_667_891_784_38)
                * r
                + 3.387_132_872_796_366_5)
            / (((((((5226.495_278_852_545 * r + 28729.085_735_721_943) * r
                + 39307.895_800_092_71)
                * r
                + 21213.794_301_586_597)
                * r
                + 5394.196_021_424_751)
                * r
                + 687.187_007_492_057_9)
                * r
                + 42.313_330_701_600_91)
                * r
                + 1.0);
    }
    let r = if q < 0.0 { p } else { 1.0 - p };
    let r = (-r.ln()).sqrt();
    let x = if r <= 5.0 {
        let r = r - 1.6;
        (((((((7.745_450_142_783_414e-4 * r + 0.022_723_844_989_269_184) * r
            + 0.241_780_725_177_450_6)
            * r
            + 1.270_458_252_452_368_4)
            * r
            + 3.647_848_324_763_204_5)
            * r
            + 5.769_497_221_460_691)
            * r
            + 4.630_337_846_156_546)
            * r
            + 1.423_437_110_749_683_5)
            / (((((((1.050_750_071_644_416_9e-9 * r + 5.475_938_084_995_345e-4) * r
                + 0.015_198_666_563_616_457)
                * r
                + 0.148_103_976_427_480_08)
                * r
                + 0.689_767_334_985_1)
                * r
                + 1.676_384_830_183_803_8)
                * r
                + 2.053_191_626_637_759)
                * r
                + 1.0)
    } else {
        let r = r - 5.0;
        (((((((2.010_334_399_292_288_1e-7 * r + 2.711_555_568_743_487_6e-5) * r
            + 0.001_242_660_947_388_078_4)
            * r
            + 0.026_532_189_526_576_124)
            * r
            + 0.296_560_571_828_504_9)
            * r
            + 1.784_826_539_917_291_3)
            * r
            + 5.463_784_911_164_114)
            * r
            + 6.657_904_643_501_103)
            / (((((((2.044_263_103_389_939_7e-15 * r + 1.421_511_758_316_446e-7) * r
                + 1.846_318_317_510_054_8e-5)
                * r
                + 7.868_691_311_456_133e-4)
                * r
                + 0.014_875_361_290_850_615)
                * r
                + 0.136_929_880_922_735_8)
                * r
                + 0.599_832_206_555_888)
                * r
                + 1.0)
    };
    if q < 0.0 {
        -x
    } else {
        x
    }
}

/// The Wilson score interval of `passed` out of `n` at confidence `level`
/// (0.95: 95 %); None without tasks or for a level outside (0, 1).
pub fn wilson(passed: usize, n: usize, level: f64) -> Option<RateInterval> {
    if n == 0 || passed > n || !(level > 0.0 && level < 1.0) {
        return None;
    }
    let z = normal_quantile(0.5 + level / 2.0);
    let (k, n) = (passed as f64, n as f64);
    let p = k / n;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let center = (p + z2 / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    Some(RateInterval { low: (center - half).max(0.0), high: (center + half).min(1.0) })
}

/// McNemar's exact test: the two-sided binomial test (p = 1/2) on the
/// discordant pairs, `only_a` tasks passed by A alone and `only_b` by B
/// alone; scipy's rule (every outcome no likelier than the one seen, with
/// its relative tolerance of 1e-7), 1 without discordant pairs.
pub fn mcnemar_exact(only_a: usize, only_b: usize) -> f64 {
    let n = only_a + only_b;
    if n == 0 {
        return 1.0;
    }
    // ln of each Binomial(n, 1/2) probability, built up term by term.
    let mut ln_pmf = Vec::with_capacity(n + 1);
    let mut ln_c = 0.0f64;
    let ln_half_n = n as f64 * 0.5f64.ln();
    for i in 0..=n {
        if i > 0 {
            ln_c += ((n - i + 1) as f64).ln() - (i as f64).ln();
        }
        ln_pmf.push(ln_c + ln_half_n);
    }
    let d = ln_pmf[only_a];
    let limit = d + (1.0 + 1e-7f64).ln();
    let p: f64 = ln_pmf.iter().filter(|&&l| l <= limit).map(|l| l.exp()).sum();
    p.min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_computed_cases() {
        assert!((normal_quantile(0.975) - 1.959_963_984_540_054).abs() < 1e-15);
        assert!((normal_quantile(0.5)).abs() < 1e-16);
        assert!((normal_quantile(1e-10) + 6.361_340_902_404_056).abs() < 1e-12);
        // 5 of 10 at 95 %: 0.5 ± ..., symmetric.
        let w = wilson(5, 10, 0.95).unwrap();
        assert!((w.low + w.high - 1.0).abs() < 1e-15);
        assert!((w.low - 0.236_593_090_512_564_2).abs() < 1e-12, "{w:?}");
        assert_eq!(wilson(0, 0, 0.95), None);
        assert_eq!(wilson(1, 2, 1.0), None);
        assert!(wilson(0, 10, 0.95).unwrap().low < 1e-15);
        // 1 against 9 discordant pairs: 2 * (1 + 10) / 1024.
        assert!((mcnemar_exact(1, 9) - 22.0 / 1024.0).abs() < 1e-15);
        assert!((mcnemar_exact(4, 4) - 1.0).abs() < 1e-15);
        assert_eq!(mcnemar_exact(0, 0), 1.0);
        assert!(mcnemar_exact(0, 2000) < 1e-300 || mcnemar_exact(0, 2000) == 0.0);
    }
}
