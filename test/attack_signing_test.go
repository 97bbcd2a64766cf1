package test

// Issue 12, items 1 to 4: signing intents a hostile agent (prompt-injected,
// or its token stolen) sent through the public API and had signed. Each is
// now refused with the problem type naming the guardrail that refuses it,
// and its allowed counterpart is still signed.

import (
	"encoding/hex"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/test/stack"
)

const (
	attackerAddr = "0x000000000000000000000000000000000bad0bad" // never on a list
	attackerCode = "0x00000000000000000000000000000000badc0de0"
	goodCode     = "0x0000000000000000000000000000000000c0de01"
	otherCode    = "0x0000000000000000000000000000000000c0de02"
	safeAddr     = "0x0000000000000000000000000000000000005afe"
	forwarder    = "0x000000000000000000000000000000000000f0a1"
	zeroExProxy  = "0xDef1C0ded9bec7F1a1670819833240f027b25EfF"
	zeroAddr     = "0x0000000000000000000000000000000000000000"
)

// attackABI holds the functions the attacks call, packed with go-ethereum
// so that selectors and encodings are real.
var attackABI = func() abi.ABI {
	fn := func(name string, inputs ...string) string {
		args := make([]string, len(inputs))
		for i, in := range inputs {
			args[i] = fmt.Sprintf(`{"name":"a%d","type":%q}`, i, in)
		}
		return fmt.Sprintf(`{"type":"function","name":%q,"inputs":[%s],"outputs":[]}`, name, strings.Join(args, ","))
	}
	spec := "[" + strings.Join([]string{
		fn("execTransaction", "address", "uint256", "bytes", "uint8", "uint256", "uint256", "uint256", "address", "address", "bytes"),
		fn("upgradeTo", "address"),
		fn("changeThreshold", "uint256"),
		fn("addOwnerWithThreshold", "address", "uint256"),
		fn("enableModule", "address"),
		fn("multicall", "bytes[]"),
		fn("approve", "address", "uint256"),
		fn("transfer", "address", "uint256"),
		fn("setApprovalForAll", "address", "bool"),
	}, ",") + "]"
	a, err := abi.JSON(strings.NewReader(spec))
	if err != nil {
		panic(err)
	}
	return a
}()

// abiPack is the calldata of attackABI's function name with args.
func abiPack(t *testing.T, name string, args ...any) []byte {
	t.Helper()
	b, err := attackABI.Pack(name, args...)
	require.NoError(t, err)
	return b
}

func hex0x(b []byte) string { return "0x" + hex.EncodeToString(b) }

func atkAddr(s string) common.Address { return common.HexToAddress(s) }

// uint256Max is the "infinite" allowance.
var uint256Max = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

// execTx is a Safe execTransaction of (to, value, data, operation).
func execTx(t *testing.T, to string, value int64, data []byte, operation uint8) []byte {
	t.Helper()
	return abiPack(t, "execTransaction", atkAddr(to), big.NewInt(value), data, operation, big.NewInt(0), big.NewInt(0),
		big.NewInt(0), common.Address{}, common.Address{}, []byte{1, 2, 3})
}

// signingAttacker is an agent with the intents API and an ethereum key.
type signingAttacker struct {
	id, key, jwt, address string
}

func (a *signingAttacker) txPath() string   { return "/v1/agents/" + a.id + "/transactions/sign" }
func (a *signingAttacker) signPath() string { return "/v1/agents/" + a.id + "/sign" }

func newSigningAttacker(t *testing.T, s *stack.Stack, owner stack.Account, fields map[string]any) *signingAttacker {
	t.Helper()
	body := map[string]any{"name": "hostile", "intents_api_enabled": true}
	for k, v := range fields {
		body[k] = v
	}
	a := &signingAttacker{}
	a.id, a.key = registerAgent(t, s, owner.Token, body)
	r := s.Do("POST", "/v1/agents/"+a.id+"/signing-keys", owner.Token, map[string]any{"chain": "ethereum"})
	require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
	a.address, _ = r.JSON(t)["address"].(string)
	require.True(t, common.IsHexAddress(a.address), string(r.Body))
	a.jwt = agentJWT(t, s, a.id, a.key)
	return a
}

// addTxRule gives the agent a tx_conditions rule (a policy of its own
// vault) and a fresh token: a policy change revokes the agent's tokens.
func (a *signingAttacker) addTxRule(t *testing.T, s *stack.Stack, owner stack.Account, effect string, conditions map[string]any) {
	t.Helper()
	vault := s.CreateVault(owner.Token, "rules-"+uuid.NewString()[:8])
	r := s.Do("POST", "/v1/vaults/"+vault+"/policies", owner.Token, map[string]any{"secret_path_pattern": "**",
		"principal_type": "agent", "principal_id": a.id, "permissions": []string{"read"}, "effect": effect, "priority": 10,
		"tx_conditions": conditions})
	require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
	a.jwt = agentJWT(t, s, a.id, a.key)
}

// atkCall is a signOnly transaction on Base to `to` with data.
func atkCall(nonce int, to string, data []byte) map[string]any {
	return signOnly(nonce, map[string]any{"to": to, "data": hex0x(data)})
}

// requireSigned asserts a 200 with a signed transaction or signature.
func requireSigned(t *testing.T, r stack.Response, what string) {
	t.Helper()
	require.Equal(t, http.StatusOK, r.Status, "%s: %s", what, r.Body)
}

// requireGuardrail asserts the 403 guardrail problem of name.
func requireGuardrail(t *testing.T, r stack.Response, name string) {
	t.Helper()
	requireProblem(t, r, http.StatusForbidden, "guardrail_"+name)
}

// Item 1: a type-4 transaction of value 0 to an allowlisted address whose
// EIP-7702 authorization delegates the account to arbitrary code.
func TestAttackEIP7702Delegation(t *testing.T) {
	s := stack.Start(t)
	owner := s.SignUp("attack-7702@example.com")

	t.Run("delegation to code not on tx_delegation_allowlist", func(t *testing.T) {
		a := newSigningAttacker(t, s, owner, map[string]any{"tx_to_allowlist": []string{otherTo},
			"tx_delegation_allowlist": []string{goodCode}})
		requireGuardrail(t, s.Do("POST", a.txPath(), a.jwt, signOnly(1, delegateTo(attackerCode))), "tx_delegation_allowlist")
		requireSigned(t, s.Do("POST", a.txPath(), a.jwt, signOnly(2, delegateTo(goodCode))), "a listed delegate")
	})

	t.Run("tx_conditions deny rule with delegate_in", func(t *testing.T) {
		a := newSigningAttacker(t, s, owner, map[string]any{"tx_delegation_allowlist": []string{goodCode, otherCode}})
		a.addTxRule(t, s, owner, "deny", map[string]any{"delegate_in": []string{otherCode}})
		requireGuardrail(t, s.Do("POST", a.txPath(), a.jwt, signOnly(1, delegateTo(otherCode))), "tx_conditions")
		requireSigned(t, s.Do("POST", a.txPath(), a.jwt, signOnly(2, delegateTo(goodCode))), "a delegate the deny rule does not name")
		requireSigned(t, s.Do("POST", a.txPath(), a.jwt, signOnly(3, nil)), "no delegation: the deny rule does not match")
	})

	t.Run("tx_conditions allow rule with delegate_in", func(t *testing.T) {
		a := newSigningAttacker(t, s, owner, map[string]any{"tx_delegation_allowlist": []string{goodCode, otherCode}})
		a.addTxRule(t, s, owner, "allow", map[string]any{"delegate_in": []string{goodCode}})
		requireGuardrail(t, s.Do("POST", a.txPath(), a.jwt, signOnly(1, delegateTo(otherCode))), "tx_conditions")
		requireSigned(t, s.Do("POST", a.txPath(), a.jwt, signOnly(2, delegateTo(goodCode))), "the delegate the allow rule names")
	})
}

// typedSign is a typed_data sign intent on chainID.
func typedSign(chainID int64, td map[string]any) map[string]any {
	return map[string]any{"intent_type": "typed_data", "chain_id": chainID, "typed_data": td}
}

type tdField = map[string]string

var eip712Domain4 = []tdField{{"name": "name", "type": "string"}, {"name": "version", "type": "string"},
	{"name": "chainId", "type": "uint256"}, {"name": "verifyingContract", "type": "address"}}

// transferWithAuthorization is an EIP-3009 authorization of USDC on Base
// moving value (base units) from `from` to `to`.
func transferWithAuthorization(from, to, value string) map[string]any {
	return map[string]any{
		"types": map[string]any{"EIP712Domain": eip712Domain4,
			"TransferWithAuthorization": []tdField{{"name": "from", "type": "address"}, {"name": "to", "type": "address"},
				{"name": "value", "type": "uint256"}, {"name": "validAfter", "type": "uint256"},
				{"name": "validBefore", "type": "uint256"}, {"name": "nonce", "type": "bytes32"}}},
		"primaryType": "TransferWithAuthorization",
		"domain":      map[string]any{"name": "USD Coin", "version": "2", "chainId": 8453, "verifyingContract": usdcBase},
		"message": map[string]any{"from": from, "to": to, "value": value, "validAfter": "0", "validBefore": "1999999999",
			"nonce": "0x" + strings.Repeat("ab", 32)},
	}
}

// safeTx is a Safe (1.3+) SafeTx of the Safe at safeAddr on Base.
func safeTx(to, value string, data []byte, operation int) map[string]any {
	return map[string]any{
		"types": map[string]any{
			"EIP712Domain": []tdField{{"name": "chainId", "type": "uint256"}, {"name": "verifyingContract", "type": "address"}},
			"SafeTx": []tdField{{"name": "to", "type": "address"}, {"name": "value", "type": "uint256"},
				{"name": "data", "type": "bytes"}, {"name": "operation", "type": "uint8"},
				{"name": "safeTxGas", "type": "uint256"}, {"name": "baseGas", "type": "uint256"},
				{"name": "gasPrice", "type": "uint256"}, {"name": "gasToken", "type": "address"},
				{"name": "refundReceiver", "type": "address"}, {"name": "nonce", "type": "uint256"}}},
		"primaryType": "SafeTx",
		"domain":      map[string]any{"chainId": 8453, "verifyingContract": safeAddr},
		"message": map[string]any{"to": to, "value": value, "data": hex0x(data), "operation": fmt.Sprint(operation),
			"safeTxGas": "0", "baseGas": "0", "gasPrice": "0", "gasToken": zeroAddr, "refundReceiver": zeroAddr, "nonce": "7"},
	}
}

// forwardRequest is an EIP-2771 request (OpenZeppelin v4 MinimalForwarder)
// relaying a call of from's to `to` with data.
func forwardRequest(from, to string, data []byte) map[string]any {
	return map[string]any{
		"types": map[string]any{"EIP712Domain": eip712Domain4,
			"ForwardRequest": []tdField{{"name": "from", "type": "address"}, {"name": "to", "type": "address"},
				{"name": "value", "type": "uint256"}, {"name": "gas", "type": "uint256"},
				{"name": "nonce", "type": "uint256"}, {"name": "data", "type": "bytes"}}},
		"primaryType": "ForwardRequest",
		"domain":      map[string]any{"name": "MinimalForwarder", "version": "0.0.1", "chainId": 8453, "verifyingContract": forwarder},
		"message":     map[string]any{"from": from, "to": to, "value": "0", "gas": "100000", "nonce": "0", "data": hex0x(data)},
	}
}

// zeroExLimitOrder is a 0x v4 limit order selling makerAmount of USDC (the
// maker's) for WETH, fillable by taker (zero: anyone).
func zeroExLimitOrder(maker, taker string) map[string]any {
	return map[string]any{
		"types": map[string]any{"EIP712Domain": eip712Domain4,
			"LimitOrder": []tdField{{"name": "makerToken", "type": "address"}, {"name": "takerToken", "type": "address"},
				{"name": "makerAmount", "type": "uint128"}, {"name": "takerAmount", "type": "uint128"},
				{"name": "takerTokenFeeAmount", "type": "uint128"}, {"name": "maker", "type": "address"},
				{"name": "taker", "type": "address"}, {"name": "sender", "type": "address"},
				{"name": "feeRecipient", "type": "address"}, {"name": "pool", "type": "bytes32"},
				{"name": "expiry", "type": "uint64"}, {"name": "salt", "type": "uint256"}}},
		"primaryType": "LimitOrder",
		"domain":      map[string]any{"name": "ZeroEx", "version": "1.0.0", "chainId": 8453, "verifyingContract": zeroExProxy},
		"message": map[string]any{"makerToken": usdcBase, "takerToken": "0x4200000000000000000000000000000000000006",
			"makerAmount": "1000000000000", "takerAmount": "1", "takerTokenFeeAmount": "0", "maker": maker, "taker": taker,
			"sender": zeroAddr, "feeRecipient": zeroAddr, "pool": "0x" + strings.Repeat("00", 32), "expiry": "1999999999",
			"salt": "12345"},
	}
}

// Item 2: typed data that moves assets, signed under the default deny
// policy because the classifier was a list of names.
func TestAttackTypedDataMovesAssets(t *testing.T) {
	s := stack.Start(t)
	owner := s.SignUp("attack-typed@example.com")
	const million = "1000000000000" // 1,000,000 USDC (6 decimals)

	t.Run("EIP-3009 under the default deny policy", func(t *testing.T) {
		a := newSigningAttacker(t, s, owner, map[string]any{"tx_to_allowlist": []string{allowedTo}})
		requireGuardrail(t, s.Do("POST", a.signPath(), a.jwt, typedSign(8453, transferWithAuthorization(a.address, attackerAddr, million))),
			"eip712_default_policy")
		requireGuardrail(t, s.Do("POST", a.signPath(), a.jwt, typedSign(8453, transferWithAuthorization(a.address, allowedTo, "1000000"))),
			"eip712_default_policy")
	})

	// Once the domain is allowed, the standard's effects are judged like a
	// transaction's.
	tests := map[string]struct {
		domain      string
		fields      map[string]any
		attack      func(a *signingAttacker) map[string]any
		want        string
		counterpart func(a *signingAttacker) map[string]any
	}{
		"EIP-3009 1,000,000 USDC to an unlisted address": {domain: usdcBase,
			attack: func(a *signingAttacker) map[string]any {
				return transferWithAuthorization(a.address, attackerAddr, million)
			},
			want: "tx_to_allowlist",
			counterpart: func(a *signingAttacker) map[string]any {
				return transferWithAuthorization(a.address, allowedTo, "1000000")
			}},
		"Safe SafeTx with delegatecall": {domain: safeAddr,
			attack: func(*signingAttacker) map[string]any {
				return safeTx(attackerAddr, "0", abiPack(t, "transfer", atkAddr(attackerAddr), big.NewInt(1)), 1)
			},
			want:        "tx_privileged_call",
			counterpart: func(*signingAttacker) map[string]any { return safeTx(allowedTo, "1000", nil, 0) }},
		"Safe SafeTx call moving the Safe's tokens": {domain: safeAddr,
			attack: func(*signingAttacker) map[string]any {
				return safeTx(usdcBase, "0", abiPack(t, "transfer", atkAddr(attackerAddr), big.NewInt(5_000_000)), 0)
			},
			want: "tx_to_allowlist",
			counterpart: func(*signingAttacker) map[string]any {
				return safeTx(usdcBase, "0", abiPack(t, "transfer", atkAddr(allowedTo), big.NewInt(5_000_000)), 0)
			}},
		"EIP-2771 ForwardRequest relaying a transfer": {domain: forwarder,
			attack: func(a *signingAttacker) map[string]any {
				return forwardRequest(a.address, usdcBase, abiPack(t, "transfer", atkAddr(attackerAddr), big.NewInt(1_000_000_000_000)))
			},
			want: "tx_to_allowlist",
			counterpart: func(a *signingAttacker) map[string]any {
				return forwardRequest(a.address, usdcBase, abiPack(t, "transfer", atkAddr(allowedTo), big.NewInt(1_000_000)))
			}},
		"EIP-2771 ForwardRequest relaying an unlimited approve": {domain: forwarder,
			attack: func(a *signingAttacker) map[string]any {
				return forwardRequest(a.address, usdcBase, abiPack(t, "approve", atkAddr(attackerAddr), uint256Max))
			},
			want: "tx_approval_allowlist",
			counterpart: func(a *signingAttacker) map[string]any {
				return forwardRequest(a.address, usdcBase, abiPack(t, "approve", atkAddr(allowedTo), big.NewInt(1_000_000)))
			}},
		"0x LimitOrder anyone may fill": {domain: zeroExProxy,
			attack:      func(a *signingAttacker) map[string]any { return zeroExLimitOrder(a.address, zeroAddr) },
			want:        "tx_to_allowlist",
			counterpart: func(a *signingAttacker) map[string]any { return zeroExLimitOrder(a.address, allowedTo) }},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			a := newSigningAttacker(t, s, owner, map[string]any{"tx_to_allowlist": []string{allowedTo},
				"eip712_domain_allowlist": []string{tc.domain}})
			requireGuardrail(t, s.Do("POST", a.signPath(), a.jwt, typedSign(8453, tc.attack(a))), tc.want)
			r := s.Do("POST", a.signPath(), a.jwt, typedSign(8453, tc.counterpart(a)))
			requireSigned(t, r, "the allowed counterpart")
			require.Len(t, r.JSON(t)["signature"], 132)
		})
	}
}

// permitOnChain is the USDC permit with its domain chainId replaced (nil:
// removed).
func permitOnChain(chainID any) map[string]any {
	td := permitTypedData()
	domain := td["domain"].(map[string]any)
	if chainID == nil {
		delete(domain, "chainId")
		types := td["types"].(map[string]any)
		types["EIP712Domain"] = []tdField{{"name": "name", "type": "string"}, {"name": "version", "type": "string"},
			{"name": "verifyingContract", "type": "address"}}
	} else {
		domain["chainId"] = chainID
	}
	return td
}

// Item 2: the domain chainId was not bound: a Base-only agent signed a
// chain-1 domain, and the reverse.
func TestAttackTypedDataDomainChain(t *testing.T) {
	s := stack.Start(t)
	owner := s.SignUp("attack-domain-chain@example.com")
	allowUSDC := []string{usdcBase}

	t.Run("Base-only agent, chain-1 domain", func(t *testing.T) {
		a := newSigningAttacker(t, s, owner, map[string]any{"tx_allowed_chains": []string{"base"}, "eip712_domain_allowlist": allowUSDC})
		requireGuardrail(t, s.Do("POST", a.signPath(), a.jwt, typedSign(8453, permitOnChain(1))), "eip712_domain_chain_id")
		requireGuardrail(t, s.Do("POST", a.signPath(), a.jwt, typedSign(1, permitOnChain(1))), "tx_allowed_chains")
		requireGuardrail(t, s.Do("POST", a.signPath(), a.jwt, typedSign(8453, permitOnChain(nil))), "tx_decode")
		requireSigned(t, s.Do("POST", a.signPath(), a.jwt, typedSign(8453, permitOnChain(8453))), "a Base domain on Base")
	})

	t.Run("Ethereum-only agent, Base domain", func(t *testing.T) {
		a := newSigningAttacker(t, s, owner, map[string]any{"tx_allowed_chains": []string{"ethereum"}, "eip712_domain_allowlist": allowUSDC})
		requireGuardrail(t, s.Do("POST", a.signPath(), a.jwt, typedSign(1, permitOnChain(8453))), "eip712_domain_chain_id")
		requireGuardrail(t, s.Do("POST", a.signPath(), a.jwt, typedSign(8453, permitOnChain(8453))), "tx_allowed_chains")
		requireSigned(t, s.Do("POST", a.signPath(), a.jwt, typedSign(1, permitOnChain(1))), "a chain-1 domain on Ethereum")
	})
}

// Item 3: any calldata to an allowlisted address was signed. The agent
// may send to allowedTo (its Safe, proxy or collection); the attacks call
// it with calldata that hands control or assets to the attacker.
func TestAttackCalldataToAllowlistedAddress(t *testing.T) {
	s := stack.Start(t)
	owner := s.SignUp("attack-calldata@example.com")
	listed := map[string]any{"tx_to_allowlist": []string{allowedTo}}
	attacker := atkAddr(attackerAddr)

	t.Run("Safe execTransaction with operation 1 (delegatecall)", func(t *testing.T) {
		a := newSigningAttacker(t, s, owner, listed)
		drain := abiPack(t, "transfer", attacker, big.NewInt(1_000_000))
		requireGuardrail(t, s.Do("POST", a.txPath(), a.jwt, atkCall(1, allowedTo, execTx(t, attackerAddr, 0, drain, 1))), "tx_privileged_call")
		requireSigned(t, s.Do("POST", a.txPath(), a.jwt, atkCall(2, allowedTo, execTx(t, allowedTo, 1000, nil, 0))),
			"a plain call of the Safe to a listed address")
		requireGuardrail(t, s.Do("POST", a.txPath(), a.jwt, atkCall(3, allowedTo, execTx(t, attackerAddr, 1000, nil, 0))), "tx_to_allowlist")
	})

	// A privileged call is signed only when a tx_conditions allow rule
	// names its selector.
	privileged := map[string][]byte{
		"upgradeTo":             abiPack(t, "upgradeTo", attacker),
		"changeThreshold":       abiPack(t, "changeThreshold", big.NewInt(1)),
		"addOwnerWithThreshold": abiPack(t, "addOwnerWithThreshold", attacker, big.NewInt(1)),
		"enableModule":          abiPack(t, "enableModule", attacker),
	}
	for name, data := range privileged {
		t.Run(name, func(t *testing.T) {
			a := newSigningAttacker(t, s, owner, listed)
			requireGuardrail(t, s.Do("POST", a.txPath(), a.jwt, atkCall(1, allowedTo, data)), "tx_privileged_call")
			a.addTxRule(t, s, owner, "allow", map[string]any{"function_selector_in": []string{hex0x(data[:4])}})
			requireSigned(t, s.Do("POST", a.txPath(), a.jwt, atkCall(2, allowedTo, data)), "named by an allow rule")
		})
	}

	t.Run("random selector", func(t *testing.T) {
		a := newSigningAttacker(t, s, owner, listed)
		data, _ := hex.DecodeString("deadbeef" + strings.Repeat("00", 31) + "01")
		requireGuardrail(t, s.Do("POST", a.txPath(), a.jwt, atkCall(1, allowedTo, data)), "tx_decode")
		a.addTxRule(t, s, owner, "allow", map[string]any{"function_selector_in": []string{"0xDEADBEEF"}})
		requireSigned(t, s.Do("POST", a.txPath(), a.jwt, atkCall(2, allowedTo, data)), "a selector an allow rule lists")
		other, _ := hex.DecodeString("cafebabe")
		requireGuardrail(t, s.Do("POST", a.txPath(), a.jwt, atkCall(3, allowedTo, other)), "tx_decode")
	})

	t.Run("multicall([approve(attacker, max)])", func(t *testing.T) {
		a := newSigningAttacker(t, s, owner, listed)
		inner := abiPack(t, "approve", attacker, uint256Max)
		requireGuardrail(t, s.Do("POST", a.txPath(), a.jwt, atkCall(1, allowedTo, abiPack(t, "multicall", [][]byte{inner}))), "tx_approval_allowlist")
		limitedToAttacker := abiPack(t, "approve", attacker, big.NewInt(1000))
		requireGuardrail(t, s.Do("POST", a.txPath(), a.jwt, atkCall(2, allowedTo, abiPack(t, "multicall", [][]byte{limitedToAttacker}))), "tx_to_allowlist")
		limited := abiPack(t, "approve", atkAddr(allowedTo), big.NewInt(1000))
		requireSigned(t, s.Do("POST", a.txPath(), a.jwt, atkCall(3, allowedTo, abiPack(t, "multicall", [][]byte{limited}))),
			"a limited allowance to a listed spender")
	})

	t.Run("setApprovalForAll(attacker, true) on a listed collection", func(t *testing.T) {
		a := newSigningAttacker(t, s, owner, listed)
		requireGuardrail(t, s.Do("POST", a.txPath(), a.jwt, atkCall(1, allowedTo, abiPack(t, "setApprovalForAll", attacker, true))), "tx_approval_allowlist")
		requireSigned(t, s.Do("POST", a.txPath(), a.jwt, atkCall(2, allowedTo, abiPack(t, "setApprovalForAll", attacker, false))), "a revocation")
		market := newSigningAttacker(t, s, owner, map[string]any{"tx_to_allowlist": []string{allowedTo},
			"tx_approval_allowlist": []string{otherTo}})
		requireSigned(t, s.Do("POST", market.txPath(), market.jwt, atkCall(1, allowedTo, abiPack(t, "setApprovalForAll", atkAddr(otherTo), true))),
			"an operator on tx_approval_allowlist")
	})

	t.Run("unlimited approve to a listed spender", func(t *testing.T) {
		a := newSigningAttacker(t, s, owner, listed)
		requireGuardrail(t, s.Do("POST", a.txPath(), a.jwt, atkCall(1, usdcBase, abiPack(t, "approve", atkAddr(allowedTo), uint256Max))), "tx_approval_allowlist")
		requireSigned(t, s.Do("POST", a.txPath(), a.jwt, atkCall(2, usdcBase, abiPack(t, "approve", atkAddr(allowedTo), big.NewInt(5_000_000)))),
			"a limited allowance to the listed spender")
		trusted := newSigningAttacker(t, s, owner, map[string]any{"tx_to_allowlist": []string{allowedTo},
			"tx_approval_allowlist": []string{allowedTo}})
		requireSigned(t, s.Do("POST", trusted.txPath(), trusted.jwt, atkCall(1, usdcBase, abiPack(t, "approve", atkAddr(allowedTo), uint256Max))),
			"an unlimited allowance to a spender on tx_approval_allowlist")
	})
}

// feeTx is a signOnly transaction with gas and max fee per gas (wei).
func feeTx(nonce int, gas uint64, maxFee *big.Int, extra map[string]any) map[string]any {
	tx := signOnly(nonce, map[string]any{"gas": gas, "max_fee_per_gas": "0x" + maxFee.Text(16)})
	for k, v := range extra {
		tx[k] = v
	}
	return tx
}

func gweiOf(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1_000_000_000)) }

// Item 4: fees were outside the value limits.
func TestAttackFees(t *testing.T) {
	s := stack.Start(t)
	owner := s.SignUp("attack-fees@example.com")

	t.Run("30M gas at 1000 gwei under a 0.01 ETH cap", func(t *testing.T) {
		a := newSigningAttacker(t, s, owner, map[string]any{"tx_max_value_eth": "0.01"})
		requireGuardrail(t, s.Do("POST", a.txPath(), a.jwt, feeTx(1, 30_000_000, gweiOf(1000), nil)), "tx_max_value_eth")
		// Value plus fee: 0.0099 ETH + 21000 × 10 gwei (0.00021) is over.
		requireGuardrail(t, s.Do("POST", a.txPath(), a.jwt, feeTx(2, 21000, gweiOf(10), map[string]any{"value": "0x232bff5f46c000"})),
			"tx_max_value_eth")
		// 0.005 ETH + 0.00021 ETH fits.
		requireSigned(t, s.Do("POST", a.txPath(), a.jwt, feeTx(3, 21000, gweiOf(10), map[string]any{"value": "0x11c37937e08000"})),
			"value and fee under the cap")
	})

	t.Run("overhead budget exhausted across two requests", func(t *testing.T) {
		a := newSigningAttacker(t, s, owner, map[string]any{"tx_overhead_budget": map[string]any{"base": "0.01"},
			"tx_max_value_eth": "0.001"})
		// 100000 gas × 60 gwei = 0.006 ETH: the first fits, the second
		// (0.012) does not. With a budget the fee is not counted against
		// tx_max_value_eth (0.006 > 0.001).
		requireSigned(t, s.Do("POST", a.txPath(), a.jwt, feeTx(1, 100000, gweiOf(60), nil)), "the first 0.006 ETH of fees")
		requireGuardrail(t, s.Do("POST", a.txPath(), a.jwt, feeTx(2, 100000, gweiOf(60), nil)), "tx_overhead_budget")
		// The refusal reserved nothing: 0.006 + 0.003 fits.
		requireSigned(t, s.Do("POST", a.txPath(), a.jwt, feeTx(3, 100000, gweiOf(30), nil)), "fees that still fit the day's budget")
		requireGuardrail(t, s.Do("POST", a.txPath(), a.jwt, feeTx(4, 100000, gweiOf(11), nil)), "tx_overhead_budget")
		// Another chain has no budget here: its fee counts against the
		// value cap instead.
		requireSigned(t, s.Do("POST", a.txPath(), a.jwt, feeTx(5, 100000, gweiOf(5), map[string]any{"chain_id": "ethereum"})),
			"0.0005 ETH of fees on a chain without a budget")
		requireGuardrail(t, s.Do("POST", a.txPath(), a.jwt, feeTx(6, 100000, gweiOf(60), map[string]any{"chain_id": "ethereum"})),
			"tx_max_value_eth")
	})

	t.Run("per-chain overhead_budget is stricter", func(t *testing.T) {
		a := newSigningAttacker(t, s, owner, map[string]any{"tx_overhead_budget": map[string]any{"base": 1},
			"per_chain_guardrails": map[string]any{"base": map[string]any{"overhead_budget": "0.001"}}})
		requireGuardrail(t, s.Do("POST", a.txPath(), a.jwt, feeTx(1, 30_000_000, gweiOf(1), nil)), "tx_overhead_budget")
		requireSigned(t, s.Do("POST", a.txPath(), a.jwt, feeTx(2, 100000, gweiOf(1), nil)), "0.0001 ETH of fees")
	})
}
