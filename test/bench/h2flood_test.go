package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWriteFloodRatios(t *testing.T) {
	tests := map[string]struct {
		results []Result
		want    []string // lines the output contains
		empty   bool
	}{
		"met": {results: []Result{{Scenario: "read", Concurrency: 16, P99Ms: 5}, {Scenario: h2floodName, Concurrency: 16, P99Ms: 10}},
			want: []string{"| 16 | 5.0 | 10.0 | 2.00× | met |"}},
		// The finding: 5 ms to 93 ms.
		"not met": {results: []Result{{Scenario: "read", Concurrency: 1, P99Ms: 5}, {Scenario: h2floodName, Concurrency: 1, P99Ms: 93}},
			want: []string{"| 1 | 5.0 | 93.0 | 18.60× | not met |"}},
		"no read at that level": {results: []Result{{Scenario: "read", Concurrency: 1, P99Ms: 5}, {Scenario: h2floodName, Concurrency: 16, P99Ms: 9}},
			empty: true},
		"no flood": {results: []Result{{Scenario: "read", Concurrency: 1, P99Ms: 5}}, empty: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			writeFloodRatios(&b, tc.results)
			if tc.empty {
				require.Empty(t, b.String())
				return
			}
			for _, l := range tc.want {
				require.Contains(t, b.String(), l)
			}
		})
	}
}
