package test

import (
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/test/stack"
)

// trap is a TCP listener on 127.0.0.1 that counts the connections it is
// offered: a refused outbound URL must never reach it.
type trap struct {
	port string
	hits atomic.Int64
}

func newTrap(t *testing.T) *trap {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	_, port, err := net.SplitHostPort(ln.Addr().String())
	require.NoError(t, err)
	tr := &trap{port: port}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			tr.hits.Add(1)
			_ = c.Close()
		}
	}()
	return tr
}

// TestOutboundPolicy: with the stack's test-only loopback allowance turned
// off (as in production), admin-set URLs that point at loopback, private or
// metadata addresses are refused with 400 invalid_url when they are set,
// and a name that passes then but resolves to loopback when the proxy
// connects is refused at connect time. A trap listener on 127.0.0.1 sees no
// connection.
func TestOutboundPolicy(t *testing.T) {
	const rebind = "rebind-out.example.com"
	tr := newTrap(t)
	node := newTrap(t) // a loopback node the operator admits by CIDR:port
	s := stack.Start(t, stack.WithProxyEnv("OCV_EGRESS_TEST_ALLOW_LOOPBACK=false",
		"OCV_BOOTSTRAP_ADMIN_EMAIL="+rootEmail, "OCV_BOOTSTRAP_ADMIN_PASSWORD="+rootPassword,
		// The name answers 127.0.0.1 (TEST ONLY resolver) and the operator
		// allowlist admits the trap's port for it: only the address decides.
		"OCV_WEBHOOKS_TEST_HOSTS="+rebind+"=127.0.0.1", "OCV_EGRESS_ALLOW="+rebind+":"+tr.port+",127.0.0.1/32:"+node.port,
		"OCV_WEBHOOKS_RETRY_BASE=50ms", "OCV_WEBHOOKS_RETRY_MAX=3", "OCV_WEBHOOKS_POLL_INTERVAL=200ms"))
	root := signIn(t, s, rootEmail, rootPassword)["access_token"].(string)
	owner := s.SignUp("outbound-owner@example.com")

	refused := []string{
		"https://127.0.0.1:" + tr.port + "/",
		"https://127.0.0.1/",
		"https://169.254.169.254/latest/meta-data/",
		"https://[::ffff:127.0.0.1]:" + tr.port + "/",
		"https://[::ffff:127.0.0.1]/",
		"https://10.0.0.1/",
		"https://192.168.1.10/",
		"https://[fd00:ec2::254]/",
		"https://2130706433/",
		"https://localhost:" + tr.port + "/",
		"https://rpc.example.com:" + tr.port + "/", // a port that is not allowed
	}
	t.Run("chain rpc_url", func(t *testing.T) {
		for i, u := range refused {
			body := map[string]any{"name": "Trap", "chain_id": 90001 + i, "rpc_url": u}
			requireProblem(t, s.Do("POST", "/v1/admin/chains", root, body), 400, "invalid_url")
		}
		for _, u := range []string{"http://127.0.0.1:" + tr.port + "/", "http://[::ffff:127.0.0.1]/", "http://localhost/"} {
			requireProblem(t, s.Do("POST", "/v1/admin/chains", root, map[string]any{"name": "Trap", "chain_id": 90100, "rpc_url": u}),
				400, "invalid_url")
		}
		// The operator's CIDR:port entry admits exactly that node.
		r := s.Do("POST", "/v1/admin/chains", root, map[string]any{"name": "Own node", "chain_id": 90102, "rpc_url": "http://127.0.0.1:" + node.port + "/"})
		require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
		// Not every http URL reaches the policy: plain http to a public
		// host is an invalid_request of its own.
		r = s.Do("POST", "/v1/admin/chains", root, map[string]any{"name": "Trap", "chain_id": 90101, "rpc_url": "http://169.254.169.254/"})
		require.Equal(t, http.StatusBadRequest, r.Status, string(r.Body))
	})
	t.Run("x402 facilitator_url", func(t *testing.T) {
		for _, u := range refused {
			body := map[string]any{"pay_to": "0x209693bc6afc0c5328ba36faf03c514ef312287c", "network": "base-sepolia",
				"facilitator_url": u, "price_atomic": "10000", "max_timeout_seconds": 120}
			requireProblem(t, s.Do("PUT", "/v1/admin/x402", root, body), 400, "invalid_url")
			requireProblem(t, s.Do("PUT", "/v1/admin/settings/x402", root, map[string]any{"value": body}), 400, "invalid_url")
		}
	})
	t.Run("webhook url", func(t *testing.T) {
		for _, u := range append(refused, "http://127.0.0.1:"+tr.port+"/", "http://169.254.169.254/",
			"http://[::ffff:127.0.0.1]/", "http://hooks.example.com/") {
			requireProblem(t, s.Do("POST", "/v1/webhooks", owner.Token, map[string]any{"url": u, "events": []string{"policy.created"}}),
				400, "invalid_url")
		}
	})
	t.Run("a name resolving to loopback is refused at connect time", func(t *testing.T) {
		u := "https://" + rebind + ":" + tr.port + "/hook"
		// Set time: the name is public-looking and its port allowlisted.
		body := map[string]any{"name": "Rebind", "chain_id": 90200, "rpc_url": u}
		r := s.Do("POST", "/v1/admin/chains", root, body)
		require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
		hookID, _ := createWebhook(t, s, owner.Token, u, "policy.created")

		// Chain RPC: a balance read dials the node, and is refused.
		agentID, key := registerAgent(t, s, owner.Token, map[string]any{"name": "rebind-signer", "intents_api_enabled": true})
		r = s.Do("POST", "/v1/agents/"+agentID+"/signing-keys", owner.Token, map[string]any{"chain": "ethereum"})
		require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
		b := s.Do("GET", "/v1/agents/"+agentID+"/signing-keys/rebind/balance", agentJWT(t, s, agentID, key), nil)
		requireProblem(t, b, http.StatusServiceUnavailable, "chain_unavailable")
		require.NotContains(t, string(b.Body), rebind, "the answer names no part of the rpc_url")

		vault := s.CreateVault(owner.Token, "prod")
		mem := s.SignUp("outbound-member@example.com")
		joinAsMember(t, s, mem, owner.OrgID)
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
	})
	require.Zero(t, tr.hits.Load(), "the trap on 127.0.0.1 was reached")
}
