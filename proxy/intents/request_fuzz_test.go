package intents

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/opencustody/ocv/api"
)

// FuzzParseAPITx: a transaction body either parses or is refused with a
// problem; a parsed one plans or is refused the same way. Never a panic.
func FuzzParseAPITx(f *testing.F) {
	for _, seed := range []string{
		`{"chain_id":"base","to":"0x00000000000000000000000000000000000000b2","value":"0x1"}`,
		`{"chain_id":8453,"to":"0x00000000000000000000000000000000000000b2","token_mint":"0x833589fcd6edb6e08f4c7c32d4f71b54bda02913","value":"1.5","token_decimals":6}`,
		`{"chain_id":1,"data":"0x6001","gas":21000,"nonce":0,"type":4,"authorization_list":[{"chain_id":1,"address":"0x00000000000000000000000000000000000000a1","nonce":1}]}`,
		`{"memo":"x"}`, `{"mode":"treasury"}`, `[]`, `{"value":-1}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var tx api.TransactionRequest
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if dec.Decode(&tx) != nil || dec.More() || CheckTransaction(&tx) != nil {
			return
		}
		_, _ = plan(tx, 8453, func(string) (int, bool) { return 6, true })
	})
}
