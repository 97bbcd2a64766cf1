package webhooks

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestSignKnownAnswer(t *testing.T) {
	// RFC 4231 test case 2 (HMAC-SHA-256).
	require.Equal(t, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
		Sign([]byte("Jefe"), []byte("what do ya want for nothing?")))
}

func TestBodyFormat(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.FixedZone("CET", 3600))
	b, err := Body(Delivery{ID: "d1", EventID: "evt_1", Event: "policy.created", Attempt: 3,
		Data: json.RawMessage(`{"policy_id":"p1"}`)}, now)
	require.NoError(t, err)
	require.JSONEq(t, `{"id":"evt_1","event":"policy.created","attempt":3,"timestamp":"2026-11-22T11:00:00Z",
		"data":{"policy_id":"p1"}}`, string(b))

	b, err = Body(Delivery{EventID: "evt_2", Event: "policy.deleted", Attempt: 1}, now)
	require.NoError(t, err)
	require.Contains(t, string(b), `"data":{}`)

	_, err = Body(Delivery{Data: json.RawMessage(`{not json`)}, now)
	require.Error(t, err)
}

func TestVerify(t *testing.T) {
	secret := []byte("whsec_test-secret")
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	body, err := Body(Delivery{EventID: "evt_1", Event: "policy.created", Attempt: 1}, now)
	require.NoError(t, err)
	sig := Sign(secret, body)
	tampered := []byte(strings.Replace(string(body), `"attempt":1`, `"attempt":2`, 1))
	noTS := []byte(`{"id":"evt_1","event":"policy.created"}`)
	badTS := []byte(`{"timestamp":"yesterday"}`)

	tests := map[string]struct {
		secret    []byte
		body      []byte
		sig       string
		now       time.Time
		tolerance time.Duration
		wantErr   error
	}{
		"ok round trip":           {secret: secret, body: body, sig: sig, now: now},
		"ok uppercase hex":        {secret: secret, body: body, sig: strings.ToUpper(sig), now: now},
		"ok within tolerance":     {secret: secret, body: body, sig: sig, now: now.Add(4 * time.Minute)},
		"ok small clock skew":     {secret: secret, body: body, sig: sig, now: now.Add(-time.Minute)},
		"ok explicit tolerance":   {secret: secret, body: body, sig: sig, now: now.Add(50 * time.Minute), tolerance: time.Hour},
		"fail wrong secret":       {secret: []byte("other"), body: body, sig: sig, now: now, wantErr: ErrBadSignature},
		"fail tampered attempt":   {secret: secret, body: tampered, sig: sig, now: now, wantErr: ErrBadSignature},
		"fail empty signature":    {secret: secret, body: body, sig: "", now: now, wantErr: ErrBadSignature},
		"fail truncated":          {secret: secret, body: body, sig: sig[:62], now: now, wantErr: ErrBadSignature},
		"fail not hex":            {secret: secret, body: body, sig: "zz" + sig[2:], now: now, wantErr: ErrBadSignature},
		"fail prefixed signature": {secret: secret, body: body, sig: "sha256=" + sig, now: now, wantErr: ErrBadSignature},
		// A captured delivery replayed later than the tolerance.
		"fail replay": {secret: secret, body: body, sig: sig, now: now.Add(6 * time.Minute), wantErr: ErrStaleTimestamp},
		// A timestamp far in the future would otherwise extend the window.
		"fail future":        {secret: secret, body: body, sig: sig, now: now.Add(-6 * time.Minute), wantErr: ErrStaleTimestamp},
		"fail no timestamp":  {secret: secret, body: noTS, sig: Sign(secret, noTS), now: now, wantErr: ErrBadTimestamp},
		"fail bad timestamp": {secret: secret, body: badTS, sig: Sign(secret, badTS), now: now, wantErr: ErrBadTimestamp},
		"fail not json":      {secret: secret, body: []byte("x"), sig: Sign(secret, []byte("x")), now: now, wantErr: ErrBadTimestamp},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := Verify(tc.secret, tc.body, tc.sig, tc.now, tc.tolerance)
			if tc.wantErr == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tc.wantErr)
		})
	}
}

func TestIsKnownEvent(t *testing.T) {
	require.True(t, IsKnownEvent("policy.created"))
	require.True(t, IsKnownEvent("automation.run.failed"))
	require.False(t, IsKnownEvent("policy.*"))
	require.False(t, IsKnownEvent(""))
}
