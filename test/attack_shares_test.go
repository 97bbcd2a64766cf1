package test

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/test/stack"
)

// openShareAs opens a share link with an optional bearer token, passphrase
// and X-Forwarded-For client address (the stack must trust the loopback
// proxy for the last one to count).
func openShareAs(t *testing.T, s *stack.Stack, id, token, passphrase, xff string) stack.Response {
	t.Helper()
	req, err := http.NewRequest("GET", s.BaseURL+"/v1/share/"+id, nil)
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if passphrase != "" {
		req.Header.Set("X-Share-Passphrase", passphrase)
	}
	if xff != "" {
		req.Header.Set("X-Forwarded-For", xff)
	}
	resp, err := s.HTTP.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return stack.Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// requireShareThrottled asserts 429 share_throttled with a Retry-After of
// at most the 15-minute window.
func requireShareThrottled(t *testing.T, r stack.Response) {
	t.Helper()
	requireProblem(t, r, http.StatusTooManyRequests, "share_throttled")
	secs, err := strconv.Atoi(r.Header.Get("Retry-After"))
	require.NoError(t, err, "Retry-After %q", r.Header.Get("Retry-After"))
	require.True(t, secs >= 1 && secs <= 900, "Retry-After %d", secs)
}

type shareFixture struct {
	s                  *stack.Stack
	owner              stack.Account
	member, other      string // member: a recipient; other: a member with no policy
	memberID           string
	vault, secretID    string
	agentA, agentB     string // tokens of two agents of the owner; agentA may read prod/*
	agentAID, agentBID string
}

func newShareFixture(t *testing.T, prefix string) shareFixture {
	t.Helper()
	s := stack.Start(t, stack.WithProxyEnv("OCV_TRUSTED_PROXIES=127.0.0.1/32"))
	f := shareFixture{s: s, owner: s.SignUp(prefix + "-owner@example.com")}
	f.vault = s.CreateVault(f.owner.Token, "prod")
	put := s.Do("PUT", "/v1/vaults/"+f.vault+"/secrets/prod/db", f.owner.Token, map[string]string{"type": "password", "value": "v1-value"})
	require.Equal(t, http.StatusCreated, put.Status, string(put.Body))
	f.secretID = put.JSON(t)["id"].(string)
	mem := s.SignUp(prefix + "-member@example.com")
	f.memberID = mem.UserID
	f.member = joinAsMember(t, s, mem, f.owner.OrgID)
	f.other = joinAsMember(t, s, s.SignUp(prefix+"-other@example.com"), f.owner.OrgID)
	var keyA, keyB string
	f.agentAID, keyA = registerAgent(t, s, f.owner.Token, map[string]any{"name": prefix + "-a"})
	f.agentBID, keyB = registerAgent(t, s, f.owner.Token, map[string]any{"name": prefix + "-b"})
	createPolicy(t, s, f.owner.Token, f.vault, map[string]any{"secret_path_pattern": "prod/*", "principal_type": "agent",
		"principal_id": f.agentAID, "permissions": []string{"read"}})
	f.agentA = agentJWT(t, s, f.agentAID, keyA)
	f.agentB = agentJWT(t, s, f.agentBID, keyB)
	return f
}

// TestAttackShareOpenedByOthers: a creator, user or agent share opened
// anonymously, by another member (who cannot read the secret), by its
// creator, by another agent or from another organization was served before
// issue 12; now each answers 404 not_found, the same answer as a share that
// does not exist, and the addressed principal still opens it.
func TestAttackShareOpenedByOthers(t *testing.T) {
	f := newShareFixture(t, "addr")
	s := f.s
	outsider := s.SignUp("addr-outsider@example.com")
	unknown := openShareAs(t, s, uuid.NewString(), f.owner.Token, "", "")
	requireProblem(t, unknown, http.StatusNotFound, "not_found")
	refused := func(t *testing.T, id, token string) {
		t.Helper()
		r := openShareAs(t, s, id, token, "", "")
		requireProblem(t, r, http.StatusNotFound, "not_found")
		require.Equal(t, unknown.JSON(t)["detail"], r.JSON(t)["detail"], "indistinguishable from an unknown share")
		require.NotContains(t, string(r.Body), "v1-value")
	}
	opened := func(t *testing.T, id, token string) {
		t.Helper()
		r := openShareAs(t, s, id, token, "", "")
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		require.Equal(t, "v1-value", r.JSON(t)["value"])
	}

	t.Run("an agent's share to its creator", func(t *testing.T) {
		sh := createShare(t, s, f.agentA, f.secretID, map[string]any{"recipient_type": "creator", "max_access_count": 5})
		id := sh["id"].(string)
		for name, tok := range map[string]string{"anonymous": "", "another member": f.other, "the recipient member": f.member,
			"the sharing agent": f.agentA, "another agent": f.agentB, "another organization": outsider.Token,
			"a forged token": "not-a-jwt"} {
			t.Run(name, func(t *testing.T) { refused(t, id, tok) })
		}
		opened(t, id, f.owner.Token)
	})

	t.Run("a user share", func(t *testing.T) {
		sh := createShare(t, s, f.owner.Token, f.secretID, map[string]any{"recipient_type": "user", "recipient_id": f.memberID,
			"max_access_count": 5})
		id := sh["id"].(string)
		for name, tok := range map[string]string{"anonymous": "", "another member": f.other, "its creator": f.owner.Token,
			"an agent": f.agentA} {
			t.Run(name, func(t *testing.T) { refused(t, id, tok) })
		}
		opened(t, id, f.member)
	})

	t.Run("an agent share", func(t *testing.T) {
		sh := createShare(t, s, f.owner.Token, f.secretID, map[string]any{"recipient_type": "agent", "recipient_id": f.agentBID,
			"max_access_count": 5})
		id := sh["id"].(string)
		for name, tok := range map[string]string{"anonymous": "", "another agent": f.agentA, "a member": f.member,
			"its creator": f.owner.Token} {
			t.Run(name, func(t *testing.T) { refused(t, id, tok) })
		}
		opened(t, id, f.agentB)
	})

	t.Run("a revoked share does not tell others it exists", func(t *testing.T) {
		sh := createShare(t, s, f.owner.Token, f.secretID, map[string]any{"recipient_type": "user", "recipient_id": f.memberID})
		id := sh["id"].(string)
		require.Equal(t, http.StatusNoContent, s.Do("DELETE", "/v1/share/"+id, f.owner.Token, nil).Status)
		refused(t, id, f.other)
		requireProblem(t, openShareAs(t, s, id, f.member, "", ""), http.StatusGone, "gone")
	})

	t.Run("a link share still opens for anyone with the link", func(t *testing.T) {
		sh := createShare(t, s, f.owner.Token, f.secretID, map[string]any{"recipient_type": "anyone_with_link", "max_access_count": 2})
		opened(t, sh["id"].(string), "")
		opened(t, sh["id"].(string), f.other)
	})
}

// TestAttackShareIDGuessing: share ids had 62 random bits (UUIDv7) and
// guesses were not limited. Now ids are UUIDv4 and an address that misses 20
// times in 15 minutes gets 429 share_throttled with Retry-After, even for a
// real link; another address still opens it.
func TestAttackShareIDGuessing(t *testing.T) {
	f := newShareFixture(t, "guess")
	s := f.s
	link := createShare(t, s, f.owner.Token, f.secretID, map[string]any{"recipient_type": "anyone_with_link", "max_access_count": 3})
	id := link["id"].(string)
	for _, sh := range []map[string]any{link,
		createShare(t, s, f.owner.Token, f.secretID, map[string]any{"recipient_type": "user", "recipient_id": f.memberID}),
		createShare(t, s, f.agentA, f.secretID, map[string]any{"recipient_type": "creator"})} {
		u, err := uuid.Parse(sh["id"].(string))
		require.NoError(t, err)
		require.Equal(t, uuid.Version(4), u.Version(), "share ids are random (UUIDv4)")
		require.Equal(t, "/v1/share/"+sh["id"].(string), sh["url"])
	}

	const guesser = "198.51.100.7"
	for i := range 20 {
		guess := uuid.NewString()
		if i%5 == 4 {
			guess = "not-a-uuid"
		}
		requireProblem(t, openShareAs(t, s, guess, "", "", guesser), http.StatusNotFound, "not_found")
	}
	requireShareThrottled(t, openShareAs(t, s, uuid.NewString(), "", "", guesser))
	requireShareThrottled(t, openShareAs(t, s, id, "", "", guesser))
	// Probing an addressed share with the wrong token is a miss as well.
	const prober = "198.51.100.8"
	user := createShare(t, s, f.owner.Token, f.secretID, map[string]any{"recipient_type": "user", "recipient_id": f.memberID})
	for range 20 {
		requireProblem(t, openShareAs(t, s, user["id"].(string), f.other, "", prober), http.StatusNotFound, "not_found")
	}
	requireShareThrottled(t, openShareAs(t, s, user["id"].(string), f.member, "", prober))

	// The allowed counterpart: another address opens the link and the
	// addressed member opens the user share.
	r := openShareAs(t, s, id, "", "", "203.0.113.20")
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	require.Equal(t, "v1-value", r.JSON(t)["value"])
	r = openShareAs(t, s, user["id"].(string), f.member, "", "203.0.113.21")
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
}

// TestAttackSharePassphraseGuessing: wrong passphrases were not limited.
// Now a share takes 5 wrong passphrases per 15 minutes (from any number of
// addresses) and an address 20 (across any number of shares); then 429
// share_throttled with Retry-After, even with the right passphrase. A
// share that was not attacked, and an address that did not guess, still
// open with the right passphrase, and a right guess does not count.
func TestAttackSharePassphraseGuessing(t *testing.T) {
	f := newShareFixture(t, "pass")
	s := f.s
	const pass = "correct horse battery"
	mk := func() string {
		return createShare(t, s, f.owner.Token, f.secretID, map[string]any{"recipient_type": "anyone_with_link",
			"passphrase": pass, "max_access_count": 10})["id"].(string)
	}

	t.Run("per share, from many addresses", func(t *testing.T) {
		id := mk()
		for i := range 5 {
			requireProblem(t, openShareAs(t, s, id, "", fmt.Sprintf("guess %d", i), fmt.Sprintf("192.0.2.%d", 10+i)),
				http.StatusForbidden, "forbidden")
		}
		requireShareThrottled(t, openShareAs(t, s, id, "", "guess 6", "192.0.2.30"))
		requireShareThrottled(t, openShareAs(t, s, id, "", pass, "192.0.2.31"))
		// The allowed counterpart: four wrong guesses, then the right one
		// (which does not count), then more tries still allowed.
		ok := mk()
		for i := range 4 {
			requireProblem(t, openShareAs(t, s, ok, "", fmt.Sprintf("guess %d", i), "192.0.2.40"), http.StatusForbidden, "forbidden")
		}
		for range 2 {
			r := openShareAs(t, s, ok, "", pass, "192.0.2.41")
			require.Equal(t, http.StatusOK, r.Status, string(r.Body))
			require.Equal(t, "v1-value", r.JSON(t)["value"])
		}
	})

	t.Run("per address, across shares", func(t *testing.T) {
		const guesser = "192.0.2.50"
		for range 5 {
			id := mk()
			for i := range 4 {
				requireProblem(t, openShareAs(t, s, id, "", fmt.Sprintf("guess %d", i), guesser), http.StatusForbidden, "forbidden")
			}
		}
		fresh := mk()
		requireShareThrottled(t, openShareAs(t, s, fresh, "", pass, guesser))
		r := openShareAs(t, s, fresh, "", pass, "192.0.2.51")
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	})

	t.Run("the passphrase is never echoed", func(t *testing.T) {
		out := s.Do("GET", "/v1/shares/outbound", f.owner.Token, nil)
		require.NotContains(t, string(out.Body), pass)
	})
}

// TestAttackShareServesRotatedValue: a share served the newest version, so
// rotating a leaked credential handed the new value to every live link. Now
// a share serves the version it was created from (410 gone once that
// version no longer exists), and a share made after the rotation serves the
// new value.
func TestAttackShareServesRotatedValue(t *testing.T) {
	f := newShareFixture(t, "rot")
	s := f.s
	old := createShare(t, s, f.owner.Token, f.secretID, map[string]any{"recipient_type": "anyone_with_link", "max_access_count": 5})
	rot := s.Do("PUT", "/v1/vaults/"+f.vault+"/secrets/prod/db", f.owner.Token, map[string]string{"type": "password", "value": "v2-rotated"})
	require.Equal(t, http.StatusOK, rot.Status, string(rot.Body))

	r := openShareAs(t, s, old["id"].(string), "", "", "")
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	require.Equal(t, "v1-value", r.JSON(t)["value"])
	require.EqualValues(t, 1, r.JSON(t)["version"])
	require.NotContains(t, string(r.Body), "v2-rotated")

	// The allowed counterpart: a share made after the rotation.
	fresh := createShare(t, s, f.owner.Token, f.secretID, map[string]any{"recipient_type": "anyone_with_link"})
	r = openShareAs(t, s, fresh["id"].(string), "", "", "")
	require.Equal(t, http.StatusOK, r.Status, string(r.Body))
	require.Equal(t, "v2-rotated", r.JSON(t)["value"])
	require.EqualValues(t, 2, r.JSON(t)["version"])

	// Once the shared version is gone, the share is gone: it never falls
	// back to the current value.
	execSQL(t, s, "DELETE FROM secret_versions WHERE secret_id = '"+f.secretID+"' AND version = 1")
	r = openShareAs(t, s, old["id"].(string), "", "", "")
	requireProblem(t, r, http.StatusGone, "gone")
	require.NotContains(t, string(r.Body), "v2-rotated")
}
