package evm

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// conformanceDir is test/conformance relative to this package.
var conformanceDir = filepath.Join("..", "..", "test", "conformance")

type conformanceCase struct {
	Name      string          `json:"name"`
	Kind      string          `json:"kind"`
	Message   string          `json:"message,omitempty"`
	TypedData json.RawMessage `json:"typed_data,omitempty"`
	Signature string          `json:"signature,omitempty"`
	RawTx     string          `json:"raw_tx,omitempty"`
	TxType    *uint8          `json:"tx_type,omitempty"`
	ChainID   uint64          `json:"chain_id,omitempty"`
}

// requireNodeEthers skips when node or ethers is missing, unless
// OCV_REQUIRE_CONFORMANCE is set (make test), where it fails instead.
func requireNodeEthers(t *testing.T) string {
	t.Helper()
	why := ""
	node, err := exec.LookPath("node")
	if err != nil {
		why = "node is not on PATH"
	} else if _, err := os.Stat(filepath.Join(conformanceDir, "node_modules", "ethers", "package.json")); err != nil {
		why = "test/conformance/node_modules/ethers is missing (run npm ci --prefix test/conformance)"
	}
	if why == "" {
		return node
	}
	if os.Getenv("OCV_REQUIRE_CONFORMANCE") != "" {
		t.Fatalf("ethers conformance cannot run: %s", why)
	}
	t.Skipf("skipping ethers conformance: %s", why)
	return ""
}

// TestEthersConformance signs one case of each kind through this package
// (raw high-S r‖s as an HSM returns it → RecoverableSignature) and has
// ethers v6 verify them in test/conformance/evm/verify.mjs.
func TestEthersConformance(t *testing.T) {
	node := requireNodeEthers(t)
	s := newTestSigner(t, testKeyHex)
	addr, err := Address(s.pub)
	require.NoError(t, err)

	var cases []conformanceCase
	for _, msg := range []string{"Hello from OCV ✓", "0xdeadbeef", "0x", "0xabc"} {
		sig := s.signRecoverable(t, PersonalMessageHash(DecodeMessage(msg)), true)
		cases = append(cases, conformanceCase{Name: "personal_sign " + msg, Kind: "personal_sign", Message: msg, Signature: hexOf(sig)})
	}
	for name, doc := range map[string]string{"typed_data mail": readMail(t), "typed_data permit": permitDoc} {
		digest, _, err := TypedDataHash([]byte(doc))
		require.NoError(t, err)
		sig := s.signRecoverable(t, digest, true)
		cases = append(cases, conformanceCase{Name: name, Kind: "typed_data", TypedData: json.RawMessage(doc), Signature: hexOf(sig)})
	}
	for name, req := range roundTripRequests() {
		completeFees(&req)
		signAuthorizations(t, &req, s)
		tx, err := BuildTx(req)
		require.NoError(t, err, name)
		h, err := SigningHash(tx)
		require.NoError(t, err)
		_, raw, _, err := AssembleTx(tx, s.signRecoverable(t, h[:], true))
		require.NoError(t, err)
		typ := tx.Type()
		cases = append(cases, conformanceCase{Name: "transaction " + name, Kind: "transaction", RawTx: hexOf(raw), TxType: &typ, ChainID: req.ChainID})
	}

	results, err := runVerify(t, node, addr.Hex(), cases)
	require.NoError(t, err)
	require.Len(t, results, len(cases))
	for _, res := range results {
		require.True(t, res.OK, "%s: recovered %s: %s", res.Name, res.Recovered, res.Error)
		require.True(t, strings.EqualFold(addr.Hex(), res.Recovered), res.Name)
	}

	// The script must also notice a wrong signer, or the check above is void.
	results, err = runVerify(t, node, "0x9d8A62f656a8d1615C1294fd71e9CFb3E4855A4F", cases)
	require.Error(t, err)
	require.Len(t, results, len(cases))
	for _, res := range results {
		require.False(t, res.OK, res.Name)
	}
}

type verifyResult struct {
	Name      string `json:"name"`
	OK        bool   `json:"ok"`
	Recovered string `json:"recovered"`
	Error     string `json:"error"`
}

// runVerify feeds cases to verify.mjs and returns its result lines and its
// exit error (non-nil when any case failed).
func runVerify(t *testing.T, node, address string, cases []conformanceCase) ([]verifyResult, error) {
	t.Helper()
	input, err := json.Marshal(map[string]any{"address": address, "cases": cases})
	require.NoError(t, err)
	cmd := exec.CommandContext(t.Context(), node, filepath.Join(conformanceDir, "evm", "verify.mjs"))
	cmd.Stdin = bytes.NewReader(input)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	require.Empty(t, stderr.String())
	var results []verifyResult
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var res verifyResult
		require.NoError(t, json.Unmarshal(sc.Bytes(), &res), sc.Text())
		results = append(results, res)
	}
	require.NoError(t, sc.Err())
	return results, runErr
}

func hexOf(b []byte) string { return "0x" + hex.EncodeToString(b) }

// permitDoc is an EIP-2612 permit with an unlimited value written as a
// decimal string, the shape dApps send.
const permitDoc = `{
  "types": {
    "EIP712Domain": [
      {"name": "name", "type": "string"},
      {"name": "version", "type": "string"},
      {"name": "chainId", "type": "uint256"},
      {"name": "verifyingContract", "type": "address"}
    ],
    "Permit": [
      {"name": "owner", "type": "address"},
      {"name": "spender", "type": "address"},
      {"name": "value", "type": "uint256"},
      {"name": "nonce", "type": "uint256"},
      {"name": "deadline", "type": "uint256"}
    ]
  },
  "primaryType": "Permit",
  "domain": {"name": "USD Coin", "version": "2", "chainId": "0x2105", "verifyingContract": "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"},
  "message": {
    "owner": "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23",
    "spender": "0x000000000022D473030F116dDEE9F6B43aC78BA3",
    "value": "115792089237316195423570985008687907853269984665640564039457584007913129639935",
    "nonce": 0,
    "deadline": 1893456000
  }
}`
