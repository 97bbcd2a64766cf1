package evm

import (
	"testing"

	"github.com/ethereum/go-ethereum/signer/core/apitypes"
	"github.com/stretchr/testify/require"
)

func TestClassifyTypedData(t *testing.T) {
	domain := []apitypes.Type{{Name: "name", Type: "string"}}
	td := func(primary string, types apitypes.Types, msg map[string]any) apitypes.TypedData {
		types["EIP712Domain"] = domain
		return apitypes.TypedData{Types: types, PrimaryType: primary, Message: msg}
	}
	f := func(names ...string) []apitypes.Type {
		out := make([]apitypes.Type, len(names))
		for i, n := range names {
			out[i] = apitypes.Type{Name: n, Type: "uint256"}
		}
		return out
	}
	tests := map[string]struct {
		td   apitypes.TypedData
		want bool
	}{
		"ok mail": {td: td("Mail", apitypes.Types{"Mail": f("contents"), "Person": f("name", "wallet")},
			map[string]any{"contents": "hi"})},
		"ok login":        {td: td("Login", apitypes.Types{"Login": f("nonce", "issuedAt")}, map[string]any{"nonce": "1"})},
		"eip-2612 permit": {td: td("Permit", apitypes.Types{"Permit": f("owner", "spender", "value", "nonce", "deadline")}, nil), want: true},
		"permit2 single": {td: td("PermitSingle", apitypes.Types{"PermitSingle": f("details", "sigDeadline"),
			"PermitDetails": f("token", "amount", "expiration", "nonce")}, nil), want: true},
		"permit2 batch":          {td: td("PermitBatch", apitypes.Types{"PermitBatch": f("details")}, nil), want: true},
		"permit2 transfer from":  {td: td("PermitTransferFrom", apitypes.Types{"PermitTransferFrom": f("permitted", "nonce", "deadline")}, nil), want: true},
		"permit2 batch transfer": {td: td("PermitBatchTransferFrom", apitypes.Types{"PermitBatchTransferFrom": f("permitted")}, nil), want: true},
		"permit for all":         {td: td("PermitForAll", apitypes.Types{"PermitForAll": f("owner", "nonce")}, nil), want: true},
		// Case tricks must not hide a permit.
		"lower-case permit": {td: td("permit", apitypes.Types{"permit": f("owner")}, nil), want: true},
		// A permit nested under a harmless primary type is still a permit.
		"nested permit witness":    {td: td("Wrapper", apitypes.Types{"Wrapper": f("inner"), "PermitWitnessTransferFrom": f("x")}, nil), want: true},
		"dai permit renamed":       {td: td("Allow", apitypes.Types{"Allow": f("holder", "spender", "nonce", "expiry", "allowed")}, nil), want: true},
		"seaport order components": {td: td("OrderComponents", apitypes.Types{"OrderComponents": f("offerer", "zone")}, nil), want: true},
		"seaport bulk order":       {td: td("BulkOrder", apitypes.Types{"BulkOrder": f("tree")}, nil), want: true},
		"seaport order":            {td: td("Order", apitypes.Types{"Order": f("offerer")}, nil), want: true},
		"operator field":           {td: td("Grant", apitypes.Types{"Grant": f("operator", "until")}, nil), want: true},
		"approved field":           {td: td("Grant", apitypes.Types{"Grant": f("Approved")}, nil), want: true},
		"allowed field":            {td: td("Grant", apitypes.Types{"Grant": f("allowed")}, nil), want: true},
		"message key setApprovalForAll": {td: td("Action", apitypes.Types{"Action": f("data")},
			map[string]any{"data": map[string]any{"setApprovalForAll": true}}), want: true},
		"message value setApprovalForAll": {td: td("Action", apitypes.Types{"Action": f("call")},
			map[string]any{"call": []any{"SetApprovalForAll(address,bool)"}}), want: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, reason := ClassifyTypedData(tc.td)
			require.Equal(t, tc.want, got, reason)
			if tc.want {
				require.NotEmpty(t, reason)
			} else {
				require.Empty(t, reason)
			}
		})
	}
}

func TestClassifyTypedDataDeepMessage(t *testing.T) {
	msg := map[string]any{}
	cur := msg
	for range maxMessageDepth + 5 {
		next := map[string]any{}
		cur["n"] = next
		cur = next
	}
	td := apitypes.TypedData{Types: apitypes.Types{"M": {{Name: "n", Type: "uint256"}}}, PrimaryType: "M", Message: msg}
	dangerous, _ := ClassifyTypedData(td)
	require.True(t, dangerous, "uninspectable messages fail closed")
}
