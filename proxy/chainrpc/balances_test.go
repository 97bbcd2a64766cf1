package chainrpc

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/stretchr/testify/require"
)

var (
	alice = common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	bob   = common.HexToAddress("0x0000000000000000000000000000000000000b0b")
	token = common.HexToAddress("0x00000000000000000000000000000000000070c3")
)

func transferLog(emitter, from, to common.Address, amount int64) *types.Log {
	return &types.Log{
		Address: emitter,
		Topics:  []common.Hash{transferTopic, common.BytesToHash(from.Bytes()), common.BytesToHash(to.Bytes())},
		Data:    common.LeftPadBytes(big.NewInt(amount).Bytes(), 32),
	}
}

func TestBalanceChanges(t *testing.T) {
	nft := transferLog(token, alice, bob, 1)
	nft.Topics = append(nft.Topics, common.Hash{}) // ERC-721: tokenId is a 4th topic
	tests := map[string]struct {
		logs []*types.Log
		want []BalanceChange
	}{
		"erc20 transfer": {
			logs: []*types.Log{transferLog(token, alice, bob, 5)},
			want: []BalanceChange{
				{Address: alice, Token: token.Hex(), Delta: big.NewInt(-5)},
				{Address: bob, Token: token.Hex(), Delta: big.NewInt(5)},
			},
		},
		"native pseudo-log": {
			logs: []*types.Log{transferLog(nativePseudoAddress, alice, bob, 7)},
			want: []BalanceChange{{Address: alice, Delta: big.NewInt(-7)}, {Address: bob, Delta: big.NewInt(7)}},
		},
		"eip-7708 system log": {
			logs: []*types.Log{transferLog(params.SystemAddress, bob, alice, 3)},
			want: []BalanceChange{{Address: bob, Delta: big.NewInt(-3)}, {Address: alice, Delta: big.NewInt(3)}},
		},
		"round trip nets to nothing": {
			logs: []*types.Log{transferLog(token, alice, bob, 5), transferLog(token, bob, alice, 5)},
		},
		"self transfer nets to nothing": {
			logs: []*types.Log{transferLog(token, alice, alice, 5)},
		},
		"mint skips the zero address": {
			logs: []*types.Log{transferLog(token, common.Address{}, bob, 9)},
			want: []BalanceChange{{Address: bob, Token: token.Hex(), Delta: big.NewInt(9)}},
		},
		"erc721 and other events are ignored": {
			logs: []*types.Log{nft, {Address: token, Topics: []common.Hash{{1}}, Data: make([]byte, 32)}},
		},
		"malformed amount ignored": { // adversarial: a Transfer with a non-32-byte payload
			logs: []*types.Log{{Address: token, Topics: transferLog(token, alice, bob, 1).Topics, Data: []byte{1}}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, balanceChanges(tc.logs))
		})
	}
}

func TestNetBalanceChanges(t *testing.T) {
	results := []SimResult{
		{BalanceChanges: balanceChanges([]*types.Log{transferLog(token, alice, bob, 5)})},
		{BalanceChanges: balanceChanges([]*types.Log{transferLog(token, bob, alice, 2), transferLog(nativePseudoAddress, alice, bob, 1)})},
	}
	require.Equal(t, []BalanceChange{
		{Address: alice, Token: token.Hex(), Delta: big.NewInt(-3)},
		{Address: bob, Token: token.Hex(), Delta: big.NewInt(3)},
		{Address: alice, Delta: big.NewInt(-1)},
		{Address: bob, Delta: big.NewInt(1)},
	}, NetBalanceChanges(results))
}
