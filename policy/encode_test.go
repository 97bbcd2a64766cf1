package policy

import (
	"bytes"
	"encoding/binary"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// sampleSet returns valid policies in canonical form (sorted by ID, inner
// lists sorted, UTC expiry), so a decode compares equal.
func sampleSet() []Policy {
	exp := time.Date(2031, 5, 6, 7, 8, 9, 123456789, time.UTC)
	full := pol("p-2", EffectDeny, -3, "prod/db*/**", PermissionRead, PermissionWrite)
	full.PrincipalType, full.PrincipalID = PrincipalUser, "7d1f7c4e-0000-4000-8000-000000000001"
	full.ExpiresAt = &exp
	full.Conditions = Conditions{
		IPCIDRs:       []string{"10.0.0.0/8", "2001:db8::/32"},
		TimeWindow:    &TimeWindow{Start: "22:00", End: "02:00", Days: []time.Weekday{time.Monday, time.Friday}},
		EnvironmentIn: []string{"preview", "production"},
	}
	return []Policy{
		pol("p-1", EffectAllow, 10, "prod/*", PermissionRead),
		full,
		withPolicy(pol("p-3", EffectAllow, 0, "**", PermissionWrite), func(p *Policy) {
			p.Conditions.TimeWindow = &TimeWindow{Start: "09:00", End: "17:00"}
		}),
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	tests := map[string]struct {
		vault    string
		version  uint64
		policies []Policy
	}{
		"empty set":   {vault: "v-1", version: 0},
		"sample set":  {vault: "v-1", version: 42, policies: sampleSet()},
		"max version": {vault: "vault", version: ^uint64(0), policies: sampleSet()[:1]},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			b := EncodeSet(tc.vault, tc.version, tc.policies)
			vault, version, got, err := DecodeSet(b)
			require.NoError(t, err)
			require.Equal(t, tc.vault, vault)
			require.Equal(t, tc.version, version)
			if len(tc.policies) == 0 {
				require.Empty(t, got)
			} else {
				require.Equal(t, tc.policies, got)
			}
			require.Equal(t, b, EncodeSet(vault, version, got), "re-encoding must be byte-identical")
		})
	}
}

// TestEncodeSetCanonical shows the same logical set gives the same bytes
// whatever the order of policies and of their inner lists, the zone of the
// expiry, or a cache filled by Prepare.
func TestEncodeSetCanonical(t *testing.T) {
	want := EncodeSet("v-1", 7, sampleSet())

	shuffled := sampleSet()
	shuffled[0], shuffled[2] = shuffled[2], shuffled[0]
	p := &shuffled[1]
	p.Permissions = []Permission{PermissionWrite, PermissionRead}
	p.Conditions.IPCIDRs = []string{"2001:db8::/32", "10.0.0.0/8"}
	p.Conditions.EnvironmentIn = []string{"production", "preview"}
	p.Conditions.TimeWindow.Days = []time.Weekday{time.Friday, time.Monday}
	local := p.ExpiresAt.In(time.FixedZone("x", -7*3600))
	p.ExpiresAt = &local
	require.NoError(t, p.Prepare())
	require.Equal(t, want, EncodeSet("v-1", 7, shuffled))

	require.NotEqual(t, want, EncodeSet("v-1", 8, sampleSet()), "version is bound")
	require.NotEqual(t, want, EncodeSet("v-2", 7, sampleSet()), "vault is bound")
	changed := sampleSet()
	changed[0].Priority++
	require.NotEqual(t, want, EncodeSet("v-1", 7, changed), "every field is bound")
}

func TestDecodeSetRejects(t *testing.T) {
	good := EncodeSet("v-1", 1, sampleSet())
	dup := sampleSet()
	dup[1].ID = dup[0].ID
	invalid := sampleSet()
	invalid[0].Pattern = "a**"
	tests := map[string]struct {
		b       []byte
		wantErr error
	}{
		"empty":             {b: nil, wantErr: ErrInvalidEncoding},
		"bad magic":         {b: append([]byte("XCVPSET"), good[7:]...), wantErr: ErrInvalidEncoding},
		"unknown version":   {b: append([]byte("OCVPSET\x02"), good[8:]...), wantErr: ErrInvalidEncoding},
		"truncated":         {b: good[:len(good)-1], wantErr: ErrInvalidEncoding},
		"trailing byte":     {b: append(bytes.Clone(good), 0), wantErr: ErrInvalidEncoding}, // a MAC must cover exactly one meaning
		"empty vault":       {b: EncodeSet("", 1, nil), wantErr: ErrInvalidEncoding},
		"duplicate ids":     {b: EncodeSet("v-1", 1, dup), wantErr: ErrInvalidEncoding},
		"invalid policy":    {b: EncodeSet("v-1", 1, invalid), wantErr: ErrInvalidPolicy},
		"huge count":        {b: setHeader(1 << 31), wantErr: ErrInvalidEncoding}, // must not allocate 2^31 policies
		"count beyond data": {b: setHeader(3), wantErr: ErrInvalidEncoding},
		"over max size":     {b: make([]byte, MaxSetBytes+1), wantErr: ErrInvalidEncoding},
		"unsorted inner list": {
			b:       bytes.Replace(good, []byte("\x00\x00\x00\x04read\x00\x00\x00\x05write"), []byte("\x00\x00\x00\x05write\x00\x00\x00\x04read"), 1),
			wantErr: ErrInvalidEncoding, // non-canonical bytes would give two MACs for one set
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, _, _, err := DecodeSet(tc.b)
			require.ErrorIs(t, err, tc.wantErr)
			require.ErrorIs(t, err, ErrInvalidEncoding)
		})
	}
}

func setHeader(count uint32) []byte {
	b := []byte("OCVPSET\x01\x00\x00\x00\x03v-1")
	b = binary.BigEndian.AppendUint64(b, 1)
	return binary.BigEndian.AppendUint32(b, count)
}

func FuzzDecodeSet(f *testing.F) {
	f.Add(EncodeSet("v-1", 1, sampleSet()))
	f.Add(EncodeSet("v-1", 0, nil))
	f.Add(setHeader(1))
	f.Add([]byte("OCVPSET\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		vault, version, policies, err := DecodeSet(b) // must never panic
		if err != nil {
			require.ErrorIs(t, err, ErrInvalidEncoding)
			return
		}
		// Only canonical bytes decode: re-encoding gives the input back.
		require.Equal(t, b, EncodeSet(vault, version, policies))
		for _, p := range policies {
			require.NoError(t, p.Validate())
		}
	})
}
