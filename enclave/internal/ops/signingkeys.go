package ops

import (
	"context"
	"crypto/ed25519"
	"fmt"

	"github.com/opencustody/ocv/enclave/internal/envelope"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/keyvault"
	"github.com/opencustody/ocv/policy"
)

// chainAlgorithms maps each chain family with signing keys to its curve.
var chainAlgorithms = map[string]keyvault.Algorithm{
	"ethereum": keyvault.Secp256k1, "bitcoin": keyvault.Secp256k1, "tron": keyvault.Secp256k1,
	"solana": keyvault.Ed25519, "xrp": keyvault.Ed25519, "cardano": keyvault.Ed25519,
}

// maxKeyIDLen bounds a signing key's key-store id: what the PKCS#11 store
// accepts as a key id.
const maxKeyIDLen = 200

// signingKeyID is the key-store id of an agent's key for chain:
// "sk/<org>/<agent>/<chain>". The organization is the one of the verified
// token the request was checked against, so one organization's request can
// never address another's key. Each part must be [A-Za-z0-9._-] (no '/' or
// ':' to shift the name); anything else is a bad request.
func signingKeyID(orgID, agentID, chain string) (string, error) {
	if !envelope.ValidKeyNamePart(orgID) || !envelope.ValidKeyNamePart(agentID) || !envelope.ValidKeyNamePart(chain) {
		return "", fmt.Errorf("%w: org, agent and chain must be non-empty [A-Za-z0-9._-]", wire.ErrBadRequest)
	}
	id := "sk/" + orgID + "/" + agentID + "/" + chain
	if len(id) > maxKeyIDLen {
		return "", fmt.Errorf("%w: org and agent ids too long together", wire.ErrBadRequest)
	}
	return id, nil
}

// signingKeyRef names version v of an agent's key for chain (see
// signingKeyID).
func signingKeyRef(orgID, agentID, chain string, v uint32) (keyvault.KeyRef, error) {
	id, err := signingKeyID(orgID, agentID, chain)
	return keyvault.KeyRef{ID: id, Version: v}, err
}

// curveName is the public name of alg in API answers.
func curveName(alg keyvault.Algorithm) string {
	if alg == keyvault.Ed25519 {
		return "ed25519"
	}
	return "secp256k1"
}

// publicBytes is the wire form of a signing key's public key.
func publicBytes(pub any) ([]byte, error) {
	switch p := pub.(type) {
	case keyvault.Secp256k1Point:
		return []byte(p), nil
	case ed25519.PublicKey:
		return []byte(p), nil
	}
	return nil, fmt.Errorf("%w: unexpected public key type %T", wire.ErrInternal, pub)
}

// SigningKey makes (or imports) a version of an agent's signing key. An
// owner or admin of the organization may do either; the agent itself may
// only have a key generated; a member neither.
func (h *Handler) SigningKey(ctx context.Context, req *wire.SigningKeyRequest) (*wire.SigningKeyResponse, error) {
	alg, ok := chainAlgorithms[req.Chain]
	if !ok {
		return nil, fmt.Errorf("%w: no signing keys for chain %q", wire.ErrBadRequest, req.Chain)
	}
	if req.AgentID == "" || req.Version == 0 {
		return nil, fmt.Errorf("%w: agent id and version are required", wire.ErrBadRequest)
	}
	c, err := h.authz.verifyToken(ctx, req.Token)
	if err != nil {
		return nil, err
	}
	switch {
	case c.OrgID != req.OrgID:
		return nil, forbidden("token of another organization")
	case c.PrincipalType == policy.PrincipalAgent && (c.Subject != req.AgentID || len(req.Private) > 0):
		return nil, forbidden("an agent may only have its own key generated")
	case c.PrincipalType == policy.PrincipalUser && !c.Role.BypassesPolicies():
		return nil, forbidden("only an owner or admin makes or imports an agent's key")
	}
	ref, err := signingKeyRef(c.OrgID, req.AgentID, req.Chain, req.Version)
	if err != nil {
		clear(req.Private)
		return nil, err
	}
	var info keyvault.KeyInfo
	if len(req.Private) > 0 {
		im, ok := h.ks.(keyvault.KeyImporter)
		if !ok {
			return nil, fmt.Errorf("%w: the key store cannot import keys", wire.ErrInternal)
		}
		info, err = im.ImportKey(ctx, keyvault.ImportKeyRequest{Ref: ref, Algorithm: alg, Private: req.Private})
		clear(req.Private)
		if err != nil && isInvalidKey(err) {
			return nil, fmt.Errorf("%w: %w", wire.ErrBadRequest, err)
		}
	} else {
		info, err = h.ks.CreateKey(ctx, keyvault.CreateKeyRequest{Ref: ref, Algorithm: alg})
	}
	if err != nil {
		if isAlreadyExists(err) {
			return nil, fmt.Errorf("%w: key version %d exists", wire.ErrConflict, req.Version)
		}
		return nil, err
	}
	pub, err := publicBytes(info.Public)
	if err != nil {
		return nil, err
	}
	return &wire.SigningKeyResponse{Curve: curveName(alg), PublicKey: pub}, nil
}
