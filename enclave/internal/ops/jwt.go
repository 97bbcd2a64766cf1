package ops

import (
	"context"
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/keyvault"
)

// JWTKeyID is the key-store id of the token-signing key; each version has
// its own kid, KIDPrefix followed by the version ("ocv-jwt-v1").
const (
	JWTKeyID  = "jwt"
	KIDPrefix = "ocv-jwt-v"
)

// KID is the JOSE key id of a token-signing key version.
func KID(version uint32) string { return KIDPrefix + strconv.FormatUint(uint64(version), 10) }

// jwtKey is the current token-signing key, fixed at start.
type jwtKey struct {
	version uint32
	kid     string
	signer  keyvault.DigestSigner
	pub     *ecdsa.PublicKey
	header  string // base64url of the JOSE header, with the trailing "."
}

// loadJWTKey finds the newest version of the token-signing key, creating
// version 1 (P-256) when there is none.
func loadJWTKey(ctx context.Context, ks keyvault.KeyStore) (*jwtKey, error) {
	versions, err := ks.Versions(ctx, JWTKeyID)
	if err != nil {
		return nil, fmt.Errorf("listing jwt key versions: %w", err)
	}
	ref := keyvault.KeyRef{ID: JWTKeyID, Version: 1}
	if n := len(versions); n > 0 {
		ref.Version = versions[n-1]
	} else {
		_, err = ks.CreateKey(ctx, keyvault.CreateKeyRequest{Ref: ref, Algorithm: keyvault.P256})
		// Another enclave on the same HSM may have just made it.
		if err != nil && !errors.Is(err, keyvault.ErrAlreadyExists) {
			return nil, fmt.Errorf("creating jwt key: %w", err)
		}
	}
	signer, err := ks.Signer(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("loading jwt signer: %w", err)
	}
	pub, ok := signer.Public().(*ecdsa.PublicKey)
	if signer.Algorithm() != keyvault.P256 || !ok {
		return nil, fmt.Errorf("jwt key %s is not P-256: %w", KID(ref.Version), keyvault.ErrUnsupported)
	}
	k := &jwtKey{version: ref.Version, kid: KID(ref.Version), signer: signer, pub: pub}
	hdr, err := json.Marshal(struct {
		Alg string `json:"alg"`
		Typ string `json:"typ"`
		Kid string `json:"kid"`
	}{"ES256", "JWT", k.kid})
	if err != nil {
		return nil, fmt.Errorf("encoding jose header: %w", err)
	}
	k.header = base64.RawURLEncoding.EncodeToString(hdr) + "."
	return k, nil
}

// sign returns the canonical ES256 signature of SHA-256(msg).
func (k *jwtKey) sign(ctx context.Context, msg []byte) ([]byte, error) {
	digest := sha256.Sum256(msg)
	raw, err := k.signer.SignDigest(ctx, digest[:])
	if err != nil {
		return nil, fmt.Errorf("signing with %s: %w", k.kid, err)
	}
	return canonicalES256(k.pub, digest[:], raw)
}

// token builds header.payload from the key's own JOSE header and claims
// the enclave built itself (identity_mint.go), and signs it. No operation
// signs claims a caller chose: OpSignJWT is refused (see handler.go).
func (k *jwtKey) token(ctx context.Context, claims []byte) (string, error) {
	enc := base64.RawURLEncoding
	tok := make([]byte, 0, len(k.header)+enc.EncodedLen(len(claims))+1+enc.EncodedLen(64))
	tok = append(tok, k.header...)
	tok = enc.AppendEncode(tok, claims)
	sig, err := k.sign(ctx, tok)
	if err != nil {
		return "", err
	}
	tok = append(tok, '.')
	tok = enc.AppendEncode(tok, sig)
	return string(tok), nil
}

// PublicKeys lists every version of the token-signing key (the newest
// wire.MaxKeys), oldest first.
func (h *Handler) PublicKeys(ctx context.Context) (wire.PublicKeysResponse, error) {
	versions, err := h.ks.Versions(ctx, JWTKeyID)
	if err != nil {
		return wire.PublicKeysResponse{}, fmt.Errorf("listing jwt key versions: %w", err)
	}
	if len(versions) > wire.MaxKeys {
		versions = versions[len(versions)-wire.MaxKeys:]
	}
	out := wire.PublicKeysResponse{Keys: make([]wire.PublicKey, 0, len(versions))}
	for _, v := range versions {
		info, err := h.ks.Key(ctx, keyvault.KeyRef{ID: JWTKeyID, Version: v})
		if err != nil {
			return wire.PublicKeysResponse{}, fmt.Errorf("reading jwt key %s: %w", KID(v), err)
		}
		pub, ok := info.Public.(*ecdsa.PublicKey)
		if !ok {
			continue
		}
		pt, err := pub.Bytes()
		if err != nil || len(pt) != 65 {
			continue
		}
		out.Keys = append(out.Keys, wire.PublicKey{KID: KID(v), Alg: "ES256", Curve: "P-256", X: pt[1:33], Y: pt[33:65]})
	}
	return out, nil
}
