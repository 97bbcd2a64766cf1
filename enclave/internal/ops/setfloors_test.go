package ops

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/internal/floors"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/keyvault/memstore"
	"github.com/opencustody/ocv/policy"
)

// registerStore counts register reads on a shared memstore and can fail
// them, as an HSM outage would.
type registerStore struct {
	*memstore.Store
	reads atomic.Int32
	fail  atomic.Bool
}

func (r *registerStore) ReadRegister(ctx context.Context, name string) ([]byte, error) {
	r.reads.Add(1)
	if r.fail.Load() {
		return nil, errors.New("hsm gone")
	}
	return r.Store.ReadRegister(ctx, name)
}

// testClock is a clock tests move by hand.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *testClock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// peer is another Handler on f's key store, as after a restart of f's
// enclave or as a second enclave on the same HSM token, with its own clock
// and its own register-read counter.
func (f *fixture) peer(t testing.TB) (*fixture, *registerStore, *testClock) {
	t.Helper()
	clock := &testClock{t: time.Now()}
	rs := &registerStore{Store: f.ks}
	h, err := New(context.Background(), rs, f.h.issuer, f.channelPub, Config{Issuer: "i", TokenLifetimes: wire.DefaultTokenLifetimes(),
		Mode: wire.ModeSimulated, RequireCallerToken: true, Now: clock.now})
	require.NoError(t, err)
	t.Cleanup(h.Close)
	return &fixture{h: h, ks: f.ks, channelPub: f.channelPub, guardrailVersion: f.guardrailVersion}, rs, clock
}

// readPolicy lets user m read everything in the vault.
var readPolicy = policy.Policy{ID: "p", Pattern: "**", PrincipalType: "user", PrincipalID: "m",
	Permissions: []policy.Permission{"read"}, Effect: "allow"}

// presented is member m's read of x in vault v of org o with a set.
func presented(token string, set, mac []byte) *access {
	return &access{OrgID: "o", VaultID: "v", Path: "x", Permission: policy.PermissionRead, Token: token, PolicySet: set, PolicyMAC: mac}
}

func TestPolicySetFloorSurvivesRestart(t *testing.T) {
	f := newFixture(t)
	member := f.token(t, claimsFor("o", "user", "m", "member"))
	old, oldMAC := f.seal(t, "o", "v", 1, readPolicy)
	cur, curMAC := f.seal(t, "o", "v", 2) // the member loses access

	restarted, _, _ := f.peer(t)
	ctx := context.Background()
	err := restarted.h.authz.authorize(ctx, presented(member, old, oldMAC))
	require.ErrorIs(t, err, wire.ErrForbidden)
	require.Contains(t, err.Error(), "superseded")
	err = restarted.h.authz.authorize(ctx, presented(member, cur, curMAC))
	require.ErrorIs(t, err, wire.ErrForbidden)
	require.Contains(t, err.Error(), "not allowed", "the current set is evaluated")

	// A later seal on the restarted enclave refuses a version not above.
	_, err = restarted.h.authz.sealPolicySet(ctx, &wire.SealPolicySetRequest{OrgID: "o", VaultID: "v", Version: 2,
		Set: policy.EncodeSet("v", 2, []policy.Policy{readPolicy}), ChangerToken: f.token(t, claimsFor("o", "user", "owner-o", "owner"))})
	require.ErrorIs(t, err, wire.ErrConflict)
}

func TestPolicySetFloorSharedBetweenEnclaves(t *testing.T) {
	f := newFixture(t)
	member := f.token(t, claimsFor("o", "user", "m", "member"))
	old, oldMAC := f.seal(t, "o", "v", 1, readPolicy)
	second, rs, clock := f.peer(t)
	ctx := context.Background()
	require.NoError(t, second.h.authz.authorize(ctx, presented(member, old, oldMAC)), "the current set; its floor is now cached")

	cur, curMAC := f.seal(t, "o", "v", 2) // on the first enclave
	require.ErrorIs(t, second.h.authz.authorize(ctx, presented(member, cur, curMAC)), wire.ErrForbidden,
		"the new set is read through at once (and evaluated: the member lost access)")
	clock.add(2 * time.Second)
	err := second.h.authz.authorize(ctx, presented(member, old, oldMAC))
	require.ErrorIs(t, err, wire.ErrForbidden)
	require.Contains(t, err.Error(), "superseded")

	// The hot path: a cached floor that matches costs no register read.
	back, backMAC := f.seal(t, "o", "v", 3, readPolicy)
	require.NoError(t, second.h.authz.authorize(ctx, presented(member, back, backMAC)))
	before := rs.reads.Load()
	for range 10 {
		require.NoError(t, second.h.authz.authorize(ctx, presented(member, back, backMAC)))
	}
	require.Equal(t, before, rs.reads.Load())
}

func TestPolicySetFloorRefusesAnotherSetAtTheNewestVersion(t *testing.T) {
	f := newFixture(t)
	member := f.token(t, claimsFor("o", "user", "m", "member"))
	f.seal(t, "o", "v", 2)
	ctx := context.Background()

	// Another enclave sealing a different set at the same version (a lost
	// race) is a conflict, and a MAC'd set of it is refused everywhere.
	second, _, _ := f.peer(t)
	other := policy.EncodeSet("v", 2, []policy.Policy{readPolicy})
	_, err := second.h.authz.sealPolicySet(ctx, &wire.SealPolicySetRequest{OrgID: "o", VaultID: "v", Version: 2, Set: other,
		ChangerToken: f.token(t, claimsFor("o", "user", "owner-o", "owner"))})
	require.ErrorIs(t, err, wire.ErrConflict)
	mac, err := f.h.authz.computeMAC(ctx, policySetMACPrefix, "o", other)
	require.NoError(t, err)
	for name, h := range map[string]*Handler{"first": f.h, "second": second.h} {
		err := h.authz.authorize(ctx, presented(member, other, mac))
		require.ErrorIs(t, err, wire.ErrForbidden, name)
		require.Contains(t, err.Error(), "superseded", name)
	}
}

func TestPolicySetFloorTrustOnFirstUse(t *testing.T) {
	f := newFixture(t)
	member := f.token(t, claimsFor("o", "user", "m", "member"))
	ctx := context.Background()
	// Sets MAC'd before floors existed: no floor was written for them.
	legacy := func(version uint64) ([]byte, []byte) {
		set := policy.EncodeSet("v", version, []policy.Policy{readPolicy})
		mac, err := f.h.authz.computeMAC(ctx, policySetMACPrefix, "o", set)
		require.NoError(t, err)
		return set, mac
	}
	older, olderMAC := legacy(4)
	cur, curMAC := legacy(5)
	_, err := f.h.floors.Load(ctx, policyFloorName("o", "v"))
	require.ErrorIs(t, err, floors.ErrNoFloor)

	require.NoError(t, f.h.authz.authorize(ctx, presented(member, cur, curMAC)), "accepted on first use")
	fl, err := f.h.floors.Load(ctx, policyFloorName("o", "v"))
	require.NoError(t, err)
	require.True(t, fl.Matches(5, setDigest("o", cur)), "and made the floor")

	restarted, _, _ := f.peer(t)
	for name, h := range map[string]*Handler{"same": f.h, "restarted": restarted.h} {
		require.ErrorIs(t, h.authz.authorize(ctx, presented(member, older, olderMAC)), wire.ErrForbidden, name)
		require.NoError(t, h.authz.authorize(ctx, presented(member, cur, curMAC)), name)
	}
	// An unsealed set (no valid MAC) never becomes a floor.
	require.ErrorIs(t, f.h.authz.authorize(ctx, &access{OrgID: "o", VaultID: "w", Path: "x", Permission: policy.PermissionRead,
		Token: member, PolicySet: policy.EncodeSet("w", 9, nil), PolicyMAC: make([]byte, wire.PolicyMACLen)}), wire.ErrForbidden)
	_, err = f.h.floors.Load(ctx, policyFloorName("o", "w"))
	require.ErrorIs(t, err, floors.ErrNoFloor)
}

func TestSetFloorOutageIsUnavailable(t *testing.T) {
	f := newFixture(t)
	member := f.token(t, claimsFor("o", "user", "m", "member"))
	set, mac := f.seal(t, "o", "v", 1, readPolicy)
	second, rs, _ := f.peer(t)
	rs.fail.Store(true)
	err := second.h.authz.authorize(context.Background(), presented(member, set, mac))
	require.ErrorIs(t, err, wire.ErrUnavailable)
	require.NotErrorIs(t, err, wire.ErrForbidden)
}

func TestGuardrailSetFloorSurvivesRestart(t *testing.T) {
	f := newFixture(t)
	tok, _ := agentWithKey(t, f)
	loose, looseMAC := f.sealGuardrails(t, map[string]any{"message_signing_enabled": true})
	strict, strictMAC := f.sealGuardrails(t, map[string]any{})
	sign := func(h *Handler, set, mac []byte) (wire.SignIntentResponse, error) {
		body, err := (&wire.SignIntentRequest{Token: tok, OrgID: signOrg, AgentID: signAgent, Chain: "ethereum", KeyVersion: 1,
			Kind: wire.IntentPersonalSign, Payload: []byte("x"), Context: signContext(t), GuardrailSet: set, GuardrailMAC: mac}).Append(nil)
		require.NoError(t, err)
		var resp wire.SignIntentResponse
		out, err := h.Handle(context.Background(), wire.OpSignIntent, body, nil, &Scratch{})
		if err == nil {
			require.NoError(t, resp.Decode(out))
		}
		return resp, err
	}
	restarted, _, _ := f.peer(t)
	for name, h := range map[string]*Handler{"restarted": restarted.h, "first": f.h} {
		_, err := sign(h, loose, looseMAC)
		require.ErrorIs(t, err, wire.ErrForbidden, name)
		resp, err := sign(h, strict, strictMAC)
		require.NoError(t, err, name)
		require.Equal(t, "message_signing_enabled", resp.Denied, name)
	}

	// A different set claiming the newest version is refused, and so is
	// sealing one.
	other, err := json.Marshal(wire.GuardrailSet{AgentID: signAgent, Version: 2, Guardrails: map[string]json.RawMessage{
		"message_signing_enabled": json.RawMessage("true")}, Rules: []wire.SignRule{}})
	require.NoError(t, err)
	otherMAC, err := f.h.authz.computeMAC(context.Background(), guardrailSetMACPrefix, signOrg, other)
	require.NoError(t, err)
	_, err = sign(restarted.h, other, otherMAC)
	require.ErrorIs(t, err, wire.ErrForbidden)
	var resp wire.SealPolicySetResponse
	require.ErrorIs(t, restarted.call(t, wire.OpSealGuardrails, &wire.SealGuardrailsRequest{OrgID: signOrg, AgentID: signAgent,
		Version: 2, Set: other, ChangerToken: f.token(t, claimsFor(signOrg, "user", "owner-1", "owner"))}, &resp), wire.ErrConflict)
}
