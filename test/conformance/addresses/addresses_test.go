// Package addresses_test cross-checks OCV's address derivation for bitcoin,
// tron, solana, xrp and cardano against each chain's official JavaScript
// SDK, run by derive.mjs beside this file.
package addresses_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/btcsuite/btcd/btcutil/bech32"
	"github.com/btcsuite/btcd/chaincfg"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/chain/bitcoin"
	"github.com/opencustody/ocv/chain/cardano"
	"github.com/opencustody/ocv/chain/solana"
	"github.com/opencustody/ocv/chain/tron"
	"github.com/opencustody/ocv/chain/xrp"
	"github.com/opencustody/ocv/keyvault"
)

// randomKeys is how many keys of each curve the test generates.
const randomKeys = 5

// sdkPackages are the npm packages derive.mjs imports; each must be
// installed under test/conformance/node_modules.
var sdkPackages = []string{
	"bitcoinjs-lib",
	"tronweb",
	"@solana/web3.js",
	"xrpl",
	"@emurgo/cardano-serialization-lib-nodejs",
	"ethers",
}

// deriveRequest is what derive.mjs reads on stdin: public keys only.
type deriveRequest struct {
	Secp256k1 []string `json:"secp256k1"` // 65-byte uncompressed, hex
	Ed25519   []string `json:"ed25519"`   // 32 bytes, hex
}

// addressSet holds one address per key per chain, in input order. It is both
// what derive.mjs prints and what the Go packages give.
type addressSet struct {
	Bitcoin []string `json:"bitcoin"`
	Tron    []string `json:"tron"`
	Solana  []string `json:"solana"`
	XRP     []string `json:"xrp"`
	Cardano []string `json:"cardano"`
}

// deriveScript returns node and the path of derive.mjs. It FAILS (never
// skips) when node or an SDK is missing: `make test` runs npm ci first.
func deriveScript(t *testing.T) (node, script string) {
	t.Helper()
	node, err := exec.LookPath("node")
	require.NoError(t, err, "node is required for the address conformance test: install Node.js 20 and run npm ci --prefix test/conformance (make test does both)")
	_, file, _, ok := runtime.Caller(0)
	require.True(t, ok)
	dir := filepath.Dir(file)
	modules := filepath.Join(dir, "..", "node_modules")
	for _, pkg := range sdkPackages {
		_, err := os.Stat(filepath.Join(modules, filepath.FromSlash(pkg), "package.json"))
		require.NoError(t, err, "test/conformance/node_modules/%s is missing: run npm ci --prefix test/conformance (make test does that)", pkg)
	}
	return node, filepath.Join(dir, "derive.mjs")
}

// runDerive runs derive.mjs with req on stdin and decodes its answer.
func runDerive(t *testing.T, node, script string, req deriveRequest) addressSet {
	t.Helper()
	in, err := json.Marshal(req)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script)
	cmd.Dir = filepath.Dir(script)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "derive.mjs failed: %s", stderr.String())
	var out addressSet
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &out), "derive.mjs answered no JSON: %s", stdout.String())
	return out
}

// testKeys returns randomKeys fresh keys of each curve, plus fixed ones from
// the packages' known-answer vectors so that a failure is reproducible.
func testKeys(t *testing.T) ([]keyvault.Secp256k1Point, []ed25519.PublicKey) {
	t.Helper()
	one := make([]byte, 32)
	one[31] = 1
	secp := []keyvault.Secp256k1Point{
		secp256k1.PrivKeyFromBytes(one).PubKey().SerializeUncompressed(), // G (BIP-173)
	}
	for range randomKeys {
		k, err := secp256k1.GeneratePrivateKey()
		require.NoError(t, err)
		secp = append(secp, k.PubKey().SerializeUncompressed())
	}

	rfc8032, err := hex.DecodeString("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
	require.NoError(t, err)
	// CIP-19 "Test vectors" payment key (addr_vk…, bech32 of the raw key).
	_, cip19, err := bech32.DecodeToBase256("addr_vk1w0l2sr2zgfm26ztc6nl9xy8ghsk5sh6ldwemlpmp9xylzy4dtf7st80zhd")
	require.NoError(t, err)
	ed := []ed25519.PublicKey{rfc8032, cip19} // RFC 8032 TEST 1, CIP-19
	for range randomKeys {
		pub, _, err := ed25519.GenerateKey(rand.Reader)
		require.NoError(t, err)
		ed = append(ed, pub)
	}
	return secp, ed
}

// deriveGo computes every address with the OCV packages.
func deriveGo(t *testing.T, secp []keyvault.Secp256k1Point, ed []ed25519.PublicKey) addressSet {
	t.Helper()
	var out addressSet
	for _, pub := range secp {
		btc, err := bitcoin.Address(pub, &chaincfg.MainNetParams)
		require.NoError(t, err)
		out.Bitcoin = append(out.Bitcoin, btc)
		trx, err := tron.Address(pub)
		require.NoError(t, err)
		out.Tron = append(out.Tron, trx)
	}
	for _, pub := range ed {
		sol, err := solana.Address(pub)
		require.NoError(t, err)
		out.Solana = append(out.Solana, sol)
		x, err := xrp.Address(pub)
		require.NoError(t, err)
		out.XRP = append(out.XRP, x)
		ada, err := cardano.Address(pub, true)
		require.NoError(t, err)
		out.Cardano = append(out.Cardano, ada)
	}
	return out
}

func TestAddressesMatchOfficialSDKs(t *testing.T) {
	node, script := deriveScript(t)
	secp, ed := testKeys(t)

	var req deriveRequest
	for _, pub := range secp {
		req.Secp256k1 = append(req.Secp256k1, hex.EncodeToString(pub))
	}
	for _, pub := range ed {
		req.Ed25519 = append(req.Ed25519, hex.EncodeToString(pub))
	}
	js := runDerive(t, node, script, req)
	goAddrs := deriveGo(t, secp, ed)

	chains := map[string]struct {
		keys    []string
		goSide  []string
		sdkSide []string
	}{
		"bitcoin (bitcoinjs-lib p2wpkh)":      {keys: req.Secp256k1, goSide: goAddrs.Bitcoin, sdkSide: js.Bitcoin},
		"tron (tronweb)":                      {keys: req.Secp256k1, goSide: goAddrs.Tron, sdkSide: js.Tron},
		"solana (@solana/web3.js)":            {keys: req.Ed25519, goSide: goAddrs.Solana, sdkSide: js.Solana},
		"xrp (xrpl deriveAddress)":            {keys: req.Ed25519, goSide: goAddrs.XRP, sdkSide: js.XRP},
		"cardano (cardano-serialization-lib)": {keys: req.Ed25519, goSide: goAddrs.Cardano, sdkSide: js.Cardano},
	}
	for name, c := range chains {
		t.Run(name, func(t *testing.T) {
			require.Len(t, c.sdkSide, len(c.keys), "the SDK answered a different number of addresses")
			for i, key := range c.keys {
				require.Equal(t, c.sdkSide[i], c.goSide[i], "public key %s", key)
			}
		})
	}
}
