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

// ceABIArg is one input of a method packed with go-ethereum's accounts/abi:
// a type string and, for tuples, named components.
type ceABIArg struct {
	typ   string
	comps []abi.ArgumentMarshaling
}

func ceArg(typ string, comps ...abi.ArgumentMarshaling) ceABIArg {
	return ceABIArg{typ: typ, comps: comps}
}

func ceComp(name, typ string, comps ...abi.ArgumentMarshaling) abi.ArgumentMarshaling {
	return abi.ArgumentMarshaling{Name: name, Type: typ, Components: comps}
}

// cePack packs name(args…) with go-ethereum, so selectors and encodings
// are the real ones, and checks the method's signature is sig.
func cePack(t testing.TB, sig string, args []ceABIArg, values ...any) []byte {
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

func ceAddr(b byte) common.Address { return common.BytesToAddress([]byte{b}) }

// ceEffectString renders an effect so tests compare values, not big.Int
// internals.
func ceEffectString(e Effect) string {
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

func ceEffectStrings(es []Effect) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = ceEffectString(e)
	}
	return out
}

func ceSel(data []byte) string { return "0x" + hex.EncodeToString(data[:4]) }

// cePackMultiSend packs Safe multiSend items (operation, to, value, data).
type ceMultiSendItem struct {
	op    byte
	to    common.Address
	value *big.Int
	data  []byte
}

func cePackMultiSend(items ...ceMultiSendItem) []byte {
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
