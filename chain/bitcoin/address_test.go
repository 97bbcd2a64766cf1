package bitcoin_test

import (
	"encoding/hex"
	"testing"

	"github.com/btcsuite/btcd/btcutil"
	"github.com/btcsuite/btcd/chaincfg"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/chain/bitcoin"
	"github.com/opencustody/ocv/keyvault"
)

// generatorHex is the secp256k1 base point G, uncompressed (SEC 2): the
// public key of private key 1.
const generatorHex = "0479be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798" +
	"483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8"

// uncompressed turns a SEC1 compressed hex key into the 65-byte form the HSM
// hands over.
func uncompressed(t *testing.T, compressedHex string) keyvault.Secp256k1Point {
	t.Helper()
	raw, err := hex.DecodeString(compressedHex)
	require.NoError(t, err)
	key, err := secp256k1.ParsePubKey(raw)
	require.NoError(t, err)
	return key.SerializeUncompressed()
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}

func TestAddressVectors(t *testing.T) {
	tests := map[string]struct {
		pub  func(t *testing.T) keyvault.Secp256k1Point
		net  *chaincfg.Params
		want string
	}{
		// BIP-173 "Test vectors": P2WPKH of the compressed generator point
		// 0279BE66…F81798 on mainnet.
		"ok bip173 mainnet": {
			pub:  func(t *testing.T) keyvault.Secp256k1Point { return mustHex(t, generatorHex) },
			net:  &chaincfg.MainNetParams,
			want: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4",
		},
		// BIP-173 "Test vectors": the same key on testnet.
		"ok bip173 testnet": {
			pub:  func(t *testing.T) keyvault.Secp256k1Point { return mustHex(t, generatorHex) },
			net:  &chaincfg.TestNet3Params,
			want: "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx",
		},
		// BIP-84 "Test vectors" (mnemonic "abandon … about"), m/84'/0'/0'/0/0.
		"ok bip84 first receive": {
			pub: func(t *testing.T) keyvault.Secp256k1Point {
				return uncompressed(t, "0330d54fd0dd420a6e5f8d3624f5f3482cae350f79d5f0753bf5beef9c2d91af3c")
			},
			net:  &chaincfg.MainNetParams,
			want: "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu",
		},
		// BIP-84 "Test vectors", m/84'/0'/0'/0/1.
		"ok bip84 second receive": {
			pub: func(t *testing.T) keyvault.Secp256k1Point {
				return uncompressed(t, "03e775fd51f0dfb8cd865d9ff1cca2a158cf651fe997fdc9fee9c1d3b5e995ea77")
			},
			net:  &chaincfg.MainNetParams,
			want: "bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g",
		},
		// BIP-84 "Test vectors": the WIF of m/84'/0'/0'/0/0 gives the same
		// address (known WIF → address).
		"ok bip84 wif": {
			pub: func(t *testing.T) keyvault.Secp256k1Point {
				wif, err := btcutil.DecodeWIF("KyZpNDKnfs94vbrwhJneDi77V6jF64PWPF8x5cdJb8ifgg2DUc9d")
				require.NoError(t, err)
				return wif.PrivKey.PubKey().SerializeUncompressed()
			},
			net:  &chaincfg.MainNetParams,
			want: "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu",
		},
		// The BIP-173 generator key on regtest takes the "bcrt" HRP (not a
		// published vector: cross-checked with bitcoinjs-lib 7.0.5
		// payments.p2wpkh on networks.regtest).
		"ok regtest hrp": {
			pub:  func(t *testing.T) keyvault.Secp256k1Point { return mustHex(t, generatorHex) },
			net:  &chaincfg.RegressionNetParams,
			want: "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := bitcoin.Address(tc.pub(t), tc.net)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestAddressErrors(t *testing.T) {
	g := mustHex(t, generatorHex)
	offCurve := append([]byte(nil), g...)
	offCurve[64] ^= 0x01 // G with a wrong Y: not on the curve
	hybrid := append([]byte(nil), g...)
	hybrid[0] = 0x06 // SEC1 "hybrid" prefix: refused, only 0x04 is canonical here

	tests := map[string]struct {
		pub     keyvault.Secp256k1Point
		net     *chaincfg.Params
		wantErr error
	}{
		"fail nil key":       {pub: nil, net: &chaincfg.MainNetParams, wantErr: bitcoin.ErrInvalidPublicKey},
		"fail compressed":    {pub: mustHex(t, "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"), net: &chaincfg.MainNetParams, wantErr: bitcoin.ErrInvalidPublicKey},
		"fail hybrid prefix": {pub: hybrid, net: &chaincfg.MainNetParams, wantErr: bitcoin.ErrInvalidPublicKey},
		// A point off the curve must never yield an address: nobody could spend from it.
		"fail off curve": {pub: offCurve, net: &chaincfg.MainNetParams, wantErr: bitcoin.ErrInvalidPublicKey},
		"fail truncated": {pub: g[:64], net: &chaincfg.MainNetParams, wantErr: bitcoin.ErrInvalidPublicKey},
		"fail nil net":   {pub: g, net: nil, wantErr: bitcoin.ErrNoNetwork},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := bitcoin.Address(tc.pub, tc.net)
			require.ErrorIs(t, err, tc.wantErr)
			require.Empty(t, got)
		})
	}
}

func TestCompressedPublicKey(t *testing.T) {
	g := mustHex(t, generatorHex)
	tests := map[string]struct {
		pub  keyvault.Secp256k1Point
		want string
	}{
		// SEC 2: compressed G is 02 ‖ X (Y is even).
		"ok generator": {pub: g, want: "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"},
		// BIP-84 m/84'/0'/0'/0/0 round-trips through the uncompressed form (odd Y → 03).
		"ok bip84 odd y": {
			pub:  uncompressed(t, "0330d54fd0dd420a6e5f8d3624f5f3482cae350f79d5f0753bf5beef9c2d91af3c"),
			want: "0330d54fd0dd420a6e5f8d3624f5f3482cae350f79d5f0753bf5beef9c2d91af3c",
		},
		"fail nil":       {pub: nil, want: ""},
		"fail too short": {pub: g[:33], want: ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := bitcoin.CompressedPublicKey(tc.pub)
			if tc.want == "" {
				require.Nil(t, got)
				return
			}
			require.Equal(t, tc.want, hex.EncodeToString(got))
		})
	}
}
