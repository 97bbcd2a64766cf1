package test

import (
	"context"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/test/evmnet"
	"github.com/opencustody/ocv/test/stack"
)

// intentsEnv is a stack with an admin, a chain "devnet" served by a real
// EVM (go-ethereum's simulated backend over JSON-RPC on loopback), a human
// owner and an agent with the intents API on and an ethereum key.
type intentsEnv struct {
	s       *stack.Stack
	net     *evmnet.Net
	eth     *ethclient.Client
	owner   stack.Account
	agentID string
	agent   string // the agent's JWT
	address common.Address
}

func newIntentsEnv(t *testing.T, agentFields map[string]any) *intentsEnv {
	t.Helper()
	net := evmnet.Start(t)
	s := stack.Start(t, stack.WithProxyEnv("OCV_BOOTSTRAP_ADMIN_EMAIL="+rootEmail, "OCV_BOOTSTRAP_ADMIN_PASSWORD="+rootPassword,
		"OCV_TXWATCH_INTERVAL=200ms"))
	root := signIn(t, s, rootEmail, rootPassword)["access_token"].(string)
	r := s.Do("POST", "/v1/admin/chains", root, map[string]any{"id": "devnet", "name": "Devnet", "chain_id": net.ChainID,
		"aliases": []string{"localnet"}, "rpc_url": net.URL, "is_testnet": true})
	require.Equal(t, http.StatusCreated, r.Status, string(r.Body))

	env := &intentsEnv{s: s, net: net, owner: s.SignUp("intents-owner@example.com")}
	body := map[string]any{"name": "signer", "intents_api_enabled": true, "message_signing_enabled": true}
	for k, v := range agentFields {
		body[k] = v
	}
	id, key := registerAgent(t, s, env.owner.Token, body)
	env.agentID, env.agent = id, agentJWT(t, s, id, key)
	r = s.Do("POST", "/v1/agents/"+id+"/signing-keys", env.owner.Token, map[string]any{"chain": "ethereum"})
	require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
	env.address = common.HexToAddress(r.JSON(t)["address"].(string))
	cl, err := ethclient.Dial(net.URL)
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	env.eth = cl
	return env
}

func (e *intentsEnv) path(p string) string { return "/v1/agents/" + e.agentID + p }

// balance reads an address's native balance.
func (e *intentsEnv) balance(t *testing.T, a common.Address) *big.Int {
	t.Helper()
	b, err := e.eth.BalanceAt(context.Background(), a, nil)
	require.NoError(t, err)
	return b
}

// tokenBalance reads balanceOf(holder) of the test token.
func (e *intentsEnv) tokenBalance(t *testing.T, token, holder common.Address) *big.Int {
	t.Helper()
	out, err := e.eth.CallContract(context.Background(), ethereumCall(token, evmnet.BalanceOfData(holder)), nil)
	require.NoError(t, err)
	return new(big.Int).SetBytes(out)
}

func ether(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e18)) }

func TestIntentsTransactionsOnARealEVM(t *testing.T) {
	e := newIntentsEnv(t, nil)
	ctx := context.Background()
	e.net.Fund(t, e.address, ether(10))
	recipient := common.HexToAddress("0x00000000000000000000000000000000000000b0")

	t.Run("native transfer is signed, broadcast, mined", func(t *testing.T) {
		r := e.s.Do("POST", e.path("/transactions"), e.agent, map[string]any{"chain_id": "devnet", "to": recipient.Hex(),
			"value": hexutil.EncodeBig(ether(1))})
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		tx := r.JSON(t)
		require.Equal(t, "broadcast", tx["status"])
		require.Equal(t, e.address.Hex(), tx["from"])
		rec := e.net.WaitReceipt(t, common.HexToHash(tx["tx_hash"].(string)))
		require.Equal(t, types.ReceiptStatusSuccessful, rec.Status)
		require.Equal(t, ether(1), e.balance(t, recipient))
		waitTxStatus(t, e, tx["id"].(string), "confirmed") // the watcher, without a read of the transaction

		got := e.s.Do("GET", e.path("/transactions/"+tx["id"].(string)), e.agent, nil).JSON(t)
		require.Equal(t, tx["tx_hash"], got["tx_hash"])
		require.NotContains(t, got, "signed_tx", "signed_tx only on request")
		require.Equal(t, "confirmed", got["status"], "the watcher recorded the receipt")
		require.EqualValues(t, rec.BlockNumber.Int64(), got["block_number"])
		require.EqualValues(t, rec.GasUsed, got["gas_used"])
		got = e.s.Do("GET", e.path("/transactions/"+tx["id"].(string)+"?include_signed_tx=true"), e.agent, nil).JSON(t)
		require.Equal(t, tx["signed_tx"], got["signed_tx"])
		list := e.s.Do("GET", e.path("/transactions"), e.owner.Token, nil).JSON(t)
		require.Len(t, list["items"], 1)
	})

	t.Run("ERC-20 transfer built by the server moves tokens", func(t *testing.T) {
		token := e.net.DeployToken(t, e.address, ether(1000))
		r := e.s.Do("POST", e.path("/transactions"), e.agent, map[string]any{"chain_id": 1337, "to": recipient.Hex(),
			"token_mint": token.Hex(), "token_decimals": 18, "value": "2.5"})
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		tx := r.JSON(t)
		require.Equal(t, strings.ToLower(token.Hex()), tx["token_address"])
		rec := e.net.WaitReceipt(t, common.HexToHash(tx["tx_hash"].(string)))
		require.Equal(t, types.ReceiptStatusSuccessful, rec.Status)
		half := new(big.Int).Div(ether(5), big.NewInt(2))
		require.Equal(t, half, e.tokenBalance(t, token, recipient))

		// Simulation shows both sides of a transfer and signs nothing.
		r = e.s.Do("POST", e.path("/transactions/simulate"), e.agent, map[string]any{"chain_id": "localnet",
			"to": recipient.Hex(), "token_mint": token.Hex(), "value": "0x64"})
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		sim := r.JSON(t)
		require.Equal(t, true, sim["success"])
		require.NotZero(t, sim["gas_estimate"])
		require.Contains(t, string(r.Body), `"delta":"100"`)
		require.Contains(t, string(r.Body), `"delta":"-100"`)

		r = e.s.Do("GET", e.path("/signing-keys/devnet/balance?tokens="+token.Hex()), e.agent, nil)
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		require.Contains(t, string(r.Body), new(big.Int).Sub(ether(1000), half).String())
	})

	t.Run("a reverting call with simulate_first is 422 and consumes no nonce", func(t *testing.T) {
		reverter := e.net.DeployReverter(t)
		before, err := e.eth.PendingNonceAt(ctx, e.address)
		require.NoError(t, err)
		r := e.s.Do("POST", e.path("/transactions"), e.agent, map[string]any{"chain_id": "devnet", "to": reverter.Hex(),
			"data": "0x12345678", "simulate_first": true})
		requireProblem(t, r, http.StatusUnprocessableEntity, "simulation_reverted")
		require.Contains(t, string(r.Body), "always reverts")
		// The next transaction takes the nonce the reverted one would have had.
		r = e.s.Do("POST", e.path("/transactions"), e.agent, map[string]any{"chain_id": "devnet", "to": recipient.Hex(), "value": "0x1"})
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		require.EqualValues(t, before, r.JSON(t)["nonce"])
		e.net.WaitReceipt(t, common.HexToHash(r.JSON(t)["tx_hash"].(string)))
	})

	t.Run("concurrent sends get distinct nonces and are all mined", func(t *testing.T) {
		const n = 8
		hashes := make(chan string, n)
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				r := e.s.Do("POST", e.path("/transactions"), e.agent, map[string]any{"chain_id": "devnet", "to": recipient.Hex(), "value": "0x7"})
				if r.Status != http.StatusOK {
					t.Errorf("send: %d %s", r.Status, r.Body)
					return
				}
				hashes <- r.JSON(t)["tx_hash"].(string)
			})
		}
		wg.Wait()
		close(hashes)
		nonces := map[uint64]bool{}
		for h := range hashes {
			rec := e.net.WaitReceipt(t, common.HexToHash(h))
			require.Equal(t, types.ReceiptStatusSuccessful, rec.Status)
			tx, _, err := e.eth.TransactionByHash(ctx, common.HexToHash(h))
			require.NoError(t, err)
			require.False(t, nonces[tx.Nonce()], "nonce %d used twice", tx.Nonce())
			nonces[tx.Nonce()] = true
		}
		require.Len(t, nonces, n)
	})

	t.Run("a rejected broadcast gives its nonce back", func(t *testing.T) {
		before, err := e.eth.PendingNonceAt(ctx, e.address)
		require.NoError(t, err)
		// More than the balance, with the gas given so that no estimate
		// refuses it first: the node rejects the broadcast.
		r := e.s.Do("POST", e.path("/transactions"), e.agent, map[string]any{"chain_id": "devnet", "to": recipient.Hex(),
			"value": hexutil.EncodeBig(ether(5000)), "gas": 21000})
		requireProblem(t, r, http.StatusBadGateway, "broadcast_rejected")
		list := e.s.Do("GET", e.path("/transactions?limit=1"), e.agent, nil).JSON(t)["items"].([]any)
		require.Equal(t, "failed", list[0].(map[string]any)["status"])
		r = e.s.Do("POST", e.path("/transactions"), e.agent, map[string]any{"chain_id": "devnet", "to": recipient.Hex(), "value": "0x2"})
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		require.EqualValues(t, before, r.JSON(t)["nonce"], "the rejected transaction's nonce is used again")
		e.net.WaitReceipt(t, common.HexToHash(r.JSON(t)["tx_hash"].(string)))
	})

	t.Run("an Idempotency-Key sends a transaction once", func(t *testing.T) {
		body := map[string]any{"chain_id": "devnet", "to": recipient.Hex(), "value": "0x3"}
		h := http.Header{"Idempotency-Key": {"pay-once-1"}}
		first := e.s.DoHeaders("POST", e.path("/transactions"), e.agent, body, h)
		require.Equal(t, http.StatusOK, first.Status, string(first.Body))
		again := e.s.DoHeaders("POST", e.path("/transactions"), e.agent, body, h)
		require.Equal(t, http.StatusOK, again.Status, string(again.Body))
		require.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
		require.Equal(t, first.JSON(t)["tx_hash"], again.JSON(t)["tx_hash"])
		e.net.WaitReceipt(t, common.HexToHash(first.JSON(t)["tx_hash"].(string)))
	})

	t.Run("a bundle is simulated in order", func(t *testing.T) {
		r := e.s.Do("POST", e.path("/transactions/simulate-bundle"), e.agent, map[string]any{"transactions": []map[string]any{
			{"chain_id": "devnet", "to": recipient.Hex(), "value": "0x5"},
			{"chain_id": "devnet", "to": e.net.DeployReverter(t).Hex(), "data": "0x01020304"},
		}})
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		results := r.JSON(t)["results"].([]any)
		require.Len(t, results, 2)
		require.Equal(t, true, results[0].(map[string]any)["success"])
		require.Equal(t, false, results[1].(map[string]any)["success"])
		require.Equal(t, "always reverts", results[1].(map[string]any)["revert_reason"])
	})

	t.Run("an unknown broadcast outcome is resent and confirmed by the watcher", func(t *testing.T) {
		pending, err := e.eth.PendingNonceAt(ctx, e.address)
		require.NoError(t, err)
		r := e.s.Do("POST", e.path("/transactions/sign"), e.agent, map[string]any{"chain_id": "devnet", "to": recipient.Hex(),
			"value": "0x9", "nonce": pending, "gas": 21000, "max_fee_per_gas": "0x174876e800", "max_priority_fee_per_gas": "0x3b9aca00"})
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		id := r.JSON(t)["id"].(string)
		// As if the proxy had sent it and lost the answer: signed, watched.
		execSQL(t, e.s, `UPDATE agent_transactions SET next_check_at = now(), watch_until = now() + interval '1 hour',
			sign_only = false WHERE id = '`+id+`'`)
		e.net.WaitReceipt(t, common.HexToHash(r.JSON(t)["tx_hash"].(string)))
		waitTxStatus(t, e, id, "confirmed")
	})

	t.Run("an unsent sign-only transaction gives its reserved nonce back", func(t *testing.T) {
		pending, err := e.eth.PendingNonceAt(ctx, e.address)
		require.NoError(t, err)
		r := e.s.Do("POST", e.path("/transactions/sign"), e.agent, map[string]any{"chain_id": "devnet", "to": recipient.Hex(), "value": "0x4"})
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		require.EqualValues(t, pending, r.JSON(t)["nonce"], "the server reserved the next nonce")
		id := r.JSON(t)["id"].(string)
		// The caller never sends it; its grace period has passed.
		execSQL(t, e.s, `UPDATE agent_transactions SET created_at = now() - interval '11 minutes', next_check_at = now() WHERE id = '`+id+`'`)
		waitTxStatus(t, e, id, "abandoned")
		r = e.s.Do("POST", e.path("/transactions"), e.agent, map[string]any{"chain_id": "devnet", "to": recipient.Hex(), "value": "0x5"})
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		require.EqualValues(t, pending, r.JSON(t)["nonce"], "no gap: the abandoned nonce is used again")
		e.net.WaitReceipt(t, common.HexToHash(r.JSON(t)["tx_hash"].(string)))
	})

	t.Run("sign only returns a transaction that recovers to the agent", func(t *testing.T) {
		r := e.s.Do("POST", e.path("/transactions/sign"), e.agent, map[string]any{"chain_id": "devnet", "to": recipient.Hex(),
			"value": "0x10", "nonce": 900, "gas": 21000, "max_fee_per_gas": "0x3b9aca00", "max_priority_fee_per_gas": "0x1"})
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		raw := hexutil.MustDecode(r.JSON(t)["signed_tx"].(string))
		var tx types.Transaction
		require.NoError(t, tx.UnmarshalBinary(raw))
		from, err := types.Sender(types.LatestSignerForChainID(tx.ChainId()), &tx)
		require.NoError(t, err)
		require.Equal(t, e.address, from)
		require.EqualValues(t, 900, tx.Nonce())
	})

	t.Run("messages and typed data recover to the agent", func(t *testing.T) {
		r := e.s.Do("POST", e.path("/sign"), e.agent, map[string]any{"intent_type": "personal_sign", "message": "hello ocv"})
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		sig := hexutil.MustDecode(r.JSON(t)["signature"].(string))
		require.Equal(t, e.address, recoverPersonal(t, []byte("hello ocv"), sig))

		r = e.s.Do("POST", e.path("/sign"), e.agent, map[string]any{"intent_type": "eip712_digest", "hash": hexutil.Encode(make([]byte, 32))})
		requireProblem(t, r, http.StatusForbidden, "guardrail_raw_signing_enabled")
	})

	t.Run("an agent without the intents flag and humans are refused", func(t *testing.T) {
		id, key := registerAgent(t, e.s, e.owner.Token, map[string]any{"name": "no-intents"})
		plain := agentJWT(t, e.s, id, key)
		requireProblem(t, e.s.Do("POST", "/v1/agents/"+id+"/sign", plain, map[string]any{"intent_type": "personal_sign", "message": "x"}),
			http.StatusForbidden, "intents_disabled")
		requireProblem(t, e.s.Do("POST", e.path("/sign"), e.owner.Token, map[string]any{"intent_type": "personal_sign", "message": "x"}),
			http.StatusForbidden, "forbidden")
		// Another agent's keys are not reachable.
		requireProblem(t, e.s.Do("GET", "/v1/agents/"+id+"/signing-keys", e.agent, nil), http.StatusNotFound, "not_found")
		// Nor is a transaction of theirs (or none at all): "transaction not found".
		missing := e.s.Do("GET", e.path("/transactions/0190f1a2-0000-7000-8000-00000000dead"), e.agent, nil)
		requireProblem(t, missing, http.StatusNotFound, "not_found")
		require.Equal(t, "transaction not found", missing.JSON(t)["detail"])
		// The signing routes of another agent answer like a missing agent.
		other := e.s.Do("POST", "/v1/agents/"+id+"/sign", e.agent, map[string]any{"intent_type": "personal_sign", "message": "x"})
		requireProblem(t, other, http.StatusNotFound, "not_found")
		require.Equal(t, "agent not found", other.JSON(t)["detail"])
	})
}

// recoverPersonal recovers the signer of an EIP-191 signature (v 27/28).
func recoverPersonal(t *testing.T, msg, sig []byte) common.Address {
	t.Helper()
	require.Len(t, sig, 65)
	s := append([]byte{}, sig...)
	s[64] -= 27
	pub, err := crypto.SigToPub(accountsTextHash(msg), s)
	require.NoError(t, err)
	return crypto.PubkeyToAddress(*pub)
}

// waitTxStatus waits until the agent's transaction id shows status in the
// list (which never asks the chain itself: the watcher moved it).
func waitTxStatus(t *testing.T, e *intentsEnv, id, status string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		list := e.s.Do("GET", e.path("/transactions?limit=500"), e.agent, nil).JSON(t)["items"].([]any)
		for _, it := range list {
			if m := it.(map[string]any); m["id"] == id && m["status"] == status {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("transaction %s never reached %s", id, status)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
