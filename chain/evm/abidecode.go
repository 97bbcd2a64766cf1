package evm

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// callABITuple reads one ABI-encoded tuple strictly. Offsets in its head are
// relative to the start of buf. A failed read clears *ok (shared by every
// tuple of one call, so one check after decoding covers all reads) and
// returns a zero value; reads never panic on any input.
//
// Strict means: address words carry 12 zero bytes, bool words are 0 or 1,
// uintN words have no bits above N, offsets are 32-byte aligned and inside
// the tuple, lengths fit in what follows, and the padding of bytes is
// present and zero.
type callABITuple struct {
	buf []byte
	ok  *bool
}

func newCallABITuple(buf []byte) callABITuple {
	ok := true
	return callABITuple{buf: buf, ok: &ok}
}

func (t callABITuple) fail() { *t.ok = false }

// word is the i-th 32-byte head word.
func (t callABITuple) word(i int) []byte {
	if i < 0 || i >= len(t.buf)/32 {
		t.fail()
		return make([]byte, 32)
	}
	return t.buf[32*i : 32*(i+1)]
}

// uint reads a uintN (N a multiple of 8, at most 256).
func (t callABITuple) uint(i, bits int) *big.Int {
	w := t.word(i)
	if !allZero(w[:32-bits/8]) {
		t.fail()
		return new(big.Int)
	}
	return new(big.Int).SetBytes(w)
}

func (t callABITuple) addr(i int) common.Address {
	w := t.word(i)
	if !allZero(w[:12]) {
		t.fail()
		return common.Address{}
	}
	return common.BytesToAddress(w[12:])
}

func (t callABITuple) boolean(i int) bool {
	w := t.word(i)
	if !allZero(w[:31]) || w[31] > 1 {
		t.fail()
		return false
	}
	return w[31] == 1
}

// small reads a uint256 word that must be at most limit (a length, an
// offset or a small enum) as an int.
func (t callABITuple) small(i, limit int) int {
	w := t.word(i)
	v := new(big.Int).SetBytes(w)
	if !v.IsInt64() || v.Int64() > int64(limit) {
		t.fail()
		return 0
	}
	return int(v.Int64())
}

// at is the dynamic value whose offset is head word i.
func (t callABITuple) at(i int) callABITuple {
	off := t.small(i, len(t.buf))
	if off%32 != 0 || off+32 > len(t.buf) {
		t.fail()
		return callABITuple{ok: t.ok}
	}
	return callABITuple{buf: t.buf[off:], ok: t.ok}
}

// inline is the static tuple starting at head word i (a static struct
// argument, or element of an array of static structs).
func (t callABITuple) inline(i int) callABITuple {
	if i < 0 || i > len(t.buf)/32 {
		t.fail()
		return callABITuple{ok: t.ok}
	}
	return callABITuple{buf: t.buf[32*i:], ok: t.ok}
}

// bytes reads the dynamic bytes whose offset is head word i.
func (t callABITuple) bytes(i int) []byte {
	d := t.at(i)
	if !*t.ok {
		return nil
	}
	n := d.small(0, len(d.buf))
	padded := (n + 31) / 32 * 32
	if !*t.ok || 32+padded > len(d.buf) || !allZero(d.buf[32+n:32+padded]) {
		t.fail()
		return nil
	}
	return d.buf[32 : 32+n]
}

// array reads the dynamic array whose offset is head word i: its length
// (at most limit, and at least words 32-byte words per element must
// follow) and its elements' area, where element j of a static element type
// of `words` words is elems.inline(j*words) and element j of a dynamic
// type is elems.at(j).
func (t callABITuple) array(i, words, limit int) (n int, elems callABITuple) {
	d := t.at(i)
	if !*t.ok {
		return 0, callABITuple{ok: t.ok}
	}
	n = d.small(0, limit)
	if !*t.ok || n*words > (len(d.buf)-32)/32 {
		t.fail()
		return 0, callABITuple{ok: t.ok}
	}
	return n, callABITuple{buf: d.buf[32:], ok: t.ok}
}
