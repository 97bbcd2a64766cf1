package evmnet

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/core/vm"
)

// errAssemble is returned by assembler.bytes when the program is malformed.
var errAssemble = errors.New("assembling EVM code")

// fixup records a PUSH2 placeholder that must receive a label's offset.
type fixup struct {
	at    int
	label string
}

// assembler builds EVM bytecode. Jump targets and data offsets are named
// labels resolved by bytes(); every label reference is a PUSH2, so offsets
// never change size and one pass plus fixups is enough.
type assembler struct {
	code   []byte
	labels map[string]int
	fixups []fixup
	err    error
}

// newAssembler returns an empty assembler.
func newAssembler() *assembler {
	return &assembler{labels: make(map[string]int)}
}

// op appends opcodes verbatim.
func (a *assembler) op(ops ...vm.OpCode) *assembler {
	for _, o := range ops {
		a.code = append(a.code, byte(o))
	}
	return a
}

// push appends the smallest PUSHn carrying v (PUSH1 0 for an empty v).
func (a *assembler) push(v []byte) *assembler {
	for len(v) > 1 && v[0] == 0 {
		v = v[1:]
	}
	if len(v) == 0 {
		v = []byte{0}
	}
	if len(v) > 32 {
		a.setErr(fmt.Errorf("%w: push of %d bytes", errAssemble, len(v)))
		return a
	}
	a.code = append(a.code, byte(vm.PUSH1)+byte(len(v)-1))
	a.code = append(a.code, v...)
	return a
}

// pushN appends exactly PUSHn with v left-padded to n bytes, so that the
// width of the immediate is fixed (used for selectors and addresses).
func (a *assembler) pushN(n int, v []byte) *assembler {
	if n < 1 || n > 32 || len(v) > n {
		a.setErr(fmt.Errorf("%w: push%d of %d bytes", errAssemble, n, len(v)))
		return a
	}
	a.code = append(a.code, byte(vm.PUSH1)+byte(n-1))
	a.code = append(a.code, make([]byte, n-len(v))...)
	a.code = append(a.code, v...)
	return a
}

// pushInt appends the smallest PUSHn carrying v.
func (a *assembler) pushInt(v uint64) *assembler {
	return a.push(new(big.Int).SetUint64(v).Bytes())
}

// pushLabel appends a PUSH2 whose immediate becomes the label's offset.
func (a *assembler) pushLabel(name string) *assembler {
	a.code = append(a.code, byte(vm.PUSH2))
	a.fixups = append(a.fixups, fixup{at: len(a.code), label: name})
	a.code = append(a.code, 0, 0)
	return a
}

// jump appends an unconditional jump to the label.
func (a *assembler) jump(name string) *assembler {
	return a.pushLabel(name).op(vm.JUMP)
}

// jumpi appends a jump to the label taken when the stack top is non-zero.
func (a *assembler) jumpi(name string) *assembler {
	return a.pushLabel(name).op(vm.JUMPI)
}

// label marks a jump target here and emits its JUMPDEST.
func (a *assembler) label(name string) *assembler {
	a.mark(name)
	return a.op(vm.JUMPDEST)
}

// data marks a non-executable data section here and appends b.
func (a *assembler) data(name string, b []byte) *assembler {
	a.mark(name)
	a.code = append(a.code, b...)
	return a
}

func (a *assembler) mark(name string) {
	if _, dup := a.labels[name]; dup {
		a.setErr(fmt.Errorf("%w: duplicate label %q", errAssemble, name))
		return
	}
	a.labels[name] = len(a.code)
}

func (a *assembler) setErr(err error) {
	if a.err == nil {
		a.err = err
	}
}

// bytes resolves every label reference and returns the code.
func (a *assembler) bytes() ([]byte, error) {
	if a.err != nil {
		return nil, a.err
	}
	out := append([]byte(nil), a.code...)
	for _, f := range a.fixups {
		off, ok := a.labels[f.label]
		if !ok {
			return nil, fmt.Errorf("%w: undefined label %q", errAssemble, f.label)
		}
		if off > 0xffff {
			return nil, fmt.Errorf("%w: label %q beyond PUSH2 range", errAssemble, f.label)
		}
		out[f.at] = byte(off >> 8)
		out[f.at+1] = byte(off)
	}
	return out, nil
}
