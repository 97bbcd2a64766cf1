package evm

import (
	"encoding/hex"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/stretchr/testify/require"
)

// TestEIP155Example checks the worked example of EIP-155.
func TestEIP155Example(t *testing.T) {
	s := newTestSigner(t, "4646464646464646464646464646464646464646464646464646464646464646")
	req, err := ParseTxRequest([]byte(`{"chain_id":1,"nonce":9,"gas_price":"20000000000","gas":21000,
		"to":"0x3535353535353535353535353535353535353535","value":"1000000000000000000"}`))
	require.NoError(t, err)
	tx, err := BuildTx(req)
	require.NoError(t, err)
	require.Equal(t, uint8(types.LegacyTxType), tx.Type())
	h, err := SigningHash(tx)
	require.NoError(t, err)
	require.Equal(t, "0xdaf5a779ae972f972197303d7b574746c7ef83eadac0f2791ad23db92e4c8e53", h.Hex())

	sig := s.signRecoverable(t, h[:], true)
	_, raw, _, err := AssembleTx(tx, sig)
	require.NoError(t, err)
	require.Equal(t, "f86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a76400008025"+
		"a028ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276"+
		"a067cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83", hex.EncodeToString(raw))
}

// roundTripRequests has one request per transaction type.
func roundTripRequests() map[string]TxRequest {
	to := "0x3535353535353535353535353535353535353535"
	al := []AccessTuple{{Address: to, StorageKeys: []string{"0x" + hex.EncodeToString(make([]byte, 32))}}}
	blob := "0x01" + hex.EncodeToString(make([]byte, 31))
	return map[string]TxRequest{
		"type 0":        {ChainID: 1, Nonce: ptr[uint64](0), Gas: ptr[uint64](21000), To: to, Value: "0x1", GasPrice: "1000000000"},
		"type 0 create": {ChainID: 5, Nonce: ptr[uint64](1), Gas: ptr[uint64](100000), Data: "0x6000", GasPrice: "0x3b9aca00"},
		"type 1": {Type: ptr[uint8](1), ChainID: 137, Nonce: ptr[uint64](7), Gas: ptr[uint64](50000), To: to,
			GasPrice: "30000000000", AccessList: al, Data: "0xdeadbeef"},
		"type 2": {ChainID: 1, Nonce: ptr[uint64](2), Gas: ptr[uint64](21000), To: to, Value: "1000",
			MaxFeePerGas: "0x77359400", MaxPriorityFeePerGas: "1000000000"},
		"type 2 default": {ChainID: 8453, Nonce: ptr[uint64](3), Gas: ptr[uint64](21000), To: to},
		"type 3": {Type: ptr[uint8](3), ChainID: 11155111, Nonce: ptr[uint64](4), Gas: ptr[uint64](21000), To: to,
			MaxFeePerGas: "100", MaxPriorityFeePerGas: "1", MaxFeePerBlobGas: "0x10", BlobVersionedHashes: []string{blob}},
		"type 4": {Type: ptr[uint8](4), ChainID: 1, Nonce: ptr[uint64](5), Gas: ptr[uint64](80000), To: to,
			MaxFeePerGas: "100", MaxPriorityFeePerGas: "1", AccessList: al,
			AuthorizationList: []Authorization{{ChainID: 1, Address: "0x1111111111111111111111111111111111111111", Nonce: 6}}},
	}
}

// completeFees fills the 1559 fees a "type 2 default" request lacks.
func completeFees(r *TxRequest) {
	if r.GasPrice == "" && r.MaxFeePerGas == "" {
		r.MaxFeePerGas, r.MaxPriorityFeePerGas = "2", "1"
	}
}

// signAuthorizations signs every unsigned authorization with s.
func signAuthorizations(t *testing.T, r *TxRequest, s testSigner) {
	t.Helper()
	for _, i := range r.UnsignedAuthorizations() {
		sc, err := r.AuthorizationList[i].SetCode()
		require.NoError(t, err)
		h := AuthorizationHash(sc)
		require.NoError(t, r.SetAuthorizationSignature(i, s.signRecoverable(t, h[:], true)))
	}
	require.Empty(t, r.UnsignedAuthorizations())
}

func TestBuildSignAssembleRoundTrip(t *testing.T) {
	s := newTestSigner(t, testKeyHex)
	want, err := Address(s.pub)
	require.NoError(t, err)
	wantType := map[string]uint8{"type 0": 0, "type 0 create": 0, "type 1": 1, "type 2": 2, "type 2 default": 2, "type 3": 3, "type 4": 4}
	for name, req := range roundTripRequests() {
		t.Run(name, func(t *testing.T) {
			completeFees(&req)
			signAuthorizations(t, &req, s)
			tx, err := BuildTx(req)
			require.NoError(t, err)
			require.Equal(t, wantType[name], tx.Type())
			h, err := SigningHash(tx)
			require.NoError(t, err)
			require.Equal(t, types.LatestSignerForChainID(new(big.Int).SetUint64(req.ChainID)).Hash(tx), h)

			for _, high := range []bool{false, true} {
				signed, raw, txHash, err := AssembleTx(tx, s.signRecoverable(t, h[:], high))
				require.NoError(t, err)
				from, err := types.Sender(types.LatestSignerForChainID(signed.ChainId()), signed)
				require.NoError(t, err)
				require.Equal(t, want, from)
				require.Equal(t, new(big.Int).SetUint64(req.ChainID), signed.ChainId())

				var decoded types.Transaction
				require.NoError(t, decoded.UnmarshalBinary(raw))
				require.Equal(t, txHash, decoded.Hash())
				require.Equal(t, tx.Type(), decoded.Type())
			}
			for _, a := range tx.SetCodeAuthorizations() {
				authority, err := a.Authority()
				require.NoError(t, err)
				require.Equal(t, want, authority)
			}
		})
	}
}

func TestBuildTxErrors(t *testing.T) {
	to := "0x3535353535353535353535353535353535353535"
	base := TxRequest{ChainID: 1, Nonce: ptr[uint64](0), Gas: ptr[uint64](21000), To: to, MaxFeePerGas: "2", MaxPriorityFeePerGas: "1"}
	with := func(f func(*TxRequest)) TxRequest { r := base; f(&r); return r }
	tests := map[string]struct {
		req       TxRequest
		wantField string
	}{
		"fail no nonce":   {req: with(func(r *TxRequest) { r.Nonce = nil }), wantField: "nonce"},
		"fail no gas":     {req: with(func(r *TxRequest) { r.Gas = nil }), wantField: "gas"},
		"fail zero gas":   {req: with(func(r *TxRequest) { r.Gas = ptr[uint64](0) }), wantField: "gas"},
		"fail no max fee": {req: with(func(r *TxRequest) { r.MaxFeePerGas = "" }), wantField: "max_fee_per_gas"},
		"fail no tip":     {req: with(func(r *TxRequest) { r.MaxPriorityFeePerGas = "" }), wantField: "max_priority_fee_per_gas"},
		"fail type 1 no gas price": {req: with(func(r *TxRequest) {
			r.Type, r.MaxFeePerGas, r.MaxPriorityFeePerGas = ptr[uint8](1), "", ""
		}), wantField: "gas_price"},
		"fail type 3 no blob fee": {req: with(func(r *TxRequest) {
			r.Type, r.BlobVersionedHashes = ptr[uint8](3), []string{"0x01" + hex.EncodeToString(make([]byte, 31))}
		}), wantField: "max_fee_per_blob_gas"},
		// Building a 7702 transaction with an unsigned authorization would
		// publish an entry the chain silently skips.
		"fail type 4 unsigned": {req: with(func(r *TxRequest) {
			r.Type = ptr[uint8](4)
			r.AuthorizationList = []Authorization{{ChainID: 1, Address: to}}
		}), wantField: "authorization_list[0]"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, tc.req.Validate(), "Validate leaves build-time fields to BuildTx")
			_, err := BuildTx(tc.req)
			require.ErrorIs(t, err, ErrInvalidTx)
			var fe *FieldError
			require.ErrorAs(t, err, &fe)
			require.Equal(t, tc.wantField, fe.Field)
		})
	}
}

func TestSigningHashAndAssembleErrors(t *testing.T) {
	s := newTestSigner(t, testKeyHex)
	to := common.HexToAddress("0x3535353535353535353535353535353535353535")
	// Pre-EIP-155 legacy transactions are replayable on every chain.
	unprotected := types.NewTx(&types.LegacyTx{Nonce: 1, GasPrice: big.NewInt(1), Gas: 21000, To: &to, Value: big.NewInt(1)})
	_, err := SigningHash(unprotected)
	require.ErrorIs(t, err, ErrInvalidTx)
	_, err = SigningHash(nil)
	require.ErrorIs(t, err, ErrInvalidTx)

	req := roundTripRequests()["type 2"]
	tx, err := BuildTx(req)
	require.NoError(t, err)
	h, err := SigningHash(tx)
	require.NoError(t, err)
	good := s.signRecoverable(t, h[:], false)
	highS := append([]byte(nil), good...)
	new(big.Int).Sub(secp256k1N, new(big.Int).SetBytes(good[32:64])).FillBytes(highS[32:64])
	badV := append([]byte(nil), good...)
	badV[64] = 27

	tests := map[string]struct {
		tx      *types.Transaction
		sig     []byte
		wantErr error
	}{
		"ok":                   {tx: tx, sig: good},
		"fail unprotected":     {tx: unprotected, sig: good, wantErr: ErrInvalidTx},
		"fail short signature": {tx: tx, sig: good[:64], wantErr: ErrInvalidSignature},
		// High-S signatures are malleable and rejected by Ethereum (EIP-2).
		"fail high s": {tx: tx, sig: highS, wantErr: ErrInvalidSignature},
		"fail v 27":   {tx: tx, sig: badV, wantErr: ErrInvalidSignature},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, _, _, err := AssembleTx(tc.tx, tc.sig)
			require.ErrorIs(t, err, tc.wantErr)
		})
	}
}

func TestFacts(t *testing.T) {
	token := common.HexToAddress("0x3535353535353535353535353535353535353535")
	rcpt := common.HexToAddress("0x1111111111111111111111111111111111111111")
	data, err := ERC20TransferData(rcpt, big.NewInt(1500000))
	require.NoError(t, err)
	tx, err := BuildTx(TxRequest{ChainID: 10, Nonce: ptr[uint64](1), Gas: ptr[uint64](60000), To: token.Hex(),
		Data: "0x" + hex.EncodeToString(data), MaxFeePerGas: "10", MaxPriorityFeePerGas: "1"})
	require.NoError(t, err)
	f, err := Facts(tx)
	require.NoError(t, err)
	require.Equal(t, uint8(2), f.Type)
	require.Equal(t, big.NewInt(10), f.ChainID)
	require.Equal(t, token, *f.To)
	require.Equal(t, big.NewInt(600000), f.MaxCost)
	require.Equal(t, "transfer", f.Call.Function)
	require.Equal(t, rcpt, f.Call.TokenRecipient)
	require.Equal(t, big.NewInt(1500000), f.Call.TokenAmount)

	legacy, err := BuildTx(roundTripRequests()["type 0"])
	require.NoError(t, err)
	f, err = Facts(legacy)
	require.NoError(t, err)
	require.Equal(t, big.NewInt(1), f.ChainID)
}
