package x402_test

import (
	"encoding/hex"
	"encoding/json"
	"math/big"
	"os"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/proxy/metering/x402"
	"github.com/opencustody/ocv/proxy/metering/x402/x402test"
)

type kat struct {
	PrivateKey    string             `json:"private_key"`
	Address       string             `json:"address"`
	PayTo         string             `json:"pay_to"`
	Authorization x402.Authorization `json:"authorization"`
	Digest        string             `json:"digest"`
	Signature     string             `json:"signature"`
}

func loadKAT(t *testing.T) kat {
	t.Helper()
	raw, err := os.ReadFile("testdata/kat.json")
	require.NoError(t, err)
	var k kat
	require.NoError(t, json.Unmarshal(raw, &k))
	return k
}

// TestKnownAnswer pins the digest and the deterministic signature of a fixed
// key and authorization, and checks the pinned signature verifies.
func TestKnownAnswer(t *testing.T) {
	k := loadKAT(t)
	cfg := x402.PaymentConfig{PayTo: k.PayTo, FacilitatorURL: "https://facilitator.test"}.WithDefaults()
	key, err := crypto.HexToECDSA(k.PrivateKey)
	require.NoError(t, err)
	require.Equal(t, k.Address, crypto.PubkeyToAddress(key.PublicKey).Hex())

	digest, err := cfg.TypedDataHash(k.Authorization)
	require.NoError(t, err)
	require.Equal(t, k.Digest, hex.EncodeToString(digest))
	require.Equal(t, k.Digest, hex.EncodeToString(manualDigest(t, cfg, k.Authorization)),
		"go-ethereum's EIP-712 hashing agrees with a by-hand encoding")

	p, err := x402test.Sign(cfg, key, k.Authorization)
	require.NoError(t, err)
	require.Equal(t, k.Signature, p.Payload.Signature, "RFC 6979 signatures are deterministic")

	p.Payload.Signature = k.Signature
	now := time.Unix(1740672100, 0)
	payer, err := cfg.Verify(p, now)
	require.NoError(t, err)
	require.Equal(t, k.Address, payer.Hex())
}

// manualDigest encodes EIP-712 by hand: keccak(0x1901 ‖ domainSeparator ‖
// hashStruct(message)), each field as a 32-byte word.
func manualDigest(t *testing.T, cfg x402.PaymentConfig, a x402.Authorization) []byte {
	t.Helper()
	word := func(v *big.Int) []byte { return common.LeftPadBytes(v.Bytes(), 32) }
	num := func(s string) []byte {
		v, ok := new(big.Int).SetString(s, 10)
		require.True(t, ok)
		return word(v)
	}
	addr := func(s string) []byte { return common.LeftPadBytes(common.HexToAddress(s).Bytes(), 32) }
	domainType := crypto.Keccak256([]byte("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"))
	domain := crypto.Keccak256(domainType, crypto.Keccak256([]byte(cfg.AssetName)), crypto.Keccak256([]byte(cfg.AssetVersion)),
		word(big.NewInt(cfg.ChainID())), addr(cfg.Asset))
	msgType := crypto.Keccak256([]byte("TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"))
	nonce, err := hex.DecodeString(a.Nonce[2:])
	require.NoError(t, err)
	msg := crypto.Keccak256(msgType, addr(a.From), addr(a.To), num(a.Value), num(a.ValidAfter), num(a.ValidBefore), nonce)
	return crypto.Keccak256([]byte{0x19, 0x01}, domain, msg)
}
