package auth

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/store"
)

// ErrSealRefused is the enclave refusing to seal identity records: the
// authority presented does not allow the change.
var ErrSealRefused = errors.New("identity change refused by the enclave")

// Current returns the stored record under name, decoded, and its sealed
// form; ErrNoRecord when there is none.
func (m *Minter) Current(ctx context.Context, name string) (*wire.IdentityRecord, wire.SealedIdentity, error) {
	r, err := m.records.SealedIdentity(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return nil, wire.SealedIdentity{}, ErrNoRecord
	}
	if err != nil {
		return nil, wire.SealedIdentity{}, err
	}
	var rec wire.IdentityRecord
	if err := rec.Decode(r.Record); err != nil {
		return nil, wire.SealedIdentity{}, fmt.Errorf("stored identity record %s: %w", name, err)
	}
	return &rec, wire.SealedIdentity{Record: r.Record, MAC: r.MAC}, nil
}

// Seal has the enclave seal recs (each at the version after the stored
// one: Seal sets Version) with the authority given (see
// wire.SealIdentityRequest), then stores them.
func (m *Minter) Seal(ctx context.Context, token, oldPassword string, current []wire.SealedIdentity, recs ...*wire.IdentityRecord) error {
	req := wire.SealIdentityRequest{Token: token, OldPassword: oldPassword, Current: current}
	for _, r := range recs {
		cur, _, err := m.Current(ctx, r.FloorName())
		switch {
		case errors.Is(err, ErrNoRecord):
			r.Version = 1
		case err != nil:
			return err
		default:
			r.Version = cur.Version + 1
		}
		b, err := r.Append(nil)
		if err != nil {
			return err
		}
		req.Records = append(req.Records, b)
	}
	macs, err := m.enclave.SealIdentity(ctx, req)
	if errors.Is(err, wire.ErrForbidden) {
		return ErrSealRefused
	}
	if err != nil {
		return fmt.Errorf("sealing identity records: %w", err)
	}
	out := make(map[string]store.SealedRecord, len(recs))
	for i, r := range recs {
		out[r.FloorName()] = store.SealedRecord{Record: req.Records[i], MAC: macs[i]}
	}
	return m.records.PutSealedIdentity(ctx, out)
}

// Signup seals a new organization with its owner: the org, the user (with
// its password verifier) and the owner's membership.
func (m *Minter) Signup(ctx context.Context, userID, email, verifier, platformRole, orgID string) error {
	return m.Seal(ctx, "", "", nil,
		&wire.IdentityRecord{Kind: wire.IdentityOrg, OrgID: orgID, UserID: userID},
		&wire.IdentityRecord{Kind: wire.IdentityUser, UserID: userID, Email: email, PasswordVerifier: verifier, Role: platformRole, Status: wire.StatusActive},
		&wire.IdentityRecord{Kind: wire.IdentityMember, OrgID: orgID, UserID: userID, Role: "owner", Status: wire.StatusActive})
}

// SetMember seals a membership (role and status) with the changer's
// token, an owner's or admin's of orgID.
func (m *Minter) SetMember(ctx context.Context, changerToken, orgID, userID, role, status string) error {
	return m.Seal(ctx, changerToken, "", nil,
		&wire.IdentityRecord{Kind: wire.IdentityMember, OrgID: orgID, UserID: userID, Role: role, Status: status})
}

// ChangePassword seals the user's record with a new verifier; the enclave
// checks oldPassword against the current record (and cuts off the user's
// earlier tokens). With token set and no old password (a first password),
// the user's own token is the authority.
func (m *Minter) ChangePassword(ctx context.Context, token, userID, oldPassword, verifier string) error {
	cur, sealed, err := m.Current(ctx, "id/user/"+userID)
	if err != nil {
		return err
	}
	next := *cur
	next.PasswordVerifier = verifier
	if oldPassword != "" {
		token = ""
	}
	return m.Seal(ctx, token, oldPassword, []wire.SealedIdentity{sealed}, &next)
}

// ShareNames are the floor names of the records a share is opened with:
// the share's and its creator's.
func shareNames(creatorType, creatorID, orgID, shareID string) []string {
	if creatorType == PrincipalAgent {
		return []string{"id/agent/" + orgID + "/" + creatorID, "id/share/" + orgID + "/" + shareID}
	}
	u, m := UserNames(creatorID, orgID)
	return []string{u, m, "id/share/" + orgID + "/" + shareID}
}

// SealShare has the enclave seal a share as a capability of its creator,
// with the creator's own token. The capability is the share id (the URL the
// recipient holds).
func (m *Minter) SealShare(ctx context.Context, creatorToken, creatorID, orgID, shareID string, expires time.Time) error {
	v := sha256.Sum256([]byte(shareID))
	return m.Seal(ctx, creatorToken, "", nil, &wire.IdentityRecord{Kind: wire.IdentityShare, OrgID: orgID, UserID: creatorID,
		ID: shareID, Verifiers: [][32]byte{v}, ExpiresMs: expires.UnixMilli()})
}

// Share mints a token of a share's creator from the sealed share, stamped
// no earlier than notBefore (an agent creator's cut-off; a user's is read).
func (m *Minter) Share(ctx context.Context, creatorType, creatorID, orgID, shareID string, notBefore time.Time) (Minted, error) {
	recs, err := m.load(ctx, shareNames(creatorType, creatorID, orgID, shareID)...)
	if err != nil {
		return Minted{}, err
	}
	req := wire.MintTokenRequest{Credential: wire.CredShare, Secret: shareID, Records: recs}
	if creatorType != PrincipalAgent {
		_, out, err := m.mintUser(ctx, creatorID, orgID, req)
		return out, err
	}
	if !notBefore.IsZero() {
		req.NotBeforeMs = stampMs(notBefore)
	}
	_, out, err := m.mint(ctx, req)
	return out, err
}

// SealAgent has the enclave seal an agent's record (its flags, scopes and
// status as rec gives them) with an owner's or admin's token; the verifier
// is its current key's, read from the store.
func (m *Minter) SealAgent(ctx context.Context, changerToken string, rec *wire.IdentityRecord) error {
	h, err := m.records.AgentKeyHash(ctx, rec.OrgID, rec.ID)
	if err != nil {
		return err
	}
	if len(h) != 32 {
		return fmt.Errorf("agent key hash of %d bytes", len(h))
	}
	rec.Verifiers = [][32]byte{[32]byte(h)}
	return m.Seal(ctx, changerToken, "", nil, rec)
}

// SealAPIKey has the enclave seal a personal API key's record (expires
// zero: never) with a token of its user (or an owner's or admin's).
func (m *Minter) SealAPIKey(ctx context.Context, token, orgID, userID, keyID string, hash []byte, expires time.Time) error {
	if len(hash) != 32 {
		return fmt.Errorf("api key hash of %d bytes", len(hash))
	}
	var ms int64
	if !expires.IsZero() {
		ms = max(expires.UnixMilli(), 1)
	}
	return m.Seal(ctx, token, "", nil, &wire.IdentityRecord{Kind: wire.IdentityAPIKey, OrgID: orgID, UserID: userID, ID: keyID,
		Verifiers: [][32]byte{[32]byte(hash)}, ExpiresMs: ms})
}

// RetireAPIKey seals the key's record again as expired now: the enclave
// mints nothing more for it.
func (m *Minter) RetireAPIKey(ctx context.Context, token, orgID, keyID string) error {
	cur, _, err := m.Current(ctx, "id/apikey/"+orgID+"/"+keyID)
	if errors.Is(err, ErrNoRecord) {
		return nil
	}
	if err != nil {
		return err
	}
	next := *cur
	next.ExpiresMs = max(m.now().UnixMilli(), 1)
	return m.Seal(ctx, token, "", nil, &next)
}

// SetPlatformRole seals the user's record with a new platform role (see
// wire.SealIdentityRequest: the enclave lets only that field change this
// way, since platform roles grant nothing in the enclave).
func (m *Minter) SetPlatformRole(ctx context.Context, userID, role string) error {
	cur, sealed, err := m.Current(ctx, "id/user/"+userID)
	if err != nil {
		return err
	}
	if cur.Role == role {
		return nil
	}
	next := *cur
	next.Role = role
	return m.Seal(ctx, "", "", []wire.SealedIdentity{sealed}, &next)
}
