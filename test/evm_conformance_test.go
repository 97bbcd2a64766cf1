package test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/test/stack"
)

// TestEVMSignaturesWithEthers has the running stack sign an EIP-191
// message, EIP-712 typed data and a transaction of each EIP-2718 type 0 to
// 4, and verifies with ethers (npm, test/conformance/evm/verify.mjs) that
// every one recovers the agent's address. It fails when node or the npm
// dependencies are missing: `make test` runs npm ci.
func TestEVMSignaturesWithEthers(t *testing.T) {
	node, err := exec.LookPath("node")
	require.NoError(t, err, "node is required (make test installs it and runs npm ci in test/conformance)")
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "conformance")
	_, err = os.Stat(filepath.Join(dir, "node_modules", "ethers", "package.json"))
	require.NoError(t, err, "test/conformance/node_modules is missing: run npm ci --prefix test/conformance")

	s := stack.Start(t)
	owner := s.SignUp("ethers@example.com")
	id, agent := guardedAgent(t, s, owner, map[string]any{"message_signing_enabled": true,
		"eip712_default_policy": "allow", "tx_delegation_allowlist": []string{allowedTo}})
	address := s.Do("GET", "/v1/agents/"+id+"/signing-keys/ethereum", agent, nil).JSON(t)["address"]

	type kase map[string]any
	var cases []kase
	sign := func(name string, body map[string]any) map[string]any {
		r := s.Do("POST", "/v1/agents/"+id+"/sign", agent, body)
		require.Equal(t, http.StatusOK, r.Status, "%s: %s", name, r.Body)
		return r.JSON(t)
	}
	for _, msg := range []string{"hello from OCV", "0xdeadbeef"} {
		res := sign("personal "+msg, map[string]any{"intent_type": "personal_sign", "message": msg})
		cases = append(cases, kase{"name": "personal_sign " + msg, "kind": "personal_sign", "message": msg, "signature": res["signature"]})
	}
	mail := mailTypedData()
	res := sign("typed data", map[string]any{"intent_type": "typed_data", "chain_id": 1, "typed_data": mail})
	cases = append(cases, kase{"name": "typed_data Mail", "kind": "typed_data", "typed_data": mail, "signature": res["signature"]})

	base := map[string]any{"chain_id": "base", "to": otherTo, "value": "0x2a", "gas": 100000}
	txs := map[string]map[string]any{
		"type 0 legacy EIP-155": {"type": 0, "gas_price": "0x3b9aca00"},
		"type 1 EIP-2930": {"type": 1, "gas_price": "0x3b9aca00", "access_list": []map[string]any{{"address": otherTo,
			"storage_keys": []string{"0x0000000000000000000000000000000000000000000000000000000000000001"}}}},
		"type 2 EIP-1559": {"type": 2, "max_fee_per_gas": "0x3b9aca00", "max_priority_fee_per_gas": "0x2"},
		"type 3 EIP-4844": {"type": 3, "max_fee_per_gas": "0x3b9aca00", "max_priority_fee_per_gas": "0x2",
			"max_fee_per_blob_gas": "0x10", "blob_versioned_hashes": []string{"0x01" + string(bytes.Repeat([]byte("ab"), 31))}},
		"type 4 EIP-7702": {"type": 4, "max_fee_per_gas": "0x3b9aca00", "max_priority_fee_per_gas": "0x2",
			"authorization_list": []map[string]any{{"chain_id": 8453, "address": allowedTo, "nonce": 7}}},
	}
	nonce := 0
	for name, extra := range txs {
		tx := map[string]any{"nonce": nonce}
		nonce++
		for k, v := range base {
			tx[k] = v
		}
		for k, v := range extra {
			tx[k] = v
		}
		res := sign(name, map[string]any{"intent_type": "transaction", "transaction": tx})
		cases = append(cases, kase{"name": name, "kind": "transaction", "raw_tx": res["signed_tx"], "tx_type": extra["type"], "chain_id": 8453})
	}

	in, err := json.Marshal(map[string]any{"address": address, "cases": cases})
	require.NoError(t, err)
	cmd := exec.CommandContext(stack.Context(t), node, filepath.Join(dir, "evm", "verify.mjs"))
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "ethers refused a signature:\n%s", out)
	require.Equal(t, len(cases), bytes.Count(out, []byte(`"ok":true`)), string(out))
}

// mailTypedData is the EIP-712 specification's example.
func mailTypedData() map[string]any {
	person := []map[string]string{{"name": "name", "type": "string"}, {"name": "wallet", "type": "address"}}
	return map[string]any{
		"types": map[string]any{
			"EIP712Domain": []map[string]string{{"name": "name", "type": "string"}, {"name": "version", "type": "string"},
				{"name": "chainId", "type": "uint256"}, {"name": "verifyingContract", "type": "address"}},
			"Person": person,
			"Mail": []map[string]string{{"name": "from", "type": "Person"}, {"name": "to", "type": "Person"},
				{"name": "contents", "type": "string"}},
		},
		"primaryType": "Mail",
		"domain": map[string]any{"name": "Ether Mail", "version": "1", "chainId": 1,
			"verifyingContract": "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC"},
		"message": map[string]any{
			"from":     map[string]any{"name": "Cow", "wallet": "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"},
			"to":       map[string]any{"name": "Bob", "wallet": "0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"},
			"contents": "Hello, Bob!",
		},
	}
}
