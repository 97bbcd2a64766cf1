package chainrpc

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// BalanceChange is a net balance change of one account in one asset.
type BalanceChange struct {
	// Address is the account whose balance changes.
	Address common.Address
	// Token is the ERC-20 contract (checksummed hex), "" for the native coin.
	Token string
	// Delta is the signed change in the asset's smallest unit.
	Delta *big.Int
}

var (
	// transferTopic is keccak256("Transfer(address,address,uint256)"), shared
	// by ERC-20 and the native-transfer logs.
	transferTopic = common.HexToHash("0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef")
	// nativePseudoAddress (ERC-7528) is the address of the pseudo-logs
	// eth_simulateV1 emits for value transfers when traceTransfers is on.
	nativePseudoAddress = common.HexToAddress("0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE")
)

// ledger sums signed balance changes per (account, asset) and remembers the
// order of first appearance.
type ledger struct {
	order []ledgerKey
	sums  map[ledgerKey]*big.Int
}

type ledgerKey struct {
	addr  common.Address
	token string
}

// add records v for the account; the zero address (mint, burn) is skipped.
func (l *ledger) add(addr common.Address, token string, v *big.Int) {
	if addr == (common.Address{}) {
		return
	}
	k := ledgerKey{addr, token}
	if l.sums == nil {
		l.sums = map[ledgerKey]*big.Int{}
	}
	if l.sums[k] == nil {
		l.sums[k] = new(big.Int)
		l.order = append(l.order, k)
	}
	l.sums[k].Add(l.sums[k], v)
}

// changes returns the non-zero nets in order of first appearance.
func (l *ledger) changes() []BalanceChange {
	var out []BalanceChange
	for _, k := range l.order {
		if l.sums[k].Sign() != 0 {
			out = append(out, BalanceChange{Address: k.addr, Token: k.token, Delta: new(big.Int).Set(l.sums[k])})
		}
	}
	return out
}

// balanceChanges derives net balance changes from Transfer logs: ERC-20
// Transfer events (exactly three topics, a 32-byte amount; ERC-721 has four
// topics and is skipped), the ERC-7528 native pseudo-logs and, after
// Amsterdam, the EIP-7708 native-transfer logs of the system address. The
// zero address (mint and burn) is skipped, and so are changes that net to
// zero. Order follows first appearance.
func balanceChanges(logs []*types.Log) []BalanceChange {
	var l ledger
	for _, lg := range logs {
		if len(lg.Topics) != 3 || lg.Topics[0] != transferTopic || len(lg.Data) != 32 {
			continue
		}
		token := lg.Address.Hex()
		if lg.Address == nativePseudoAddress || lg.Address == params.SystemAddress {
			token = ""
		}
		amount := new(big.Int).SetBytes(lg.Data)
		l.add(common.BytesToAddress(lg.Topics[1].Bytes()), token, new(big.Int).Neg(amount))
		l.add(common.BytesToAddress(lg.Topics[2].Bytes()), token, amount)
	}
	return l.changes()
}

// NetBalanceChanges sums the balance changes of all results, e.g. a whole
// simulated bundle, in order of first appearance, dropping zero nets.
func NetBalanceChanges(results []SimResult) []BalanceChange {
	var l ledger
	for _, r := range results {
		for _, bc := range r.BalanceChanges {
			l.add(bc.Address, bc.Token, bc.Delta)
		}
	}
	return l.changes()
}
