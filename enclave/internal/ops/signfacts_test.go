package ops

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/chain/evm"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/policy"
)

func u64p(v uint64) *uint64 { return &v }

func u8p(v uint8) *uint8 { return &v }

func TestMaxFee(t *testing.T) {
	to := "0x00000000000000000000000000000000000000b2"
	blobHash := "0x01" + strings.Repeat("ab", 31)
	tests := map[string]struct {
		r       evm.TxRequest
		want    *big.Int
		wantErr bool
	}{
		"type 2": {r: evm.TxRequest{ChainID: 8453, Nonce: u64p(1), To: to, Gas: u64p(21_000), MaxFeePerGas: "0x3b9aca00", MaxPriorityFeePerGas: "0x1"},
			want: big.NewInt(21_000 * 1_000_000_000)},
		"legacy": {r: evm.TxRequest{ChainID: 8453, Nonce: u64p(1), To: to, Gas: u64p(100_000), GasPrice: "2000000000"},
			want: big.NewInt(100_000 * 2_000_000_000)},
		"30M gas at 1000 gwei": {r: evm.TxRequest{ChainID: 8453, Nonce: u64p(1), To: to, Gas: u64p(30_000_000), MaxFeePerGas: "1000000000000", MaxPriorityFeePerGas: "0x1"},
			want: new(big.Int).Mul(big.NewInt(30_000_000), big.NewInt(1_000_000_000_000))},
		"blob": {r: evm.TxRequest{Type: u8p(3), ChainID: 8453, Nonce: u64p(1), To: to, Gas: u64p(21_000), MaxFeePerGas: "0x10",
			MaxPriorityFeePerGas: "0x1", MaxFeePerBlobGas: "0x3", BlobVersionedHashes: []string{blobHash}},
			want: big.NewInt(21_000*16 + 131_072*3)},
		"no gas yet":     {r: evm.TxRequest{ChainID: 8453, To: to, MaxFeePerGas: "0x10"}, want: new(big.Int)},
		"fail bad price": {r: evm.TxRequest{ChainID: 8453, To: to, Gas: u64p(1), MaxFeePerGas: "ten"}, wantErr: true},
		"fail bad blob":  {r: evm.TxRequest{ChainID: 8453, To: to, Gas: u64p(1), MaxFeePerBlobGas: "-1"}, wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := maxFee(&tc.r)
			if tc.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, 0, tc.want.Cmp(got), "got %s", got)
			if tc.r.Gas == nil {
				return
			}
			// The built transaction pays exactly what was judged.
			tx, err := evm.BuildTx(tc.r)
			require.NoError(t, err)
			require.Equal(t, 0, builtMaxFee(tx).Cmp(got))
			require.NoError(t, checkBuiltFee(tx, got))
			require.ErrorIs(t, checkBuiltFee(tx, new(big.Int).Sub(got, big.NewInt(1))), wire.ErrInternal)
			require.ErrorIs(t, checkBuiltFee(tx, nil), wire.ErrInternal)
		})
	}
}

func TestPolicyEffects(t *testing.T) {
	token := common.HexToAddress("0x000000000000000000000000000000000000700C")
	spender := common.HexToAddress("0x00000000000000000000000000000000000000Bb")
	max := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	in := []evm.Effect{
		{Kind: evm.EffectApprove, Function: "approve", Selector: "0x095EA7B3", Target: token, Token: token, Counterparty: spender, Amount: max},
		{Kind: evm.EffectTokenTransfer, Function: "transfer", Target: spender, Token: spender, Amount: big.NewInt(5), Depth: 1},
		{Kind: evm.EffectNativeTransfer, Counterparty: spender, Amount: big.NewInt(7), From: token, Depth: 2},
		{Kind: "teleport", Function: "x", Selector: "0x12345678", Target: token},
	}
	got := policyEffects(in, "0x000000000000000000000000000000000000700c")
	require.Len(t, got, 4)
	require.Equal(t, policy.TxEffect{Kind: policy.TxEffectApprove, Function: "approve", Selector: "0x095ea7b3",
		Target: "0x000000000000000000000000000000000000700c", Token: "0x000000000000000000000000000000000000700c", TokenKnown: true,
		Counterparty: "0x00000000000000000000000000000000000000bb", Amount: max, Unlimited: true}, got[0],
		"addresses lowercase, 2^256-1 is unlimited, the called token is known")
	require.False(t, got[1].TokenKnown, "a token other than the called contract is not known")
	require.Equal(t, 1, got[1].Depth)
	require.Equal(t, "", got[2].Target, "zero is empty")
	require.Equal(t, "0x000000000000000000000000000000000000700c", got[2].From)
	require.Equal(t, policy.TxEffectCall, got[3].Kind, "an unknown kind is an undecoded call")
	require.True(t, got[3].DecodeFailed)
	require.Nil(t, policyEffects(nil, ""))
	in[0].Amount.SetInt64(1)
	require.True(t, evm.IsUnlimitedAmount(got[0].Amount), "amounts are copied")
}

func TestTransactionFacts(t *testing.T) {
	to := "0x000000000000000000000000000000000000700C"
	data := "0xa9059cbb" + "00000000000000000000000000000000000000000000000000000000000000bb" +
		"0000000000000000000000000000000000000000000000000000000000000005"
	r := evm.TxRequest{ChainID: 8453, Nonce: u64p(1), To: to, Data: data, Gas: u64p(50_000), MaxFeePerGas: "0x2", MaxPriorityFeePerGas: "0x1"}
	var f policy.TxFacts
	require.NoError(t, transactionFacts(&f, &r, true))
	require.Equal(t, "0x000000000000000000000000000000000000700c", f.To)
	require.Equal(t, 0, f.Value.Sign(), "an absent value is 0")
	require.Equal(t, big.NewInt(100_000), f.MaxFee)
	require.Equal(t, "0xa9059cbb", f.FunctionSelector)
	require.NotEmpty(t, f.Effects, "calldata always has effects")
	for _, e := range f.Effects {
		require.Equal(t, "0x000000000000000000000000000000000000700c", e.Target)
	}

	var plain policy.TxFacts
	require.NoError(t, transactionFacts(&plain, &evm.TxRequest{ChainID: 8453, To: to, Value: "0x5"}, false))
	require.Nil(t, plain.Effects, "a plain transfer has no call effects")
	require.Equal(t, big.NewInt(5), plain.Value)

	var create policy.TxFacts
	require.NoError(t, transactionFacts(&create, &evm.TxRequest{ChainID: 8453, Data: "0x6080604052"}, false))
	require.Nil(t, create.Effects, "init code is not a call")
	require.Equal(t, "", create.To)

	require.ErrorIs(t, transactionFacts(&plain, &evm.TxRequest{ChainID: 8453, To: to, Gas: u64p(1), GasPrice: "x"}, false), wire.ErrBadRequest)
}

func TestTypedDataFactsDomain(t *testing.T) {
	raw, err := json.Marshal(map[string]any{
		"types": map[string]any{
			"EIP712Domain": []map[string]string{{"name": "name", "type": "string"}, {"name": "chainId", "type": "uint256"},
				{"name": "verifyingContract", "type": "address"}},
			"Mail": []map[string]string{{"name": "contents", "type": "string"}},
		},
		"primaryType": "Mail",
		"domain":      map[string]any{"name": "Ether Mail", "chainId": 1, "verifyingContract": "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC"},
		"message":     map[string]any{"contents": "hi"},
	})
	require.NoError(t, err)
	_, td, err := evm.TypedDataHash(raw)
	require.NoError(t, err)
	var f policy.TxFacts
	typedDataFacts(&f, td)
	require.NotNil(t, f.TypedData)
	require.Equal(t, "1", f.TypedData.DomainChainID)
	require.Equal(t, "Ether Mail", f.TypedData.DomainName)
	require.Equal(t, "0xcccccccccccccccccccccccccccccccccccccccc", f.TypedData.VerifyingContract)
	require.Empty(t, f.TypedData.Standard, "Mail is of no known standard")
	require.False(t, f.TypedData.DecodeFailed)
}

func TestNameMessageEffects(t *testing.T) {
	got := nameMessageEffects([]policy.TxEffect{
		{Kind: policy.TxEffectTokenTransfer},
		{Kind: policy.TxEffectTokenTransfer, Function: "transfer", Selector: "0xa9059cbb", Depth: 1},
		{Kind: policy.TxEffectPrivileged, Function: "delegatecall"},
	}, "LimitOrder")
	require.Equal(t, []string{"LimitOrder", "transfer", "delegatecall"}, []string{got[0].Function, got[1].Function, got[2].Function})
	require.Nil(t, nameMessageEffects(nil, "Permit"))
}

// TestSignIntentJudgesEffects: the enclave counts the maximum fee, gates
// every typed data and binds its domain to the request's chain.
func TestSignIntentJudgesEffects(t *testing.T) {
	f := newFixture(t)
	tok, _ := agentWithKey(t, f)
	sign := func(kind string, payload []byte, guardrails map[string]any, sc wire.SignContext) wire.SignIntentResponse {
		set, mac := f.sealGuardrails(t, guardrails)
		scJSON, err := json.Marshal(sc)
		require.NoError(t, err)
		var resp wire.SignIntentResponse
		require.NoError(t, f.call(t, wire.OpSignIntent, &wire.SignIntentRequest{Token: tok, OrgID: signOrg, AgentID: signAgent,
			Chain: "ethereum", KeyVersion: 1, Kind: kind, Payload: payload, Context: scJSON, GuardrailSet: set, GuardrailMAC: mac}, &resp))
		return resp
	}
	base := wire.SignContext{Chain: "base", ChainID: 8453}
	expensive := []byte(`{"chain_id":8453,"nonce":1,"to":"0x00000000000000000000000000000000000000b2","value":"0x0",` +
		`"gas":30000000,"max_fee_per_gas":"1000000000000","max_priority_fee_per_gas":"0x1"}`)
	cheap := []byte(`{"chain_id":8453,"nonce":2,"to":"0x00000000000000000000000000000000000000b2","value":"0x0",` +
		`"gas":21000,"max_fee_per_gas":"1000000000","max_priority_fee_per_gas":"0x1"}`)
	mail := func(chainID int) []byte {
		b, err := json.Marshal(map[string]any{
			"types": map[string]any{
				"EIP712Domain": []map[string]string{{"name": "name", "type": "string"}, {"name": "chainId", "type": "uint256"}},
				"Mail":         []map[string]string{{"name": "contents", "type": "string"}},
			},
			"primaryType": "Mail", "domain": map[string]any{"name": "Ether Mail", "chainId": chainID},
			"message": map[string]any{"contents": "hi"},
		})
		require.NoError(t, err)
		return b
	}
	withFees := base
	withFees.Counters.FeesTodayChain = "9990000000000000" // 0.00999 ETH
	tests := map[string]struct {
		kind       string
		payload    []byte
		guardrails map[string]any
		sc         wire.SignContext
		want       string // "" signs
	}{
		"fee counts against the max value":  {wire.IntentTransaction, expensive, map[string]any{"tx_max_value_eth": "0.01"}, base, "tx_max_value_eth"},
		"a cheap fee fits the max value":    {wire.IntentTransaction, cheap, map[string]any{"tx_max_value_eth": "0.01"}, base, ""},
		"fee over the overhead budget":      {wire.IntentTransaction, expensive, map[string]any{"tx_overhead_budget": map[string]any{"base": "0.01"}}, base, "tx_overhead_budget"},
		"budget exhausted by today's fees":  {wire.IntentTransaction, cheap, map[string]any{"tx_overhead_budget": map[string]any{"base": "0.01"}}, withFees, "tx_overhead_budget"},
		"budget with room":                  {wire.IntentTransaction, cheap, map[string]any{"tx_overhead_budget": map[string]any{"base": "0.01"}}, base, ""},
		"typed data under the default deny": {wire.IntentTypedData, mail(8453), nil, base, "eip712_default_policy"},
		"typed data under allow":            {wire.IntentTypedData, mail(8453), map[string]any{"eip712_default_policy": "allow"}, base, ""},
		"typed data of another chain":       {wire.IntentTypedData, mail(1), map[string]any{"eip712_default_policy": "allow"}, base, "eip712_domain_chain_id"},
		"typed data on a chain not allowed": {wire.IntentTypedData, mail(8453), map[string]any{"eip712_default_policy": "allow", "tx_allowed_chains": []string{"ethereum"}}, base, "tx_allowed_chains"},
		"typed data domain allowlisted":     {wire.IntentTypedData, mail(8453), map[string]any{"eip712_domain_allowlist": []string{"Ether Mail"}}, base, ""},
		"unknown calldata is refused":       {wire.IntentTransaction, []byte(`{"chain_id":8453,"nonce":3,"to":"0x00000000000000000000000000000000000000b2","data":"0xdeadbeef","gas":21000,"max_fee_per_gas":"0x1","max_priority_fee_per_gas":"0x1"}`), nil, base, "tx_decode"},
		"no guardrails sign a cheap call":   {wire.IntentTransaction, cheap, nil, base, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			resp := sign(tc.kind, tc.payload, tc.guardrails, tc.sc)
			require.Equal(t, tc.want, resp.Denied, resp.Detail)
			if tc.want == "" {
				require.NotEmpty(t, resp.Signature)
			} else {
				require.Empty(t, resp.Signature)
			}
		})
	}
	t.Run("a fees counter that is not a decimal is a bad request", func(t *testing.T) {
		set, mac := f.sealGuardrails(t, nil)
		sc := base
		sc.Counters.FeesTodayChain = "-5"
		scJSON, err := json.Marshal(sc)
		require.NoError(t, err)
		var resp wire.SignIntentResponse
		err = f.call(t, wire.OpSignIntent, &wire.SignIntentRequest{Token: tok, OrgID: signOrg, AgentID: signAgent,
			Chain: "ethereum", KeyVersion: 1, Kind: wire.IntentTransaction, Payload: cheap, Context: scJSON, GuardrailSet: set, GuardrailMAC: mac}, &resp)
		require.ErrorIs(t, err, wire.ErrBadRequest)
	})
}
