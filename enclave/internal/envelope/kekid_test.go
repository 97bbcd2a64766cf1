package envelope

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/keyvault"
)

func TestKEKIDBindsOrganization(t *testing.T) {
	s, ks := newTestSealer(t, 16)
	ctx := context.Background()
	versions, err := ks.Versions(ctx, "kek/org-a/vault-1")
	require.NoError(t, err)
	require.Equal(t, []uint32{1}, versions, "the KEK id names the organization")

	// The same vault id in another organization is another key.
	other := testLoc
	other.OrgID = "org-b"
	_, err = s.Seal(ctx, other, 0, []byte("x"))
	require.ErrorIs(t, err, keyvault.ErrKeyNotFound, "org-b has no KEK for vault-1")
	v, err := s.CreateKEK(ctx, "org-b", "vault-1")
	require.NoError(t, err)
	require.Equal(t, uint32(1), v, "org-b's vault-1 starts its own versions")

	// A DEK wrapped for org-a is never unwrapped by org-b's KEK.
	sealed, err := s.Seal(ctx, testLoc, 0, []byte("hunter2"))
	require.NoError(t, err)
	_, err = s.Open(ctx, other, sealed.WrappedDEK, sealed.Ciphertext, nil)
	require.ErrorIs(t, err, ErrIntegrity)
}

// TestLegacyKEKIDNotUsed: a KEK under the id used before organizations were
// bound ("kek/<vault>") is not a fallback, for sealing or opening.
func TestLegacyKEKIDNotUsed(t *testing.T) {
	ks := newCountingStore(t)
	s, err := New(ks, Config{})
	require.NoError(t, err)
	defer s.Close()
	ctx := context.Background()
	_, err = ks.CreateKey(ctx, keyvault.CreateKeyRequest{Ref: keyvault.KeyRef{ID: "kek/vault-1", Version: 1}, Algorithm: keyvault.AES256})
	require.NoError(t, err)
	dek := make([]byte, dekSize)
	wrapped, err := ks.WrapKey(ctx, keyvault.KeyRef{ID: "kek/vault-1", Version: 1}, dek)
	require.NoError(t, err)

	_, err = s.Seal(ctx, testLoc, 0, []byte("x"))
	require.ErrorIs(t, err, keyvault.ErrKeyNotFound)
	blob := appendBlobHeader(nil, 1)
	blob = append(blob, make([]byte, gcmNonceSize+gcmTagSize)...)
	_, err = s.Open(ctx, testLoc, wrapped, blob, nil)
	require.ErrorIs(t, err, ErrKEKDestroyed, "the vault's own KEK is missing; the legacy one is not tried")
}

func TestKEKOwnerValidation(t *testing.T) {
	s, _ := newTestSealer(t, 0)
	ctx := context.Background()
	tests := map[string]struct{ org, vault string }{
		"fail empty org":         {"", "v"},
		"fail slash in org":      {"a/b", "v"},
		"fail colon in org":      {"a:v1", "v"},
		"fail slash in vault":    {"o", "a/b"},
		"fail space in vault":    {"o", "a b"},
		"fail too long together": {strings.Repeat("o", 100), strings.Repeat("v", 100)},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := s.CreateKEK(ctx, tc.org, tc.vault)
			require.ErrorIs(t, err, ErrInvalidLocator)
			_, err = s.Seal(ctx, Locator{OrgID: tc.org, VaultID: tc.vault, Path: "p"}, 0, []byte("x"))
			require.ErrorIs(t, err, ErrInvalidLocator)
		})
	}
}
