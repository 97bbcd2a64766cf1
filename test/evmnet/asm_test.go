package evmnet

import (
	"testing"

	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/stretchr/testify/require"
)

func TestAssembler(t *testing.T) {
	tests := map[string]struct {
		build   func(a *assembler)
		want    []byte
		wantErr error
	}{
		"push picks the smallest width": {
			build: func(a *assembler) { a.pushInt(0).pushInt(0xff).pushInt(0x0100) },
			want:  []byte{byte(vm.PUSH1), 0, byte(vm.PUSH1), 0xff, byte(vm.PUSH2), 1, 0},
		},
		"pushN keeps its width": {
			build: func(a *assembler) { a.pushN(4, []byte{0x01}) },
			want:  []byte{byte(vm.PUSH4), 0, 0, 0, 1},
		},
		"forward and backward labels resolve": {
			build: func(a *assembler) { a.label("top").jump("end").jump("top").label("end") },
			want: []byte{
				byte(vm.JUMPDEST),
				byte(vm.PUSH2), 0, 9, byte(vm.JUMP),
				byte(vm.PUSH2), 0, 0, byte(vm.JUMP),
				byte(vm.JUMPDEST),
			},
		},
		"data labels carry no JUMPDEST": {
			build: func(a *assembler) { a.pushLabel("d").data("d", []byte{0xaa}) },
			want:  []byte{byte(vm.PUSH2), 0, 3, 0xaa},
		},
		"fail undefined label": {
			build:   func(a *assembler) { a.jump("nowhere") },
			wantErr: errAssemble,
		},
		"fail duplicate label": {
			build:   func(a *assembler) { a.label("x").label("x") },
			wantErr: errAssemble,
		},
		"zero-padded wide push is trimmed": {
			build:   func(a *assembler) { a.push(make([]byte, 33)) },
			want:    []byte{byte(vm.PUSH1), 0}, // leading zeros are trimmed, so this is fine
			wantErr: nil,
		},
		"fail pushN too narrow": {
			build:   func(a *assembler) { a.pushN(1, []byte{1, 2}) },
			wantErr: errAssemble,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			a := newAssembler()
			tc.build(a)
			got, err := a.bytes()
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				require.Equal(t, tc.want, got)
			}
		})
	}
}

func TestEncodeErrorString(t *testing.T) {
	got := EncodeErrorString("abc")
	require.Len(t, got, 4+32+32+32)
	require.Equal(t, []byte{0x08, 0xc3, 0x79, 0xa0}, got[:4])
	require.Equal(t, byte(0x20), got[35])
	require.Equal(t, byte(3), got[67])
	require.Equal(t, []byte("abc"), got[68:71])
}
