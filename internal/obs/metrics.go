package obs

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// latencyBuckets are the upper bounds (seconds) of request latency buckets.
var latencyBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// Metrics is a small Prometheus text-format registry: request counts and
// latency histograms per route, plus named gauges and counters. Label
// values come from the route table, never from request data, so
// cardinality stays bounded.
type Metrics struct {
	mu       sync.RWMutex
	requests map[requestKey]*atomic.Uint64
	latency  map[string]*histogram
	gauges   map[string]func() float64
	counters map[string]*atomic.Uint64
}

type requestKey struct {
	route  string
	status int
}

type histogram struct {
	counts []atomic.Uint64 // one per bucket, plus +Inf
	sumNS  atomic.Uint64
}

// NewMetrics returns an empty registry.
func NewMetrics() *Metrics {
	return &Metrics{requests: map[requestKey]*atomic.Uint64{}, latency: map[string]*histogram{},
		gauges: map[string]func() float64{}, counters: map[string]*atomic.Uint64{}}
}

// ObserveRequest records one request of route (its pattern) with status.
func (m *Metrics) ObserveRequest(route string, status int, d time.Duration) {
	k := requestKey{route, status}
	m.mu.RLock()
	c, okC := m.requests[k]
	h, okH := m.latency[route]
	m.mu.RUnlock()
	if !okC || !okH {
		m.mu.Lock()
		if c, okC = m.requests[k]; !okC {
			c = new(atomic.Uint64)
			m.requests[k] = c
		}
		if h, okH = m.latency[route]; !okH {
			h = &histogram{counts: make([]atomic.Uint64, len(latencyBuckets)+1)}
			m.latency[route] = h
		}
		m.mu.Unlock()
	}
	c.Add(1)
	s := d.Seconds()
	i := sort.SearchFloat64s(latencyBuckets, s)
	h.counts[i].Add(1)
	h.sumNS.Add(uint64(d.Nanoseconds()))
}

// Gauge registers a gauge read at scrape time.
func (m *Metrics) Gauge(name string, f func() float64) {
	m.mu.Lock()
	m.gauges[name] = f
	m.mu.Unlock()
}

// Counter returns the named counter, creating it.
func (m *Metrics) Counter(name string) *atomic.Uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.counters[name]
	if !ok {
		c = new(atomic.Uint64)
		m.counters[name] = c
	}
	return c
}

// ServeHTTP writes the registry in the Prometheus text format.
func (m *Metrics) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	m.WriteText(w)
}

// WriteText writes the exposition.
func (m *Metrics) WriteText(w io.Writer) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	fmt.Fprintln(w, "# TYPE ocv_http_requests_total counter")
	keys := make([]requestKey, 0, len(m.requests))
	for k := range m.requests {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].route != keys[j].route {
			return keys[i].route < keys[j].route
		}
		return keys[i].status < keys[j].status
	})
	for _, k := range keys {
		fmt.Fprintf(w, "ocv_http_requests_total{route=%q,status=\"%d\"} %d\n", k.route, k.status, m.requests[k].Load())
	}
	fmt.Fprintln(w, "# TYPE ocv_http_request_duration_seconds histogram")
	routes := make([]string, 0, len(m.latency))
	for r := range m.latency {
		routes = append(routes, r)
	}
	sort.Strings(routes)
	for _, r := range routes {
		h := m.latency[r]
		var cum uint64
		for i, ub := range latencyBuckets {
			cum += h.counts[i].Load()
			fmt.Fprintf(w, "ocv_http_request_duration_seconds_bucket{route=%q,le=\"%g\"} %d\n", r, ub, cum)
		}
		cum += h.counts[len(latencyBuckets)].Load()
		fmt.Fprintf(w, "ocv_http_request_duration_seconds_bucket{route=%q,le=\"+Inf\"} %d\n", r, cum)
		fmt.Fprintf(w, "ocv_http_request_duration_seconds_sum{route=%q} %g\n", r, float64(h.sumNS.Load())/1e9)
		fmt.Fprintf(w, "ocv_http_request_duration_seconds_count{route=%q} %d\n", r, cum)
	}
	names := make([]string, 0, len(m.gauges)+len(m.counters))
	for n := range m.gauges {
		names = append(names, n)
	}
	for n := range m.counters {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if f, ok := m.gauges[n]; ok {
			v := f()
			if math.IsNaN(v) {
				continue
			}
			fmt.Fprintf(w, "# TYPE %s gauge\n%s %g\n", n, n, v)
			continue
		}
		typ := "counter"
		if !strings.HasSuffix(n, "_total") {
			typ = "untyped"
		}
		fmt.Fprintf(w, "# TYPE %s %s\n%s %d\n", n, typ, n, m.counters[n].Load())
	}
}
