package obs

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestMetricsExposition(t *testing.T) {
	m := NewMetrics()
	m.ObserveRequest("GET /v1/health", 200, 300*time.Microsecond)
	m.ObserveRequest("GET /v1/health", 200, 20*time.Millisecond)
	m.ObserveRequest("GET /v1/health", 503, time.Millisecond)
	m.Gauge("ocv_enclave_attested", func() float64 { return 1 })
	m.Counter("ocv_audit_sealed_events_total").Add(7)
	var b strings.Builder
	m.WriteText(&b)
	out := b.String()
	require.Contains(t, out, `ocv_http_requests_total{route="GET /v1/health",status="200"} 2`)
	require.Contains(t, out, `ocv_http_requests_total{route="GET /v1/health",status="503"} 1`)
	require.Contains(t, out, `ocv_http_request_duration_seconds_bucket{route="GET /v1/health",le="0.0005"} 1`)
	require.Contains(t, out, `ocv_http_request_duration_seconds_bucket{route="GET /v1/health",le="+Inf"} 3`)
	require.Contains(t, out, "ocv_enclave_attested 1")
	require.Contains(t, out, "ocv_audit_sealed_events_total 7")
}
