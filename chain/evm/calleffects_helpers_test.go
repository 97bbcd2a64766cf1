package evm

import (
	"encoding/hex"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"
)

// abiArg is one input of a method packed with go-ethereum's accounts/abi:
// a type string and, for tuples, named components.
type abiArg struct {
	typ   string
	comps []abi.ArgumentMarshaling
}

func arg(typ string, comps ...abi.ArgumentMarshaling) abiArg { return abiArg{typ: typ, comps: comps} }

func comp(name, typ string, comps ...abi.ArgumentMarshaling) abi.ArgumentMarshaling {
	return abi.ArgumentMarshaling{Name: name, Type: typ, Components: comps}
}

// packCall packs name(args…) with go-ethereum, so selectors and encodings
// are the real ones, and checks the method's signature is sig.
func packCall(t testing.TB, sig string, args []abiArg, values ...any) []byte {
	t.Helper()
	name := sig[:strings.IndexByte(sig, '(')]
	inputs := make(abi.Arguments, len(args))
	for i, a := range args {
		typ, err := abi.NewType(a.typ, "", a.comps)
		require.NoError(t, err)
		inputs[i] = abi.Argument{Name: fmt.Sprintf("a%d", i), Type: typ}
	}
	m := abi.NewMethod(name, name, abi.Function, "nonpayable", false, false, inputs, nil)
	require.Equal(t, sig, m.Sig)
	packed, err := inputs.Pack(values...)
	require.NoError(t, err)
	return append(append([]byte{}, m.ID...), packed...)
}

func bi(s string) *big.Int {
	v, ok := new(big.Int).SetString(s, 0)
	if !ok {
		panic("bad big int " + s)
	}
	return v
}

func addr(b byte) common.Address { return common.BytesToAddress([]byte{b}) }

// effectString renders an effect so tests compare values, not big.Int
// internals.
func effectString(e Effect) string {
	n := func(v *big.Int) string {
		if v == nil {
			return "nil"
		}
		return v.String()
	}
	return fmt.Sprintf("%s %s %s target=%s token=%s from=%s cp=%s amount=%s id=%s unl=%v appr=%v dl=%s depth=%d failed=%v",
		e.Kind, e.Function, e.Selector, hex.EncodeToString(e.Target[:]), hex.EncodeToString(e.Token[:]),
		hex.EncodeToString(e.From[:]), hex.EncodeToString(e.Counterparty[:]), n(e.Amount), n(e.TokenID),
		e.Unlimited, e.Approved, n(e.Deadline), e.Depth, e.DecodeFailed)
}

func effectStrings(es []Effect) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = effectString(e)
	}
	return out
}

func sel(data []byte) string { return "0x" + hex.EncodeToString(data[:4]) }

// packMultiSend packs Safe multiSend items (operation, to, value, data).
type multiSendItem struct {
	op    byte
	to    common.Address
	value *big.Int
	data  []byte
}

func packMultiSend(items ...multiSendItem) []byte {
	var out []byte
	for _, it := range items {
		out = append(out, it.op)
		out = append(out, it.to[:]...)
		out = append(out, common.BigToHash(it.value).Bytes()...)
		out = append(out, common.BigToHash(big.NewInt(int64(len(it.data)))).Bytes()...)
		out = append(out, it.data...)
	}
	return out
}
