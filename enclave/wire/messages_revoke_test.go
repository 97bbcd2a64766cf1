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
