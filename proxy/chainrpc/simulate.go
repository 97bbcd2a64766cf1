package chainrpc

import (
	"context"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
)

// SimResult is the outcome of one call of a simulated bundle.
type SimResult struct {
	// Status is types.ReceiptStatusSuccessful (1) or ReceiptStatusFailed (0).
	Status uint64
	// GasUsed is the gas the call used in the simulation (0 when Partial).
	GasUsed uint64
	// GasEstimate is eth_estimateGas for a successful call: set for a
	// single-call bundle and for every successful call when Partial; 0 else.
	GasEstimate uint64
	// ReturnData is what the call returned (the revert data on a revert).
	ReturnData []byte
	// Revert is set when the call reverted.
	Revert *RevertError
	// Error describes a failure other than a revert (out of gas, invalid
	// opcode, ...), scrubbed; empty on success or revert.
	Error string
	// Logs are the logs the call emitted, without the native-transfer
	// pseudo-logs eth_simulateV1 adds (those feed BalanceChanges).
	Logs []*types.Log
	// BalanceChanges are the net native and ERC-20 balance changes of this
	// call, derived from Transfer logs; gas fees are not included.
	BalanceChanges []BalanceChange
	// Partial is true when the node lacked eth_simulateV1 and the call was
	// run alone with eth_call + eth_estimateGas against the latest state:
	// later calls did not see earlier ones, and there are no logs or
	// balance changes.
	Partial bool
}

// Simulate runs calls in order as if all were sent by from in one block, so
// that later calls see the state earlier ones left (eth_simulateV1 with
// validation off and traceTransfers on). Each call's From is replaced by
// from. A reverted call is a result with Status 0, not an error; an error
// means the node failed or refused the whole simulation.
func (c *Client) Simulate(ctx context.Context, from common.Address, calls []ethereum.CallMsg) ([]SimResult, error) {
	if len(calls) == 0 {
		return nil, fmt.Errorf("%w: no calls to simulate", ErrInvalidArgument)
	}
	msgs := make([]ethereum.CallMsg, len(calls))
	for i, m := range calls {
		m.From = from
		msgs[i] = m
	}
	results, err := c.simulateV1(ctx, msgs)
	if errors.Is(err, ErrMethodNotFound) {
		return c.simulateFallback(ctx, msgs)
	}
	if err != nil {
		return nil, err
	}
	if len(msgs) == 1 && results[0].Status == types.ReceiptStatusSuccessful {
		g, err := c.EstimateGas(ctx, msgs[0])
		switch {
		case err == nil:
			results[0].GasEstimate = g
		case !errors.Is(err, ErrReverted): // a revert here leaves the estimate at 0
			return nil, err
		}
	}
	return results, nil
}

// simulateV1 runs the bundle through eth_simulateV1.
func (c *Client) simulateV1(ctx context.Context, msgs []ethereum.CallMsg) ([]SimResult, error) {
	const method = "eth_simulateV1"
	args := make([]callArgs, len(msgs))
	for i, m := range msgs {
		args[i] = toCallArgs(m)
	}
	opts := simOptions{
		BlockStateCalls: []simBlock{{Calls: args}},
		TraceTransfers:  true,
		Validation:      false,
	}
	var blocks []simBlockResult
	err := c.read(ctx, method, func(ctx context.Context) error {
		return c.rc.CallContext(ctx, &blocks, method, opts, "latest")
	})
	if err != nil {
		return nil, err
	}
	if len(blocks) != 1 || len(blocks[0].Calls) != len(msgs) {
		return nil, fmt.Errorf("%w: %s: %d blocks for 1, or wrong call count", ErrInvalidResponse, method, len(blocks))
	}
	out := make([]SimResult, len(msgs))
	for i, call := range blocks[0].Calls {
		out[i] = c.simResult(call)
	}
	return out, nil
}

// simResult converts one eth_simulateV1 call result.
func (c *Client) simResult(call simCallResult) SimResult {
	r := SimResult{
		Status:     uint64(call.Status),
		GasUsed:    uint64(call.GasUsed),
		ReturnData: call.ReturnData,
	}
	if r.Status != types.ReceiptStatusSuccessful {
		r.Status = types.ReceiptStatusFailed
		switch {
		case call.Error != nil && (call.Error.Code == 3 || len(revertData(call.Error.Data)) > 0):
			data := revertData(call.Error.Data)
			if len(data) == 0 {
				data = call.ReturnData
			}
			r.Revert = &RevertError{Reason: decodeRevert(data), Data: data}
		case call.Error != nil:
			r.Error = c.red.scrub(call.Error.Message)
		default:
			r.Error = "call failed"
		}
		return r
	}
	logs := make([]*types.Log, 0, len(call.Logs))
	for _, l := range call.Logs {
		logs = append(logs, &types.Log{Address: l.Address, Topics: l.Topics, Data: l.Data, Index: uint(l.Index)})
	}
	r.BalanceChanges = balanceChanges(logs)
	for _, l := range logs {
		if l.Address != nativePseudoAddress {
			r.Logs = append(r.Logs, l)
		}
	}
	return r
}

// simulateFallback runs each call alone with eth_call and eth_estimateGas.
func (c *Client) simulateFallback(ctx context.Context, msgs []ethereum.CallMsg) ([]SimResult, error) {
	out := make([]SimResult, len(msgs))
	for i, m := range msgs {
		r := SimResult{Partial: true}
		ret, err := c.Call(ctx, m)
		var rev *RevertError
		switch {
		case errors.As(err, &rev):
			r.Status, r.Revert, r.ReturnData = types.ReceiptStatusFailed, rev, rev.Data
		case err != nil:
			return nil, err
		default:
			r.Status, r.ReturnData = types.ReceiptStatusSuccessful, ret
			g, err := c.EstimateGas(ctx, m)
			switch {
			case err == nil:
				r.GasEstimate = g
			case !errors.Is(err, ErrReverted):
				return nil, err
			}
		}
		out[i] = r
	}
	return out, nil
}

// Wire types of eth_simulateV1. Decoding is deliberately lenient (no
// required fields) so that nodes other than geth are accepted.
type (
	simOptions struct {
		BlockStateCalls []simBlock `json:"blockStateCalls"`
		TraceTransfers  bool       `json:"traceTransfers"`
		Validation      bool       `json:"validation"`
	}
	simBlock struct {
		Calls []callArgs `json:"calls"`
	}
	callArgs struct {
		From                 common.Address   `json:"from"`
		To                   *common.Address  `json:"to,omitempty"`
		Gas                  *hexutil.Uint64  `json:"gas,omitempty"`
		GasPrice             *hexutil.Big     `json:"gasPrice,omitempty"`
		MaxFeePerGas         *hexutil.Big     `json:"maxFeePerGas,omitempty"`
		MaxPriorityFeePerGas *hexutil.Big     `json:"maxPriorityFeePerGas,omitempty"`
		Value                *hexutil.Big     `json:"value,omitempty"`
		Input                hexutil.Bytes    `json:"input,omitempty"`
		AccessList           types.AccessList `json:"accessList,omitempty"`
	}
	simBlockResult struct {
		Calls []simCallResult `json:"calls"`
	}
	simCallResult struct {
		ReturnData hexutil.Bytes  `json:"returnData"`
		Logs       []simLog       `json:"logs"`
		GasUsed    hexutil.Uint64 `json:"gasUsed"`
		Status     hexutil.Uint64 `json:"status"`
		Error      *simCallError  `json:"error,omitempty"`
	}
	simCallError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	}
	simLog struct {
		Address common.Address `json:"address"`
		Topics  []common.Hash  `json:"topics"`
		Data    hexutil.Bytes  `json:"data"`
		Index   hexutil.Uint   `json:"logIndex"`
	}
)

// toCallArgs converts a CallMsg to eth_simulateV1 call arguments. Blob and
// authorization fields are not simulated.
func toCallArgs(m ethereum.CallMsg) callArgs {
	a := callArgs{From: m.From, To: m.To, Input: m.Data, AccessList: m.AccessList}
	if m.Gas != 0 {
		g := hexutil.Uint64(m.Gas)
		a.Gas = &g
	}
	a.GasPrice = (*hexutil.Big)(m.GasPrice)
	a.MaxFeePerGas = (*hexutil.Big)(m.GasFeeCap)
	a.MaxPriorityFeePerGas = (*hexutil.Big)(m.GasTipCap)
	a.Value = (*hexutil.Big)(m.Value)
	return a
}
