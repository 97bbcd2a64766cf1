package main

import (
	"fmt"
	"io"
)

// The target for the Intents API: signing through the whole stack
// reaches at least ratioTarget percent of the raw HSM signing rate at
// concurrency ratioLevel.
const (
	ratioLevel  = 16
	ratioTarget = 80.0
)

// ratioScenarios are the scenarios read against the raw HSM rate, in the
// order the report prints them.
var ratioScenarios = []string{"txsign", "personalsign"}

// Ratio is a signing scenario's throughput as a share of the raw HSM
// signing rate at the same concurrency, from one run.
type Ratio struct {
	Scenario    string  `json:"scenario"`
	Baseline    string  `json:"baseline"`
	Concurrency int     `json:"concurrency"`
	RPS         float64 `json:"rps"`
	BaselineRPS float64 `json:"baseline_rps"`
	Percent     float64 `json:"percent"`
}

// findResult returns the result of scenario name at concurrency conc.
func findResult(results []Result, name string, conc int) (Result, bool) {
	for _, r := range results {
		if r.Scenario == name && r.Concurrency == conc {
			return r, true
		}
	}
	return Result{}, false
}

// ratioConcurrency picks the level to compare at: ratioLevel when the HSM
// baseline was measured there, else the highest level it was measured at;
// false when it has no usable result.
func ratioConcurrency(results []Result) (int, bool) {
	if r, ok := findResult(results, hsmScenarioName, ratioLevel); ok && r.RPS > 0 {
		return ratioLevel, true
	}
	best, found := 0, false
	for _, r := range results {
		if r.Scenario == hsmScenarioName && r.RPS > 0 && r.Concurrency > best {
			best, found = r.Concurrency, true
		}
	}
	return best, found
}

// signingRatios compares each measured signing scenario with the HSM
// baseline at the level ratioConcurrency picks; nil when either side is
// missing.
func signingRatios(results []Result) []Ratio {
	conc, ok := ratioConcurrency(results)
	if !ok {
		return nil
	}
	base, _ := findResult(results, hsmScenarioName, conc)
	var out []Ratio
	for _, name := range ratioScenarios {
		r, ok := findResult(results, name, conc)
		if !ok {
			continue
		}
		out = append(out, Ratio{Scenario: name, Baseline: base.Scenario, Concurrency: conc,
			RPS: r.RPS, BaselineRPS: base.RPS, Percent: 100 * r.RPS / base.RPS})
	}
	return out
}

// writeRatios prints the ratios under the results table; nothing when
// there are none.
func writeRatios(w io.Writer, ratios []Ratio) {
	if len(ratios) == 0 {
		return
	}
	fmt.Fprintf(w, "\nSigning through the API against the raw HSM rate (%s: the same SoftHSM2 with %d sessions, in the bench process); target ≥ %.0f %% at concurrency %d.\n",
		hsmScenarioName, hsmSessions, ratioTarget, ratioLevel)
	if ratios[0].Concurrency != ratioLevel {
		fmt.Fprintf(w, "Concurrency %d was not measured: compared at %d instead.\n", ratioLevel, ratios[0].Concurrency)
	}
	fmt.Fprintln(w, "\n| ratio | concurrency | req/s | HSM signatures/s | share | target |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---|")
	for _, r := range ratios {
		verdict := "not met"
		if r.Percent >= ratioTarget {
			verdict = "met"
		}
		fmt.Fprintf(w, "| %s / %s | %d | %.1f | %.1f | %.1f %% | %s |\n", r.Scenario, r.Baseline, r.Concurrency,
			r.RPS, r.BaselineRPS, r.Percent, verdict)
	}
}
