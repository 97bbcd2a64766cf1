package ops

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"

	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/keyvault"
	"github.com/opencustody/ocv/policy"
)

// PolicyMACKeyID is the key-store id of the policy-set MAC key (an
// HMACSHA256 key, version 1, made at the first start).
const PolicyMACKeyID = "policy-mac"

// policySetMACPrefix starts the message a policy-set MAC covers:
//
//	"ocv-policy-set-v1\n" ‖ org id ‖ "\n" ‖ set
//
// where set is the policy.EncodeSet encoding, which names the vault and the
// version itself. The org id holds no control character, so the newline
// ends it unambiguously.
const policySetMACPrefix = "ocv-policy-set-v1\n"

// policyMACKey is the ref of the policy-set MAC key.
var policyMACKey = keyvault.KeyRef{ID: PolicyMACKeyID, Version: 1}

// ensurePolicyMACKey makes sure the policy-set MAC key exists, creating it
// on first start, and that it is an HMAC key.
func ensurePolicyMACKey(ctx context.Context, ks keyvault.KeyStore) error {
	info, err := ks.Key(ctx, policyMACKey)
	if errors.Is(err, keyvault.ErrKeyNotFound) {
		info, err = ks.CreateKey(ctx, keyvault.CreateKeyRequest{Ref: policyMACKey, Algorithm: keyvault.HMACSHA256})
		if errors.Is(err, keyvault.ErrAlreadyExists) { // another enclave on the same HSM
			info, err = ks.Key(ctx, policyMACKey)
		}
	}
	if err != nil {
		return fmt.Errorf("loading policy-set mac key: %w", err)
	}
	if info.Algorithm != keyvault.HMACSHA256 {
		return fmt.Errorf("policy-set mac key is a %s key: %w", info.Algorithm, keyvault.ErrUnsupported)
	}
	return nil
}

// checkOrgID refuses an org id that cannot be put into a MAC message.
func checkOrgID(org string) error {
	if org == "" || len(org) > wire.MaxIDLen {
		return errors.New("org id length")
	}
	if strings.ContainsFunc(org, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return errors.New("org id has a control character")
	}
	return nil
}

// setDigest is SHA-256 of the MAC message of (org, set): the policy-set
// cache key.
func setDigest(org string, set []byte) [32]byte {
	return macDigest(policySetMACPrefix, org, set)
}

// macDigest is SHA-256 of the MAC message prefix ‖ org ‖ "\n" ‖ set.
func macDigest(prefix, org string, set []byte) [32]byte {
	h := sha256.New()
	h.Write([]byte(prefix))
	h.Write([]byte(org))
	h.Write([]byte{'\n'})
	h.Write(set)
	var d [32]byte
	h.Sum(d[:0])
	return d
}

// computeMAC has the key store MAC (org, set). A key-store failure is an
// outage (Unavailable), never a verdict on the set.
func (a *authorizer) computeMAC(ctx context.Context, prefix, org string, set []byte) ([]byte, error) {
	msg := make([]byte, 0, len(prefix)+len(org)+1+len(set))
	msg = append(msg, prefix...)
	msg = append(msg, org...)
	msg = append(msg, '\n')
	msg = append(msg, set...)
	tag, err := a.macer.MAC(ctx, policyMACKey, msg)
	if err != nil {
		return nil, fmt.Errorf("%w: computing policy-set mac: %w", wire.ErrUnavailable, err)
	}
	return tag, nil
}

// sealedSet is a policy set whose MAC verified, decoded and prepared. It is
// shared read-only between requests.
type sealedSet struct {
	digest   [32]byte
	mac      []byte
	vaultID  string
	version  uint64
	policies []policy.Policy
}

// newSealedSet decodes and prepares a set; DecodeSet has validated it.
func newSealedSet(digest [32]byte, mac, set []byte) (*sealedSet, error) {
	vaultID, version, policies, err := policy.DecodeSet(set)
	if err != nil {
		return nil, err
	}
	for i := range policies {
		if err := policies[i].Prepare(); err != nil {
			return nil, err
		}
	}
	return &sealedSet{digest: digest, mac: mac, vaultID: vaultID, version: version, policies: policies}, nil
}

// loadSet returns the set a request presents, once its MAC verified for
// org: from the cache when this exact (org, set) verified before, else
// through the key store. Any failure but an outage is Forbidden.
func (a *authorizer) loadSet(ctx context.Context, org string, set, mac []byte) (*sealedSet, error) {
	if len(set) == 0 || len(mac) != wire.PolicyMACLen {
		return nil, forbidden("no policy set")
	}
	if checkOrgID(org) != nil {
		return nil, forbidden("org id unusable")
	}
	digest := setDigest(org, set)
	if s, ok := a.sets.get(digest); ok {
		// s.mac is the key store's MAC of exactly these bytes.
		if !hmac.Equal(s.mac, mac) {
			return nil, forbidden("policy set mac does not verify")
		}
		return s, nil
	}
	tag, err := a.computeMAC(ctx, policySetMACPrefix, org, set)
	if err != nil {
		return nil, err
	}
	if !hmac.Equal(tag, mac) {
		return nil, forbidden("policy set mac does not verify")
	}
	s, err := newSealedSet(digest, tag, set)
	if err != nil {
		// Only SealPolicySet makes MACs, and only over sets that decode.
		return nil, forbidden("sealed policy set does not decode")
	}
	a.sets.put(s.digest, s, len(set))
	return s, nil
}

// SealPolicySet MACs a vault's new policy set for a human entitled to change
// it (an owner or admin of the org), once the set decodes for the named
// vault and version, and advances the vault's policy-set floor to it: a
// version not above the floor is a Conflict.
func (a *authorizer) sealPolicySet(ctx context.Context, req *wire.SealPolicySetRequest) ([]byte, error) {
	c, err := a.verifyToken(ctx, req.ChangerToken)
	if err != nil {
		return nil, err
	}
	if c.PrincipalType != policy.PrincipalUser || c.OrgID != req.OrgID || !c.Role.BypassesPolicies() {
		return nil, forbidden("the changer may not change policies")
	}
	if err := checkOrgID(req.OrgID); err != nil {
		return nil, fmt.Errorf("%w: %w", wire.ErrBadRequest, err)
	}
	vaultID, version, _, err := policy.DecodeSet(req.Set)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%w: decoding policy set: %w", wire.ErrBadRequest, err)
	case vaultID != req.VaultID || version != req.Version:
		return nil, fmt.Errorf("%w: the policy set names another vault or version", wire.ErrBadRequest)
	case version == 0:
		return nil, fmt.Errorf("%w: policy set versions start at 1", wire.ErrBadRequest)
	}
	tag, err := a.computeMAC(ctx, policySetMACPrefix, req.OrgID, req.Set)
	if err != nil {
		return nil, err
	}
	digest := setDigest(req.OrgID, req.Set)
	if err := a.advanceSetFloor(ctx, policyFloorName(req.OrgID, req.VaultID), "policy set", version, digest); err != nil {
		return nil, err
	}
	if s, err := newSealedSet(digest, tag, req.Set); err == nil {
		a.sets.put(s.digest, s, len(req.Set))
	}
	return tag, nil
}
