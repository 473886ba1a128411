"""scipy's answers for the statistics of crates/repoqa/src/review/stats.rs, and a
reference for crates/repoqa/src/review/bootstrap.rs.

Reads {"wilson": [[k, n, level], ...], "mcnemar": [[b, c], ...],
"bootstrap": [case, ...], "scipy_bootstrap": [case, ...]} on stdin (the
last two optional) and prints {"wilson": [[low, high], ...], "mcnemar":
[p, ...], "bootstrap": [...], "scipy_bootstrap": [...]}:

- the Wilson score interval of binomtest(k, n).proportion_ci(level,
  method="wilson");
- McNemar's exact test as binomtest(b, b + c, 0.5) two-sided (1.0 when
  b + c is 0);
- bootstrap: {"strata": [[language, [[repo, [value, ...]], ...]], ...],
  "unit": "task" | "repo", "level", "resamples", "seed"} gives {"all": [low,
  high] or null, "languages": [[language, [low, high]], ...]}: the stratified
  percentile bootstrap written again from its description (SplitMix64
  draws, one per unit per language per resample; numpy.quantile);
- scipy_bootstrap: {"values", "level", "resamples", "seed"} gives [low,
  high] from scipy.stats.bootstrap(method="percentile") of the mean: an
  independent check on one stratum, equal only up to Monte Carlo error.
"""

import json
import sys

import numpy as np
from scipy.stats import binomtest, bootstrap

MASK = (1 << 64) - 1


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n):
        zone = MASK - MASK % n
        while True:
            x = self.next()
            if x < zone:
                return x % n


def reference_bootstrap(case):
    groups = []
    for language, repos in case["strata"]:
        if case["unit"] == "task":
            units = [(v, 1) for _, values in repos for v in values]
        else:
            units = [(sum(values), len(values)) for _, values in repos if values]
        if units:
            groups.append((language, units))
    rng = SplitMix64(case["seed"])
    per_language = [[] for _ in groups]
    overall = []
    for _ in range(case["resamples"]):
        total_sum = total_count = 0
        for g, (_, units) in enumerate(groups):
            s = c = 0
            for _ in range(len(units)):
                us, uc = units[rng.below(len(units))]
                s += us
                c += uc
            per_language[g].append(s / c)
            total_sum += s
            total_count += c
        overall.append(total_sum / total_count)
    tail = (1.0 - case["level"]) / 2.0

    def interval(stats):
        return [float(np.quantile(stats, tail)), float(np.quantile(stats, 1.0 - tail))]

    # A language of one unit gets no interval, and then neither does the whole.
    return {
        "all": interval(overall) if all(len(u) >= 2 for _, u in groups) else None,
        "languages": [
            [lang, interval(s)] for (lang, u), s in zip(groups, per_language) if len(u) >= 2
        ],
    }


def scipy_bootstrap(case):
    res = bootstrap(
        (np.array(case["values"], dtype=float),),
        np.mean,
        confidence_level=case["level"],
        n_resamples=case["resamples"],
        method="percentile",
        rng=np.random.default_rng(case["seed"]),
    )
    ci = res.confidence_interval
    return [float(ci.low), float(ci.high)]


def main():
    cases = json.load(sys.stdin)
    wilson = []
    for k, n, level in cases["wilson"]:
        ci = binomtest(k, n).proportion_ci(confidence_level=level, method="wilson")
        wilson.append([float(ci.low), float(ci.high)])
    mcnemar = []
    for b, c in cases["mcnemar"]:
        mcnemar.append(1.0 if b + c == 0 else float(binomtest(b, b + c, 0.5).pvalue))
    json.dump(
        {
            "wilson": wilson,
            "mcnemar": mcnemar,
            "bootstrap": [reference_bootstrap(c) for c in cases.get("bootstrap", [])],
            "scipy_bootstrap": [scipy_bootstrap(c) for c in cases.get("scipy_bootstrap", [])],
        },
        sys.stdout,
    )


if __name__ == "__main__":
    main()
