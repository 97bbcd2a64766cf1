package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auth"
)

// Secret limits (documented in api/openapi.yaml).
const (
	MaxValueBytes    = 512 << 10
	maxMetadataKeys  = 64
	maxMetadataKey   = 128
	maxMetadataValue = 1024
	maxPrefixBytes   = MaxPathBytes
	secretPathParam  = "path"
	secretVaultParam = "vault_id"
)

// SecretTypes are the accepted values of a secret's `type`.
var SecretTypes = map[string]bool{
	"api_key": true, "password": true, "private_key": true, "ssh_key": true, "payment_card": true,
	"gift_card": true, "certificate": true, "token": true, "generic": true,
}

// validateSecretWrite checks a secret write's fields at now.
func validateSecretWrite(in api.SecretWrite, now time.Time) error {
	switch {
	case in.Type == nil || in.Value == nil:
		return problem.BadRequest(problem.TypeInvalidRequest, "type and value are required")
	case !SecretTypes[*in.Type]:
		return problem.BadRequest(problem.TypeInvalidRequest,
			"type must be one of api_key, password, private_key, ssh_key, payment_card, gift_card, certificate, token, generic")
	case len(*in.Value) > maxEncodedValue:
		return problem.BadRequest(problem.TypeInvalidRequest, "value must be at most 524288 bytes")
	case len(in.Metadata) > maxMetadataKeys:
		return problem.BadRequest(problem.TypeInvalidRequest, "metadata may hold at most 64 keys")
	case in.ExpiresAt != nil && !in.ExpiresAt.After(now):
		return problem.BadRequest(problem.TypeInvalidRequest, "expires_at must be in the future")
	}
	for k, v := range in.Metadata {
		if k == "" || len(k) > maxMetadataKey || len(v) > maxMetadataValue || !utf8.ValidString(k) {
			return problem.BadRequest(problem.TypeInvalidRequest,
				"metadata keys must be 1 to 128 bytes and values at most 1024 bytes")
		}
	}
	return nil
}

// secretMetadata is the stored JSON of a write's metadata ({} for none).
func secretMetadata(m map[string]string) ([]byte, error) {
	meta, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	if m == nil {
		meta = []byte("{}")
	}
	return meta, nil
}

// checkPrefix validates the prefix filter of a secrets listing.
func checkPrefix(prefix string) error {
	if len(prefix) > maxPrefixBytes || !utf8.ValidString(prefix) || strings.ContainsRune(prefix, 0) {
		return problem.BadRequest(problem.TypeInvalidRequest, "prefix must be valid UTF-8 of at most 1024 bytes")
	}
	return nil
}

// intentsKeyBlocked reports whether p may not read a secret of type typ:
// an agent with the intents API enabled signs through the enclave and
// never reads raw keys.
func intentsKeyBlocked(p auth.Principal, typ string) bool {
	return p.Type == auth.PrincipalAgent && p.Agent != nil && p.Agent.IntentsAPIEnabled &&
		(typ == "private_key" || typ == "ssh_key")
}

// openSecret has the enclave decrypt the stored value of sec with the
// authority of the caller c (its token and address), deciding again from
// access's sealed policy set.
//
// A value whose KEK version is gone from the HSM answers 410 kek_destroyed
// naming the vault and the version (from the stored row: the enclave's
// answer is a code only); the error still wraps wire.ErrKEKDestroyed.
func (h *Handlers) openSecret(ctx context.Context, c enclaveCaller, access *accessCheck, sec store.Secret, sealed store.Sealed) ([]byte, error) {
	plain, err := h.Enclave.Open(ctx, wire.OpenRequest{OrgID: sec.OrgID, VaultID: sec.VaultID, Path: sec.Path,
		SecretVersion: sec.Version, WrappedDEK: sealed.WrappedDEK, Ciphertext: sealed.Ciphertext,
		Token: c.Token, ClientIP: c.ClientIP, PolicySet: access.set, PolicyMAC: access.mac})
	if errors.Is(err, wire.ErrKEKDestroyed) {
		return nil, errors.Join(err, problem.New(http.StatusGone, problem.TypeKEKDestroyed, fmt.Sprintf(
			"the key-encryption key of vault %s, version %d (HSM key kek/%s/%s v%d), is gone from the HSM: "+
				"this value was sealed under it and can never be read again", sec.VaultID, sealed.KEKVersion,
			sec.OrgID, sec.VaultID, sealed.KEKVersion)))
	}
	return plain, err
}
