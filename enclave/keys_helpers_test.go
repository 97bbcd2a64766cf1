package enclave_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/client"
	"github.com/opencustody/ocv/enclave/wire"
)

// kekOwnerToken has the enclave sign an owner's access token for org over s:
// what CreateKEK needs.
func kekOwnerToken(t testing.TB, s *client.Session, org string) string {
	t.Helper()
	b, err := json.Marshal(userClaims(org, "kek-owner-"+org, "owner"))
	require.NoError(t, err)
	code, body, err := s.Call(wire.OpSignJWT, encode(t, &wire.SignJWTRequest{Claims: b}))
	require.NoError(t, err)
	require.Equal(t, wire.OK, code)
	var resp wire.SignJWTResponse
	require.NoError(t, resp.Decode(body))
	return resp.Token
}
