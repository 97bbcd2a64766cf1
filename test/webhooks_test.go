package test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/proxy/webhooks"
	"github.com/opencustody/ocv/test/stack"
)

// receiver is a real webhook receiver on 127.0.0.1 that answers the statuses
// in plan in turn (200 once they run out; 0 hangs until the sender goes
// away) and records every request.
type receiver struct {
	srv  *httptest.Server
	mu   sync.Mutex
	plan []int
	got  []delivery
	hit  chan struct{}
}

type delivery struct {
	body []byte
	sig  string
	id   string
}

func newReceiver(t *testing.T, plan ...int) *receiver {
	rc := &receiver{plan: plan, hit: make(chan struct{}, 64)}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, delivery{body: b, sig: r.Header.Get("X-Webhook-Signature"), id: r.Header.Get("X-Webhook-Id")})
		status := http.StatusOK
		if len(rc.plan) > 0 {
			status, rc.plan = rc.plan[0], rc.plan[1:]
		}
		rc.mu.Unlock()
		rc.hit <- struct{}{}
		if status == 0 { // hang until the sender goes away
			<-r.Context().Done()
			return
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

// wait blocks until the receiver has seen n requests (bounded by a generous
// deadline, which is a failure, not a timing assertion).
func (rc *receiver) wait(t *testing.T, n int) []delivery {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		rc.mu.Lock()
		if len(rc.got) >= n {
			out := append([]delivery{}, rc.got...)
			rc.mu.Unlock()
			return out
		}
		rc.mu.Unlock()
		select {
		case <-rc.hit:
		case <-deadline:
			t.Fatalf("receiver got fewer than %d deliveries", n)
		}
	}
}

func createWebhook(t *testing.T, s *stack.Stack, token, url string, events ...string) (id, secret string) {
	t.Helper()
	r := s.Do("POST", "/v1/webhooks", token, map[string]any{"url": url, "events": events, "description": "e2e"})
	require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
	m := r.JSON(t)
	return m["id"].(string), m["secret"].(string)
}

func TestWebhooksDeliver(t *testing.T) {
	s := stack.Start(t, stack.WithProxyEnv("OCV_WEBHOOKS_ALLOW_LOOPBACK=true", "OCV_WEBHOOKS_RETRY_BASE=100ms",
		"OCV_WEBHOOKS_POLL_INTERVAL=200ms"))
	owner := s.SignUp("hook-owner@example.com")
	vault := s.CreateVault(owner.Token, "prod")
	mem := s.SignUp("hook-member@example.com")
	joinAsMember(t, s, mem, owner.OrgID)
	ok := newReceiver(t)
	flaky := newReceiver(t, 500, 500, 500)
	hookID, secret := createWebhook(t, s, owner.Token, ok.srv.URL+"/hook?token=abc", "policy.created")
	require.Regexp(t, `^whsec_[0-9a-f]{64}$`, secret)
	flakyID, flakySecret := createWebhook(t, s, owner.Token, flaky.srv.URL, "policy.updated")

	t.Run("management", func(t *testing.T) {
		got := s.Do("GET", "/v1/webhooks/"+hookID, owner.Token, nil)
		require.Equal(t, http.StatusOK, got.Status, string(got.Body))
		require.NotContains(t, string(got.Body), secret, "the secret is shown only at creation")
		require.Contains(t, string(s.Do("GET", "/v1/webhooks", owner.Token, nil).Body), hookID)
		requireProblem(t, s.Do("POST", "/v1/webhooks", owner.Token, map[string]any{"url": ok.srv.URL, "events": []string{"no.such"}}), 400, "invalid_request")
		agentID, key := registerAgent(t, s, owner.Token, map[string]any{"name": "hooker"})
		requireProblem(t, s.Do("GET", "/v1/webhooks", agentJWT(t, s, agentID, key), nil), 403, "human_only")
		other := s.SignUp("hook-other@example.com")
		requireProblem(t, s.Do("GET", "/v1/webhooks/"+hookID, other.Token, nil), 404, "not_found")
		tmp, _ := createWebhook(t, s, owner.Token, ok.srv.URL, "policy.deleted")
		p := s.Do("PATCH", "/v1/webhooks/"+tmp, owner.Token, map[string]any{"is_active": false, "description": "off"})
		require.Equal(t, http.StatusOK, p.Status, string(p.Body))
		require.Equal(t, false, p.JSON(t)["is_active"])
		require.Equal(t, http.StatusNoContent, s.Do("DELETE", "/v1/webhooks/"+tmp, owner.Token, nil).Status)
		requireProblem(t, s.Do("GET", "/v1/webhooks/"+tmp, owner.Token, nil), 404, "not_found")
	})

	policyID := createPolicy(t, s, owner.Token, vault, map[string]any{"secret_path_pattern": "prod/*", "principal_type": "user",
		"principal_id": mem.UserID, "permissions": []string{"read"}})

	t.Run("signed delivery", func(t *testing.T) {
		d := ok.wait(t, 1)[0]
		require.NoError(t, webhooks.Verify([]byte(secret), d.body, d.sig, time.Now(), 0))
		require.ErrorIs(t, webhooks.Verify([]byte(flakySecret), d.body, d.sig, time.Now(), 0), webhooks.ErrBadSignature)
		var body map[string]any
		require.NoError(t, json.Unmarshal(d.body, &body))
		require.Equal(t, "policy.created", body["event"])
		require.EqualValues(t, 1, body["attempt"])
		require.NotEmpty(t, body["id"])
		require.NotEmpty(t, body["timestamp"])
		data := body["data"].(map[string]any)
		require.Equal(t, policyID, data["policy_id"])
		require.Equal(t, vault, data["vault_id"])
		require.Equal(t, mem.UserID, data["principal_id"])
	})

	t.Run("three failures then success: the fourth attempt is acknowledged", func(t *testing.T) {
		r := s.Do("PUT", "/v1/vaults/"+vault+"/policies/"+policyID, owner.Token, map[string]any{"secret_path_pattern": "prod/**",
			"principal_type": "user", "principal_id": mem.UserID, "permissions": []string{"read"}})
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		ds := flaky.wait(t, 4)
		var ids []string
		for i, d := range ds {
			require.NoError(t, webhooks.Verify([]byte(flakySecret), d.body, d.sig, time.Now(), 0))
			var body map[string]any
			require.NoError(t, json.Unmarshal(d.body, &body))
			require.EqualValues(t, i+1, body["attempt"])
			require.Equal(t, "policy.updated", body["event"])
			ids = append(ids, body["id"].(string))
		}
		require.Equal(t, ids[0], ids[3], "retries carry the same event id")
		// The history shows up once the worker has recorded the fourth attempt.
		deadline := time.Now().Add(30 * time.Second)
		for {
			g := s.Do("GET", "/v1/webhooks/"+flakyID, owner.Token, nil).JSON(t)
			list := g["deliveries"].([]any)
			require.Len(t, list, 1)
			d := list[0].(map[string]any)
			if d["status"] == "delivered" {
				require.EqualValues(t, 4, d["attempt"])
				require.EqualValues(t, 200, d["last_status"])
				require.Len(t, d["history"], 4)
				break
			}
			require.True(t, time.Now().Before(deadline), "delivery never recorded as delivered: %v", d)
			time.Sleep(100 * time.Millisecond)
		}
	})
}

func TestWebhooksRefuseSSRF(t *testing.T) {
	s := stack.Start(t)
	owner := s.SignUp("ssrf-owner@example.com")
	r := s.Do("POST", "/v1/webhooks", owner.Token, map[string]any{"url": "https://hooks.example.com/x", "events": []string{"policy.created"}})
	require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
	id := r.JSON(t)["id"].(string)
	for _, u := range []string{
		"http://10.0.0.1/hook", "http://169.254.169.254/latest/meta-data", "http://localhost/hook",
		"http://2130706433/hook", "file:///etc/passwd", "http://127.0.0.1:8080/", "http://[::1]/",
		"http://[::ffff:127.0.0.1]/", "http://0177.0.0.1/", "http://0.0.0.0/", "http://metadata.google.internal/",
		"http://svc.internal/", "gopher://example.com/", "https://user:pass@example.com/",
	} {
		t.Run(u, func(t *testing.T) {
			c := s.Do("POST", "/v1/webhooks", owner.Token, map[string]any{"url": u, "events": []string{"policy.created"}})
			requireProblem(t, c, 400, "invalid_url")
			require.NotContains(t, string(c.Body), "pass@", "the detail never echoes credentials")
			requireProblem(t, s.Do("PATCH", "/v1/webhooks/"+id, owner.Token, map[string]any{"url": u}), 400, "invalid_url")
		})
	}
}

func TestWebhookSurvivesProxyCrash(t *testing.T) {
	s := stack.Start(t, stack.WithProxyEnv("OCV_WEBHOOKS_ALLOW_LOOPBACK=true", "OCV_WEBHOOKS_POLL_INTERVAL=200ms",
		"OCV_WEBHOOKS_LEASE=15s"))
	owner := s.SignUp("crash-owner@example.com")
	vault := s.CreateVault(owner.Token, "prod")
	mem := s.SignUp("crash-member@example.com")
	joinAsMember(t, s, mem, owner.OrgID)
	rc := newReceiver(t, 0) // the first attempt hangs: the proxy dies during it
	_, secret := createWebhook(t, s, owner.Token, rc.srv.URL, "policy.created")
	createPolicy(t, s, owner.Token, vault, map[string]any{"secret_path_pattern": "prod/*", "principal_type": "user",
		"principal_id": mem.UserID, "permissions": []string{"read"}})
	first := rc.wait(t, 1)[0]
	s.KillProxy()
	s.StartProxy()
	second := rc.wait(t, 2)[1]
	require.NoError(t, webhooks.Verify([]byte(secret), second.body, second.sig, time.Now(), 0))
	var a, b map[string]any
	require.NoError(t, json.Unmarshal(first.body, &a))
	require.NoError(t, json.Unmarshal(second.body, &b))
	require.Equal(t, a["id"], b["id"], "the same event is delivered again")
	require.EqualValues(t, 2, b["attempt"], "the attempt cut short by the crash still counts")
}

// TestSigningEventsDeliver: signing_key.rotated and agent.transaction.signed
// reach a subscribed webhook, without the signed transaction in them.
func TestSigningEventsDeliver(t *testing.T) {
	s := stack.Start(t, stack.WithProxyEnv("OCV_WEBHOOKS_ALLOW_LOOPBACK=true", "OCV_WEBHOOKS_POLL_INTERVAL=200ms"))
	owner := s.SignUp("signing-events@example.com")
	rc := newReceiver(t)
	createWebhook(t, s, owner.Token, rc.srv.URL, "signing_key.rotated", "agent.transaction.signed")
	id, agent := guardedAgent(t, s, owner, nil)
	r := s.Do("POST", "/v1/agents/"+id+"/signing-keys/ethereum/rotate", owner.Token, nil)
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	r = s.Do("POST", "/v1/agents/"+id+"/transactions/sign", agent, signOnly(0, nil))
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	signed := r.JSON(t)

	got := rc.wait(t, 2)
	var names []string
	for _, d := range got {
		var ev map[string]any
		require.NoError(t, json.Unmarshal(d.body, &ev))
		names = append(names, ev["event"].(string))
		require.NotContains(t, string(d.body), signed["signed_tx"].(string)[2:], "events never carry the signed transaction")
	}
	require.ElementsMatch(t, []string{"signing_key.rotated", "agent.transaction.signed"}, names)
}
