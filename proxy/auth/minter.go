package auth

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/store"
)

// IdentityEnclave is what the Minter needs of the enclave: it checks
// credentials against sealed records and mints tokens from them, and seals
// records once it has checked the authority for them.
type IdentityEnclave interface {
	MintToken(ctx context.Context, req wire.MintTokenRequest) (wire.MintTokenResponse, error)
	SealIdentity(ctx context.Context, req wire.SealIdentityRequest) ([][]byte, error)
}

// SealedStore keeps the sealed identity records, by floor name.
type SealedStore interface {
	SealedIdentity(ctx context.Context, name string) (store.SealedRecord, error)
	PutSealedIdentity(ctx context.Context, recs map[string]store.SealedRecord) error
	AgentKeyHash(ctx context.Context, orgID, agentID string) ([]byte, error)
}

// Minter has the enclave issue access tokens: it passes the credential and
// the sealed records the credential must match; the enclave checks both and
// builds the claims from the records alone (issuer, lifetime and cut-offs
// are the enclave's).
type Minter struct {
	enclave IdentityEnclave
	records SealedStore
	// Users, when set, gives a user's cut-off (the proxy's own), so that
	// the enclave stamps a token minted right after it no earlier.
	Users UserCutoffSource
	now   func() time.Time
}

// NewMinter returns a Minter over the enclave and the sealed records.
func NewMinter(e IdentityEnclave, records SealedStore) *Minter {
	return &Minter{enclave: e, records: records, now: time.Now}
}

// ErrNoRecord is a principal without a sealed record: its credential
// cannot be checked (callers answer 401).
var ErrNoRecord = errors.New("no sealed identity record")

// Minted is an access token and its lifetime (exp - iat, as the enclave
// set them).
type Minted struct {
	Token string
	TTL   time.Duration
}

// load reads the sealed records by name, in order.
func (m *Minter) load(ctx context.Context, names ...string) ([]wire.SealedIdentity, error) {
	out := make([]wire.SealedIdentity, 0, len(names))
	for _, n := range names {
		r, err := m.records.SealedIdentity(ctx, n)
		if errors.Is(err, store.ErrNotFound) {
			return nil, ErrNoRecord
		}
		if err != nil {
			return nil, err
		}
		out = append(out, wire.SealedIdentity{Record: r.Record, MAC: r.MAC})
	}
	return out, nil
}

// userNotBefore is the user's cut-off in orgID as the proxy keeps it
// (Unix ms, 0: none).
func (m *Minter) userNotBefore(ctx context.Context, userID, orgID string) (int64, error) {
	if m.Users == nil {
		return 0, nil
	}
	nb, err := m.Users.UserTokensNotBefore(ctx, userID, orgID)
	if err != nil || nb.IsZero() {
		return 0, err
	}
	return stampMs(nb), nil
}

// stampMs is t in Unix milliseconds rounded up.
func stampMs(t time.Time) int64 {
	ms := t.UnixMilli()
	if time.UnixMilli(ms).Before(t) {
		ms++
	}
	return ms
}

// mintUser is mint for a user of orgID, stamped no earlier than its cut-off.
func (m *Minter) mintUser(ctx context.Context, userID, orgID string, req wire.MintTokenRequest) (wire.MintTokenResponse, Minted, error) {
	nb, err := m.userNotBefore(ctx, userID, orgID)
	if err != nil {
		return wire.MintTokenResponse{}, Minted{}, fmt.Errorf("minting token: %w", err)
	}
	req.NotBeforeMs = nb
	return m.mint(ctx, req)
}

// mint asks the enclave; a refusal is ErrInvalidToken.
func (m *Minter) mint(ctx context.Context, req wire.MintTokenRequest) (wire.MintTokenResponse, Minted, error) {
	resp, err := m.enclave.MintToken(ctx, req)
	if errors.Is(err, wire.ErrForbidden) {
		return resp, Minted{}, ErrInvalidToken
	}
	if err != nil {
		return resp, Minted{}, fmt.Errorf("minting token: %w", err)
	}
	ttl := time.Duration(resp.ExpiresAt-resp.IssuedAtMs/1000) * time.Second // exp - iat: the enclave's lifetime
	return resp, Minted{Token: resp.Token, TTL: max(ttl, 0)}, nil
}

// UserNames are the floor names of a user's records in an organization.
func UserNames(userID, orgID string) (user, member string) {
	return "id/user/" + userID, "id/member/" + orgID + "/" + userID
}

// Password mints a token for a user of orgID who presents password. With
// refresh set, the enclave also seals that new refresh record (a new
// family) and it is stored.
func (m *Minter) Password(ctx context.Context, userID, orgID, password string, refresh *wire.IdentityRecord) (Minted, error) {
	u, mem := UserNames(userID, orgID)
	recs, err := m.load(ctx, u, mem)
	if err != nil {
		return Minted{}, err
	}
	req := wire.MintTokenRequest{Credential: wire.CredPassword, Secret: password, Records: recs}
	if refresh != nil {
		refresh.Version = 1 // a new family
	}
	return m.withRefresh(ctx, userID, orgID, req, refresh)
}

func (m *Minter) withRefresh(ctx context.Context, userID, orgID string, req wire.MintTokenRequest, refresh *wire.IdentityRecord) (Minted, error) {
	var next []byte
	if refresh != nil {
		var err error
		if next, err = refresh.Append(nil); err != nil {
			return Minted{}, err
		}
		req.NextRefresh = next
	}
	resp, out, err := m.mintUser(ctx, userID, orgID, req)
	if err != nil || refresh == nil {
		return out, err
	}
	err = m.records.PutSealedIdentity(ctx, map[string]store.SealedRecord{refresh.FloorName(): {Record: next, MAC: resp.RefreshMAC}})
	return out, err
}

// APIKey mints a token for the owner of a personal API key.
func (m *Minter) APIKey(ctx context.Context, k APIKey, secret string) (Minted, error) {
	u, mem := UserNames(k.UserID, k.OrgID)
	recs, err := m.load(ctx, u, mem, "id/apikey/"+k.OrgID+"/"+k.ID)
	if err != nil {
		return Minted{}, err
	}
	_, out, err := m.mintUser(ctx, k.UserID, k.OrgID, wire.MintTokenRequest{Credential: wire.CredAPIKey, Secret: secret, Records: recs})
	return out, err
}

// Refresh mints a token for a refresh token of family familyID, rotating
// it: next (same family, the next version) is sealed and stored.
func (m *Minter) Refresh(ctx context.Context, userID, orgID, familyID, secret string, next *wire.IdentityRecord) (Minted, error) {
	u, mem := UserNames(userID, orgID)
	recs, err := m.load(ctx, u, mem, "id/refresh/"+familyID)
	if err != nil {
		return Minted{}, err
	}
	var cur wire.IdentityRecord
	if err := cur.Decode(recs[2].Record); err != nil {
		return Minted{}, ErrInvalidToken
	}
	next.Version = cur.Version + 1
	return m.withRefresh(ctx, userID, orgID, wire.MintTokenRequest{Credential: wire.CredRefresh, Secret: secret, Records: recs}, next)
}

// Agent mints a token for an agent presenting one of its API keys, stamped
// no earlier than notBefore (the agent's cut-off as the proxy keeps it).
func (m *Minter) Agent(ctx context.Context, orgID, agentID, secret string, notBefore time.Time) (Minted, error) {
	recs, err := m.load(ctx, "id/agent/"+orgID+"/"+agentID)
	if err != nil {
		return Minted{}, err
	}
	req := wire.MintTokenRequest{Credential: wire.CredAgentKey, Secret: secret, Records: recs}
	if !notBefore.IsZero() {
		req.NotBeforeMs = stampMs(notBefore)
	}
	_, out, err := m.mint(ctx, req)
	return out, err
}
