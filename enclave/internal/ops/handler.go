package ops

import (
	"context"
	"fmt"
	"time"

	"github.com/opencustody/ocv/attestation"
	"github.com/opencustody/ocv/enclave/internal/envelope"
	"github.com/opencustody/ocv/enclave/internal/floors"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/keyvault"
	"github.com/opencustody/ocv/policy"
)

// Config tunes a Handler. Mode is wire.ModeSimulated or wire.ModeNitro and
// is reported by Health. DEKCacheSize is passed to envelope (0 disables the
// cache). Now is the clock (time.Now when nil); it judges token expiry too.
//
// RequireCallerToken makes Open and Seal without a caller token Forbidden.
// False lets such requests through unchecked (a request that does carry a
// token is still checked): transitional, until the proxy sends tokens;
// never for production.
//
// Issuer, LegacyIssuers and TokenLifetimes are the token rules the enclave
// applies to every access token it is shown (see enclave/internal/tokens):
// the current iss (required), the earlier ones still accepted, and the
// lifetime bound per principal type (required).
type Config struct {
	Mode               string
	DEKCacheSize       int
	Now                func() time.Time
	RequireCallerToken bool
	Issuer             string
	LegacyIssuers      []string
	TokenLifetimes     wire.TokenLifetimes
	// FloorRefresh is how long an anti-rollback floor read from the HSM
	// is trusted before it is read again (floors.DefaultRefresh when 0).
	FloorRefresh time.Duration
}

// Handler runs operations. It is safe for concurrent use.
type Handler struct {
	ks         keyvault.KeyStore
	sealer     *envelope.Sealer
	issuer     attestation.Issuer
	channelPub []byte
	jwt        *jwtKey
	authz      *authorizer
	// floors are the durable anti-rollback floors, kept in the HSM.
	floors *floors.Store
	// idn seals identity records and mints tokens from them.
	idn  *identity
	mode string
}

// New makes a Handler: it loads (or creates) the token-signing key and the
// policy-set MAC key and checks that ks can wrap data keys and compute MACs.
// channelPub is the enclave's channel public key, bound into every
// attestation document.
func New(ctx context.Context, ks keyvault.KeyStore, issuer attestation.Issuer, channelPub []byte, cfg Config) (*Handler, error) {
	if cfg.Mode != wire.ModeSimulated && cfg.Mode != wire.ModeNitro {
		return nil, fmt.Errorf("%w: mode must be %q or %q", ErrInvalidConfig, wire.ModeSimulated, wire.ModeNitro)
	}
	if ks == nil || issuer == nil || len(channelPub) != wire.X25519KeyLen {
		return nil, fmt.Errorf("%w: key store, issuer and channel key are required", ErrInvalidConfig)
	}
	sealer, err := envelope.New(ks, envelope.Config{CacheSize: cfg.DEKCacheSize, Now: cfg.Now})
	if err != nil {
		return nil, err
	}
	jwt, err := loadJWTKey(ctx, ks)
	if err != nil {
		return nil, err
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	rs, ok := ks.(keyvault.RegisterStore)
	if !ok {
		return nil, fmt.Errorf("%w: the key store cannot keep anti-rollback floors", keyvault.ErrUnsupported)
	}
	fl := floors.New(rs, floors.Config{Refresh: cfg.FloorRefresh, Now: now})
	authz, err := newAuthorizer(ctx, ks, cfg, now, fl)
	if err != nil {
		return nil, err
	}
	idn, err := newIdentity(ctx, ks, fl, jwt, authz, cfg, now)
	if err != nil {
		return nil, err
	}
	return &Handler{ks: ks, sealer: sealer, issuer: issuer, channelPub: channelPub, jwt: jwt, authz: authz, floors: fl, idn: idn, mode: cfg.Mode}, nil
}

// Close zeroises cached data keys.
func (h *Handler) Close() { h.sealer.Close() }

// KID is the kid of the current token-signing key.
func (h *Handler) KID() string { return h.jwt.kid }

// Scratch is per-connection memory the Handler reuses between requests. It
// is not safe for concurrent use; the zero value is ready.
type Scratch struct {
	plain []byte
}

// maxScratch is the largest plaintext buffer a connection keeps between
// requests.
const maxScratch = 64 << 10

// Handle decodes body as the request of op, runs it and appends the encoded
// answer to out. Every error wraps a wire sentinel.
func (h *Handler) Handle(ctx context.Context, op wire.Op, body, out []byte, sc *Scratch) ([]byte, error) {
	out, err := h.dispatch(ctx, op, body, out, sc)
	return out, toWire(err)
}

func (h *Handler) dispatch(ctx context.Context, op wire.Op, body, out []byte, sc *Scratch) ([]byte, error) {
	switch op {
	case wire.OpAttest:
		var req wire.AttestRequest
		if err := req.Decode(body); err != nil {
			return out, err
		}
		if len(req.ProxyPublicKey) != 0 {
			return out, fmt.Errorf("%w: a session is already open", wire.ErrBadRequest)
		}
		doc, err := h.Attest(ctx, req.Nonce)
		if err != nil {
			return out, err
		}
		return (&wire.AttestResponse{Document: doc}).Append(out)
	case wire.OpCreateKEK:
		var req wire.CreateKEKRequest
		if err := req.Decode(body); err != nil {
			return out, err
		}
		resp, err := h.CreateKEK(ctx, &req)
		if err != nil {
			return out, err
		}
		return resp.Append(out)
	case wire.OpSeal:
		var req wire.SealRequest
		if err := req.Decode(body); err != nil {
			return out, err
		}
		if err := h.authz.authorize(ctx, &access{OrgID: req.OrgID, VaultID: req.VaultID, Path: req.Path,
			Permission: policy.PermissionWrite, Token: req.Token, PolicySet: req.PolicySet, PolicyMAC: req.PolicyMAC,
			ClientIP: req.ClientIP}); err != nil {
			return out, err
		}
		if !envelope.ValidSecretType(req.SecretType) {
			return out, fmt.Errorf("%w: secret type", wire.ErrBadRequest)
		}
		loc := envelope.Locator{OrgID: req.OrgID, VaultID: req.VaultID, Path: req.Path, SecretVersion: req.SecretVersion}
		sealed, err := h.sealer.SealTyped(ctx, loc, req.KEKVersion, req.SecretType, req.Plaintext)
		if err != nil {
			return out, err
		}
		return (&wire.SealResponse{KEKVersion: sealed.KEKVersion, WrappedDEK: sealed.WrappedDEK, Ciphertext: sealed.Ciphertext}).Append(out)
	case wire.OpOpen:
		return h.open(ctx, body, out, sc)
	case wire.OpSignJWT:
		// Claims chosen by the caller are never signed; tokens come only
		// from OpMintToken (identity_mint.go).
		return out, forbidden("sign_jwt is retired")
	case wire.OpMintToken:
		var req wire.MintTokenRequest
		if err := req.Decode(body); err != nil {
			return out, err
		}
		resp, err := h.idn.mintToken(ctx, &req)
		if err != nil {
			return out, err
		}
		return resp.Append(out)
	case wire.OpSealIdentity:
		var req wire.SealIdentityRequest
		if err := req.Decode(body); err != nil {
			return out, err
		}
		resp, err := h.idn.sealIdentity(ctx, &req)
		if err != nil {
			return out, err
		}
		return resp.Append(out)
	case wire.OpPublicKeys:
		if err := (&wire.PublicKeysRequest{}).Decode(body); err != nil {
			return out, err
		}
		resp, err := h.PublicKeys(ctx)
		if err != nil {
			return out, err
		}
		return resp.Append(out)
	case wire.OpHealth:
		if err := (&wire.HealthRequest{}).Decode(body); err != nil {
			return out, err
		}
		resp := h.Health(ctx)
		return resp.Append(out)
	case wire.OpExtendAuditHead:
		var req wire.ExtendAuditHeadRequest
		if err := req.Decode(body); err != nil {
			return out, err
		}
		resp, err := h.ExtendAuditHead(ctx, &req)
		if err != nil {
			return out, err
		}
		return resp.Append(out)
	case wire.OpSealPolicySet:
		var req wire.SealPolicySetRequest
		if err := req.Decode(body); err != nil {
			return out, err
		}
		mac, err := h.authz.sealPolicySet(ctx, &req)
		if err != nil {
			return out, err
		}
		return (&wire.SealPolicySetResponse{MAC: mac}).Append(out)
	case wire.OpSigningKey:
		var req wire.SigningKeyRequest
		if err := req.Decode(body); err != nil {
			return out, err
		}
		resp, err := h.SigningKey(ctx, &req)
		if err != nil {
			return out, err
		}
		return resp.Append(out)
	case wire.OpSealGuardrails:
		var req wire.SealGuardrailsRequest
		if err := req.Decode(body); err != nil {
			return out, err
		}
		mac, err := h.authz.sealGuardrails(ctx, &req)
		if err != nil {
			return out, err
		}
		return (&wire.SealPolicySetResponse{MAC: mac}).Append(out)
	case wire.OpSignIntent:
		var req wire.SignIntentRequest
		if err := req.Decode(body); err != nil {
			return out, err
		}
		resp, err := h.SignIntent(ctx, &req)
		if err != nil {
			return out, err
		}
		return resp.Append(out)
	case wire.OpRevokeToken, wire.OpSetCutoff:
		return h.dispatchRevocation(ctx, op, body, out)
	case wire.OpDestroySigningKey:
		var req wire.DestroySigningKeyRequest
		if err := req.Decode(body); err != nil {
			return out, err
		}
		resp, err := h.DestroySigningKey(ctx, &req)
		if err != nil {
			return out, err
		}
		return resp.Append(out)
	default:
		return out, fmt.Errorf("%w: unknown op", wire.ErrBadRequest)
	}
}

// open decrypts into the connection's scratch buffer and wipes it once the
// answer is encoded.
func (h *Handler) open(ctx context.Context, body, out []byte, sc *Scratch) ([]byte, error) {
	var req wire.OpenRequest
	if err := req.Decode(body); err != nil {
		return out, err
	}
	c, err := h.authz.authorizeClaims(ctx, &access{OrgID: req.OrgID, VaultID: req.VaultID, Path: req.Path,
		Permission: policy.PermissionRead, Token: req.Token, PolicySet: req.PolicySet, PolicyMAC: req.PolicyMAC,
		ClientIP: req.ClientIP})
	if err != nil {
		return out, err
	}
	if err := checkKeyType(c, req.Ciphertext); err != nil {
		return out, err
	}
	loc := envelope.Locator{OrgID: req.OrgID, VaultID: req.VaultID, Path: req.Path, SecretVersion: req.SecretVersion}
	pt, err := h.sealer.Open(ctx, loc, req.WrappedDEK, req.Ciphertext, sc.plain[:0])
	if err != nil {
		return out, err
	}
	out, err = (&wire.OpenResponse{Plaintext: pt}).Append(out)
	clear(pt)
	if cap(pt) <= maxScratch {
		sc.plain = pt[:0]
	} else {
		sc.plain = nil
	}
	return out, err
}

// Attest issues a document binding the channel key and nonce.
func (h *Handler) Attest(ctx context.Context, nonce []byte) ([]byte, error) {
	if len(nonce) == 0 || len(nonce) > wire.MaxNonceLen {
		return nil, fmt.Errorf("%w: nonce length", wire.ErrBadRequest)
	}
	doc, err := h.issuer.Issue(ctx, h.channelPub, nonce)
	if err != nil {
		return nil, fmt.Errorf("%w: issuing attestation document: %w", wire.ErrUnavailable, err)
	}
	if len(doc) > wire.MaxDocumentLen {
		return nil, fmt.Errorf("%w: attestation document too large", wire.ErrInternal)
	}
	return doc, nil
}

// healthTimeout bounds the key-store ping.
const healthTimeout = 5 * time.Second

// Health pings the key store through the token-signing key.
func (h *Handler) Health(ctx context.Context) wire.HealthResponse {
	ctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	resp := wire.HealthResponse{HSM: wire.HSMUnavailable, Mode: h.mode, Detail: "key store did not answer"}
	versions, err := h.ks.Versions(ctx, JWTKeyID)
	if err != nil {
		return resp
	}
	if _, err := h.ks.Key(ctx, keyvault.KeyRef{ID: JWTKeyID, Version: h.jwt.version}); err != nil {
		return resp
	}
	resp.HSM, resp.KeyCount, resp.Detail = wire.HSMOK, uint32(len(versions)), "key store answered"
	return resp
}
