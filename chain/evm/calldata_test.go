package evm

import (
	"encoding/hex"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"
)

func TestSelectors(t *testing.T) {
	tests := map[string][4]byte{
		"transfer(address,uint256)":                                          selTransfer,
		"transferFrom(address,address,uint256)":                              selTransferFrom,
		"approve(address,uint256)":                                           selApprove,
		"increaseAllowance(address,uint256)":                                 selIncreaseAllowance,
		"setApprovalForAll(address,bool)":                                    selSetApprovalForAll,
		"permit(address,address,uint256,uint256,uint8,bytes32,bytes32)":      selPermit,
		"permit(address,address,uint256,uint256,bool,uint8,bytes32,bytes32)": selPermitDAI,
	}
	for sig, want := range tests {
		t.Run(sig, func(t *testing.T) {
			require.Equal(t, want[:], crypto.Keccak256([]byte(sig))[:4])
		})
	}
}

func word(hexs string) string { return strings.Repeat("0", 64-len(hexs)) + hexs }

func TestERC20TransferData(t *testing.T) {
	to := common.HexToAddress("0x2c7536E3605D9C16a7a3D7b1898e529396a65c23")
	got, err := ERC20TransferData(to, big.NewInt(1500000))
	require.NoError(t, err)
	require.Equal(t, "a9059cbb"+word("2c7536e3605d9c16a7a3d7b1898e529396a65c23")+word("16e360"), hex.EncodeToString(got))

	f := DecodeCall(got)
	require.Equal(t, CallFacts{Selector: "0xa9059cbb", Function: "transfer", TokenRecipient: to, TokenAmount: big.NewInt(1500000)}, f)

	for name, amount := range map[string]*big.Int{
		"fail nil":      nil,
		"fail negative": big.NewInt(-1),
		"fail 2^256":    new(big.Int).Lsh(big.NewInt(1), 256),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ERC20TransferData(to, amount)
			require.ErrorIs(t, err, ErrInvalidAmount)
		})
	}
}

func TestDecodeCall(t *testing.T) {
	a1 := common.HexToAddress("0x1111111111111111111111111111111111111111")
	a2 := common.HexToAddress("0x2222222222222222222222222222222222222222")
	w1, w2 := word(hex.EncodeToString(a1[:])), word(hex.EncodeToString(a2[:]))
	max := strings.Repeat("f", 64)
	maxInt, _ := new(big.Int).SetString(max, 16)
	dirty := "ff" + w1[2:] // address word with garbage in the high bytes
	tests := map[string]struct {
		data string
		want CallFacts
	}{
		"empty":                {data: "", want: CallFacts{}},
		"short":                {data: "a9059c", want: CallFacts{}},
		"unknown":              {data: "12345678" + w1, want: CallFacts{Selector: "0x12345678"}},
		"transfer":             {data: "a9059cbb" + w1 + word("64"), want: CallFacts{Selector: "0xa9059cbb", Function: "transfer", TokenRecipient: a1, TokenAmount: big.NewInt(100)}},
		"transfer with suffix": {data: "a9059cbb" + w1 + word("64") + "cafe", want: CallFacts{Selector: "0xa9059cbb", Function: "transfer", TokenRecipient: a1, TokenAmount: big.NewInt(100)}},
		"transfer short":       {data: "a9059cbb" + w1, want: CallFacts{Selector: "0xa9059cbb", Function: "transfer", TokenRecipient: a1, DecodeFailed: true}},
		// A dirty address word is rejected by Solidity; we must not guess.
		"transfer dirty address": {data: "a9059cbb" + dirty + word("64"), want: CallFacts{Selector: "0xa9059cbb", Function: "transfer", DecodeFailed: true}},
		"transferFrom": {data: "23b872dd" + w1 + w2 + word("1"), want: CallFacts{Selector: "0x23b872dd", Function: "transferFrom",
			TokenFrom: a1, TokenRecipient: a2, TokenAmount: big.NewInt(1)}},
		"approve unlimited":          {data: "095ea7b3" + w2 + max, want: CallFacts{Selector: "0x095ea7b3", Function: "approve", TokenRecipient: a2, TokenAmount: maxInt}},
		"increaseAllowance":          {data: "39509351" + w2 + word("2"), want: CallFacts{Selector: "0x39509351", Function: "increaseAllowance", TokenRecipient: a2, TokenAmount: big.NewInt(2)}},
		"setApprovalForAll":          {data: "a22cb465" + w2 + word("1"), want: CallFacts{Selector: "0xa22cb465", Function: "setApprovalForAll", TokenRecipient: a2, Approved: true}},
		"setApprovalForAll bad bool": {data: "a22cb465" + w2 + word("2"), want: CallFacts{Selector: "0xa22cb465", Function: "setApprovalForAll", TokenRecipient: a2, DecodeFailed: true}},
		"permit": {data: "d505accf" + w1 + w2 + word("5") + word("9") + word("1b") + word("1") + word("2"), want: CallFacts{Selector: "0xd505accf",
			Function: "permit", TokenFrom: a1, TokenRecipient: a2, TokenAmount: big.NewInt(5)}},
		"permit short": {data: "d505accf" + w1 + w2 + word("5"), want: CallFacts{Selector: "0xd505accf", Function: "permit", TokenFrom: a1, TokenRecipient: a2, DecodeFailed: true}},
		"dai permit": {data: "8fcbaf0c" + w1 + w2 + word("1") + word("9") + word("1") + word("1b") + word("1") + word("2"), want: CallFacts{Selector: "0x8fcbaf0c",
			Function: "permit", TokenFrom: a1, TokenRecipient: a2, Approved: true}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			data, err := hex.DecodeString(tc.data)
			require.NoError(t, err)
			require.Equal(t, tc.want, DecodeCall(data))
		})
	}
}
