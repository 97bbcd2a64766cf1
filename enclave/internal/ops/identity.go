package ops

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	"github.com/opencustody/ocv/enclave/internal/floors"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/keyvault"
)

// IdentityMACKeyID is the key-store id of the identity-record MAC key (an
// HMACSHA256 key, version 1, made at the first start).
const IdentityMACKeyID = "identity-mac"

// identityMACPrefix starts the message an identity MAC covers:
// "ocv-identity-v1\n" ‖ the record's canonical bytes (which name the kind,
// the ids and the version).
const identityMACPrefix = "ocv-identity-v1\n"

var identityMACKey = keyvault.KeyRef{ID: IdentityMACKeyID, Version: 1}

// identity seals identity records and mints tokens from them (OpSealIdentity,
// OpMintToken). Safe for concurrent use.
type identity struct {
	macer     keyvault.MACer
	floors    *floors.Store
	jwt       *jwtKey
	authz     *authorizer
	issuer    string
	lifetimes wire.TokenLifetimes
	now       func() time.Time
}

// ensureHMACKey makes sure the HMAC key ref exists, creating it on first
// start (another enclave on the same HSM may create it first).
func ensureHMACKey(ctx context.Context, ks keyvault.KeyStore, ref keyvault.KeyRef) error {
	info, err := ks.Key(ctx, ref)
	if errors.Is(err, keyvault.ErrKeyNotFound) {
		info, err = ks.CreateKey(ctx, keyvault.CreateKeyRequest{Ref: ref, Algorithm: keyvault.HMACSHA256})
		if errors.Is(err, keyvault.ErrAlreadyExists) {
			info, err = ks.Key(ctx, ref)
		}
	}
	if err != nil {
		return fmt.Errorf("loading %s key: %w", ref.ID, err)
	}
	if info.Algorithm != keyvault.HMACSHA256 {
		return fmt.Errorf("%s key is a %s key: %w", ref.ID, info.Algorithm, keyvault.ErrUnsupported)
	}
	return nil
}

func newIdentity(ctx context.Context, ks keyvault.KeyStore, fl *floors.Store, jwt *jwtKey, authz *authorizer, cfg Config, now func() time.Time) (*identity, error) {
	if err := ensureHMACKey(ctx, ks, identityMACKey); err != nil {
		return nil, err
	}
	if cfg.Issuer == "" {
		return nil, fmt.Errorf("%w: the token issuer is required", ErrInvalidConfig)
	}
	return &identity{macer: authz.macer, floors: fl, jwt: jwt, authz: authz, issuer: cfg.Issuer, lifetimes: cfg.TokenLifetimes, now: now}, nil
}

// recordMAC has the key store MAC a record's bytes. A key-store failure is
// an outage.
func (id *identity) recordMAC(ctx context.Context, rec []byte) ([]byte, error) {
	msg := make([]byte, 0, len(identityMACPrefix)+len(rec))
	msg = append(append(msg, identityMACPrefix...), rec...)
	tag, err := id.macer.MAC(ctx, identityMACKey, msg)
	if err != nil {
		return nil, fmt.Errorf("%w: computing identity mac: %w", wire.ErrUnavailable, err)
	}
	return tag, nil
}

// open verifies a sealed record: it decodes, its MAC verifies and it is
// exactly its floor (the newest version sealed). Any failure but an outage
// is Forbidden.
func (id *identity) open(ctx context.Context, s wire.SealedIdentity) (*wire.IdentityRecord, error) {
	var r wire.IdentityRecord
	if len(s.MAC) != wire.IdentityMACLen || r.Decode(s.Record) != nil {
		return nil, forbidden("identity record unusable")
	}
	tag, err := id.recordMAC(ctx, s.Record)
	if err != nil {
		return nil, err
	}
	if !hmac.Equal(tag, s.MAC) {
		return nil, forbidden("identity record mac does not verify")
	}
	_, err = id.floors.Check(ctx, r.FloorName(), r.Version, sha256.Sum256(s.Record))
	switch {
	case errors.Is(err, floors.ErrSuperseded), errors.Is(err, floors.ErrNoFloor):
		return nil, forbidden("identity record superseded")
	case err != nil:
		return nil, fmt.Errorf("%w: %w", wire.ErrUnavailable, err)
	}
	return &r, nil
}

// openAll opens every presented record, at most one of each kind.
func (id *identity) openAll(ctx context.Context, in []wire.SealedIdentity) (map[wire.IdentityKind]*wire.IdentityRecord, error) {
	out := make(map[wire.IdentityKind]*wire.IdentityRecord, len(in))
	for _, s := range in {
		r, err := id.open(ctx, s)
		if err != nil {
			return nil, err
		}
		if out[r.Kind] != nil {
			return nil, fmt.Errorf("%w: two records of one kind", wire.ErrBadRequest)
		}
		out[r.Kind] = r
	}
	return out, nil
}

// seal MACs a new record and advances its floor to it. The version must be
// the floor's plus one (1 when there is none): anything else is a
// Conflict.
func (id *identity) seal(ctx context.Context, r *wire.IdentityRecord) ([]byte, []byte, error) {
	rec, err := r.Append(nil)
	if err != nil {
		return nil, nil, err
	}
	name := r.FloorName()
	cur, err := id.floors.Load(ctx, name)
	switch {
	case errors.Is(err, floors.ErrNoFloor):
	case err != nil:
		return nil, nil, fmt.Errorf("%w: %w", wire.ErrUnavailable, err)
	}
	if r.Version != cur.Version+1 {
		return nil, nil, fmt.Errorf("%w: record version %d does not follow %d", wire.ErrConflict, r.Version, cur.Version)
	}
	tag, err := id.recordMAC(ctx, rec)
	if err != nil {
		return nil, nil, err
	}
	err = id.floors.Advance(ctx, name, floors.Floor{Version: r.Version, Digest: sha256.Sum256(rec), NotBefore: cur.NotBefore})
	switch {
	case errors.Is(err, floors.ErrSuperseded):
		return nil, nil, fmt.Errorf("%w: a concurrent change won", wire.ErrConflict)
	case err != nil:
		return nil, nil, fmt.Errorf("%w: %w", wire.ErrUnavailable, err)
	}
	return rec, tag, nil
}

// floorAbsent reports whether name has no floor yet.
func (id *identity) floorAbsent(ctx context.Context, name string) (bool, error) {
	_, err := id.floors.Load(ctx, name)
	switch {
	case errors.Is(err, floors.ErrNoFloor):
		return true, nil
	case err != nil:
		return false, fmt.Errorf("%w: %w", wire.ErrUnavailable, err)
	}
	return false, nil
}
