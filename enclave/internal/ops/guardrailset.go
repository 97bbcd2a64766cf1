package ops

import (
	"bytes"
	"context"
	"crypto/hmac"
	"encoding/json"
	"fmt"

	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/policy"
)

// guardrailSetMACPrefix starts the message a guardrail-set MAC covers:
//
//	"ocv-guardrail-set-v1\n" ‖ org id ‖ "\n" ‖ set
//
// The prefix differs from the policy sets', so a MAC of one kind never
// verifies as the other.
const guardrailSetMACPrefix = "ocv-guardrail-set-v1\n"

// guardrailSetCacheBytes bounds the guardrail sets kept verified.
const guardrailSetCacheBytes = 16 << 20

// verifiedGuardrails is a guardrail set whose MAC verified, decoded and
// parsed; shared read-only between requests.
type verifiedGuardrails struct {
	digest  [32]byte
	mac     []byte
	agentID string
	version uint64
	g       policy.Guardrails
	rules   []policy.TxRule
}

// decodeGuardrailSet reads a set strictly.
func decodeGuardrailSet(b []byte) (wire.GuardrailSet, error) {
	var gs wire.GuardrailSet
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&gs); err != nil {
		return wire.GuardrailSet{}, fmt.Errorf("decoding guardrail set: %w", err)
	}
	if dec.More() {
		return wire.GuardrailSet{}, fmt.Errorf("decoding guardrail set: trailing data")
	}
	return gs, nil
}

// sealGuardrails MACs an agent's new guardrail set for a human of the
// organization, once the set decodes for the named agent and version, its
// guardrails and rules parse, and advances the agent's guardrail-set floor
// to it: a version not above the floor is a Conflict.
func (a *authorizer) sealGuardrails(ctx context.Context, req *wire.SealGuardrailsRequest) ([]byte, error) {
	c, err := a.verifyToken(ctx, req.ChangerToken)
	if err != nil {
		return nil, err
	}
	// As for policy sets: an owner or admin of the organization, never a
	// member (members may not change agents) or an agent.
	if c.PrincipalType != policy.PrincipalUser || c.OrgID != req.OrgID || !c.Role.BypassesPolicies() {
		return nil, forbidden("only an owner or admin of the organization may change an agent's guardrails")
	}
	if err := checkOrgID(req.OrgID); err != nil {
		return nil, fmt.Errorf("%w: %w", wire.ErrBadRequest, err)
	}
	gs, err := decodeGuardrailSet(req.Set)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%w: %w", wire.ErrBadRequest, err)
	case gs.AgentID != req.AgentID || gs.Version != req.Version || req.AgentID == "":
		return nil, fmt.Errorf("%w: the guardrail set names another agent or version", wire.ErrBadRequest)
	case gs.Version == 0:
		return nil, fmt.Errorf("%w: guardrail set versions start at 1", wire.ErrBadRequest)
	}
	if _, err := policy.ParseGuardrails(gs.Guardrails); err != nil {
		return nil, fmt.Errorf("%w: %w", wire.ErrBadRequest, err)
	}
	if _, err := txRules(gs.Rules); err != nil {
		return nil, fmt.Errorf("%w: tx rules: %w", wire.ErrBadRequest, err)
	}
	tag, err := a.computeMAC(ctx, guardrailSetMACPrefix, req.OrgID, req.Set)
	if err != nil {
		return nil, err
	}
	digest := macDigest(guardrailSetMACPrefix, req.OrgID, req.Set)
	if err := a.advanceSetFloor(ctx, guardFloorName(req.OrgID, req.AgentID), "guardrail set", gs.Version, digest); err != nil {
		return nil, err
	}
	return tag, nil
}

// loadGuardrails verifies the agent's sealed guardrail set and returns its
// guardrails and rules. A missing, forged, foreign or superseded set is
// Forbidden.
func (a *authorizer) loadGuardrails(ctx context.Context, org, agent string, set, mac []byte) (policy.Guardrails, []policy.TxRule, error) {
	if len(set) == 0 || len(mac) != wire.PolicyMACLen {
		return policy.Guardrails{}, nil, forbidden("no sealed guardrail set")
	}
	if checkOrgID(org) != nil {
		return policy.Guardrails{}, nil, forbidden("org id unusable")
	}
	v, err := a.verifyGuardrails(ctx, org, set, mac)
	if err != nil {
		return policy.Guardrails{}, nil, err
	}
	if v.agentID != agent {
		return policy.Guardrails{}, nil, forbidden("guardrail set of another agent")
	}
	if err := a.checkSetFloor(ctx, guardFloorName(org, agent), "guardrail set", v.version, v.digest); err != nil {
		return policy.Guardrails{}, nil, err
	}
	return v.g, v.rules, nil
}

// verifyGuardrails checks a set's MAC (from the cache when this exact set
// verified before, else through the key store) and decodes it.
func (a *authorizer) verifyGuardrails(ctx context.Context, org string, set, mac []byte) (*verifiedGuardrails, error) {
	digest := macDigest(guardrailSetMACPrefix, org, set)
	if v, ok := a.guardSets.get(digest); ok {
		if !hmac.Equal(v.mac, mac) {
			return nil, forbidden("guardrail set mac does not verify")
		}
		return v, nil
	}
	tag, err := a.computeMAC(ctx, guardrailSetMACPrefix, org, set)
	if err != nil {
		return nil, err
	}
	if !hmac.Equal(tag, mac) {
		return nil, forbidden("guardrail set mac does not verify")
	}
	// Only sealGuardrails makes MACs, and only over sets that decode and
	// parse; a failure here is a set sealed by an older enclave version.
	gs, err := decodeGuardrailSet(set)
	if err != nil {
		return nil, forbidden("sealed guardrail set does not decode")
	}
	g, err := policy.ParseGuardrails(gs.Guardrails)
	if err != nil {
		return nil, forbidden("sealed guardrails do not parse")
	}
	rules, err := txRules(gs.Rules)
	if err != nil {
		return nil, forbidden("sealed tx rules do not parse")
	}
	v := &verifiedGuardrails{digest: digest, mac: tag, agentID: gs.AgentID, version: gs.Version, g: g, rules: rules}
	a.guardSets.put(digest, v, len(set))
	return v, nil
}
