package floors

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/opencustody/ocv/keyvault/memstore"
)

func TestFloors(t *testing.T) {
	ctx := context.Background()
	ms, err := memstore.New()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1000, 0)
	clock := func() time.Time { return now }
	a := New(ms, Config{Refresh: time.Second, Now: clock})
	b := New(ms, Config{Refresh: time.Second, Now: clock}) // a second enclave on the same HSM

	d1, d2 := [32]byte{1}, [32]byte{2}
	if _, err := a.Check(ctx, "policy/o/v", 1, d1); !errors.Is(err, ErrNoFloor) {
		t.Fatalf("check before any floor: %v, want ErrNoFloor", err)
	}
	if err := a.Advance(ctx, "policy/o/v", Floor{Version: 1, Digest: d1}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Check(ctx, "policy/o/v", 1, d1); err != nil {
		t.Fatalf("second store, v1: %v", err)
	}
	if err := b.Advance(ctx, "policy/o/v", Floor{Version: 2, Digest: d2}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		s       *Store
		version uint64
		digest  [32]byte
		want    error
	}{
		{"superseded on the store that wrote it", b, 1, d1, ErrSuperseded},
		{"newest on the other store (cache re-read)", a, 2, d2, nil},
		{"superseded on the other store", a, 1, d1, ErrSuperseded},
		{"another record claiming the newest version", a, 2, d1, ErrSuperseded},
		{"a version never sealed", a, 3, d2, ErrSuperseded},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tc.s.Check(ctx, "policy/o/v", tc.version, tc.digest); !errors.Is(err, tc.want) {
				t.Fatalf("Check(%d) = %v, want %v", tc.version, err, tc.want)
			}
		})
	}
	if err := a.Advance(ctx, "policy/o/v", Floor{Version: 2, Digest: d1}); !errors.Is(err, ErrSuperseded) {
		t.Fatalf("advance to the same version: %v", err)
	}
	if err := a.Advance(ctx, "policy/o/v", Floor{Version: 2, Digest: d2}); err != nil {
		t.Fatalf("retried advance: %v", err)
	}
	// A restart: a new Store reads the HSM.
	c := New(ms, Config{Now: clock})
	if _, err := c.Check(ctx, "policy/o/v", 1, d1); !errors.Is(err, ErrSuperseded) {
		t.Fatalf("after restart, v1: %v", err)
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	f := Floor{Version: 7, Digest: [32]byte{9, 8}, NotBefore: 1700000000123}
	got, err := decode(f.encode())
	if err != nil || got != f {
		t.Fatalf("decode(encode(%v)) = %v, %v", f, got, err)
	}
	for _, bad := range [][]byte{nil, []byte("oflx"), append(f.encode(), 0)} {
		if _, err := decode(bad); err == nil {
			t.Errorf("decode(%x) accepted", bad)
		}
	}
}
