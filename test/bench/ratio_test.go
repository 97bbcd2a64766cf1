package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

func res(name string, conc int, rps float64) Result {
	return Result{Scenario: name, Concurrency: conc, RPS: rps}
}

func TestSigningRatios(t *testing.T) {
	tests := map[string]struct {
		results []Result
		want    []Ratio
	}{
		"ok at 16": {
			results: []Result{
				res("txsign", 1, 100), res("txsign", 16, 1600), res("personalsign", 16, 2000),
				res(hsmScenarioName, 1, 1000), res(hsmScenarioName, 16, 2500),
			},
			want: []Ratio{
				{Scenario: "txsign", Baseline: hsmScenarioName, Concurrency: 16, RPS: 1600, BaselineRPS: 2500, Percent: 64},
				{Scenario: "personalsign", Baseline: hsmScenarioName, Concurrency: 16, RPS: 2000, BaselineRPS: 2500, Percent: 80},
			},
		},
		"ok highest level when 16 is missing": {
			results: []Result{res("txsign", 4, 900), res("txsign", 8, 1000), res(hsmScenarioName, 4, 1000), res(hsmScenarioName, 8, 2000)},
			want:    []Ratio{{Scenario: "txsign", Baseline: hsmScenarioName, Concurrency: 8, RPS: 1000, BaselineRPS: 2000, Percent: 50}},
		},
		"ok signing scenario missing at the level": {
			results: []Result{res("txsign", 1, 100), res("personalsign", 16, 500), res(hsmScenarioName, 16, 1000)},
			want:    []Ratio{{Scenario: "personalsign", Baseline: hsmScenarioName, Concurrency: 16, RPS: 500, BaselineRPS: 1000, Percent: 50}},
		},
		"none without hsmraw":  {results: []Result{res("txsign", 16, 1600), res("personalsign", 16, 2000)}},
		"none without signing": {results: []Result{res("write", 16, 1600), res(hsmScenarioName, 16, 2000)}},
		// A baseline that signed nothing would divide by zero.
		"none with an empty baseline": {results: []Result{res("txsign", 16, 1600), res(hsmScenarioName, 16, 0)}},
		"ok empty baseline at 16 falls back": {
			results: []Result{res("txsign", 1, 300), res(hsmScenarioName, 1, 1200), res(hsmScenarioName, 16, 0)},
			want:    []Ratio{{Scenario: "txsign", Baseline: hsmScenarioName, Concurrency: 1, RPS: 300, BaselineRPS: 1200, Percent: 25}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, signingRatios(tc.results))
		})
	}
}

func TestWriteRatios(t *testing.T) {
	var b bytes.Buffer
	writeRatios(&b, nil)
	require.Empty(t, b.String())

	writeRatios(&b, []Ratio{
		{Scenario: "txsign", Baseline: hsmScenarioName, Concurrency: 16, RPS: 1600, BaselineRPS: 2500, Percent: 64},
		{Scenario: "personalsign", Baseline: hsmScenarioName, Concurrency: 16, RPS: 2000, BaselineRPS: 2500, Percent: 80},
	})
	out := b.String()
	require.Contains(t, out, "| txsign / hsm-raw-secp256k1 | 16 | 1600.0 | 2500.0 | 64.0 % | not met |\n")
	require.Contains(t, out, "| personalsign / hsm-raw-secp256k1 | 16 | 2000.0 | 2500.0 | 80.0 % | met |\n")
	require.NotContains(t, out, "was not measured")

	b.Reset()
	writeRatios(&b, []Ratio{{Scenario: "txsign", Baseline: hsmScenarioName, Concurrency: 8, RPS: 1, BaselineRPS: 2, Percent: 50}})
	require.Contains(t, b.String(), "Concurrency 16 was not measured: compared at 8 instead.")
}

func TestWriteMarkdownPrintsRatios(t *testing.T) {
	var b bytes.Buffer
	rep := Report{Results: []Result{res(hsmScenarioName, 16, 2500)},
		Ratios: []Ratio{{Scenario: "txsign", Baseline: hsmScenarioName, Concurrency: 16, RPS: 2000, BaselineRPS: 2500, Percent: 80}}}
	rep.Results[0].hist = &Histogram{}
	rep.Results[0].Errors = map[string]uint64{}
	writeMarkdown(&b, rep)
	out := b.String()
	require.Contains(t, out, "| hsm-raw-secp256k1 | 16 |")
	require.Less(t, bytes.Index(b.Bytes(), []byte("| hsm-raw-secp256k1 | 16 |")), bytes.Index(b.Bytes(), []byte("| txsign / hsm-raw-secp256k1")),
		"the ratios come after the table")
}
