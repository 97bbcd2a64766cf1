package test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/proxy/metering/x402"
	"github.com/opencustody/ocv/proxy/metering/x402/x402test"
)

// ethersDomain is the EIP-712 domain as test/conformance/eip3009.mjs reads it.
type ethersDomain struct {
	Name              string `json:"name"`
	Version           string `json:"version"`
	ChainID           int64  `json:"chainId"`
	VerifyingContract string `json:"verifyingContract"`
}

// ethersRequest is what eip3009.mjs reads on stdin.
type ethersRequest struct {
	PrivateKey    string             `json:"privateKey,omitempty"`
	Signature     string             `json:"signature,omitempty"`
	Domain        ethersDomain       `json:"domain"`
	Authorization x402.Authorization `json:"authorization"`
}

// ethersAnswer is what eip3009.mjs prints: signature, digest and address
// when signing; digest and the recovered address when verifying.
type ethersAnswer struct {
	Signature string `json:"signature"`
	Digest    string `json:"digest"`
	Address   string `json:"address"`
	Recovered string `json:"recovered"`
}

// ethersScript returns node and the path of eip3009.mjs. It fails when node
// or the npm dependencies are missing: `make test` runs npm ci.
func ethersScript(t *testing.T) (node, script string) {
	t.Helper()
	node, err := exec.LookPath("node")
	require.NoError(t, err, "node is required (make test installs npm and runs npm ci in test/conformance)")
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "conformance")
	_, err = os.Stat(filepath.Join(dir, "node_modules", "ethers", "package.json"))
	require.NoError(t, err, "test/conformance/node_modules/ethers is missing: run npm ci --prefix test/conformance")
	return node, filepath.Join(dir, "eip3009.mjs")
}

// runEthers runs eip3009.mjs in mode with req on stdin. The request (which
// may hold a test private key) goes through stdin only and is never printed.
func runEthers(t *testing.T, node, script, mode string, req ethersRequest) ethersAnswer {
	t.Helper()
	in, err := json.Marshal(req)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, mode)
	cmd.Dir = filepath.Dir(script)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "eip3009.mjs %s failed: %s", mode, stderr.String())
	var out ethersAnswer
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &out), "eip3009.mjs %s answered no JSON", mode)
	return out
}

func domainOf(cfg x402.PaymentConfig) ethersDomain {
	return ethersDomain{Name: cfg.AssetName, Version: cfg.AssetVersion, ChainID: cfg.ChainID(),
		VerifyingContract: cfg.Asset}
}

// TestX402EthersConformance cross-checks the EIP-3009 verifier of
// proxy/metering/x402 with ethers v6 (test/conformance/eip3009.mjs): a
// payment signed by ethers verifies in Go with the same EIP-712 digest, and
// a payment signed by x402test (go-ethereum) recovers under ethers to the
// payer's address.
func TestX402EthersConformance(t *testing.T) {
	node, script := ethersScript(t)
	now := time.Now()
	for name, network := range map[string]string{
		"base":         x402.NetworkBase,
		"base sepolia": x402.NetworkBaseSepolia,
	} {
		t.Run(name, func(t *testing.T) {
			cfg := x402.PaymentConfig{PayTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", Network: network,
				FacilitatorURL: "https://facilitator.test"}.WithDefaults()
			require.NoError(t, cfg.Validate())
			key, err := crypto.GenerateKey()
			require.NoError(t, err)
			payer := crypto.PubkeyToAddress(key.PublicKey)

			t.Run("signed by ethers, verified by x402", func(t *testing.T) {
				a := x402test.Authorization(cfg, key, now)
				got := runEthers(t, node, script, "sign", ethersRequest{
					PrivateKey: "0x" + hex.EncodeToString(crypto.FromECDSA(key)),
					Domain:     domainOf(cfg), Authorization: a,
				})
				require.Equal(t, payer.Hex(), got.Address, "ethers derived another address from the key")
				digest, err := cfg.TypedDataHash(a)
				require.NoError(t, err)
				require.Equal(t, "0x"+hex.EncodeToString(digest), got.Digest, "EIP-712 digests differ")

				// Through the X-PAYMENT header, as a client sends it.
				header := x402.Payload{X402Version: x402.Version, Scheme: x402.SchemeExact, Network: cfg.Network,
					Payload: x402.ExactPayload{Signature: got.Signature, Authorization: a}}.Encode()
				p, err := x402.Decode(header)
				require.NoError(t, err)
				signer, err := cfg.Verify(p, now)
				require.NoError(t, err)
				require.Equal(t, payer, signer)

				// The ethers signature covers the value: changing it breaks the signature.
				p.Payload.Authorization.Value = "20000"
				_, err = cfg.Verify(p, now)
				require.ErrorIs(t, err, x402.ErrBadSignature)
			})

			t.Run("signed by x402test, verified by ethers", func(t *testing.T) {
				a := x402test.Authorization(cfg, key, now)
				p, err := x402test.Sign(cfg, key, a)
				require.NoError(t, err)
				got := runEthers(t, node, script, "verify", ethersRequest{
					Signature: p.Payload.Signature, Domain: domainOf(cfg), Authorization: a,
				})
				require.Equal(t, payer, common.HexToAddress(got.Recovered), "ethers recovered another signer")
				digest, err := cfg.TypedDataHash(a)
				require.NoError(t, err)
				require.True(t, strings.EqualFold("0x"+hex.EncodeToString(digest), got.Digest), "EIP-712 digests differ")
			})
		})
	}
}
