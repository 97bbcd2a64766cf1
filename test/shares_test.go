package test

import (
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/test/stack"
)

// openShare opens a share link anonymously, with an optional passphrase header.
func openShare(t *testing.T, s *stack.Stack, id, passphrase, query string) stack.Response {
	t.Helper()
	req, err := http.NewRequest("GET", s.BaseURL+"/v1/share/"+id+query, nil)
	require.NoError(t, err)
	if passphrase != "" {
		req.Header.Set("X-Share-Passphrase", passphrase)
	}
	resp, err := s.HTTP.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return stack.Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

func createShare(t *testing.T, s *stack.Stack, token, secretID string, body map[string]any) map[string]any {
	t.Helper()
	if _, ok := body["expires_at"]; !ok {
		body["expires_at"] = time.Now().Add(24 * time.Hour).UTC().Format(time.RFC3339)
	}
	r := s.Do("POST", "/v1/secrets/"+secretID+"/share", token, body)
	require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
	return r.JSON(t)
}

func TestShares(t *testing.T) {
	s := stack.Start(t)
	owner := s.SignUp("share-owner@example.com")
	vault := s.CreateVault(owner.Token, "prod")
	put := s.Do("PUT", "/v1/vaults/"+vault+"/secrets/prod/db", owner.Token, map[string]string{"type": "password", "value": "s3cr3t-db"})
	require.Equal(t, http.StatusCreated, put.Status, string(put.Body))
	secretID := put.JSON(t)["id"].(string)
	mem := s.SignUp("share-member@example.com")
	member := joinAsMember(t, s, mem, owner.OrgID)
	outsider := s.SignUp("share-outsider@example.com")

	t.Run("validation", func(t *testing.T) {
		path := "/v1/secrets/" + secretID + "/share"
		soon := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
		for name, body := range map[string]map[string]any{
			"no expiry":      {"recipient_type": "anyone_with_link"},
			"past expiry":    {"recipient_type": "anyone_with_link", "expires_at": "2001-01-01T00:00:00Z"},
			"beyond 30 days": {"recipient_type": "anyone_with_link", "expires_at": time.Now().Add(31 * 24 * time.Hour).UTC().Format(time.RFC3339)},
			"bad type":       {"recipient_type": "everyone", "expires_at": soon},
			"count 0":        {"recipient_type": "anyone_with_link", "expires_at": soon, "max_access_count": 0},
			"count 1001":     {"recipient_type": "anyone_with_link", "expires_at": soon, "max_access_count": 1001},
			"short pass":     {"recipient_type": "anyone_with_link", "expires_at": soon, "passphrase": "short"},
			"bad cidr":       {"recipient_type": "anyone_with_link", "expires_at": soon, "ip_allowlist": []string{"nope"}},
			"no email":       {"recipient_type": "external_email", "expires_at": soon},
			"foreign user":   {"recipient_type": "user", "recipient_id": outsider.UserID, "expires_at": soon},
		} {
			t.Run(name, func(t *testing.T) { requireProblem(t, s.Do("POST", path, owner.Token, body), 400, "invalid_request") })
		}
	})

	t.Run("cross-org secret is 404", func(t *testing.T) {
		r := s.Do("POST", "/v1/secrets/"+secretID+"/share", outsider.Token,
			map[string]any{"recipient_type": "anyone_with_link", "expires_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)})
		requireProblem(t, r, 404, "not_found")
	})

	t.Run("member without read policy is denied", func(t *testing.T) {
		r := s.Do("POST", "/v1/secrets/"+secretID+"/share", member,
			map[string]any{"recipient_type": "anyone_with_link", "expires_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)})
		requireProblem(t, r, 403, "policy_denied")
	})

	t.Run("open, passphrase in header only, then exhausted", func(t *testing.T) {
		sh := createShare(t, s, owner.Token, secretID, map[string]any{"recipient_type": "anyone_with_link",
			"max_access_count": 2, "passphrase": "open sesame 42"})
		id := sh["id"].(string)
		require.Equal(t, true, sh["has_passphrase"])
		require.NotContains(t, string(s.Do("GET", "/v1/shares/outbound", owner.Token, nil).Body), "open sesame")
		// The query string is never read for the passphrase.
		requireProblem(t, openShare(t, s, id, "", "?passphrase=open+sesame+42"), 403, "forbidden")
		r := openShare(t, s, id, "open sesame 42", "")
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		require.Equal(t, "s3cr3t-db", r.JSON(t)["value"])
		require.EqualValues(t, 1, r.JSON(t)["remaining_access_count"])
		require.Equal(t, http.StatusOK, openShare(t, s, id, "open sesame 42", "").Status)
		requireProblem(t, openShare(t, s, id, "open sesame 42", ""), 410, "gone")
	})

	t.Run("wrong passphrase and wrong address answer the same", func(t *testing.T) {
		pass := createShare(t, s, owner.Token, secretID, map[string]any{"recipient_type": "anyone_with_link", "passphrase": "right passphrase"})
		ip := createShare(t, s, owner.Token, secretID, map[string]any{"recipient_type": "anyone_with_link",
			"ip_allowlist": []string{"203.0.113.0/24"}})
		a := openShare(t, s, pass["id"].(string), "wrong passphrase", "")
		b := openShare(t, s, ip["id"].(string), "", "")
		requireProblem(t, a, 403, "forbidden")
		requireProblem(t, b, 403, "forbidden")
		require.Equal(t, string(a.Body), string(b.Body))
		ok := createShare(t, s, owner.Token, secretID, map[string]any{"recipient_type": "anyone_with_link",
			"ip_allowlist": []string{"127.0.0.0/8"}})
		require.Equal(t, http.StatusOK, openShare(t, s, ok["id"].(string), "", "").Status)
	})

	t.Run("expired, revoked and declined are 410", func(t *testing.T) {
		exp := createShare(t, s, owner.Token, secretID, map[string]any{"recipient_type": "anyone_with_link"})
		execSQL(t, s, "UPDATE shares SET expires_at = now() - interval '1 minute' WHERE id = '"+exp["id"].(string)+"'")
		requireProblem(t, openShare(t, s, exp["id"].(string), "", ""), 410, "gone")

		rev := createShare(t, s, owner.Token, secretID, map[string]any{"recipient_type": "anyone_with_link"})
		requireProblem(t, s.Do("DELETE", "/v1/share/"+rev["id"].(string), member, nil), 404, "not_found")
		require.Equal(t, http.StatusNoContent, s.Do("DELETE", "/v1/share/"+rev["id"].(string), owner.Token, nil).Status)
		requireProblem(t, openShare(t, s, rev["id"].(string), "", ""), 410, "gone")

		dec := createShare(t, s, owner.Token, secretID, map[string]any{"recipient_type": "user", "recipient_id": mem.UserID})
		requireProblem(t, s.Do("POST", "/v1/shares/"+dec["id"].(string)+"/decline", owner.Token, nil), 404, "not_found")
		r := s.Do("POST", "/v1/shares/"+dec["id"].(string)+"/decline", member, nil)
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		require.Equal(t, "declined", r.JSON(t)["status"])
		requireProblem(t, openShareAs(t, s, dec["id"].(string), member, "", ""), 410, "gone")
	})

	t.Run("inbound, outbound and accept", func(t *testing.T) {
		sh := createShare(t, s, owner.Token, secretID, map[string]any{"recipient_type": "user", "recipient_id": mem.UserID})
		mail := createShare(t, s, owner.Token, secretID, map[string]any{"recipient_type": "external_email", "email": "Share-Member@example.com"})
		in := s.Do("GET", "/v1/shares/inbound", member, nil)
		require.Equal(t, http.StatusOK, in.Status, string(in.Body))
		require.Contains(t, string(in.Body), sh["id"].(string))
		require.Contains(t, string(in.Body), mail["id"].(string))
		require.NotContains(t, string(s.Do("GET", "/v1/shares/inbound", outsider.Token, nil).Body), sh["id"].(string))
		out := s.Do("GET", "/v1/shares/outbound", owner.Token, nil)
		require.Contains(t, string(out.Body), sh["id"].(string))
		require.NotContains(t, string(s.Do("GET", "/v1/shares/outbound", member, nil).Body), sh["id"].(string))
		r := s.Do("POST", "/v1/shares/"+sh["id"].(string)+"/accept", member, nil)
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		require.Equal(t, "accepted", r.JSON(t)["status"])
		require.Equal(t, http.StatusOK, openShareAs(t, s, sh["id"].(string), member, "", "").Status)
		r = s.Do("POST", "/v1/shares/"+mail["id"].(string)+"/accept", member, nil)
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	})

	t.Run("agents may share only with their creator", func(t *testing.T) {
		agentID, key := registerAgent(t, s, owner.Token, map[string]any{"name": "sharer"})
		createPolicy(t, s, owner.Token, vault, map[string]any{"secret_path_pattern": "prod/*", "principal_type": "agent",
			"principal_id": agentID, "permissions": []string{"read"}})
		tok := agentJWT(t, s, agentID, key)
		soon := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
		requireProblem(t, s.Do("POST", "/v1/secrets/"+secretID+"/share", tok,
			map[string]any{"recipient_type": "anyone_with_link", "expires_at": soon}), 403, "forbidden")
		sh := createShare(t, s, tok, secretID, map[string]any{"recipient_type": "creator"})
		require.Equal(t, owner.UserID, sh["recipient_id"])
		require.Contains(t, string(s.Do("GET", "/v1/shares/inbound", owner.Token, nil).Body), sh["id"].(string))
		r := openShareAs(t, s, sh["id"].(string), owner.Token, "", "")
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		require.Equal(t, "s3cr3t-db", r.JSON(t)["value"])
	})

	t.Run("parallel opens of a single-use share: exactly one succeeds", func(t *testing.T) {
		sh := createShare(t, s, owner.Token, secretID, map[string]any{"recipient_type": "anyone_with_link", "max_access_count": 1})
		const n = 50 // the figure: 50 parallel opens, exactly one 200
		statuses := make([]int, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				req, err := http.NewRequest("GET", s.BaseURL+"/v1/share/"+sh["id"].(string), nil)
				if err != nil {
					return
				}
				resp, err := s.HTTP.Do(req)
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				statuses[i] = resp.StatusCode
			})
		}
		wg.Wait()
		var ok, gone int
		for _, st := range statuses {
			switch st {
			case http.StatusOK:
				ok++
			case http.StatusGone:
				gone++
			}
		}
		require.Equal(t, 1, ok, "statuses: %v", statuses)
		require.Equal(t, n-1, gone, "statuses: %v", statuses)
	})

	t.Run("audit events", func(t *testing.T) {
		r := s.Do("GET", "/v1/audit/events?limit=500", owner.Token, nil)
		require.Equal(t, http.StatusOK, r.Status)
		for _, a := range []string{"share.create", "share.open", "share.revoke", "share.decline", "share.accept"} {
			require.Contains(t, string(r.Body), `"`+a+`"`)
		}
	})
}
