package obs

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// logLine is one step of a limiter test: a line from client (via the
// context; "" for none) at offset at.
type logLine struct {
	client string
	at     time.Duration
	n      int // lines sent at once (1 when zero)
}

func TestClientLimiter(t *testing.T) {
	tests := map[string]struct {
		limit       ClientLimit
		lines       []logLine
		wantWritten map[string]int // msg "line" per client ("" for none)
		wantDropped map[string]int // summed "log lines dropped" per client
	}{
		"under the limit everything passes": {
			limit: ClientLimit{PerSecond: 5}, lines: []logLine{{client: "10.0.0.1", n: 5}},
			wantWritten: map[string]int{"10.0.0.1": 5}, wantDropped: map[string]int{},
		},
		// The flood of the issue: one client's lines beyond the limit are
		// dropped and summed up once its window is over.
		"a flooding client is cut and summed": {
			limit:       ClientLimit{PerSecond: 5},
			lines:       []logLine{{client: "10.0.0.1", n: 1000}, {client: "10.0.0.1", at: 1500 * time.Millisecond}},
			wantWritten: map[string]int{"10.0.0.1": 6}, wantDropped: map[string]int{"10.0.0.1": 995},
		},
		"another client is not affected": {
			limit:       ClientLimit{PerSecond: 5},
			lines:       []logLine{{client: "10.0.0.1", n: 100}, {client: "10.0.0.2", n: 3}},
			wantWritten: map[string]int{"10.0.0.1": 5, "10.0.0.2": 3}, wantDropped: map[string]int{},
		},
		"lines without a client are never limited": {
			limit: ClientLimit{PerSecond: 1}, lines: []logLine{{n: 50}},
			wantWritten: map[string]int{"": 50}, wantDropped: map[string]int{},
		},
		"a quiet client's drops are summed by the next line of anyone": {
			limit:       ClientLimit{PerSecond: 2},
			lines:       []logLine{{client: "a", n: 10}, {at: 2 * time.Second}, {client: "b", at: 2 * time.Second}},
			wantWritten: map[string]int{"a": 2, "": 1, "b": 1}, wantDropped: map[string]int{"a": 8},
		},
		// Spoofed or many addresses cannot grow the table: past MaxClients
		// they share the "other" budget.
		"clients beyond the table share one budget": {
			limit:       ClientLimit{PerSecond: 2, MaxClients: 2},
			lines:       []logLine{{client: "a"}, {client: "b"}, {client: "c"}, {client: "d"}, {client: "e"}},
			wantWritten: map[string]int{"a": 1, "b": 1, "c": 1, "d": 1}, wantDropped: map[string]int{},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t0 := time.Unix(1_000_000, 0)
			now := t0
			tc.limit.Now = func() time.Time { return now }
			var buf bytes.Buffer
			log := slog.New(NewClientLimiter(slog.NewJSONHandler(&buf, nil), tc.limit))
			for _, l := range tc.lines {
				now = t0.Add(l.at)
				ctx := context.Background()
				if l.client != "" {
					ctx = WithClient(ctx, l.client)
				}
				for range max(l.n, 1) {
					log.ErrorContext(ctx, "line", "who", l.client)
				}
			}
			written, dropped := map[string]int{}, map[string]int{}
			for _, s := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
				var rec struct {
					Msg     string `json:"msg"`
					Client  string `json:"client_ip"`
					Dropped int    `json:"dropped"`
					Who     string `json:"who"`
				}
				require.NoError(t, json.Unmarshal([]byte(s), &rec))
				switch rec.Msg {
				case "line":
					written[rec.Who]++
				case "log lines dropped":
					dropped[rec.Client] += rec.Dropped
				}
			}
			require.Equal(t, tc.wantWritten, written)
			require.Equal(t, tc.wantDropped, dropped)
		})
	}
}

func TestClientLimiterAttribute(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	var buf bytes.Buffer
	log := slog.New(NewClientLimiter(slog.NewJSONHandler(&buf, nil), ClientLimit{PerSecond: 2, Now: func() time.Time { return now }}))
	withAttr := log.With(ClientAttr, "192.0.2.7")
	for range 5 {
		withAttr.Info("from With")
		log.Info("from the record", ClientAttr, "192.0.2.7")
	}
	require.Equal(t, 2, strings.Count(buf.String(), "\n"), "one budget for the client however it is named")
	now = now.Add(2 * time.Second)
	log.WithGroup("g").Info("later", ClientAttr, "192.0.2.8")
	require.Contains(t, buf.String(), `{"time":"`+now.Format(time.RFC3339Nano)+`","level":"WARN","msg":"log lines dropped","client_ip":"192.0.2.7","dropped":8,"limit_per_second":2}`,
		"the summary is written outside the group")
}
