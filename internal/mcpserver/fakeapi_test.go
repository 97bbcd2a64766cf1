package mcpserver

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/opencustody/ocv/api"
)

const (
	fakeAgentID  = "0193aaaa-0000-7000-8000-000000000001"
	fakeAgentKey = "ocv_fake-agent-key-do-not-leak"
	fakeVault    = "vault-1"
)

// fakeAPI is an in-memory stand-in for the OCV API: agent-token exchange,
// vaults, secrets (with versions), policies and the OpenAPI document.
type fakeAPI struct {
	t  testing.TB
	mu sync.Mutex

	srv       *httptest.Server
	expiresIn int64
	tokens    map[string]bool // valid tokens
	exchanges int
	share     bool                              // serve the share endpoint
	secrets   map[string]map[string]*api.Secret // vault → path → secret
	values    map[string]string                 // vault/path → value
	policies  []map[string]any
	forbidden map[string]bool // vault/path answering 403

	meCalls   int                    // GET /v1/agents/me answered
	meDenied  bool                   // GET /v1/agents/me answers 403 (a human token)
	noIntents bool                   // GET /v1/agents/me says intents_api_enabled false
	intents   []intentReq            // requests to the agent's Intents routes, in order
	refuse    map[string]fakeProblem // "METHOD suffix" → problem answered instead
}

// intentReq is one request to /v1/agents/{id}/…, as the fake received it.
type intentReq struct {
	Method, Suffix, Query, IdempotencyKey string
	Body                                  []byte
}

// fakeProblem is a problem answer with a type slug, as the API sends them.
type fakeProblem struct {
	Status       int
	Type, Detail string
}

func newFakeAPI(t testing.TB) *fakeAPI {
	f := &fakeAPI{t: t, expiresIn: 7200, tokens: map[string]bool{}, forbidden: map[string]bool{}, refuse: map[string]fakeProblem{},
		secrets: map[string]map[string]*api.Secret{fakeVault: {}}, values: map[string]string{}}
	f.srv = httptest.NewTLSServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// config is a server configuration talking to f as the fake agent.
func (f *fakeAPI) config(reveal bool) Config {
	return Config{BaseURL: f.srv.URL, HTTPClient: f.srv.Client(), AgentID: fakeAgentID, AgentKey: fakeAgentKey,
		DefaultVault: fakeVault, RevealValues: reveal}
}

func (f *fakeAPI) seed(path, typ, value string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.secrets[fakeVault][path]
	if s == nil {
		s = &api.Secret{ID: "sec-" + path, VaultID: fakeVault, Path: path, Metadata: json.RawMessage(`{"team":"core"}`)}
		f.secrets[fakeVault][path] = s
	}
	s.Type, s.Version = typ, s.Version+1
	f.values[fakeVault+"/"+path] = value
}

// revokeAll makes every issued token invalid (the API answers 401).
func (f *fakeAPI) revokeAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tokens = map[string]bool{}
}

func (f *fakeAPI) problem(w http.ResponseWriter, status int, title, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"type": "about:blank", "title": title, "status": status, "detail": detail})
}

func (f *fakeAPI) reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case r.URL.Path == "/openapi.json":
		paths := map[string]any{"/v1/vaults": map[string]any{}}
		if f.share {
			paths[sharePath] = map[string]any{}
		}
		f.reply(w, 200, map[string]any{"openapi": "3.1.0", "paths": paths})
		return
	case r.URL.Path == "/v1/auth/agent-token" && r.Method == http.MethodPost:
		var in map[string]string
		if json.NewDecoder(r.Body).Decode(&in) != nil || in["agent_id"] != fakeAgentID || in["api_key"] != fakeAgentKey {
			f.problem(w, 401, "Invalid credentials", "the agent id or key is invalid")
			return
		}
		f.exchanges++
		tok := fmt.Sprintf("jwt-%d", f.exchanges)
		f.tokens[tok] = true
		f.reply(w, 200, map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": f.expiresIn})
		return
	}
	if !f.tokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")] {
		f.problem(w, 401, "Invalid token", "the token is invalid or expired")
		return
	}
	if strings.HasPrefix(r.URL.Path, "/v1/agents/") {
		f.serveAgents(w, r)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/v1/vaults")
	switch {
	case ok && rest == "" && r.Method == http.MethodGet:
		f.reply(w, 200, map[string]any{"items": []map[string]any{{"id": fakeVault, "name": "main", "description": ""}}, "next_cursor": nil})
	case ok && rest == "" && r.Method == http.MethodPost:
		f.problem(w, 403, "Human only", "agents cannot create vaults")
	case ok && strings.HasSuffix(rest, "/policies") && r.Method == http.MethodPost:
		var in map[string]any
		_ = json.NewDecoder(r.Body).Decode(&in)
		in["id"] = "pol-1"
		f.policies = append(f.policies, in)
		f.reply(w, 201, in)
	case ok:
		f.serveSecrets(w, r, strings.TrimPrefix(rest, "/"))
	case strings.HasPrefix(r.URL.Path, "/v1/secrets/") && f.share:
		f.reply(w, 201, map[string]any{"id": "share-1", "url": "https://example.test/s/1"})
	default:
		f.problem(w, 404, "Not found", "no such route")
	}
}

func (f *fakeAPI) serveSecrets(w http.ResponseWriter, r *http.Request, rest string) {
	vault, sub, _ := strings.Cut(rest, "/secrets")
	secs, ok := f.secrets[vault]
	if !ok {
		f.problem(w, 404, "Not found", "vault not found")
		return
	}
	path := strings.TrimPrefix(sub, "/")
	if path == "" && r.Method == http.MethodGet {
		prefix := r.URL.Query().Get("prefix")
		items := []api.Secret{}
		for p, s := range secs {
			if strings.HasPrefix(p, prefix) {
				items = append(items, *s)
			}
		}
		sort.Slice(items, func(i, j int) bool { return items[i].Path < items[j].Path })
		f.reply(w, 200, map[string]any{"items": items, "next_cursor": nil})
		return
	}
	if f.forbidden[vault+"/"+path] {
		f.problem(w, 403, "Forbidden", "no policy allows read on "+path)
		return
	}
	switch r.Method {
	case http.MethodGet:
		s, ok := secs[path]
		if !ok {
			f.problem(w, 404, "Not found", "secret not found")
			return
		}
		out := *s
		v := f.values[vault+"/"+path]
		out.Value = &v
		f.reply(w, 200, out)
	case http.MethodPut:
		var in struct {
			Type, Value string
			Metadata    json.RawMessage
		}
		_ = json.NewDecoder(r.Body).Decode(&in)
		s, exists := secs[path]
		if !exists {
			s = &api.Secret{ID: "sec-" + path, VaultID: vault, Path: path}
			secs[path] = s
		}
		s.Type, s.Version, s.Metadata = in.Type, s.Version+1, in.Metadata
		f.values[vault+"/"+path] = in.Value
		status := 200
		if !exists {
			status = 201
		}
		f.reply(w, status, s)
	default:
		f.problem(w, 405, "Method not allowed", "")
	}
}

// lastIntent is the last request to an Intents route (zero when none).
func (f *fakeAPI) lastIntent() (intentReq, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.intents) == 0 {
		return intentReq{}, 0
	}
	return f.intents[len(f.intents)-1], len(f.intents)
}

// serveAgents answers GET /v1/agents/me and the agent's own Intents routes
// (/v1/agents/{id}/…); another agent's id is 404, as in the API.
func (f *fakeAPI) serveAgents(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/v1/agents/me" && r.Method == http.MethodGet {
		if f.meDenied {
			f.typed(w, fakeProblem{Status: 403, Type: "forbidden", Detail: "only agents have a profile here"})
			return
		}
		f.meCalls++
		f.reply(w, 200, map[string]any{"id": fakeAgentID, "name": "claude", "intents_api_enabled": !f.noIntents})
		return
	}
	suffix, ok := strings.CutPrefix(r.URL.Path, "/v1/agents/"+fakeAgentID)
	if !ok {
		f.typed(w, fakeProblem{Status: 404, Type: "not_found", Detail: "agent not found"})
		return
	}
	body, _ := io.ReadAll(r.Body)
	f.intents = append(f.intents, intentReq{Method: r.Method, Suffix: suffix, Query: r.URL.RawQuery,
		IdempotencyKey: r.Header.Get("Idempotency-Key"), Body: body})
	route := r.Method + " " + suffix
	if p, refused := f.refuse[route]; refused {
		f.typed(w, p)
		return
	}
	switch route {
	case "GET /signing-keys":
		f.reply(w, 200, fakeSigningKeys())
	case "GET /transactions", "GET /signing-keys/base/balance", "GET /signing-keys/8453/balance",
		"POST /sign", "POST /transactions", "POST /transactions/sign", "POST /transactions/simulate":
		f.reply(w, 200, map[string]any{"route": route})
	default:
		f.typed(w, fakeProblem{Status: 404, Type: "not_found", Detail: "no such route"})
	}
}

// typed answers a problem with its type slug and the status's title.
func (f *fakeAPI) typed(w http.ResponseWriter, p fakeProblem) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(p.Status)
	_ = json.NewEncoder(w).Encode(map[string]any{"type": p.Type, "title": http.StatusText(p.Status),
		"status": p.Status, "detail": p.Detail})
}
