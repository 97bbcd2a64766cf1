package wire

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// keysMessages are the messages of the keys ops, filled, with a zero value
// to decode into.
func keysMessages() map[string]struct{ in, out Message } {
	return map[string]struct{ in, out Message }{
		"create kek with token": {&CreateKEKRequest{Token: "h.p.s", OrgID: "o", VaultID: "v"}, &CreateKEKRequest{}},
		"destroy signing key":   {&DestroySigningKeyRequest{Token: "h.p.s", OrgID: "o", AgentID: "a", Chain: "ethereum", Below: 3}, &DestroySigningKeyRequest{}},
		"destroy all versions":  {&DestroySigningKeyRequest{Token: "t", OrgID: "o", AgentID: "a", Chain: "xrp"}, &DestroySigningKeyRequest{}},
		"destroy reply":         {&DestroySigningKeyResponse{Destroyed: 2}, &DestroySigningKeyResponse{}},
	}
}

func TestKeysMessagesBounds(t *testing.T) {
	long := strings.Repeat("x", MaxIDLen+1)
	tests := map[string]Message{
		"fail kek token":     &CreateKEKRequest{Token: strings.Repeat("t", MaxTokenLen+1), OrgID: "o", VaultID: "v"},
		"fail kek org":       &CreateKEKRequest{Token: "t", OrgID: long, VaultID: "v"},
		"fail kek vault":     &CreateKEKRequest{Token: "t", OrgID: "o", VaultID: long},
		"fail destroy token": &DestroySigningKeyRequest{Token: strings.Repeat("t", MaxTokenLen+1)},
		"fail destroy org":   &DestroySigningKeyRequest{OrgID: long},
		"fail destroy agent": &DestroySigningKeyRequest{AgentID: long},
		"fail destroy chain": &DestroySigningKeyRequest{Chain: strings.Repeat("c", MaxChainLen+1)},
	}
	for name, m := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := m.Append(nil)
			require.ErrorIs(t, err, ErrBadRequest)
		})
	}
}

func TestDestroySigningKeyOp(t *testing.T) {
	require.True(t, OpDestroySigningKey.Valid())
	require.Equal(t, Op(18), OpDestroySigningKey)
	require.Equal(t, "destroy_signing_key", OpDestroySigningKey.String())
}
