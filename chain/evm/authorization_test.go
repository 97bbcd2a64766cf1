package evm

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"
	"github.com/stretchr/testify/require"
)

func TestAuthorizationHash(t *testing.T) {
	tests := map[string]types.SetCodeAuthorization{
		"mainnet":   {ChainID: *uint256.NewInt(1), Address: common.HexToAddress("0x1111111111111111111111111111111111111111"), Nonce: 7},
		"any chain": {ChainID: *uint256.NewInt(0), Address: common.HexToAddress("0x2222222222222222222222222222222222222222")},
		"big":       {ChainID: *new(uint256.Int).SetAllOne(), Address: common.Address{0xff}, Nonce: ^uint64(0)},
	}
	for name, a := range tests {
		t.Run(name, func(t *testing.T) {
			// go-ethereum's own implementation is the reference.
			require.Equal(t, a.SigHash(), AuthorizationHash(a))
		})
	}
}

func TestSetAuthorizationSignature(t *testing.T) {
	s := newTestSigner(t, testKeyHex)
	addr, err := Address(s.pub)
	require.NoError(t, err)
	to := "0x3535353535353535353535353535353535353535"
	r := TxRequest{ChainID: 1, Type: ptr[uint8](4), To: to, AuthorizationList: []Authorization{
		{ChainID: 1, Address: to, Nonce: 1},
		{ChainID: 0, Address: to, YParity: ptr[uint8](0), R: "0x1", S: "0x1"},
		{ChainID: 1, Address: to, Nonce: 2},
	}}
	require.Equal(t, []int{0, 2}, r.UnsignedAuthorizations())

	sc, err := r.AuthorizationList[0].SetCode()
	require.NoError(t, err)
	h := AuthorizationHash(sc)
	sig := s.signRecoverable(t, h[:], true)
	badV := append([]byte(nil), sig...)
	badV[64] = 27

	tests := map[string]struct {
		i       int
		sig     []byte
		wantErr error
	}{
		"fail out of range":    {i: 3, sig: sig, wantErr: ErrInvalidTx},
		"fail negative index":  {i: -1, sig: sig, wantErr: ErrInvalidTx},
		"fail already signed":  {i: 1, sig: sig, wantErr: ErrInvalidTx},
		"fail v 27":            {i: 0, sig: badV, wantErr: ErrInvalidSignature},
		"fail short signature": {i: 0, sig: sig[:64], wantErr: ErrInvalidSignature},
		"ok":                   {i: 0, sig: sig},
	}
	for _, name := range []string{"fail out of range", "fail negative index", "fail already signed", "fail v 27", "fail short signature", "ok"} {
		tc := tests[name]
		t.Run(name, func(t *testing.T) {
			require.ErrorIs(t, r.SetAuthorizationSignature(tc.i, tc.sig), tc.wantErr)
		})
	}
	require.Equal(t, []int{2}, r.UnsignedAuthorizations())
	signed, err := r.AuthorizationList[0].SetCode()
	require.NoError(t, err)
	authority, err := signed.Authority()
	require.NoError(t, err)
	require.Equal(t, addr, authority)
}
