// Package stats computes descriptive statistics of numeric columns
// (RepoQA Web demo repo).
package stats

import (
	"errors"
	"math"
	"sort"
)

// ErrEmpty is returned for statistics of an empty sample.
var ErrEmpty = errors.New("stats: empty sample")

// Mean is the arithmetic mean, computed with Kahan summation so that long
// columns of small values do not lose precision.
func Mean(xs []float64) (float64, error) {
	if len(xs) == 0 {
		return 0, ErrEmpty
	}
	var sum, comp float64
	for _, x := range xs {
		y := x - comp
		t := sum + y
		comp = (t - sum) - y
		sum = t
	}
	return sum / float64(len(xs)), nil
}

// Variance is the sample variance (n-1 denominator), by Welford's method.
func Variance(xs []float64) (float64, error) {
	if len(xs) < 2 {
		return 0, errors.New("stats: variance needs at least two values")
	}
	var mean, m2 float64
	for i, x := range xs {
		delta := x - mean
		mean += delta / float64(i+1)
		m2 += delta * (x - mean)
	}
	return m2 / float64(len(xs)-1), nil
}

func sortedCopy(xs []float64) []float64 {
	c := append([]float64(nil), xs...)
	sort.Float64s(c)
	return c
}

// Percentile uses linear interpolation between closest ranks (p in [0, 100]).
func Percentile(xs []float64, p float64) (float64, error) {
	if len(xs) == 0 {
		return 0, ErrEmpty
	}
	if p < 0 || p > 100 || math.IsNaN(p) {
		return 0, errors.New("stats: percentile out of range")
	}
	s := sortedCopy(xs)
	rank := p / 100 * float64(len(s)-1)
	lo := int(math.Floor(rank))
	hi := int(math.Ceil(rank))
	return s[lo] + (s[hi]-s[lo])*(rank-float64(lo)), nil
}

// Mode returns the most frequent values (all of them on a tie), ascending.
func Mode(xs []float64) []float64 {
	counts := map[float64]int{}
	best := 0
	for _, x := range xs {
		counts[x]++
		if counts[x] > best {
			best = counts[x]
		}
	}
	var modes []float64
	for x, n := range counts {
		if n == best {
			modes = append(modes, x)
		}
	}
	sort.Float64s(modes)
	return modes
}

// Histogram counts values into `bins` equal-width bins between the minimum
// and the maximum; the maximum falls into the last bin.
func Histogram(xs []float64, bins int) ([]int, float64, float64) {
	counts := make([]int, bins)
	if len(xs) == 0 || bins <= 0 {
		return counts, 0, 0
	}
	lo, hi := xs[0], xs[0]
	for _, x := range xs {
		lo = math.Min(lo, x)
		hi = math.Max(hi, x)
	}
	width := (hi - lo) / float64(bins)
	for _, x := range xs {
		i := bins - 1
		if width > 0 {
			i = int((x - lo) / width)
		}
		if i >= bins {
			i = bins - 1
		}
		counts[i]++
	}
	return counts, lo, hi
}

// ZScores standardizes the values; all zeros when they do not vary.
func ZScores(xs []float64) []float64 {
	out := make([]float64, len(xs))
	mean, err := Mean(xs)
	if err != nil {
		return out
	}
	v, err := Variance(xs)
	if err != nil || v == 0 {
		return out
	}
	sd := math.Sqrt(v)
	for i, x := range xs {
		out[i] = (x - mean) / sd
	}
	return out
}
