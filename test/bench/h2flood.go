package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/opencustody/ocv/test/h2flood"
)

// The h2flood scenario is the read scenario while one attacker floods the
// proxy with HTTP/2 rapid resets (HEADERS then RST_STREAM, over and over,
// on a TLS connection with ALPN h2; a new connection whenever the proxy
// ends one). Compared with read at the same concurrency, it shows what the
// flood costs a well-behaved client: the issue wants its p99 at most
// floodRatioTarget times the p99 without the flood.
const (
	h2floodName      = "h2flood"
	floodRatioTarget = 3.0
)

// h2flood returns the flooded read scenario; setUp has written the read keys.
func (t *targets) h2flood() (scenario, error) {
	base, err := url.Parse(t.c.base)
	if err != nil {
		return scenario{}, fmt.Errorf("parsing the stack's URL: %w", err)
	}
	tr, ok := t.c.http.Transport.(*http.Transport)
	if !ok || tr.TLSClientConfig == nil || base.Scheme != "https" {
		return scenario{}, fmt.Errorf("%w: h2flood needs an https -url", ErrInvalidFlag)
	}
	sc := t.sec.read()
	sc.name = h2floodName
	sc.background = func(ctx context.Context) func() {
		target := h2flood.Target{Addr: base.Host, TLS: tr.TLSClientConfig,
			Path: base.Path + "/v1/vaults/" + t.c.vaultID + "/secrets/" + readPath(0), Token: *t.c.token.Load()}
		ctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			st, err := h2flood.Run(ctx, target)
			if err != nil {
				logf("h2flood: the flood stopped: %v", err)
			}
			logf("h2flood: %d streams reset over %d connections; the proxy ended %d with GOAWAY, closed %d",
				st.Resets, st.Conns, st.GoAways, st.Closed)
		}()
		return func() { cancel(); <-done }
	}
	return sc, nil
}

// writeFloodRatios prints, for each concurrency where both read and
// h2flood ran, the read p99 without and with the flood and their ratio;
// nothing when there is no such pair.
func writeFloodRatios(w io.Writer, results []Result) {
	header := false
	for _, f := range results {
		if f.Scenario != h2floodName {
			continue
		}
		r, ok := findResult(results, "read", f.Concurrency)
		if !ok || r.P99Ms <= 0 {
			continue
		}
		if !header {
			fmt.Fprintf(w, "\nA well-behaved client's read p99 under an HTTP/2 rapid-reset flood on another connection; target ≤ %.0f×.\n", floodRatioTarget)
			fmt.Fprintln(w, "\n| concurrency | read p99 ms | under flood p99 ms | ratio | target |")
			fmt.Fprintln(w, "|---:|---:|---:|---:|---|")
			header = true
		}
		ratio := f.P99Ms / r.P99Ms
		verdict := "not met"
		if ratio <= floodRatioTarget {
			verdict = "met"
		}
		fmt.Fprintf(w, "| %d | %.1f | %.1f | %.2f× | %s |\n", f.Concurrency, r.P99Ms, f.P99Ms, ratio, verdict)
	}
}
