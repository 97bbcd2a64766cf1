package evm

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseTxRequestStrict(t *testing.T) {
	tests := map[string]struct {
		in        string
		wantErr   error
		wantField string
	}{
		"ok minimal":        {in: `{"chain_id":1}`},
		"ok full type 2":    {in: `{"type":2,"chain_id":1,"nonce":1,"to":"0x3535353535353535353535353535353535353535","value":"0x0","data":"0x","gas":21000,"max_fee_per_gas":"1","max_priority_fee_per_gas":"1"}`},
		"ok trailing space": {in: "{\"chain_id\":1}\n "},
		// Unknown fields could smuggle intent past a reviewer (e.g. "from").
		"fail unknown field": {in: `{"chain_id":1,"from":"0x3535353535353535353535353535353535353535"}`, wantErr: ErrInvalidTx},
		// encoding/json would keep the last duplicate and fold key case;
		// another reader might not, so both are refused.
		"fail duplicate key":      {in: `{"chain_id":1,"chain_id":2}`, wantErr: ErrInvalidTx},
		"fail nested duplicate":   {in: `{"chain_id":1,"access_list":[{"address":"0x3535353535353535353535353535353535353535","address":"0x3535353535353535353535353535353535353536"}]}`, wantErr: ErrInvalidTx},
		"fail key case":           {in: `{"Chain_ID":1}`, wantErr: ErrInvalidTx},
		"fail unicode fold":       {in: "{\"chain_id\":1,\"\u017f\":\"0x1\"}", wantErr: ErrInvalidTx},
		"ok same key in siblings": {in: `{"chain_id":1,"access_list":[{"address":"0x3535353535353535353535353535353535353535","storage_keys":[]},{"address":"0x3535353535353535353535353535353535353536","storage_keys":[]}]}`},
		"fail trailing value":     {in: `{"chain_id":1}{"chain_id":2}`, wantErr: ErrInvalidTx},
		"fail trailing junk":      {in: `{"chain_id":1} x`, wantErr: ErrInvalidTx},
		"fail not an object":      {in: `[1]`, wantErr: ErrInvalidTx},
		"fail empty":              {in: ``, wantErr: ErrInvalidTx},
		// Numbers must fit their field exactly, never wrap or truncate.
		"fail nonce overflow": {in: `{"chain_id":1,"nonce":18446744073709551616}`, wantErr: ErrInvalidTx, wantField: "nonce"},
		"fail negative gas":   {in: `{"chain_id":1,"gas":-1}`, wantErr: ErrInvalidTx, wantField: "gas"},
		"fail fractional gas": {in: `{"chain_id":1,"gas":1.5}`, wantErr: ErrInvalidTx, wantField: "gas"},
		"fail type overflow":  {in: `{"chain_id":1,"type":256}`, wantErr: ErrInvalidTx, wantField: "type"},
		"fail value number":   {in: `{"chain_id":1,"value":1}`, wantErr: ErrInvalidTx, wantField: "value"},
		"fail too large":      {in: `{"chain_id":1,"data":"0x` + strings.Repeat("00", MaxRequestSize/2) + `"}`, wantErr: ErrTooLarge},
		"fail validation":     {in: `{"chain_id":0}`, wantErr: ErrInvalidTx, wantField: "chain_id"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := ParseTxRequest([]byte(tc.in))
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantField != "" {
				var fe *FieldError
				require.ErrorAs(t, err, &fe)
				require.Equal(t, tc.wantField, fe.Field)
			}
		})
	}
}

func TestTxRequestJSONRoundTrip(t *testing.T) {
	for name, req := range roundTripRequests() {
		t.Run(name, func(t *testing.T) {
			b, err := json.Marshal(req)
			require.NoError(t, err)
			got, err := ParseTxRequest(b)
			require.NoError(t, err)
			require.Equal(t, req, got)
		})
	}
}

func TestTxType(t *testing.T) {
	tests := map[string]struct {
		req     TxRequest
		want    uint8
		wantErr error
	}{
		"ok default":          {req: TxRequest{}, want: 2},
		"ok max fee":          {req: TxRequest{MaxFeePerGas: "1"}, want: 2},
		"ok tip only":         {req: TxRequest{MaxPriorityFeePerGas: "1"}, want: 2},
		"ok gas price":        {req: TxRequest{GasPrice: "1"}, want: 0},
		"ok explicit 1":       {req: TxRequest{Type: ptr[uint8](1), GasPrice: "1"}, want: 1},
		"fail both fee kinds": {req: TxRequest{GasPrice: "1", MaxFeePerGas: "1"}, wantErr: ErrInvalidTx},
		"fail type 5":         {req: TxRequest{Type: ptr[uint8](5)}, wantErr: ErrInvalidTx},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := tc.req.TxType()
			require.ErrorIs(t, err, tc.wantErr)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestValidateFieldErrors(t *testing.T) {
	const (
		to   = "0x3535353535353535353535353535353535353535"
		blob = "0x0100000000000000000000000000000000000000000000000000000000000000"
		key  = "0x0000000000000000000000000000000000000000000000000000000000000001"
	)
	tests := map[string]struct {
		req       TxRequest
		wantField string
	}{
		"fail chain id zero": {req: TxRequest{}, wantField: "chain_id"},
		"fail to short":      {req: TxRequest{ChainID: 1, To: "0x1234"}, wantField: "to"},
		"fail to without 0x": {req: TxRequest{ChainID: 1, To: "3535353535353535353535353535353535353535"}, wantField: "to"},
		"fail to not hex":    {req: TxRequest{ChainID: 1, To: "0x353535353535353535353535353535353535353g"}, wantField: "to"},
		// A mixed-case address with a wrong checksum is most likely a typo.
		"fail to bad checksum":     {req: TxRequest{ChainID: 1, To: "0x2C7536E3605D9C16a7a3D7b1898e529396a65c23"}, wantField: "to"},
		"fail value negative":      {req: TxRequest{ChainID: 1, Value: "-1"}, wantField: "value"},
		"fail value 257 bits":      {req: TxRequest{ChainID: 1, Value: "0x1" + strings.Repeat("0", 64)}, wantField: "value"},
		"fail value junk":          {req: TxRequest{ChainID: 1, Value: "1e18"}, wantField: "value"},
		"fail data odd":            {req: TxRequest{ChainID: 1, Data: "0xabc"}, wantField: "data"},
		"fail data no prefix":      {req: TxRequest{ChainID: 1, Data: "abcd"}, wantField: "data"},
		"fail tip above max":       {req: TxRequest{ChainID: 1, MaxFeePerGas: "1", MaxPriorityFeePerGas: "2"}, wantField: "max_priority_fee_per_gas"},
		"fail 1559 on type 0":      {req: TxRequest{ChainID: 1, Type: ptr[uint8](0), MaxFeePerGas: "1"}, wantField: "max_fee_per_gas"},
		"fail gas price on type 2": {req: TxRequest{ChainID: 1, Type: ptr[uint8](2), GasPrice: "1"}, wantField: "gas_price"},
		"fail blob fee on type 2":  {req: TxRequest{ChainID: 1, MaxFeePerBlobGas: "1"}, wantField: "max_fee_per_blob_gas"},
		"fail access list type 0":  {req: TxRequest{ChainID: 1, GasPrice: "1", AccessList: []AccessTuple{{Address: to}}}, wantField: "access_list"},
		"fail access list address": {req: TxRequest{ChainID: 1, AccessList: []AccessTuple{{Address: "0x12"}}}, wantField: "access_list[0].address"},
		"fail storage key short": {req: TxRequest{ChainID: 1, AccessList: []AccessTuple{{Address: to, StorageKeys: []string{key, "0x01"}}}},
			wantField: "access_list[0].storage_keys[1]"},
		"fail too many tuples": {req: TxRequest{ChainID: 1, AccessList: make([]AccessTuple, MaxAccessTuples+1)}, wantField: "access_list"},
		"fail type 3 no to":    {req: TxRequest{ChainID: 1, Type: ptr[uint8](3), BlobVersionedHashes: []string{blob}}, wantField: "to"},
		"fail type 3 no blobs": {req: TxRequest{ChainID: 1, Type: ptr[uint8](3), To: to}, wantField: "blob_versioned_hashes"},
		"fail blob version":    {req: TxRequest{ChainID: 1, Type: ptr[uint8](3), To: to, BlobVersionedHashes: []string{key}}, wantField: "blob_versioned_hashes[0]"},
		"fail too many blobs": {req: TxRequest{ChainID: 1, Type: ptr[uint8](3), To: to,
			BlobVersionedHashes: []string{blob, blob, blob, blob, blob, blob, blob}}, wantField: "blob_versioned_hashes"},
		"fail blobs on type 2": {req: TxRequest{ChainID: 1, BlobVersionedHashes: []string{blob}}, wantField: "blob_versioned_hashes"},
		"fail type 4 no to":    {req: TxRequest{ChainID: 1, Type: ptr[uint8](4), AuthorizationList: []Authorization{{ChainID: 1, Address: to}}}, wantField: "to"},
		"fail type 4 empty":    {req: TxRequest{ChainID: 1, Type: ptr[uint8](4), To: to}, wantField: "authorization_list"},
		"fail auths on type 2": {req: TxRequest{ChainID: 1, To: to, AuthorizationList: []Authorization{{ChainID: 1, Address: to}}}, wantField: "authorization_list"},
		// chain_id 0 would make our signature a delegation valid on every chain.
		"fail unsigned auth any chain": {req: TxRequest{ChainID: 1, Type: ptr[uint8](4), To: to,
			AuthorizationList: []Authorization{{ChainID: 0, Address: to}}}, wantField: "authorization_list[0].chain_id"},
		"fail unsigned auth other chain": {req: TxRequest{ChainID: 1, Type: ptr[uint8](4), To: to,
			AuthorizationList: []Authorization{{ChainID: 10, Address: to}}}, wantField: "authorization_list[0].chain_id"},
		"fail partial signature": {req: TxRequest{ChainID: 1, Type: ptr[uint8](4), To: to,
			AuthorizationList: []Authorization{{ChainID: 1, Address: to, R: "0x1"}}}, wantField: "authorization_list[0]"},
		"fail y parity 2": {req: TxRequest{ChainID: 1, Type: ptr[uint8](4), To: to,
			AuthorizationList: []Authorization{{ChainID: 1, Address: to, YParity: ptr[uint8](2), R: "0x1", S: "0x1"}}}, wantField: "authorization_list[0].y_parity"},
		"fail zero r": {req: TxRequest{ChainID: 1, Type: ptr[uint8](4), To: to,
			AuthorizationList: []Authorization{{ChainID: 1, Address: to, YParity: ptr[uint8](0), R: "0x0", S: "0x1"}}}, wantField: "authorization_list[0]"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := tc.req.Validate()
			require.ErrorIs(t, err, ErrInvalidTx)
			var fe *FieldError
			require.ErrorAs(t, err, &fe)
			require.Equal(t, tc.wantField, fe.Field)
			require.Contains(t, err.Error(), tc.wantField)
		})
	}

	// A signed third-party authorization may name any chain: it is theirs.
	ok := TxRequest{ChainID: 1, Type: ptr[uint8](4), To: to,
		AuthorizationList: []Authorization{{ChainID: 0, Address: to, YParity: ptr[uint8](1), R: "0x1", S: "0x2"}}}
	require.NoError(t, ok.Validate())
	// Lower- and upper-case addresses carry no checksum and are accepted.
	require.NoError(t, TxRequest{ChainID: 1, To: "0x" + strings.ToUpper(to[2:])}.Validate())
}
