package stats

import (
	"fmt"
	"strconv"
	"strings"
)

// SplitCSVLine splits one CSV line on commas, honouring double quotes and
// doubled quotes inside them ("a ""b""" is `a "b"`).
func SplitCSVLine(line string) ([]string, error) {
	var fields []string
	var cur strings.Builder
	inQuotes := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case inQuotes && c == '"' && i+1 < len(line) && line[i+1] == '"':
			cur.WriteByte('"')
			i++
		case c == '"':
			inQuotes = !inQuotes
		case c == ',' && !inQuotes:
			fields = append(fields, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	if inQuotes {
		return nil, fmt.Errorf("unterminated quote in %q", line)
	}
	return append(fields, cur.String()), nil
}

// Column extracts the named column of a CSV text (first line = header) as
// numbers; empty cells are skipped, other non-numbers are errors with the
// line number.
func Column(text, name string) ([]float64, error) {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	header, err := SplitCSVLine(lines[0])
	if err != nil {
		return nil, err
	}
	col := -1
	for i, h := range header {
		if strings.EqualFold(strings.TrimSpace(h), name) {
			col = i
		}
	}
	if col < 0 {
		return nil, fmt.Errorf("no column %q in header %v", name, header)
	}
	var out []float64
	for n, line := range lines[1:] {
		cells, err := SplitCSVLine(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n+2, err)
		}
		if col >= len(cells) || strings.TrimSpace(cells[col]) == "" {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(cells[col]), 64)
		if err != nil {
			return nil, fmt.Errorf("line %d: %q is not a number", n+2, cells[col])
		}
		out = append(out, v)
	}
	return out, nil
}
