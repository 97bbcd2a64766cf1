package test

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/proxy/webhooks"
	"github.com/opencustody/ocv/test/stack"
)

// outageReceiver is a webhook receiver on a fixed 127.0.0.1 port that can
// be down (nothing listens: connection refused) and come back on the same
// port, or answer 503 while up (a receiver that is up but broken).
type outageReceiver struct {
	addr    string
	mu      sync.Mutex
	srv     *httptest.Server
	failing bool
	got     []delivery
	hit     chan struct{}
}

// newOutageReceiver reserves a port and starts down.
func newOutageReceiver(t *testing.T) *outageReceiver {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	rc := &outageReceiver{addr: ln.Addr().String(), hit: make(chan struct{}, 256)}
	require.NoError(t, ln.Close())
	t.Cleanup(rc.down)
	return rc
}

func (rc *outageReceiver) url() string { return "http://" + rc.addr + "/hook" }

// up starts listening on the receiver's port again.
func (rc *outageReceiver) up(t *testing.T) {
	t.Helper()
	ln, err := net.Listen("tcp", rc.addr)
	require.NoError(t, err, "the receiver's port was taken while it was down")
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		failing := rc.failing
		if !failing {
			rc.got = append(rc.got, delivery{body: b, sig: r.Header.Get("X-Webhook-Signature"), id: r.Header.Get("X-Webhook-Id")})
		}
		rc.mu.Unlock()
		if failing {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		rc.hit <- struct{}{}
	}))
	_ = srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	rc.mu.Lock()
	rc.srv = srv
	rc.mu.Unlock()
}

// down stops listening (connections are refused).
func (rc *outageReceiver) down() {
	rc.mu.Lock()
	srv := rc.srv
	rc.srv = nil
	rc.mu.Unlock()
	if srv != nil {
		srv.Close()
	}
}

func (rc *outageReceiver) setFailing(f bool) {
	rc.mu.Lock()
	rc.failing = f
	rc.mu.Unlock()
}

// waitEvents blocks until the receiver has acknowledged deliveries of every
// event id in ids (a generous deadline: a failure, not a timing assertion)
// and returns the bodies it got, by event id (the last one of each).
func (rc *outageReceiver) waitEvents(t *testing.T, secret string, ids ...string) map[string]map[string]any {
	t.Helper()
	deadline := time.After(90 * time.Second)
	for {
		rc.mu.Lock()
		got := map[string]map[string]any{}
		for _, d := range rc.got {
			require.NoError(t, webhooks.Verify([]byte(secret), d.body, d.sig, time.Now(), 0))
			var body map[string]any
			require.NoError(t, json.Unmarshal(d.body, &body))
			require.Equal(t, d.id, body["id"], "X-Webhook-Id is the event id")
			got[d.id] = body
		}
		rc.mu.Unlock()
		missing := 0
		for _, id := range ids {
			if got[id] == nil {
				missing++
			}
		}
		if missing == 0 {
			return got
		}
		select {
		case <-rc.hit:
		case <-time.After(200 * time.Millisecond):
		case <-deadline:
			t.Fatalf("receiver is still missing %d of %d events", missing, len(ids))
		}
	}
}

// deliveriesUntil polls the webhook's deliveries until done accepts them
// (generous deadline) and returns them.
func deliveriesUntil(t *testing.T, s *stack.Stack, token, hookID string, done func([]map[string]any) bool) []map[string]any {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		r := s.Do("GET", "/v1/webhooks/"+hookID, token, nil)
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		var ds []map[string]any
		for _, d := range r.JSON(t)["deliveries"].([]any) {
			ds = append(ds, d.(map[string]any))
		}
		if done(ds) {
			return ds
		}
		require.True(t, time.Now().Before(deadline), "deliveries never reached the expected state: %v", ds)
		time.Sleep(100 * time.Millisecond)
	}
}

func eventIDs(ds []map[string]any) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d["event_id"].(string))
	}
	return out
}

// TestWebhooksSurviveOutage: a receiver that is down longer than the old
// retry window still gets every event once it is back, and a delivery that
// reached the dead-letter state is replayed by the single and the bulk
// route and received again with the same event id.
//
// The schedule is compressed with the test-only settings: base 100 ms
// instead of 10 s (1/100 scale), and 8 retries so that the dead-letter part
// ends within seconds. At that scale the old policy (5 retries, about 2.5
// to 5 minutes at full scale) would have given up 1.55 to 3.1 s after the
// first failure: the outage below lasts until every delivery has made its
// 7th attempt, past the old policy's last (6th), with the receiver still
// down, and only then does the receiver come back.
func TestWebhooksSurviveOutage(t *testing.T) {
	s := stack.Start(t, stack.WithProxyEnv("OCV_WEBHOOKS_ALLOW_LOOPBACK=true", "OCV_WEBHOOKS_RETRY_BASE=100ms",
		"OCV_WEBHOOKS_RETRY_MAX=8", "OCV_WEBHOOKS_POLL_INTERVAL=100ms"))
	start := time.Now().UTC()
	owner := s.SignUp("outage-owner@example.com")
	vault := s.CreateVault(owner.Token, "prod")
	mem := s.SignUp("outage-member@example.com")
	memToken := joinAsMember(t, s, mem, owner.OrgID)
	policy := func(pattern string) string {
		return createPolicy(t, s, owner.Token, vault, map[string]any{"secret_path_pattern": pattern,
			"principal_type": "user", "principal_id": mem.UserID, "permissions": []string{"read"}})
	}

	t.Run("a receiver down past the old retry window gets every event", func(t *testing.T) {
		rc := newOutageReceiver(t) // down from the start
		hookID, secret := createWebhook(t, s, owner.Token, rc.url(), "policy.created")
		for _, p := range []string{"prod/a", "prod/b", "prod/c"} {
			policy(p)
		}
		const oldMaxAttempts = 1 + 5
		ds := deliveriesUntil(t, s, owner.Token, hookID, func(ds []map[string]any) bool {
			if len(ds) != 3 {
				return false
			}
			for _, d := range ds {
				require.Equal(t, "pending", d["status"], "a delivery gave up while the receiver was down: %v", d)
				if d["attempt"].(float64) <= oldMaxAttempts {
					return false
				}
			}
			return true
		})
		for _, d := range ds {
			require.EqualValues(t, 0, d["last_status"], "no answer yet: the receiver is down")
			require.NotEmpty(t, d["last_error"])
		}
		rc.up(t)
		got := rc.waitEvents(t, secret, eventIDs(ds)...)
		for _, body := range got {
			require.Greater(t, body["attempt"].(float64), float64(oldMaxAttempts), "delivered by a retry the old policy would not have made")
		}
		deliveriesUntil(t, s, owner.Token, hookID, func(ds []map[string]any) bool {
			for _, d := range ds {
				if d["status"] != "delivered" {
					return false
				}
			}
			return true
		})
	})

	// Dead letters: a receiver that is up but answers 503 until the retry
	// window (9 attempts here) is spent.
	rc := newOutageReceiver(t)
	rc.setFailing(true)
	rc.up(t)
	hookID, secret := createWebhook(t, s, owner.Token, rc.url(), "policy.updated")
	for _, p := range []string{"prod/d", "prod/e"} {
		id := policy(p)
		r := s.Do("PUT", "/v1/vaults/"+vault+"/policies/"+id, owner.Token, map[string]any{"secret_path_pattern": p + "/**",
			"principal_type": "user", "principal_id": mem.UserID, "permissions": []string{"read"}})
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	}
	dead := deliveriesUntil(t, s, owner.Token, hookID, func(ds []map[string]any) bool {
		if len(ds) != 2 {
			return false
		}
		for _, d := range ds {
			if d["status"] != "failed" {
				return false
			}
		}
		return true
	})
	for _, d := range dead {
		require.EqualValues(t, 9, d["attempt"], "first attempt plus 8 retries")
		require.EqualValues(t, 503, d["last_status"])
		require.Equal(t, "unexpected status 503", d["last_error"])
		require.Len(t, d["history"], 9)
	}
	// The dead letters are listed on their own, paged, newest first.
	var listed []string
	for path := "/v1/webhooks/" + hookID + "/deliveries?status=failed&limit=1"; ; {
		r := s.Do("GET", path, owner.Token, nil)
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		page := r.JSON(t)
		for _, it := range page["items"].([]any) {
			d := it.(map[string]any)
			require.Equal(t, "failed", d["status"])
			listed = append(listed, d["id"].(string))
		}
		next, _ := page["next_cursor"].(string)
		if next == "" {
			break
		}
		path = "/v1/webhooks/" + hookID + "/deliveries?status=failed&limit=1&cursor=" + next
	}
	require.Equal(t, []string{dead[0]["id"].(string), dead[1]["id"].(string)}, listed)
	requireProblem(t, s.Do("GET", "/v1/webhooks/"+hookID+"/deliveries?status=lost", owner.Token, nil), 400, "invalid_request")
	single, rest := dead[0], dead[1]
	one := "/v1/webhooks/" + hookID + "/deliveries/" + single["id"].(string) + "/replay"
	bulk := "/v1/webhooks/" + hookID + "/deliveries/replay"
	window := map[string]any{"from": start.Add(-time.Minute).Format(time.RFC3339), "to": time.Now().UTC().Add(time.Minute).Format(time.RFC3339)}

	t.Run("attackers cannot replay", func(t *testing.T) {
		agentID, key := registerAgent(t, s, owner.Token, map[string]any{"name": "replayer"})
		agent := agentJWT(t, s, agentID, key)
		requireProblem(t, s.Do("POST", one, agent, nil), 403, "human_only")
		requireProblem(t, s.Do("POST", bulk, agent, window), 403, "human_only")
		requireProblem(t, s.Do("POST", one, memToken, nil), 403, "forbidden")
		requireProblem(t, s.Do("POST", bulk, memToken, window), 403, "forbidden")

		other := s.SignUp("outage-other-admin@example.com") // the owner of another organization
		requireProblem(t, s.Do("POST", one, other.Token, nil), 404, "not_found")
		requireProblem(t, s.Do("POST", bulk, other.Token, window), 404, "not_found")
		requireProblem(t, s.Do("GET", "/v1/webhooks/"+hookID+"/deliveries", other.Token, nil), 404, "not_found")
		otherHook, _ := createWebhook(t, s, other.Token, rc.url(), "policy.updated")
		requireProblem(t, s.Do("POST", "/v1/webhooks/"+otherHook+"/deliveries/"+single["id"].(string)+"/replay", other.Token, nil),
			404, "not_found")
		missing := s.Do("POST", "/v1/webhooks/"+hookID+"/deliveries/"+uuid.NewString()+"/replay", owner.Token, nil)
		requireProblem(t, missing, 404, "not_found")

		requireProblem(t, s.Do("POST", bulk, owner.Token, map[string]any{"from": "yesterday", "to": window["to"]}), 400, "invalid_request")
		requireProblem(t, s.Do("POST", bulk, owner.Token, map[string]any{"from": window["to"], "to": window["from"]}), 400, "invalid_request")
		requireProblem(t, s.Do("POST", "/v1/webhooks/"+hookID+"/deliveries/not-a-uuid/replay", owner.Token, nil), 400, "invalid_request")

		for _, d := range deliveriesUntil(t, s, owner.Token, hookID, func([]map[string]any) bool { return true }) {
			require.Equal(t, "failed", d["status"], "a refused replay changed nothing")
			require.EqualValues(t, 0, d["replays"])
		}
	})

	rc.setFailing(false) // the receiver is fixed

	t.Run("single replay: same event id, new attempt series", func(t *testing.T) {
		r := s.Do("POST", one, owner.Token, nil)
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		d := r.JSON(t)
		require.Equal(t, single["id"], d["id"])
		require.Equal(t, "pending", d["status"])
		require.EqualValues(t, 0, d["attempt"])
		require.EqualValues(t, 1, d["replays"])
		require.NotNil(t, d["replayed_at"])
		got := rc.waitEvents(t, secret, single["event_id"].(string))
		body := got[single["event_id"].(string)]
		require.EqualValues(t, 1, body["attempt"], "a replay starts a new attempt series")
		require.Equal(t, "policy.updated", body["event"])
	})

	t.Run("bulk replay: the failed deliveries of a range, idempotent", func(t *testing.T) {
		h := http.Header{"Idempotency-Key": []string{"replay-" + uuid.NewString()}}
		first := s.DoHeaders("POST", bulk, owner.Token, window, h)
		require.Equal(t, http.StatusOK, first.Status, string(first.Body))
		require.JSONEq(t, `{"queued":1,"more":false,"limit":1000}`, string(first.Body), "only the delivery still failed")
		again := s.DoHeaders("POST", bulk, owner.Token, window, h)
		require.Equal(t, http.StatusOK, again.Status, string(again.Body))
		require.JSONEq(t, string(first.Body), string(again.Body))
		require.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
		rc.waitEvents(t, secret, rest["event_id"].(string))
		ds := deliveriesUntil(t, s, owner.Token, hookID, func(ds []map[string]any) bool {
			for _, d := range ds {
				if d["status"] != "delivered" {
					return false
				}
			}
			return true
		})
		for _, d := range ds {
			require.EqualValues(t, 1, d["replays"], "replayed once each: the idempotent retry queued nothing")
			require.EqualValues(t, 1, d["attempt"])
			require.Len(t, d["history"], 10, "the dead-letter series and the replay's attempt")
		}
		for action, resource := range map[string]string{
			"webhook.delivery.replayed":   "webhook/" + hookID + "/delivery/" + single["id"].(string),
			"webhook.deliveries.replayed": "webhook/" + hookID + "/deliveries",
		} {
			r := s.Do("GET", "/v1/audit/events?action="+action+"&limit=50", owner.Token, nil)
			require.Equal(t, http.StatusOK, r.Status, string(r.Body))
			var ok int
			for _, it := range r.JSON(t)["items"].([]any) {
				ev := it.(map[string]any)
				if ev["outcome"] == "success" && ev["resource"] == resource && ev["actor_id"] == owner.UserID {
					ok++
				}
			}
			require.Equal(t, 1, ok, "one successful %s is audited", action)
		}
		empty := s.Do("POST", bulk, owner.Token, window)
		require.Equal(t, http.StatusOK, empty.Status, string(empty.Body))
		require.JSONEq(t, `{"queued":0,"more":false,"limit":1000}`, string(empty.Body))
	})

	t.Run("cli", func(t *testing.T) {
		c := newCLI(t, s)
		c.ok(t, owner.Password+"\n", "login", "--email", owner.Email, "--password-stdin")
		out := c.ok(t, "", "webhook", "replay", hookID, single["id"].(string))
		require.Contains(t, out, single["event_id"].(string))
		require.Contains(t, out, "pending")
		deliveriesUntil(t, s, owner.Token, hookID, func(ds []map[string]any) bool {
			for _, d := range ds {
				if d["id"] == single["id"] && d["status"] == "delivered" && d["replays"] == float64(2) {
					return true
				}
			}
			return false
		})
		out = c.ok(t, "", "webhook", "replay", hookID, "--from", window["from"].(string), "--to", window["to"].(string))
		require.Contains(t, out, "Queued 0 failed deliveries")
		bad := c.run(t, "", nil, "webhook", "replay", hookID, "--from", "yesterday", "--to", window["to"].(string))
		require.NotZero(t, bad.code)
	})
}
