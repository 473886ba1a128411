package main

import (
	"fmt"
	"os"
	"strings"

	"example.com/csvstat/stats"
)

const sample = `city,temp,rain
Oslo,3.5,12
Lisboa,17.25,
"Paris, FR",11,5
Zürich,8,20
`

// renderBars draws one bar of '*' per histogram bin, scaled to width.
func renderBars(counts []int, lo, hi float64, width int) string {
	most := 0
	for _, c := range counts {
		if c > most {
			most = c
		}
	}
	var b strings.Builder
	step := (hi - lo) / float64(len(counts))
	for i, c := range counts {
		n := 0
		if most > 0 {
			n = c * width / most
		}
		fmt.Fprintf(&b, "%8.2f %s %d\n", lo+step*float64(i), strings.Repeat("*", n), c)
	}
	return b.String()
}

// summarize prints count, mean, standard deviation and quartiles.
func summarize(name string, xs []float64) string {
	mean, err := stats.Mean(xs)
	if err != nil {
		return name + ": no values\n"
	}
	line := fmt.Sprintf("%s: n=%d mean=%.2f", name, len(xs), mean)
	if v, err := stats.Variance(xs); err == nil {
		line += fmt.Sprintf(" var=%.2f", v)
	}
	for _, p := range []float64{25, 50, 75} {
		q, _ := stats.Percentile(xs, p)
		line += fmt.Sprintf(" p%.0f=%.2f", p, q)
	}
	return line + "\n"
}

func main() {
	text := sample
	if len(os.Args) > 1 {
		data, err := os.ReadFile(os.Args[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		text = string(data)
	}
	for _, name := range []string{"temp", "rain"} {
		xs, err := stats.Column(text, name)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Print(summarize(name, xs))
		counts, lo, hi := stats.Histogram(xs, 4)
		fmt.Print(renderBars(counts, lo, hi, 20))
	}
}
