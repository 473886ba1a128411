"""scipy's answers for the statistics of crates/repoqa/src/stats.rs.

Reads {"wilson": [[k, n, level], ...], "mcnemar": [[b, c], ...]} on stdin and
prints {"wilson": [[low, high], ...], "mcnemar": [p, ...]}: the Wilson score
interval of binomtest(k, n).proportion_ci(level, method="wilson"), and
McNemar's exact test as binomtest(b, b + c, 0.5) two-sided (1.0 when
b + c is 0).
"""

import json
import sys

from scipy.stats import binomtest


def main():
    cases = json.load(sys.stdin)
    wilson = []
    for k, n, level in cases["wilson"]:
        ci = binomtest(k, n).proportion_ci(confidence_level=level, method="wilson")
        wilson.append([float(ci.low), float(ci.high)])
    mcnemar = []
    for b, c in cases["mcnemar"]:
        mcnemar.append(1.0 if b + c == 0 else float(binomtest(b, b + c, 0.5).pvalue))
    json.dump({"wilson": wilson, "mcnemar": mcnemar}, sys.stdout)


if __name__ == "__main__":
    main()
