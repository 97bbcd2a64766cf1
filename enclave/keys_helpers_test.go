package enclave_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/internal/ops"
	"github.com/opencustody/ocv/keyvault"
)

// kekOwnerToken signs, with the enclave's token key in ks, an owner's
// access token for org: what CreateKEK needs. No wire operation signs
// chosen claims, so tests sign through the key store.
func kekOwnerToken(t testing.TB, ks keyvault.KeyStore, org string) string {
	t.Helper()
	b, err := json.Marshal(userClaims(org, "kek-owner-"+org, "owner"))
	require.NoError(t, err)
	tok, err := ops.SignTokenWithStore(context.Background(), ks, b)
	require.NoError(t, err)
	return tok
}
