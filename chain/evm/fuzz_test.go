package evm

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func FuzzParseTxRequest(f *testing.F) {
	f.Add([]byte(`{"chain_id":1}`))
	f.Add([]byte(`{"type":0,"chain_id":1,"nonce":9,"gas":21000,"gas_price":"20000000000","to":"0x3535353535353535353535353535353535353535","value":"0xde0b6b3a7640000"}`))
	f.Add([]byte(`{"type":3,"chain_id":1,"nonce":1,"gas":21000,"to":"0x3535353535353535353535353535353535353535","max_fee_per_gas":"2","max_priority_fee_per_gas":"1","max_fee_per_blob_gas":"1","blob_versioned_hashes":["0x0100000000000000000000000000000000000000000000000000000000000000"]}`))
	f.Add([]byte(`{"type":4,"chain_id":1,"nonce":1,"gas":50000,"to":"0x3535353535353535353535353535353535353535","max_fee_per_gas":"2","max_priority_fee_per_gas":"1","authorization_list":[{"chain_id":1,"address":"0x3535353535353535353535353535353535353535","nonce":2,"y_parity":1,"r":"0x1","s":"0x2"}]}`))
	f.Add([]byte(`{"chain_id":1,"access_list":[{"address":"0x3535353535353535353535353535353535353535","storage_keys":["0x0000000000000000000000000000000000000000000000000000000000000001"]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseTxRequest(b)
		if err != nil {
			require.ErrorIs(t, err, ErrInvalidTx)
			return
		}
		// What parses must survive a JSON round trip unchanged...
		again, err := json.Marshal(r)
		require.NoError(t, err)
		r2, err := ParseTxRequest(again)
		require.NoError(t, err)
		twice, err := json.Marshal(r2)
		require.NoError(t, err)
		require.JSONEq(t, string(again), string(twice))
		// ...and building must either succeed with a hashable transaction
		// or fail with a field error, never panic.
		tx, err := BuildTx(r)
		if err != nil {
			require.ErrorIs(t, err, ErrInvalidTx)
			return
		}
		_, err = SigningHash(tx)
		require.NoError(t, err)
		_, err = Facts(tx)
		require.NoError(t, err)
	})
}
