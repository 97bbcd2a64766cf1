package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/enclave/wire"
)

type pingFunc func(ctx context.Context) error

func (f pingFunc) Ping(ctx context.Context) error { return f(ctx) }

// healthEnclave answers State and Health; nothing else is called.
type healthEnclave struct {
	Enclave
	attested bool
	health   func(ctx context.Context) (wire.HealthResponse, error)
}

func (e healthEnclave) State() EnclaveState {
	return EnclaveState{Attested: e.attested, Reason: "handshake failed"}
}

func (e healthEnclave) Health(ctx context.Context) (wire.HealthResponse, error) { return e.health(ctx) }

func TestHealthNamesTheDependencyDown(t *testing.T) {
	hang := make(chan struct{})
	t.Cleanup(func() { close(hang) })
	up := pingFunc(func(context.Context) error { return nil })
	hsmOK := func(context.Context) (wire.HealthResponse, error) { return wire.HealthResponse{HSM: "ok"}, nil }
	for name, tt := range map[string]struct {
		db             Pinger
		enclave        healthEnclave
		status         int
		database, encl string
		wantRetryAfter bool
	}{
		"both up": {up, healthEnclave{attested: true, health: hsmOK}, http.StatusOK, "ok", "ok", false},
		"database refuses": {pingFunc(func(context.Context) error { return errors.New("connection refused") }),
			healthEnclave{attested: true, health: hsmOK}, http.StatusServiceUnavailable, "unavailable", "ok", true},
		// A check that ignores its context never holds the answer.
		"database frozen": {pingFunc(func(context.Context) error { <-hang; return nil }),
			healthEnclave{attested: true, health: hsmOK}, http.StatusServiceUnavailable, "unavailable", "ok", true},
		"enclave not attested": {up, healthEnclave{health: hsmOK}, http.StatusServiceUnavailable, "ok", "unavailable", true},
		"HSM down": {up, healthEnclave{attested: true, health: func(context.Context) (wire.HealthResponse, error) {
			return wire.HealthResponse{HSM: "error", Detail: "token not found"}, nil
		}}, http.StatusServiceUnavailable, "ok", "unavailable", true},
		"enclave frozen": {up, healthEnclave{attested: true, health: func(context.Context) (wire.HealthResponse, error) {
			<-hang
			return wire.HealthResponse{}, nil
		}}, http.StatusServiceUnavailable, "ok", "unavailable", true},
	} {
		t.Run(name, func(t *testing.T) {
			h := New(Deps{Pinger: tt.db, Enclave: tt.enclave})
			w := httptest.NewRecorder()
			done := make(chan error, 1)
			go func() { done <- h.Health(w, httptest.NewRequest(http.MethodGet, "/v1/health", nil)) }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(HealthCheckTimeout + 10*time.Second):
				t.Fatal("health did not answer within its deadline")
			}
			var out api.Health
			if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
				t.Fatal(err)
			}
			if w.Code != tt.status || out.Checks.Database.Status != tt.database || out.Checks.Enclave.Status != tt.encl {
				t.Fatalf("got %d %s", w.Code, w.Body)
			}
			if (w.Header().Get("Retry-After") != "") != tt.wantRetryAfter {
				t.Fatalf("Retry-After = %q", w.Header().Get("Retry-After"))
			}
			if tt.status != http.StatusOK && out.Reason == "" {
				t.Fatalf("a 503 says why: %s", w.Body)
			}
		})
	}
}
