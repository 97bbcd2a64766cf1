package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/opencustody/ocv/enclave/wire"
)

// call runs one request on a pooled connection within CallTimeout. On
// success it returns the connection still held, because resp's byte fields
// alias its buffer: the caller copies what it keeps, then calls put. A
// connection found dead is dropped; when it had served calls before (the
// enclave may have restarted since) and the operation is idempotent, the
// call is tried once more on a fresh connection.
func (c *Client) call(ctx context.Context, op wire.Op, idempotent bool, req, resp wire.Message) (*conn, error) {
	deadline := time.Now().Add(c.cfg.CallTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	for attempt := 0; ; attempt++ {
		cn, err := c.acquire(ctx, deadline)
		if err != nil {
			return nil, err
		}
		reused := cn.used > 0
		err = cn.roundTrip(ctx, deadline, op, req, resp)
		if err == nil {
			return cn, nil
		}
		c.release(cn, err)
		if !isBroken(err) {
			return nil, err // the enclave's answer (a wire sentinel)
		}
		switch {
		case isTimeout(err):
			// The call's own budget ran out: the enclave may be busy, not gone.
		case errors.Is(err, errProtocol), errors.Is(err, wire.ErrUnauthenticated):
			c.setDown("channel: " + err.Error())
		default:
			// EOF or reset: the enclave went away; its other connections too.
			c.gen.Add(1)
			if idempotent && reused && attempt == 0 {
				continue
			}
		}
		return nil, fmt.Errorf("%w: %s: %w", wire.ErrUnavailable, op, err)
	}
}

// put returns a connection after a successful call.
func (c *Client) put(cn *conn) { c.release(cn, nil) }

// Attest returns an attestation document for an auditor's nonce (1 to 512
// bytes), issued over an attested connection. The document binds the
// enclave's channel key and the nonce; the auditor validates it.
func (c *Client) Attest(ctx context.Context, nonce []byte) ([]byte, error) {
	var resp wire.AttestResponse
	cn, err := c.call(ctx, wire.OpAttest, true, &wire.AttestRequest{Nonce: nonce}, &resp)
	if err != nil {
		return nil, err
	}
	doc := bytes.Clone(resp.Document)
	c.put(cn)
	return doc, nil
}

// CreateKEK creates the next key-encryption key version of a vault (1 for a
// new vault) and returns it. token is the creator's access token: the
// enclave answers wire.ErrForbidden unless it is an owner's or admin's of
// orgID. It is never retried automatically.
func (c *Client) CreateKEK(ctx context.Context, token, orgID, vaultID string) (uint32, error) {
	var resp wire.CreateKEKResponse
	cn, err := c.call(ctx, wire.OpCreateKEK, false, &wire.CreateKEKRequest{Token: token, OrgID: orgID, VaultID: vaultID}, &resp)
	if err != nil {
		return 0, err
	}
	c.put(cn)
	return resp.KEKVersion, nil
}

// Seal encrypts req.Plaintext for its locator; KEKVersion 0 means the
// vault's latest. req carries the caller's authorisation (Token, PolicySet,
// PolicyMAC, ClientIP; see enclave/wire): a refusal is wire.ErrForbidden.
func (c *Client) Seal(ctx context.Context, req wire.SealRequest) (wire.SealResponse, error) {
	var resp wire.SealResponse
	cn, err := c.call(ctx, wire.OpSeal, true, &req, &resp)
	if err != nil {
		return wire.SealResponse{}, err
	}
	out := wire.SealResponse{KEKVersion: resp.KEKVersion, WrappedDEK: bytes.Clone(resp.WrappedDEK), Ciphertext: bytes.Clone(resp.Ciphertext)}
	c.put(cn)
	return out, nil
}

// Open decrypts a sealed value. A value that does not open under its
// locator (moved, edited, swapped key) gives wire.ErrIntegrity. req carries
// the caller's authorisation (Token, PolicySet, PolicyMAC, ClientIP; see
// enclave/wire): a refusal is wire.ErrForbidden.
func (c *Client) Open(ctx context.Context, req wire.OpenRequest) ([]byte, error) {
	var resp wire.OpenResponse
	cn, err := c.call(ctx, wire.OpOpen, true, &req, &resp)
	if err != nil {
		return nil, err
	}
	pt := append(make([]byte, 0, len(resp.Plaintext)), resp.Plaintext...)
	clear(resp.Plaintext) // the connection's read buffer
	c.put(cn)
	return pt, nil
}

// PublicKeys lists the token-signing public keys, oldest first.
func (c *Client) PublicKeys(ctx context.Context) ([]wire.PublicKey, error) {
	var resp wire.PublicKeysResponse
	cn, err := c.call(ctx, wire.OpPublicKeys, true, &wire.PublicKeysRequest{}, &resp)
	if err != nil {
		return nil, err
	}
	for i := range resp.Keys {
		resp.Keys[i].X, resp.Keys[i].Y = bytes.Clone(resp.Keys[i].X), bytes.Clone(resp.Keys[i].Y)
	}
	c.put(cn)
	return resp.Keys, nil
}

// Health reports the enclave's key store status and mode.
func (c *Client) Health(ctx context.Context) (wire.HealthResponse, error) {
	var resp wire.HealthResponse
	cn, err := c.call(ctx, wire.OpHealth, true, &wire.HealthRequest{}, &resp)
	if err != nil {
		return wire.HealthResponse{}, err
	}
	c.put(cn)
	return resp, nil
}

// SealPolicySet has the enclave MAC a vault's new policy set (the
// policy.EncodeSet bytes at req.Version) for the human in req.ChangerToken,
// an owner or admin of req.OrgID, and returns the MAC to store with the
// set. A changer without that right gets wire.ErrForbidden, a version not
// newer than one the enclave has seen wire.ErrConflict, and a set that does
// not decode for req.VaultID and req.Version wire.ErrBadRequest. It is
// never retried automatically: a retry of a sealed version is a conflict.
func (c *Client) SealPolicySet(ctx context.Context, req wire.SealPolicySetRequest) ([]byte, error) {
	var resp wire.SealPolicySetResponse
	cn, err := c.call(ctx, wire.OpSealPolicySet, false, &req, &resp)
	if err != nil {
		return nil, err
	}
	mac := bytes.Clone(resp.MAC)
	c.put(cn)
	if len(mac) != wire.PolicyMACLen {
		return nil, fmt.Errorf("%w: policy set mac of %d bytes", wire.ErrInternal, len(mac))
	}
	return mac, nil
}

// SigningKey has the enclave make (or, with req.Private, import) version
// req.Version of an agent's signing key for req.Chain and returns its
// public key. It is never retried automatically: a retry of a made
// version is a conflict (wire.ErrConflict).
func (c *Client) SigningKey(ctx context.Context, req wire.SigningKeyRequest) (wire.SigningKeyResponse, error) {
	var resp wire.SigningKeyResponse
	cn, err := c.call(ctx, wire.OpSigningKey, false, &req, &resp)
	if err != nil {
		return wire.SigningKeyResponse{}, err
	}
	out := wire.SigningKeyResponse{Curve: resp.Curve, PublicKey: bytes.Clone(resp.PublicKey)}
	c.put(cn)
	return out, nil
}

// SignIntent has the enclave weigh and sign a structured request with an
// agent's key. A guardrail refusal comes back as resp.Denied with no
// error. Signing the same request twice gives equivalent answers, so a
// lost channel is retried.
func (c *Client) SignIntent(ctx context.Context, req wire.SignIntentRequest) (wire.SignIntentResponse, error) {
	var resp wire.SignIntentResponse
	cn, err := c.call(ctx, wire.OpSignIntent, true, &req, &resp)
	if err != nil {
		return wire.SignIntentResponse{}, err
	}
	out := wire.SignIntentResponse{Denied: resp.Denied, Detail: resp.Detail, Signature: bytes.Clone(resp.Signature),
		Digest: bytes.Clone(resp.Digest), SignedTx: bytes.Clone(resp.SignedTx), TxHash: bytes.Clone(resp.TxHash)}
	c.put(cn)
	return out, nil
}

// SealGuardrails has the enclave MAC an agent's new guardrail set (the
// wire.GuardrailSet JSON at req.Version) for the human in req.ChangerToken
// and returns the MAC to store with the set. Like SealPolicySet it is never
// retried automatically: a retry of a sealed version is a conflict.
func (c *Client) SealGuardrails(ctx context.Context, req wire.SealGuardrailsRequest) ([]byte, error) {
	var resp wire.SealPolicySetResponse
	cn, err := c.call(ctx, wire.OpSealGuardrails, false, &req, &resp)
	if err != nil {
		return nil, err
	}
	mac := bytes.Clone(resp.MAC)
	c.put(cn)
	if len(mac) != wire.PolicyMACLen {
		return nil, fmt.Errorf("%w: guardrail set mac of %d bytes", wire.ErrInternal, len(mac))
	}
	return mac, nil
}
