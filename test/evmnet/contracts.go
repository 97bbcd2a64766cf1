package evmnet

import (
	"bytes"
	"encoding/binary"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
)

// Function selectors of the test token (first four bytes of keccak256 of the
// canonical signature).
var (
	SelectorTransfer  = [4]byte{0xa9, 0x05, 0x9c, 0xbb} // transfer(address,uint256)
	SelectorBalanceOf = [4]byte{0x70, 0xa0, 0x82, 0x31} // balanceOf(address)
	SelectorDecimals  = [4]byte{0x31, 0x3c, 0xe5, 0x67} // decimals()
)

// TransferTopic is topic0 of the ERC-20 Transfer(address,address,uint256) event.
var TransferTopic = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))

// Revert reasons the test contracts produce.
const (
	ReasonInsufficientBalance = "insufficient balance"
	ReasonAlwaysReverts       = "always reverts"
)

// TokenDecimals is what the test token's decimals() returns.
const TokenDecimals = 18

// TransferData returns calldata for transfer(to, amount).
func TransferData(to common.Address, amount *big.Int) []byte {
	out := append([]byte(nil), SelectorTransfer[:]...)
	out = append(out, common.LeftPadBytes(to.Bytes(), 32)...)
	return append(out, common.LeftPadBytes(amount.Bytes(), 32)...)
}

// BalanceOfData returns calldata for balanceOf(holder).
func BalanceOfData(holder common.Address) []byte {
	return append(append([]byte(nil), SelectorBalanceOf[:]...), common.LeftPadBytes(holder.Bytes(), 32)...)
}

// EncodeErrorString returns the ABI encoding of Error(string) carrying msg,
// the payload Solidity's require/revert(string) produces.
func EncodeErrorString(msg string) []byte {
	var b bytes.Buffer
	b.Write([]byte{0x08, 0xc3, 0x79, 0xa0})
	b.Write(common.LeftPadBytes([]byte{0x20}, 32))
	var n [32]byte
	binary.BigEndian.PutUint64(n[24:], uint64(len(msg)))
	b.Write(n[:])
	b.WriteString(msg)
	if pad := len(msg) % 32; pad != 0 {
		b.Write(make([]byte, 32-pad))
	}
	return b.Bytes()
}

// tokenInitCode returns the deployment code of the test ERC-20 token.
//
// Storage layout: the balance of an account is stored at the slot whose key
// is the account address itself (left-padded to 32 bytes); nothing else is
// stored. The constructor writes supply to holder's slot and returns the
// runtime code. No Transfer event is emitted for the initial mint.
func tokenInitCode(holder common.Address, supply *big.Int) ([]byte, error) {
	runtime, err := tokenRuntime()
	if err != nil {
		return nil, err
	}
	return initCode(func(a *assembler) {
		a.pushN(32, supply.Bytes()).pushN(20, holder.Bytes()).op(vm.SSTORE)
	}, runtime)
}

// reverterInitCode returns the deployment code of a contract whose every call
// (whatever the calldata or value) reverts with Error("always reverts").
func reverterInitCode() ([]byte, error) {
	a := newAssembler()
	revertWith(a, "reason", EncodeErrorString(ReasonAlwaysReverts))
	runtime, err := a.bytes()
	if err != nil {
		return nil, err
	}
	return initCode(func(*assembler) {}, runtime)
}

// initCode runs prelude and then returns runtime as the deployed code.
func initCode(prelude func(a *assembler), runtime []byte) ([]byte, error) {
	a := newAssembler()
	prelude(a)
	size := []byte{byte(len(runtime) >> 8), byte(len(runtime))}
	a.pushN(2, size).op(vm.DUP1).pushLabel("runtime").push(nil).op(vm.CODECOPY)
	a.push(nil).op(vm.RETURN)
	a.data("runtime", runtime)
	return a.bytes()
}

// revertWith emits code that reverts with payload, stored as a data section
// named label that is appended at the current position (after the REVERT).
func revertWith(a *assembler, label string, payload []byte) {
	a.pushInt(uint64(len(payload))).pushLabel(label).push(nil).op(vm.CODECOPY)
	a.pushInt(uint64(len(payload))).push(nil).op(vm.REVERT)
	a.data(label, payload)
}

// tokenRuntime assembles the token's runtime code. The comments show the
// stack, top first, after each line.
func tokenRuntime() ([]byte, error) {
	addrMask := bytes.Repeat([]byte{0xff}, 20)
	a := newAssembler()

	// Non-payable: any value reverts.
	a.op(vm.CALLVALUE).jumpi("fail")
	// Dispatch on the selector.
	a.push(nil).op(vm.CALLDATALOAD).pushInt(0xe0).op(vm.SHR) // [sel]
	a.op(vm.DUP1).pushN(4, SelectorTransfer[:]).op(vm.EQ).jumpi("transfer")
	a.op(vm.DUP1).pushN(4, SelectorBalanceOf[:]).op(vm.EQ).jumpi("balanceOf")
	a.op(vm.DUP1).pushN(4, SelectorDecimals[:]).op(vm.EQ).jumpi("decimals")
	a.label("fail")
	a.push(nil).op(vm.DUP1, vm.REVERT)

	// decimals() -> uint256(18)
	a.label("decimals")
	a.pushInt(TokenDecimals).push(nil).op(vm.MSTORE)
	a.pushInt(32).push(nil).op(vm.RETURN)

	// balanceOf(address) -> uint256
	a.label("balanceOf")
	a.pushInt(36).op(vm.CALLDATASIZE, vm.LT).jumpi("fail")
	a.pushInt(4).op(vm.CALLDATALOAD).pushN(20, addrMask).op(vm.AND) // [who]
	a.op(vm.SLOAD).push(nil).op(vm.MSTORE)
	a.pushInt(32).push(nil).op(vm.RETURN)

	// transfer(address to, uint256 amt) -> bool
	a.label("transfer")
	a.pushInt(68).op(vm.CALLDATASIZE, vm.LT).jumpi("fail")
	a.pushInt(4).op(vm.CALLDATALOAD).pushN(20, addrMask).op(vm.AND) // [to]
	a.pushInt(36).op(vm.CALLDATALOAD)                               // [amt, to]
	a.op(vm.CALLER, vm.SLOAD)                                       // [bal, amt, to]
	a.op(vm.DUP2, vm.DUP2, vm.LT).jumpi("insufficient")             // [bal, amt, to]
	a.op(vm.DUP2, vm.DUP2, vm.SUB)                                  // [bal-amt, bal, amt, to]
	a.op(vm.CALLER, vm.SSTORE, vm.POP)                              // [amt, to]
	a.op(vm.DUP2, vm.SLOAD, vm.DUP2, vm.ADD)                        // [toBal+amt, amt, to]
	a.op(vm.DUP3, vm.SSTORE)                                        // [amt, to]
	a.push(nil).op(vm.MSTORE)                                       // [to]; mem[0:32] = amt
	a.op(vm.CALLER).pushN(32, TransferTopic.Bytes())                // [topic, from, to]
	a.pushInt(32).push(nil).op(vm.LOG3)                             // []
	a.pushInt(1).push(nil).op(vm.MSTORE)
	a.pushInt(32).push(nil).op(vm.RETURN)

	a.label("insufficient")
	revertWith(a, "insufficientReason", EncodeErrorString(ReasonInsufficientBalance))
	return a.bytes()
}
