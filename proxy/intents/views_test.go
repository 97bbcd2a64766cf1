package intents

import (
	"encoding/json"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/chainrpc"
)

// jsonKeys returns the sorted top-level keys of v's JSON.
func jsonKeys(t *testing.T, v any) []string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b, &m))
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func keys(s string) []string {
	out := strings.Fields(s)
	slices.Sort(out)
	return out
}

// The views answer exactly the keys the handlers' maps answered: optional
// keys appear when set, even with an empty or zero value.
func TestViewKeys(t *testing.T) {
	var zero int64
	base := store.AgentTx{ID: "t", AgentID: "a", Chain: "base", ChainID: 8453, Value: "1", SignedTx: []byte{1},
		CreatedAt: time.Unix(0, 0), UpdatedAt: time.Unix(0, 0)}
	token := base
	token.TokenAddress = "0xa" // an undecoded amount is still shown, empty
	mined := base
	mined.BlockNumber, mined.GasUsed, mined.Error = &zero, &zero, "x"
	txKeys := "id agent_id chain chain_id key_version type from to value nonce tx_hash status created_at updated_at"
	reverted := chainrpc.SimResult{Revert: &chainrpc.RevertError{}, Error: "out of gas"}
	sig65 := wire.SignIntentResponse{Signature: make([]byte, 65)}
	tests := map[string]struct {
		view any
		want string
	}{
		"transaction":             {TransactionOf(base, false), txKeys},
		"transaction signed":      {TransactionOf(base, true), txKeys + " signed_tx"},
		"token transaction":       {TransactionOf(token, false), txKeys + " token_address token_amount"},
		"mined failed":            {TransactionOf(mined, false), txKeys + " block_number gas_used error"},
		"intent without sig":      {SignedIntentOf(TxResult{Record: base}), txKeys + " signed_tx intent_type hash"},
		"intent with sig":         {SignedIntentOf(TxResult{Record: base, Signed: sig65}), txKeys + " signed_tx intent_type hash signature"},
		"signature short":         {signatureOf("personal_sign", store.Chain{}, store.SigningKey{}, wire.SignIntentResponse{}), "intent_type chain chain_id address key_version hash"},
		"signature 65":            {signatureOf("personal_sign", store.Chain{}, store.SigningKey{}, sig65), "intent_type chain chain_id address key_version hash signature r s v"},
		"simulation":              {simulationOf(store.Chain{}, chainrpc.SimResult{}), "chain chain_id success gas_used gas_estimate return_data balance_changes partial"},
		"simulation reverted":     {simulationOf(store.Chain{ExplorerURL: "https://x"}, reverted), "chain chain_id success gas_used gas_estimate return_data balance_changes partial revert_reason error link"},
		"signing key":             {SigningKeyOf(store.SigningKey{}), "agent_id chain address public_key curve version key_version imported status created_at"},
		"rotated signing key":     {SigningKeyRotatedOf(store.SigningKey{}, 1), "agent_id chain address public_key curve version key_version imported status created_at previous_version"},
		"balance change in a sim": {simulationOf(store.Chain{}, chainrpc.SimResult{BalanceChanges: []chainrpc.BalanceChange{{Address: common.Address{}, Delta: big.NewInt(-1)}}}).BalanceChanges[0], "address asset delta"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, keys(tc.want), jsonKeys(t, tc.view))
		})
	}
	require.Equal(t, "[]", mustJSON(t, simulationOf(store.Chain{}, chainrpc.SimResult{}).BalanceChanges), "an empty list, not null")
	require.JSONEq(t, `""`, mustJSON(t, *TransactionOf(token, false).TokenAmount))
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
