package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Result is the outcome of one scenario at one concurrency level, over the
// measured window only (warm-up excluded). Latencies cover 2xx answers.
type Result struct {
	Scenario    string            `json:"scenario"`
	Concurrency int               `json:"concurrency"`
	Requests    uint64            `json:"requests"` // answers and failures in the window
	OK          uint64            `json:"ok"`       // 2xx answers (with a verified body for reads)
	Errors      map[string]uint64 `json:"errors"`   // by HTTP status, or transport / timeout / bad-body
	Seconds     float64           `json:"seconds"`  // length of the measured window
	RPS         float64           `json:"rps"`      // OK / Seconds
	P50Ms       float64           `json:"p50_ms"`
	P90Ms       float64           `json:"p90_ms"`
	P99Ms       float64           `json:"p99_ms"`
	MaxMs       float64           `json:"max_ms"`
	MeanMs      float64           `json:"mean_ms"`
	Interrupted bool              `json:"interrupted,omitempty"` // Ctrl-C ended the window early
	// CPU is the CPU per request of the stack's processes and the bench
	// (cpu.go); nil when the window was interrupted before it began.
	CPU *CPUUse `json:"cpu,omitempty"`
	// Floor compares the cell with the TLS floor of the same run (floor.go).
	Floor *FloorRatio `json:"floor_ratio,omitempty"`

	hist *Histogram
}

// Report is everything -json prints.
type Report struct {
	Command  string    `json:"command"`
	Started  time.Time `json:"started"`
	URL      string    `json:"url"`
	Protocol string    `json:"protocol"`
	Duration string    `json:"duration"`
	Warmup   string    `json:"warmup"`
	Value    int       `json:"value_size"`
	ReadKeys int       `json:"read_keys"`
	Results  []Result  `json:"results"`
	// Ratios compares the signing scenarios with the raw HSM rate (ratio.go).
	Ratios []Ratio `json:"ratios,omitempty"`
	// Processes says which pid each server role's CPU was read from, or
	// why it was not (cpu.go).
	Processes []ProcInfo `json:"processes,omitempty"`
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// finish fills the derived fields from the merged histogram and counts.
func (r *Result) finish(measured time.Duration) {
	r.Requests = r.OK
	for _, n := range r.Errors {
		r.Requests += n
	}
	r.Seconds = measured.Seconds()
	if r.Seconds > 0 {
		r.RPS = float64(r.OK) / r.Seconds
	}
	r.P50Ms = ms(r.hist.Quantile(0.50))
	r.P90Ms = ms(r.hist.Quantile(0.90))
	r.P99Ms = ms(r.hist.Quantile(0.99))
	r.MaxMs = ms(r.hist.Max())
	r.MeanMs = ms(r.hist.Mean())
}

// errorCell renders the error count with its breakdown: "0", or
// "12 (429:10, 500:2)".
func errorCell(errs map[string]uint64) string {
	var total uint64
	parts := make([]string, 0, len(errs))
	for _, k := range slices.Sorted(maps.Keys(errs)) {
		total += errs[k]
		parts = append(parts, k+":"+strconv.FormatUint(errs[k], 10))
	}
	if total == 0 {
		return "0"
	}
	return strconv.FormatUint(total, 10) + " (" + strings.Join(parts, ", ") + ")"
}

func msCell(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) + " ms" }

// writeMarkdown prints the header lines, the results table and the
// signing ratios.
func writeMarkdown(w io.Writer, rep Report) {
	fmt.Fprintf(w, "```\n%s\n```\n\n", rep.Command)
	fmt.Fprintf(w, "Target %s (%s), %s per cell after %s warm-up, %d-byte values, %d read keys, started %s.\n",
		rep.URL, rep.Protocol, rep.Duration, rep.Warmup, rep.Value, rep.ReadKeys, rep.Started.UTC().Format(time.RFC3339))
	fmt.Fprintf(w, "req/s counts 2xx answers; latencies are of 2xx answers, measured at the client.\n\n")
	fmt.Fprintln(w, "| scenario | concurrency | requests | errors | req/s | p50 | p90 | p99 | max |")
	fmt.Fprintln(w, "|---|---:|---:|---|---:|---:|---:|---:|---:|")
	for _, r := range rep.Results {
		name := r.Scenario
		if r.Interrupted {
			name += " (interrupted)"
		}
		fmt.Fprintf(w, "| %s | %d | %d | %s | %.1f | %s | %s | %s | %s |\n", name, r.Concurrency, r.Requests,
			errorCell(r.Errors), r.RPS, msCell(r.P50Ms), msCell(r.P90Ms), msCell(r.P99Ms), msCell(r.MaxMs))
	}
	writeRatios(w, rep.Ratios)
	writeCPU(w, rep.Processes, rep.Results)
}

// writeJSON prints the report as one JSON line in a fenced block, so the
// output stays valid markdown and the line is easy to extract.
func writeJSON(w io.Writer, rep Report) error {
	b, err := json.Marshal(rep)
	if err != nil {
		return fmt.Errorf("encoding JSON report: %w", err)
	}
	_, err = fmt.Fprintf(w, "\n```json\n%s\n```\n", b)
	return err
}
