package evm

import (
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

func callSelector(signature string) []byte { return crypto.Keccak256([]byte(signature))[:4] }

// callMaxUint160 is Permit2's "unlimited" allowance.
var callMaxUint160 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 160), big.NewInt(1))

// loadCallSpecs fills callSpecs once, on the first decode.
var loadCallSpecs = sync.OnceFunc(func() {
	registerTokenCalls()
	registerPermit2Calls()
	registerAdminCalls()
	registerWrapperCalls()
})

func callTransferEffect(token, from, to common.Address, amount, tokenID *big.Int) Effect {
	return Effect{Kind: EffectTokenTransfer, Token: token, From: from, Counterparty: to, Amount: amount, TokenID: tokenID}
}

func callApproveEffect(token, owner, spender common.Address, amount *big.Int) Effect {
	return Effect{Kind: EffectApprove, Token: token, From: owner, Counterparty: spender, Amount: amount, Unlimited: IsUnlimitedAmount(amount)}
}

// registerTokenCalls: ERC-20, ERC-721, ERC-1155 and EIP-2612/DAI permit.
// ERC-20 and ERC-721 share transferFrom and approve: the last word is
// reported as Amount (a token id cannot be told from an amount), TokenID
// stays nil.
func registerTokenCalls() {
	registerCall("transfer(address,uint256)", "transfer", func(to common.Address, a callABITuple) ([]Effect, []callInner) {
		return []Effect{callTransferEffect(to, common.Address{}, a.addr(0), a.uint(1, 256), nil)}, nil
	})
	registerCall("transferFrom(address,address,uint256)", "transferFrom", func(to common.Address, a callABITuple) ([]Effect, []callInner) {
		return []Effect{callTransferEffect(to, a.addr(0), a.addr(1), a.uint(2, 256), nil)}, nil
	})
	registerCall("approve(address,uint256)", "approve", func(to common.Address, a callABITuple) ([]Effect, []callInner) {
		return []Effect{callApproveEffect(to, common.Address{}, a.addr(0), a.uint(1, 256))}, nil
	})
	registerCall("increaseAllowance(address,uint256)", "increaseAllowance", func(to common.Address, a callABITuple) ([]Effect, []callInner) {
		return []Effect{callApproveEffect(to, common.Address{}, a.addr(0), a.uint(1, 256))}, nil
	})
	registerCall("setApprovalForAll(address,bool)", "setApprovalForAll", func(to common.Address, a callABITuple) ([]Effect, []callInner) {
		return []Effect{{Kind: EffectApprovalForAll, Token: to, Counterparty: a.addr(0), Approved: a.boolean(1)}}, nil
	})
	// ERC-721 safeTransferFrom, without and with data: one token.
	registerCall("safeTransferFrom(address,address,uint256)", "safeTransferFrom", func(to common.Address, a callABITuple) ([]Effect, []callInner) {
		return []Effect{callTransferEffect(to, a.addr(0), a.addr(1), big.NewInt(1), a.uint(2, 256))}, nil
	})
	registerCall("safeTransferFrom(address,address,uint256,bytes)", "safeTransferFrom", func(to common.Address, a callABITuple) ([]Effect, []callInner) {
		e := callTransferEffect(to, a.addr(0), a.addr(1), big.NewInt(1), a.uint(2, 256))
		a.bytes(3)
		return []Effect{e}, nil
	})
	// ERC-1155.
	registerCall("safeTransferFrom(address,address,uint256,uint256,bytes)", "safeTransferFrom", func(to common.Address, a callABITuple) ([]Effect, []callInner) {
		e := callTransferEffect(to, a.addr(0), a.addr(1), a.uint(3, 256), a.uint(2, 256))
		a.bytes(4)
		return []Effect{e}, nil
	})
	registerCall("safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)", "safeBatchTransferFrom", func(to common.Address, a callABITuple) ([]Effect, []callInner) {
		from, rcpt := a.addr(0), a.addr(1)
		n, ids := a.array(2, 1, MaxEffects)
		m, amounts := a.array(3, 1, MaxEffects)
		a.bytes(4)
		if n != m {
			a.fail()
		}
		if !*a.ok {
			return nil, nil
		}
		out := make([]Effect, 0, n)
		for j := 0; j < n; j++ {
			out = append(out, callTransferEffect(to, from, rcpt, amounts.uint(j, 256), ids.uint(j, 256)))
		}
		return out, nil
	})
	// EIP-2612 permit.
	registerCall("permit(address,address,uint256,uint256,uint8,bytes32,bytes32)", "permit", func(to common.Address, a callABITuple) ([]Effect, []callInner) {
		e := callApproveEffect(to, a.addr(0), a.addr(1), a.uint(2, 256))
		e.Deadline = a.uint(3, 256)
		a.uint(4, 8)
		a.word(6)
		return []Effect{e}, nil
	})
	// DAI permit: allowed=true grants max uint256, false revokes.
	registerCall("permit(address,address,uint256,uint256,bool,uint8,bytes32,bytes32)", "permit", func(to common.Address, a callABITuple) ([]Effect, []callInner) {
		amount := new(big.Int)
		if a.boolean(4) {
			amount.Set(maxUint256)
		}
		e := callApproveEffect(to, a.addr(0), a.addr(1), amount)
		e.Deadline = a.uint(3, 256)
		a.uint(5, 8)
		a.word(7)
		return []Effect{e}, nil
	})
}

// registerPermit2Calls: Uniswap Permit2's allowance and transfer calls.
// A grant of max uint160 is unlimited.
func registerPermit2Calls() {
	permit2Grant := func(owner common.Address, details callABITuple, spender common.Address) Effect {
		amount := details.uint(1, 160)
		e := callApproveEffect(details.addr(0), owner, spender, amount)
		e.Unlimited = amount.Cmp(callMaxUint160) == 0
		e.Deadline = details.uint(2, 48)
		details.uint(3, 48)
		return e
	}
	registerCall("approve(address,address,uint160,uint48)", "approve", func(_ common.Address, a callABITuple) ([]Effect, []callInner) {
		amount := a.uint(2, 160)
		e := callApproveEffect(a.addr(0), common.Address{}, a.addr(1), amount)
		e.Unlimited = amount.Cmp(callMaxUint160) == 0
		e.Deadline = a.uint(3, 48)
		return []Effect{e}, nil
	})
	// permit(owner, PermitSingle{details{token,amount,expiration,nonce}, spender, sigDeadline}, signature):
	// the struct is static, so it sits inline in the head.
	registerCall("permit(address,((address,uint160,uint48,uint48),address,uint256),bytes)", "permit", func(_ common.Address, a callABITuple) ([]Effect, []callInner) {
		owner, single := a.addr(0), a.inline(1)
		e := permit2Grant(owner, single, single.addr(4))
		single.uint(5, 256)
		a.bytes(7)
		return []Effect{e}, nil
	})
	// permit(owner, PermitBatch{details[], spender, sigDeadline}, signature).
	registerCall("permit(address,((address,uint160,uint48,uint48)[],address,uint256),bytes)", "permit", func(_ common.Address, a callABITuple) ([]Effect, []callInner) {
		owner, batch := a.addr(0), a.at(1)
		a.bytes(2)
		n, details := batch.array(0, 4, MaxEffects)
		spender := batch.addr(1)
		batch.uint(2, 256)
		if !*a.ok {
			return nil, nil
		}
		out := make([]Effect, 0, n)
		for j := 0; j < n; j++ {
			out = append(out, permit2Grant(owner, details.inline(4*j), spender))
		}
		return out, nil
	})
	transferDetail := func(t callABITuple) Effect {
		return callTransferEffect(t.addr(3), t.addr(0), t.addr(1), t.uint(2, 160), nil)
	}
	registerCall("transferFrom(address,address,uint160,address)", "transferFrom", func(_ common.Address, a callABITuple) ([]Effect, []callInner) {
		return []Effect{transferDetail(a)}, nil
	})
	registerCall("transferFrom((address,address,uint160,address)[])", "transferFrom", func(_ common.Address, a callABITuple) ([]Effect, []callInner) {
		n, details := a.array(0, 4, MaxEffects)
		if !*a.ok {
			return nil, nil
		}
		out := make([]Effect, 0, n)
		for j := 0; j < n; j++ {
			out = append(out, transferDetail(details.inline(4*j)))
		}
		return out, nil
	})
}

// registerAdminCalls: calls that change who controls a contract or its
// code. Counterparty is who gains control (zero when nobody named does).
func registerAdminCalls() {
	privileged := func(counterparty common.Address) []Effect {
		return []Effect{{Kind: EffectPrivileged, Counterparty: counterparty}}
	}
	oneAddr := func(sig, name string) {
		registerCall(sig, name, func(_ common.Address, a callABITuple) ([]Effect, []callInner) { return privileged(a.addr(0)), nil })
	}
	oneAddr("upgradeTo(address)", "upgradeTo")
	oneAddr("changeAdmin(address)", "changeAdmin")
	oneAddr("transferOwnership(address)", "transferOwnership")
	oneAddr("enableModule(address)", "enableModule")
	oneAddr("setGuard(address)", "setGuard")
	oneAddr("setFallbackHandler(address)", "setFallbackHandler")
	// upgradeToAndCall's data runs in the proxy under the new code: the
	// upgrade already is the most privileged effect, so the data is only
	// checked to be well formed, not unwrapped.
	registerCall("upgradeToAndCall(address,bytes)", "upgradeToAndCall", func(_ common.Address, a callABITuple) ([]Effect, []callInner) {
		e := privileged(a.addr(0))
		a.bytes(1)
		return e, nil
	})
	registerCall("renounceOwnership()", "renounceOwnership", func(common.Address, callABITuple) ([]Effect, []callInner) {
		return privileged(common.Address{}), nil
	})
	registerCall("addOwnerWithThreshold(address,uint256)", "addOwnerWithThreshold", func(_ common.Address, a callABITuple) ([]Effect, []callInner) {
		e := privileged(a.addr(0))
		e[0].Amount = a.uint(1, 256)
		return e, nil
	})
	registerCall("removeOwner(address,address,uint256)", "removeOwner", func(_ common.Address, a callABITuple) ([]Effect, []callInner) {
		a.addr(0)
		e := privileged(a.addr(1))
		e[0].Amount = a.uint(2, 256)
		return e, nil
	})
	registerCall("swapOwner(address,address,address)", "swapOwner", func(_ common.Address, a callABITuple) ([]Effect, []callInner) {
		a.addr(0)
		a.addr(1)
		return privileged(a.addr(2)), nil
	})
	registerCall("changeThreshold(uint256)", "changeThreshold", func(_ common.Address, a callABITuple) ([]Effect, []callInner) {
		e := privileged(common.Address{})
		e[0].Amount = a.uint(0, 256)
		return e, nil
	})
	registerCall("disableModule(address,address)", "disableModule", func(_ common.Address, a callABITuple) ([]Effect, []callInner) {
		a.addr(0)
		return privileged(a.addr(1)), nil
	})
}
