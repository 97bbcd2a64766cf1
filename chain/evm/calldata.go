package evm

import (
	"encoding/hex"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// Four-byte selectors (first bytes of keccak256 of the signature) of the
// token calls guardrails look at.
var (
	selTransfer          = [4]byte{0xa9, 0x05, 0x9c, 0xbb} // transfer(address,uint256)
	selTransferFrom      = [4]byte{0x23, 0xb8, 0x72, 0xdd} // transferFrom(address,address,uint256)
	selApprove           = [4]byte{0x09, 0x5e, 0xa7, 0xb3} // approve(address,uint256)
	selIncreaseAllowance = [4]byte{0x39, 0x50, 0x93, 0x51} // increaseAllowance(address,uint256)
	selSetApprovalForAll = [4]byte{0xa2, 0x2c, 0xb4, 0x65} // setApprovalForAll(address,bool)
	selPermit            = [4]byte{0xd5, 0x05, 0xac, 0xcf} // permit(address,address,uint256,uint256,uint8,bytes32,bytes32)
	selPermitDAI         = [4]byte{0x8f, 0xcb, 0xaf, 0x0c} // permit(address,address,uint256,uint256,bool,uint8,bytes32,bytes32)
)

// CallFacts is what DecodeCall learns from calldata.
type CallFacts struct {
	// Selector is "0x" + 8 hex digits, or "" when data is shorter than 4 bytes.
	Selector string
	// Function is transfer, transferFrom, approve, increaseAllowance,
	// setApprovalForAll or permit; "" when the selector is unknown.
	Function string
	// TokenFrom is the owner in transferFrom and permit.
	TokenFrom common.Address
	// TokenRecipient is who receives tokens or rights: the recipient of
	// transfer/transferFrom, the spender of approve/increaseAllowance/permit,
	// the operator of setApprovalForAll.
	TokenRecipient common.Address
	// TokenAmount is set for transfer, transferFrom, approve,
	// increaseAllowance and EIP-2612 permit; nil otherwise.
	TokenAmount *big.Int
	// Approved is the flag of setApprovalForAll and of a DAI-style permit.
	Approved bool
	// DecodeFailed is true when the selector is known but the arguments are
	// short or not valid ABI (dirty address or bool words).
	DecodeFailed bool
}

// ERC20TransferData is the calldata of transfer(to, amount). amount must be
// non-negative and fit in 256 bits.
func ERC20TransferData(to common.Address, amount *big.Int) ([]byte, error) {
	if amount == nil || amount.Sign() < 0 || amount.Cmp(maxUint256) > 0 {
		return nil, fmt.Errorf("%w: token amount out of uint256 range", ErrInvalidAmount)
	}
	out := make([]byte, 4+64)
	copy(out, selTransfer[:])
	copy(out[4+12:4+32], to[:])
	amount.FillBytes(out[4+32:])
	return out, nil
}

// DecodeCall recognises the token calls guardrails care about. Extra bytes
// after the arguments are ignored, as the Solidity ABI decoder does.
func DecodeCall(data []byte) CallFacts {
	var f CallFacts
	if len(data) < 4 {
		return f
	}
	var sel [4]byte
	copy(sel[:], data)
	f.Selector = "0x" + hex.EncodeToString(sel[:])
	args := abiWords(data[4:])
	switch sel {
	case selTransfer:
		f.Function = "transfer"
		f.DecodeFailed = !args.addr(0, &f.TokenRecipient) || !args.uint(1, &f.TokenAmount)
	case selTransferFrom:
		f.Function = "transferFrom"
		f.DecodeFailed = !args.addr(0, &f.TokenFrom) || !args.addr(1, &f.TokenRecipient) || !args.uint(2, &f.TokenAmount)
	case selApprove:
		f.Function = "approve"
		f.DecodeFailed = !args.addr(0, &f.TokenRecipient) || !args.uint(1, &f.TokenAmount)
	case selIncreaseAllowance:
		f.Function = "increaseAllowance"
		f.DecodeFailed = !args.addr(0, &f.TokenRecipient) || !args.uint(1, &f.TokenAmount)
	case selSetApprovalForAll:
		f.Function = "setApprovalForAll"
		f.DecodeFailed = !args.addr(0, &f.TokenRecipient) || !args.bool(1, &f.Approved)
	case selPermit:
		f.Function = "permit"
		f.DecodeFailed = !args.addr(0, &f.TokenFrom) || !args.addr(1, &f.TokenRecipient) ||
			!args.uint(2, &f.TokenAmount) || !args.has(7)
	case selPermitDAI:
		f.Function = "permit"
		f.DecodeFailed = !args.addr(0, &f.TokenFrom) || !args.addr(1, &f.TokenRecipient) ||
			!args.bool(4, &f.Approved) || !args.has(8)
	}
	if f.DecodeFailed {
		f.TokenAmount = nil
	}
	return f
}

// abiWords reads 32-byte head words of ABI-encoded static arguments.
type abiWords []byte

func (w abiWords) has(n int) bool { return len(w) >= 32*n }

func (w abiWords) word(i int) ([]byte, bool) {
	if !w.has(i + 1) {
		return nil, false
	}
	return w[32*i : 32*(i+1)], true
}

func (w abiWords) addr(i int, dst *common.Address) bool {
	b, ok := w.word(i)
	if !ok || !allZero(b[:12]) {
		return false
	}
	*dst = common.BytesToAddress(b[12:])
	return true
}

func (w abiWords) uint(i int, dst **big.Int) bool {
	b, ok := w.word(i)
	if !ok {
		return false
	}
	*dst = new(big.Int).SetBytes(b)
	return true
}

func (w abiWords) bool(i int, dst *bool) bool {
	b, ok := w.word(i)
	if !ok || !allZero(b[:31]) || b[31] > 1 {
		return false
	}
	*dst = b[31] == 1
	return true
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
