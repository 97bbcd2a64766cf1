package evm

import (
	"encoding/hex"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"
)

func readMail(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("testdata/eip712_mail.json")
	require.NoError(t, err)
	return string(b)
}

// TestTypedDataMailExample checks the example of EIP-712 (Example.js):
// digest, and the signature of the key keccak256("cow").
func TestTypedDataMailExample(t *testing.T) {
	digest, td, err := TypedDataHash([]byte(readMail(t)))
	require.NoError(t, err)
	require.Equal(t, "be609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2", hex.EncodeToString(digest))
	require.Equal(t, "Mail", td.PrimaryType)

	cow := newTestSigner(t, hex.EncodeToString(crypto.Keccak256([]byte("cow"))))
	addr, err := Address(cow.pub)
	require.NoError(t, err)
	require.Equal(t, "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826", addr.Hex())
	sig := cow.signRecoverable(t, digest, true)
	require.Equal(t, "4355c47d63924e8a72e509b65029052eb6c299d53a04e167c5775fd466751c9d", hex.EncodeToString(sig[:32]))
	require.Equal(t, "07299936d304c153f6443dfa05f40ff007d72911b6f72307f996231605b91562", hex.EncodeToString(sig[32:64]))
	require.Equal(t, byte(1), sig[64], "v = 28 in the EIP")

	d := Domain(td)
	require.Equal(t, DomainInfo{Name: "Ether Mail", Version: "1", ChainID: big.NewInt(1),
		VerifyingContract: common.HexToAddress("0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC")}, d)
}

func TestTypedDataHashErrors(t *testing.T) {
	mail := readMail(t)
	tests := map[string]struct {
		in      string
		wantErr error
	}{
		"ok mail":                      {in: mail},
		"fail unknown top-level field": {in: strings.Replace(mail, `"primaryType"`, `"extra": 1, "primaryType"`, 1), wantErr: ErrInvalidTypedData},
		"fail unknown domain field":    {in: strings.Replace(mail, `"name": "Ether Mail"`, `"name": "Ether Mail", "foo": "x"`, 1), wantErr: ErrInvalidTypedData},
		// Without EIP712Domain go-ethereum hashes an empty domain type while
		// wallets derive one from the domain: the digests would differ.
		"fail no EIP712Domain": {in: strings.Replace(mail, `"EIP712Domain"`, `"Unused"`, 1), wantErr: ErrInvalidTypedData},
		"fail domain field order": {in: strings.Replace(mail, `{"name": "name", "type": "string"},
      {"name": "version", "type": "string"},`, `{"name": "version", "type": "string"},
      {"name": "name", "type": "string"},`, 1), wantErr: ErrInvalidTypedData},
		"fail domain field undeclared": {in: strings.Replace(mail, `"version": "1",`, `"version": "1", "salt": "0x0000000000000000000000000000000000000000000000000000000000000001",`, 1), wantErr: ErrInvalidTypedData},
		"fail primary EIP712Domain":    {in: strings.Replace(mail, `"primaryType": "Mail"`, `"primaryType": "EIP712Domain"`, 1), wantErr: ErrInvalidTypedData},
		"fail primary undeclared":      {in: strings.Replace(mail, `"primaryType": "Mail"`, `"primaryType": "Letter"`, 1), wantErr: ErrInvalidTypedData},
		"fail message missing":         {in: strings.Replace(mail, `"message"`, `"msg"`, 1), wantErr: ErrInvalidTypedData},
		"fail wrong value type":        {in: strings.Replace(mail, `"contents": "Hello, Bob!"`, `"contents": 5`, 1), wantErr: ErrInvalidTypedData},
		"fail float":                   {in: `{"types":{"EIP712Domain":[{"name":"chainId","type":"uint256"}],"M":[{"name":"v","type":"uint256"}]},"primaryType":"M","domain":{"chainId":1},"message":{"v":1.5}}`, wantErr: ErrInvalidTypedData},
		"fail duplicate message key":   {in: strings.Replace(mail, `"contents": "Hello, Bob!"`, `"contents": "Hello, Bob!", "contents": "Send all"`, 1), wantErr: ErrInvalidTypedData},
		"fail trailing data":           {in: mail + "{}", wantErr: ErrInvalidTypedData},
		"fail too large":               {in: mail + strings.Repeat(" ", MaxTypedDataSize), wantErr: ErrTooLarge},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, _, err := TypedDataHash([]byte(tc.in))
			require.ErrorIs(t, err, tc.wantErr)
		})
	}
}

// TestTypedDataExactNumbers guards against float64 rounding: 2^53+1 must be
// hashed as written, not as 2^53.
func TestTypedDataExactNumbers(t *testing.T) {
	doc := func(v string) []byte {
		return []byte(`{"types":{"EIP712Domain":[{"name":"chainId","type":"uint256"}],"M":[{"name":"v","type":"uint256"}]},` +
			`"primaryType":"M","domain":{"chainId":1},"message":{"v":` + v + `}}`)
	}
	asNumber, td, err := TypedDataHash(doc("9007199254740993"))
	require.NoError(t, err)
	require.Equal(t, "9007199254740993", td.Message["v"].(*big.Int).String())
	asString, _, err := TypedDataHash(doc(`"9007199254740993"`))
	require.NoError(t, err)
	require.Equal(t, asString, asNumber)
	rounded, _, err := TypedDataHash(doc("9007199254740992"))
	require.NoError(t, err)
	require.NotEqual(t, rounded, asNumber)
}
