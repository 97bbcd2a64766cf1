package wire

import (
	"errors"
	"math"
	"testing"
)

func revokeSamples() map[string]struct{ in, out Message } {
	return map[string]struct{ in, out Message }{
		"revoke token":         {&RevokeTokenRequest{Token: "h.p.s"}, &RevokeTokenRequest{}},
		"revoke token reply":   {&RevokeTokenResponse{ExpiresAtMs: 1_800_000_000_000}, &RevokeTokenResponse{}},
		"set cutoff":           {&SetCutoffRequest{OrgID: "o", PrincipalID: "u", Flags: CutoffAgent | CutoffDelete, Token: "h.p.s"}, &SetCutoffRequest{}},
		"set cutoff all orgs":  {&SetCutoffRequest{PrincipalID: "u", Flags: CutoffAllOrgs, Token: "h.p.s"}, &SetCutoffRequest{}},
		"set cutoff reply":     {&SetCutoffResponse{NotBeforeMs: 1_800_000_000_000}, &SetCutoffResponse{}},
		"set cutoff reply max": {&SetCutoffResponse{NotBeforeMs: math.MaxInt64}, &SetCutoffResponse{}},
	}
}

func TestRevokeMessagesRoundTrip(t *testing.T) {
	for name, tc := range revokeSamples() {
		t.Run(name, func(t *testing.T) {
			b, err := tc.in.Append(nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.out.Decode(b); err != nil {
				t.Fatal(err)
			}
			again, err := tc.out.Append(nil)
			if err != nil || string(again) != string(b) {
				t.Fatalf("did not round-trip: %v", err)
			}
			if len(b) > 0 {
				if err := tc.out.Decode(b[:len(b)-1]); !errors.Is(err, ErrBadRequest) {
					t.Fatalf("truncated: %v", err)
				}
				if err := tc.out.Decode(append(b, 0)); !errors.Is(err, ErrBadRequest) {
					t.Fatalf("trailing byte: %v", err)
				}
			}
		})
	}
}

func TestSetCutoffRefusesUnknownFlags(t *testing.T) {
	if _, err := (&SetCutoffRequest{PrincipalID: "u", Flags: 1 << 7}).Append(nil); !errors.Is(err, ErrBadRequest) {
		t.Fatalf("append: %v", err)
	}
	b, _ := (&SetCutoffRequest{PrincipalID: "u"}).Append(nil)
	b[len(b)-5] = 0x80 // the flags' low byte, before the empty token's length
	if err := new(SetCutoffRequest).Decode(b); !errors.Is(err, ErrBadRequest) {
		t.Fatalf("decode: %v", err)
	}
}

func TestRevokeOpsNamed(t *testing.T) {
	for op, name := range map[Op]string{OpRevokeToken: "revoke_token", OpSetCutoff: "set_cutoff"} {
		if !op.Valid() || op.String() != name {
			t.Fatalf("%d: valid %v, name %q", op, op.Valid(), op.String())
		}
	}
}

// FuzzDecodeRevokeMessage: whatever decodes re-encodes to the same bytes.
func FuzzDecodeRevokeMessage(f *testing.F) {
	for _, tc := range revokeSamples() {
		b, _ := tc.in.Append(nil)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for name, tc := range revokeSamples() {
			if err := tc.out.Decode(b); err != nil {
				continue
			}
			again, err := tc.out.Append(nil)
			if err != nil {
				t.Fatalf("%s: re-encoding a decoded message: %v", name, err)
			}
			if string(again) != string(b) {
				t.Fatalf("%s: message did not round-trip", name)
			}
		}
	})
}
