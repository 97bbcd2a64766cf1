package webhooks

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

const testSecret = "whsec_canary-secret-must-not-leak"

func delivery(id, url string) Delivery {
	return Delivery{ID: id, WebhookID: "wh1", EventID: "evt_" + id, Event: "policy.created",
		URL: url + "/hook/canary-path-token", Secret: []byte(testSecret), Data: json.RawMessage(`{"policy_id":"p1"}`)}
}

type testWorker struct {
	w     *Worker
	clock *fakeClock
	logs  *syncBuffer
}

func newTestWorker(t *testing.T, o Outbox, cfg WorkerConfig) testWorker {
	t.Helper()
	clock := &fakeClock{t: t0}
	logs := &syncBuffer{}
	cfg.Outbox = o
	cfg.Options.AllowLoopback = true // TEST ONLY: the receiver is on 127.0.0.1
	cfg.Now = clock.Now
	if cfg.RandN == nil {
		cfg.RandN = func(n int64) int64 { return n - 1 } // always the ceiling
	}
	cfg.Logger = slog.New(slog.NewJSONHandler(logs, nil))
	w, err := NewWorker(cfg)
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NotContains(t, logs.String(), "canary", "a secret or the URL path reached the log")
	})
	return testWorker{w: w, clock: clock, logs: logs}
}

// recorded is what the receiver saw, verified as a receiver would.
type recorded struct {
	payload Payload
	header  http.Header
}

func verifyingReceiver(t *testing.T, status func(n int64) int) (url string, got func() []recorded) {
	t.Helper()
	var mu sync.Mutex
	var seen []recorded
	var n atomic.Int64
	srv, _ := receiver(t, func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		// The worker's clock is fixed at t0 or later; check against t0
		// with a tolerance wide enough for the advanced clock.
		if Verify([]byte(testSecret), body, r.Header.Get(HeaderSignature), t0, 72*time.Hour) != nil {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var p Payload
		if json.Unmarshal(body, &p) != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		mu.Lock()
		seen = append(seen, recorded{payload: p, header: r.Header.Clone()})
		mu.Unlock()
		w.WriteHeader(status(n.Add(1)))
	})
	return srv.URL, func() []recorded {
		mu.Lock()
		defer mu.Unlock()
		return append([]recorded(nil), seen...)
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent log writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
