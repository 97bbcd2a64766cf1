package evmnet

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
)

const (
	// receiptWait bounds how long a helper waits for a receipt before failing
	// the test; it guards against hangs and asserts nothing about speed.
	receiptWait = 2 * time.Minute
	// deployGas is the gas limit of deployments (the contracts are tiny).
	deployGas = 2_000_000
	// fallbackGas is the gas limit Send uses when estimation fails.
	fallbackGas = 500_000
)

// Address returns the address of Keys[i].
func (n *Net) Address(i int) common.Address {
	return crypto.PubkeyToAddress(n.Keys[i].PublicKey)
}

// Fund sends wei from Keys[0] to `to` and waits for the receipt.
func (n *Net) Fund(t testing.TB, to common.Address, wei *big.Int) {
	t.Helper()
	n.sendMu.Lock()
	defer n.sendMu.Unlock()
	r := n.Send(t, n.Keys[0], &to, wei, nil, params.TxGas)
	if r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("evmnet: funding %s failed", to)
	}
}

// DeployToken deploys the test ERC-20 token from Keys[0] with supply held by
// holder and returns its address. See tokenInitCode for the storage layout.
func (n *Net) DeployToken(t testing.TB, holder common.Address, supply *big.Int) common.Address {
	t.Helper()
	code, err := tokenInitCode(holder, supply)
	if err != nil {
		t.Fatalf("evmnet: %v", err)
	}
	return n.deploy(t, code)
}

// DeployReverter deploys a contract whose every call reverts with
// Error("always reverts") and returns its address.
func (n *Net) DeployReverter(t testing.TB) common.Address {
	t.Helper()
	code, err := reverterInitCode()
	if err != nil {
		t.Fatalf("evmnet: %v", err)
	}
	return n.deploy(t, code)
}

func (n *Net) deploy(t testing.TB, code []byte) common.Address {
	t.Helper()
	n.sendMu.Lock()
	defer n.sendMu.Unlock()
	r := n.Send(t, n.Keys[0], nil, nil, code, deployGas)
	if r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("evmnet: deployment failed")
	}
	return r.ContractAddress
}

// Send signs an EIP-1559 transaction from key (to == nil deploys data),
// submits it and waits for its receipt, which it returns whatever the status.
// gas == 0 means estimate it, or use fallbackGas when estimation fails (a call
// that reverts), so that failing transactions can be mined on purpose.
// Callers sending concurrently from the same key must serialise themselves.
func (n *Net) Send(t testing.TB, key *ecdsa.PrivateKey, to *common.Address, value *big.Int, data []byte, gas uint64) *types.Receipt {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), receiptWait)
	defer cancel()
	from := crypto.PubkeyToAddress(key.PublicKey)
	nonce, err := n.client.PendingNonceAt(ctx, from)
	if err != nil {
		t.Fatalf("evmnet: nonce: %v", err)
	}
	head, err := n.client.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatalf("evmnet: head: %v", err)
	}
	tip := big.NewInt(params.GWei)
	feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip)
	if value == nil {
		value = new(big.Int)
	}
	if gas == 0 {
		gas = fallbackGas
		if est, err := n.client.EstimateGas(ctx, ethereum.CallMsg{From: from, To: to, Value: value, Data: data}); err == nil {
			gas = est + est/4
		}
	}
	tx := types.MustSignNewTx(key, types.LatestSignerForChainID(new(big.Int).SetUint64(n.ChainID)), &types.DynamicFeeTx{
		ChainID:   new(big.Int).SetUint64(n.ChainID),
		Nonce:     nonce,
		GasTipCap: tip,
		GasFeeCap: feeCap,
		Gas:       gas,
		To:        to,
		Value:     value,
		Data:      data,
	})
	if err := n.client.SendTransaction(ctx, tx); err != nil {
		t.Fatalf("evmnet: sending: %v", err)
	}
	return n.WaitReceipt(t, tx.Hash())
}

// WaitReceipt polls until the transaction is mined (the auto-miner seals it)
// and returns its receipt.
func (n *Net) WaitReceipt(t testing.TB, hash common.Hash) *types.Receipt {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), receiptWait)
	defer cancel()
	tick := time.NewTicker(minePoll)
	defer tick.Stop()
	for {
		r, err := n.client.TransactionReceipt(ctx, hash)
		if err == nil {
			return r
		}
		// A fresh node answers "transaction indexing is in progress" until
		// its indexer catches up: that is "not yet" too.
		if !errors.Is(err, ethereum.NotFound) && !strings.Contains(err.Error(), "indexing is in progress") {
			t.Fatalf("evmnet: receipt %s: %v", hash, err)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("evmnet: no receipt for %s: %v", hash, ctx.Err())
		case <-tick.C:
		}
	}
}
