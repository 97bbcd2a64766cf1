package test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/test/stack"
)

// TestWebhookDNSRebinding: a destination name that passes create-time
// validation (names are not resolved then) but resolves to 127.0.0.1 when
// the delivery connects is refused at connect time and recorded as failed.
// OCV_WEBHOOKS_TEST_HOSTS (TEST ONLY) plays the rebinding DNS server;
// loopback stays forbidden.
func TestWebhookDNSRebinding(t *testing.T) {
	const name = "rebind-hooks.example.com"
	rc := newReceiver(t) // a real receiver on 127.0.0.1: it must never be reached
	u, err := url.Parse(rc.srv.URL)
	require.NoError(t, err)
	// The operator's allowlist admits the receiver's port for the name, so
	// that only the address decides.
	s := stack.Start(t, stack.WithProxyEnv("OCV_WEBHOOKS_TEST_HOSTS="+name+"=127.0.0.1", "OCV_EGRESS_ALLOW="+name+":"+u.Port(),
		"OCV_WEBHOOKS_RETRY_BASE=50ms", "OCV_WEBHOOKS_RETRY_MAX=5", "OCV_WEBHOOKS_POLL_INTERVAL=200ms"))
	owner := s.SignUp("rebind-owner@example.com")
	vault := s.CreateVault(owner.Token, "prod")
	mem := s.SignUp("rebind-member@example.com")
	joinAsMember(t, s, mem, owner.OrgID)
	hookID, _ := createWebhook(t, s, owner.Token, "https://"+name+":"+u.Port()+"/hook", "policy.created")
	requireProblem(t, s.Do("POST", "/v1/webhooks", owner.Token, map[string]any{"url": rc.srv.URL, "events": []string{"policy.created"}}),
		400, "invalid_url")

	createPolicy(t, s, owner.Token, vault, map[string]any{"secret_path_pattern": "prod/*", "principal_type": "user",
		"principal_id": mem.UserID, "permissions": []string{"read"}})

	deadline := time.Now().Add(60 * time.Second)
	for {
		g := s.Do("GET", "/v1/webhooks/"+hookID, owner.Token, nil)
		require.Equal(t, http.StatusOK, g.Status, string(g.Body))
		list, _ := g.JSON(t)["deliveries"].([]any)
		if len(list) == 1 {
			d := list[0].(map[string]any)
			require.NotEqual(t, "delivered", d["status"])
			if d["status"] == "failed" {
				last, _ := d["last_error"].(string)
				require.True(t, strings.Contains(last, "forbidden address"), "last_error: %q", last)
				break
			}
		}
		require.True(t, time.Now().Before(deadline), "the delivery never failed: %s", g.Body)
		time.Sleep(100 * time.Millisecond)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	require.Empty(t, rc.got, "the receiver on 127.0.0.1 was never reached")
}
