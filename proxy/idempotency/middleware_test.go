package idempotency

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/store/storetest"
	"github.com/opencustody/ocv/proxy/auth"
)

var alice = auth.Principal{Type: auth.PrincipalUser, ID: "0193a000-0000-7000-8000-000000000001", OrgID: "0193a000-0000-7000-8000-0000000000a1"}

// backends runs a test against the fake and against PostgreSQL.
func backends(t *testing.T, fn func(t *testing.T, s Store)) {
	t.Run("memory", func(t *testing.T) { fn(t, newMemStore()) })
	t.Run("postgres", func(t *testing.T) { fn(t, storetest.New(t)) })
}

// creator answers 201 with a JSON body that changes on every call, so that a
// replay is told apart from a second run.
type creator struct {
	calls  atomic.Int64
	status int
	body   string // "" means a counter body
}

func (c *creator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := c.calls.Add(1)
	in, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Location", "/v1/things/1")
	w.Header().Set("X-Not-Kept", "x")
	status := c.status
	if status == 0 {
		status = http.StatusCreated
	}
	w.WriteHeader(status)
	if c.body != "" {
		_, _ = io.WriteString(w, c.body)
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"call": n, "echo": string(in)})
}

func request(p *auth.Principal, method, path, key, body string) *http.Request {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	if key != "" {
		r.Header.Set(HeaderKey, key)
	}
	if p != nil {
		r = r.WithContext(auth.WithPrincipal(r.Context(), *p))
	}
	return r
}

func do(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func problemType(t *testing.T, w *httptest.ResponseRecorder) string {
	t.Helper()
	var p struct {
		Type string `json:"type"`
	}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &p))
	return p.Type
}

func TestReplay(t *testing.T) {
	backends(t, func(t *testing.T, s Store) {
		c := &creator{}
		h := Middleware(s, Config{})(c)
		first := do(h, request(&alice, "POST", "/v1/things", "key-1", `{"a":1}`))
		require.Equal(t, http.StatusCreated, first.Code)
		require.Empty(t, first.Header().Get(HeaderReplayed))
		require.Contains(t, first.Body.String(), `{\"a\":1}`, "the handler read the body")

		dup := do(h, request(&alice, "POST", "/v1/things", "key-1", `{"a":1}`))
		require.Equal(t, http.StatusOK, dup.Code, "a replay answers 200")
		require.Equal(t, first.Body.String(), dup.Body.String())
		require.Equal(t, "true", dup.Header().Get(HeaderReplayed))
		require.Equal(t, "application/json", dup.Header().Get("Content-Type"))
		require.Equal(t, "/v1/things/1", dup.Header().Get("Location"))
		require.Empty(t, dup.Header().Get("X-Not-Kept"))
		require.EqualValues(t, 1, c.calls.Load(), "the handler ran once")

		tests := map[string]struct {
			p          *auth.Principal
			method     string
			path, key  string
			body       string
			wantStatus int
			wantType   string
			wantRun    bool
		}{
			"different body":       {p: &alice, method: "POST", path: "/v1/things", key: "key-1", body: `{"a":2}`, wantStatus: 422, wantType: TypeMismatch},
			"different path":       {p: &alice, method: "POST", path: "/v1/others", key: "key-1", body: `{"a":1}`, wantStatus: 422, wantType: TypeMismatch},
			"other key":            {p: &alice, method: "POST", path: "/v1/things", key: "key-2", body: `{"a":1}`, wantStatus: 201, wantRun: true},
			"no key":               {p: &alice, method: "POST", path: "/v1/things", body: `{"a":1}`, wantStatus: 201, wantRun: true},
			"GET is not covered":   {p: &alice, method: "GET", path: "/v1/things", key: "key-1", wantStatus: 201, wantRun: true},
			"no principal":         {method: "POST", path: "/v1/things", key: "key-1", body: `{"a":1}`, wantStatus: 201, wantRun: true},
			"same key, other user": {p: &auth.Principal{ID: "0193a000-0000-7000-8000-000000000002", OrgID: alice.OrgID}, method: "POST", path: "/v1/things", key: "key-1", body: `{"a":1}`, wantStatus: 201, wantRun: true},
			"same key, other org":  {p: &auth.Principal{ID: alice.ID, OrgID: "0193a000-0000-7000-8000-0000000000b2"}, method: "POST", path: "/v1/things", key: "key-1", body: `{"a":1}`, wantStatus: 201, wantRun: true},
			"fail key too long":    {p: &alice, method: "POST", path: "/v1/things", key: strings.Repeat("k", 256), wantStatus: 400, wantType: "invalid_request"},
			"fail key non-ascii":   {p: &alice, method: "POST", path: "/v1/things", key: "k\u00e9", wantStatus: 400, wantType: "invalid_request"},
		}
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				before := c.calls.Load()
				w := do(h, request(tc.p, tc.method, tc.path, tc.key, tc.body))
				require.Equal(t, tc.wantStatus, w.Code)
				if tc.wantType != "" {
					require.Equal(t, tc.wantType, problemType(t, w))
				}
				ran := c.calls.Load() > before
				require.Equal(t, tc.wantRun, ran)
			})
		}
	})
}

func TestInvalidKeyHeaders(t *testing.T) {
	h := Middleware(newMemStore(), Config{})(&creator{})
	tests := map[string][]string{
		"empty": {""},
		"twice": {"a", "b"}, // which one would count is ambiguous
	}
	for name, values := range tests {
		t.Run(name, func(t *testing.T) {
			r := request(&alice, "POST", "/v1/things", "", "{}")
			r.Header[HeaderKey] = values
			w := do(h, r)
			require.Equal(t, http.StatusBadRequest, w.Code)
		})
	}
}

func TestInFlightDuplicate(t *testing.T) {
	backends(t, func(t *testing.T, s Store) {
		entered, release := make(chan struct{}), make(chan struct{})
		var calls atomic.Int64
		h := Middleware(s, Config{})(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			if calls.Add(1) == 1 {
				close(entered)
				<-release
			}
			w.WriteHeader(http.StatusCreated)
			_, _ = io.WriteString(w, `{"ok":true}`)
		}))
		firstDone := make(chan *httptest.ResponseRecorder)
		go func() { firstDone <- do(h, request(&alice, "POST", "/v1/things", "k", "{}")) }()
		<-entered

		dup := do(h, request(&alice, "POST", "/v1/things", "k", "{}"))
		require.Equal(t, http.StatusConflict, dup.Code)
		require.Equal(t, TypeInProgress, problemType(t, dup))
		// The holder's request is not known until it commits: in flight,
		// a different request with the key is told to wait too.
		other := do(h, request(&alice, "POST", "/v1/things", "k", `{"x":1}`))
		require.Equal(t, http.StatusConflict, other.Code)

		close(release)
		first := <-firstDone
		require.Equal(t, http.StatusCreated, first.Code)
		again := do(h, request(&alice, "POST", "/v1/things", "k", "{}"))
		require.Equal(t, http.StatusOK, again.Code)
		require.Equal(t, `{"ok":true}`, again.Body.String())
		require.EqualValues(t, 1, calls.Load())
	})
}

func TestNotStoredReleasesKey(t *testing.T) {
	tests := map[string]struct {
		cfg     Config
		handler *creator
	}{
		"server error": {handler: &creator{status: http.StatusInternalServerError, body: `{"type":"internal_error"}`}},
		"client error": {handler: &creator{status: http.StatusNotFound, body: `{"type":"not_found"}`}},
		"body too big": {cfg: Config{MaxBody: 8}, handler: &creator{body: `{"too":"large for eight bytes"}`}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			backends(t, func(t *testing.T, s Store) {
				c := &creator{status: tc.handler.status, body: tc.handler.body}
				h := Middleware(s, tc.cfg)(c)
				first := do(h, request(&alice, "POST", "/v1/things", "k", "{}"))
				require.Equal(t, tc.handler.body, first.Body.String(), "the client still gets the response")
				retry := do(h, request(&alice, "POST", "/v1/things", "k", "{}"))
				require.Empty(t, retry.Header().Get(HeaderReplayed))
				require.EqualValues(t, 2, c.calls.Load(), "the retry ran the handler again")
			})
		})
	}
}

func TestFailedThenSucceeded(t *testing.T) {
	backends(t, func(t *testing.T, s Store) {
		var calls atomic.Int64
		h := Middleware(s, Config{})(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			if calls.Add(1) == 1 {
				w.WriteHeader(http.StatusInternalServerError)
				return
			}
			w.WriteHeader(http.StatusCreated)
			_, _ = io.WriteString(w, "created")
		}))
		require.Equal(t, 500, do(h, request(&alice, "POST", "/v1/x", "k", "{}")).Code)
		require.Equal(t, 201, do(h, request(&alice, "POST", "/v1/x", "k", "{}")).Code)
		dup := do(h, request(&alice, "POST", "/v1/x", "k", "{}"))
		require.Equal(t, 200, dup.Code)
		require.Equal(t, "created", dup.Body.String())
		require.EqualValues(t, 2, calls.Load())
	})
}

func TestPanicReleasesKey(t *testing.T) {
	m := newMemStore()
	h := Middleware(m, Config{})(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("handler bug") }))
	require.Panics(t, func() { do(h, request(&alice, "POST", "/v1/x", "k", "{}")) })
	require.Zero(t, m.len(), "the key was released")
}

// Nothing reaches the client before the commit, and a failed commit
// answers 503 without the handler's response: nothing happened.
func TestAnswerOnlyAfterCommit(t *testing.T) {
	m := newMemStore()
	var w *httptest.ResponseRecorder
	m.onFinish = func() {
		require.False(t, w.Flushed)
		require.Empty(t, w.Body.String(), "nothing is answered before the commit")
		require.Empty(t, w.Header().Get("Location"))
	}
	var order []string
	h := Middleware(m, Config{AfterCommit: func(*http.Request) { order = append(order, "commit") }})(&creator{})
	w = httptest.NewRecorder()
	h.ServeHTTP(w, request(&alice, "POST", "/v1/x", "k", "{}"))
	require.Equal(t, http.StatusCreated, w.Code)
	require.Equal(t, "/v1/things/1", w.Header().Get("Location"))
	require.Equal(t, []string{"commit"}, order)

	m.commitErr = errors.New("connection reset")
	w = httptest.NewRecorder()
	h.ServeHTTP(w, request(&alice, "POST", "/v1/x", "k2", "{}"))
	require.Equal(t, http.StatusServiceUnavailable, w.Code)
	require.Equal(t, "storage_unavailable", problemType(t, w))
	require.NotEmpty(t, w.Header().Get("Retry-After"))
	require.Empty(t, w.Header().Get("Location"), "the handler's headers are not sent")
	require.NotContains(t, w.Body.String(), "connection reset")
	require.Equal(t, 1, m.len(), "only the first key is stored; k2 is free: the retry runs once, normally")
}

func TestBeforeCommit(t *testing.T) {
	backends(t, func(t *testing.T, s Store) {
		var statuses []int
		fail := false
		c := &creator{}
		h := Middleware(s, Config{BeforeCommit: func(_ context.Context, _ *http.Request, status int) error {
			statuses = append(statuses, status)
			if fail {
				return errors.New("audit down")
			}
			return nil
		}})(c)
		fail = true
		w := do(h, request(&alice, "POST", "/v1/x", "k", "{}"))
		require.Equal(t, http.StatusInternalServerError, w.Code)
		require.NotContains(t, w.Body.String(), "audit down")
		fail = false
		require.Equal(t, http.StatusCreated, do(h, request(&alice, "POST", "/v1/x", "k", "{}")).Code, "the key was left free")
		require.Equal(t, []int{201, 201}, statuses)
		require.EqualValues(t, 2, c.calls.Load())
	})
}

func TestStoreFailureFailsClosed(t *testing.T) {
	m := newMemStore()
	m.claimErr = errors.New("connection refused")
	c := &creator{}
	w := do(Middleware(m, Config{})(c), request(&alice, "POST", "/v1/x", "k", "{}"))
	require.Equal(t, http.StatusInternalServerError, w.Code)
	require.NotContains(t, w.Body.String(), "connection refused")
	require.Zero(t, c.calls.Load())
}

func TestBodyTooLarge(t *testing.T) {
	c := &creator{}
	h := Middleware(newMemStore(), Config{})(c)
	r := request(&alice, "POST", "/v1/x", "k", strings.Repeat("a", 100))
	w := httptest.NewRecorder()
	r.Body = http.MaxBytesReader(w, r.Body, 10)
	h.ServeHTTP(w, r)
	require.Equal(t, http.StatusRequestEntityTooLarge, w.Code)
	require.Zero(t, c.calls.Load())
}

func TestNilStorePanics(t *testing.T) {
	require.Panics(t, func() { Middleware(nil, Config{}) })
}
