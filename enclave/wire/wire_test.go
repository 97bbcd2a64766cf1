package wire

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// sampleMessages returns one filled message of every kind, keyed by name,
// with a fresh zero value to decode into.
// sampleMessages is one or more filled-in samples of every message type,
// each with an empty value to decode into: the round-trip tests and
// FuzzDecodeMessage run over all of them.
func sampleMessages() map[string]struct{ in, out Message } {
	all := baseMessages()
	rec, _ := (&IdentityRecord{Kind: IdentityOrg, Version: 1, OrgID: "o", UserID: "u"}).Append(nil)
	for _, more := range []map[string]struct{ in, out Message }{keysMessages(), revokeSamples(), identityMessages(rec, bytes.Repeat([]byte{1}, IdentityMACLen)), auditMessages()} {
		for name, tc := range more {
			all[name] = tc
		}
	}
	return all
}

func baseMessages() map[string]struct{ in, out Message } {
	hash := [32]byte{1, 2, 3}
	return map[string]struct{ in, out Message }{
		"attest request":     {&AttestRequest{Nonce: bytes.Repeat([]byte{7}, 32), ProxyPublicKey: bytes.Repeat([]byte{9}, 32)}, &AttestRequest{}},
		"attest response":    {&AttestResponse{Document: []byte("doc")}, &AttestResponse{}},
		"create kek":         {&CreateKEKRequest{Token: "h.p.s", OrgID: "org", VaultID: "vault"}, &CreateKEKRequest{}},
		"create kek reply":   {&CreateKEKResponse{KEKVersion: 3}, &CreateKEKResponse{}},
		"seal":               {&SealRequest{OrgID: "o", VaultID: "v", Path: "a/b", SecretVersion: 2, KEKVersion: 1, Plaintext: []byte("pt")}, &SealRequest{}},
		"seal with caller":   {&SealRequest{OrgID: "o", VaultID: "v", Path: "a/b", Plaintext: []byte("pt"), Token: "h.p.s", PolicySet: []byte("OCVPSET"), PolicyMAC: bytes.Repeat([]byte{3}, PolicyMACLen), ClientIP: "2001:db8::1", SecretType: "private_key"}, &SealRequest{}},
		"seal reply":         {&SealResponse{KEKVersion: 1, WrappedDEK: []byte("w"), Ciphertext: []byte("c")}, &SealResponse{}},
		"open":               {&OpenRequest{OrgID: "o", VaultID: "v", Path: "p", SecretVersion: 9, WrappedDEK: []byte("w"), Ciphertext: []byte("c")}, &OpenRequest{}},
		"open with caller":   {&OpenRequest{OrgID: "o", VaultID: "v", Path: "p", WrappedDEK: []byte("w"), Ciphertext: []byte("c"), Token: "h.p.s", PolicySet: []byte("set"), PolicyMAC: bytes.Repeat([]byte{4}, PolicyMACLen), ClientIP: "192.0.2.7"}, &OpenRequest{}},
		"open reply":         {&OpenResponse{Plaintext: []byte("pt")}, &OpenResponse{}},
		"seal policy set":    {&SealPolicySetRequest{OrgID: "o", VaultID: "v", Version: 7, Set: []byte("OCVPSET\x01"), ChangerToken: "h.p.s"}, &SealPolicySetRequest{}},
		"policy set mac":     {&SealPolicySetResponse{MAC: bytes.Repeat([]byte{5}, PolicyMACLen)}, &SealPolicySetResponse{}},
		"signing key":        {&SigningKeyRequest{Token: "h.p.s", OrgID: "o", AgentID: "a", Chain: "ethereum", Version: 2, Private: bytes.Repeat([]byte{1}, 32)}, &SigningKeyRequest{}},
		"signing key reply":  {&SigningKeyResponse{Curve: "secp256k1", PublicKey: bytes.Repeat([]byte{4}, 65)}, &SigningKeyResponse{}},
		"sign intent":        {&SignIntentRequest{Token: "h.p.s", OrgID: "o", AgentID: "a", Chain: "base", KeyVersion: 1, Kind: IntentTransaction, Payload: []byte(`{}`), Context: []byte(`{}`)}, &SignIntentRequest{}},
		"sign intent reply":  {&SignIntentResponse{Signature: bytes.Repeat([]byte{1}, 65), Digest: hash[:], SignedTx: []byte{2, 3}, TxHash: hash[:]}, &SignIntentResponse{}},
		"seal guardrails":    {&SealGuardrailsRequest{OrgID: "o", AgentID: "a", Version: 3, Set: []byte(`{}`), ChangerToken: "h.p.s"}, &SealGuardrailsRequest{}},
		"sign intent sealed": {&SignIntentRequest{Token: "t", OrgID: "o", AgentID: "a", Chain: "ethereum", KeyVersion: 2, Kind: IntentDigest, Payload: hash[:], Context: []byte(`{}`), GuardrailSet: []byte(`{"agent_id":"a"}`), GuardrailMAC: bytes.Repeat([]byte{6}, PolicyMACLen)}, &SignIntentRequest{}},
		"sign intent denied": {&SignIntentResponse{Denied: "tx_to_allowlist", Detail: "d"}, &SignIntentResponse{}},
		"sign jwt":           {&SignJWTRequest{Claims: []byte(`{"sub":"x"}`)}, &SignJWTRequest{}},
		"sign jwt reply":     {&SignJWTResponse{Token: "a.b.c", KID: "ocv-jwt-v1"}, &SignJWTResponse{}},
		"public keys":        {&PublicKeysRequest{}, &PublicKeysRequest{}},
		"public keys reply": {&PublicKeysResponse{Keys: []PublicKey{
			{KID: "k1", Alg: "ES256", Curve: "P-256", X: bytes.Repeat([]byte{1}, 32), Y: bytes.Repeat([]byte{2}, 32)},
			{KID: "k2", Alg: "ES256", Curve: "P-256", X: bytes.Repeat([]byte{3}, 32), Y: bytes.Repeat([]byte{4}, 32)},
		}}, &PublicKeysResponse{}},
		"health":       {&HealthRequest{}, &HealthRequest{}},
		"health reply": {&HealthResponse{HSM: HSMOK, Mode: ModeSimulated, KeyCount: 1, Detail: "d"}, &HealthResponse{}},
		"extend audit head": {&ExtendAuditHeadRequest{OrgID: "o", PrevSeq: 5, PrevHash: hash, LastEventID: -1,
			Digests: [][32]byte{hash, {9}}}, &ExtendAuditHeadRequest{}},
		"extend audit head reply": {&ExtendAuditHeadResponse{Seq: 7, Hash: hash, Signature: bytes.Repeat([]byte{5}, 64), KID: "k"},
			&ExtendAuditHeadResponse{}},
	}
}

func TestMessageRoundTrip(t *testing.T) {
	for name, tc := range sampleMessages() {
		t.Run(name, func(t *testing.T) {
			b, err := tc.in.Append(nil)
			require.NoError(t, err)
			require.NoError(t, tc.out.Decode(b))
			require.Equal(t, tc.in, tc.out)
			b2, err := tc.out.Append(nil)
			require.NoError(t, err)
			require.Equal(t, b, b2)
			// Every strict prefix and any trailing byte must be refused.
			for i := range b {
				require.ErrorIs(t, tc.out.Decode(b[:i]), ErrBadRequest)
			}
			require.ErrorIs(t, tc.out.Decode(append(b, 0)), ErrBadRequest)
		})
	}
}

func TestMessageBounds(t *testing.T) {
	tests := map[string]struct {
		msg     Message
		wantErr error
	}{
		"fail path over 1024 bytes":   {&SealRequest{Path: string(make([]byte, MaxPathLen+1))}, ErrBadRequest},
		"fail org id over bound":      {&OpenRequest{OrgID: string(make([]byte, MaxIDLen+1))}, ErrBadRequest},
		"fail plaintext over 1 MiB":   {&SealRequest{Plaintext: make([]byte, MaxPlaintextLen+1)}, ErrBadRequest},
		"fail secret type over bound": {&SealRequest{SecretType: string(make([]byte, MaxSecretTypeLen+1))}, ErrBadRequest},
		"fail long proxy key":         {&AttestRequest{ProxyPublicKey: make([]byte, 33)}, ErrBadRequest},
		"fail too many keys":          {&PublicKeysResponse{Keys: make([]PublicKey, MaxKeys+1)}, ErrBadRequest},
		"ok path at 1024 bytes":       {&SealRequest{Path: string(make([]byte, MaxPathLen))}, nil},
		"fail token over bound":       {&OpenRequest{Token: string(make([]byte, MaxTokenLen+1))}, ErrBadRequest},
		"fail policy set over bound":  {&SealRequest{PolicySet: make([]byte, MaxPolicySetLen+1)}, ErrBadRequest},
		"fail long policy mac":        {&OpenRequest{PolicyMAC: make([]byte, PolicyMACLen+1)}, ErrBadRequest},
		"fail long client ip":         {&OpenRequest{ClientIP: string(make([]byte, MaxClientIPLen+1))}, ErrBadRequest},
		"fail changer token long":     {&SealPolicySetRequest{ChangerToken: string(make([]byte, MaxTokenLen+1))}, ErrBadRequest},
		"fail set over bound":         {&SealPolicySetRequest{Set: make([]byte, MaxPolicySetLen+1)}, ErrBadRequest},
		"fail long mac reply":         {&SealPolicySetResponse{MAC: make([]byte, PolicyMACLen+1)}, ErrBadRequest},
		// The largest Open and Seal still fit in one frame.
		"ok largest open": {&OpenRequest{OrgID: string(make([]byte, MaxIDLen)), VaultID: string(make([]byte, MaxIDLen)), Path: string(make([]byte, MaxPathLen)),
			WrappedDEK: make([]byte, MaxWrappedKeyLen), Ciphertext: make([]byte, MaxCiphertextLen), Token: string(make([]byte, MaxTokenLen)),
			PolicySet: make([]byte, MaxPolicySetLen), PolicyMAC: make([]byte, PolicyMACLen), ClientIP: string(make([]byte, MaxClientIPLen))}, nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			b, err := tc.msg.Append(nil)
			require.ErrorIs(t, err, tc.wantErr)
			if err == nil {
				require.LessOrEqual(t, len(b), MaxBodySize)
			}
		})
	}
}

func TestDecodeRejectsHostileLengths(t *testing.T) {
	tests := map[string]struct {
		body    []byte
		msg     Message
		wantErr error
	}{
		// A claimed 4 GiB field must fail on the bound, not allocate.
		"fail huge claimed length": {[]byte{0xff, 0xff, 0xff, 0xff}, &OpenResponse{}, ErrBadRequest},
		// A length within the bound but past the end of the body.
		"fail length past end": {[]byte{0, 0, 0, 10, 1}, &OpenResponse{}, ErrBadRequest},
		// 64 keys claimed with no bytes behind them.
		"fail key count without keys": {[]byte{0, 64}, &PublicKeysResponse{}, ErrBadRequest},
		"fail key count over max":     {[]byte{0xff, 0xff}, &PublicKeysResponse{}, ErrBadRequest},
		"fail empty body for u32":     {nil, &CreateKEKResponse{}, ErrBadRequest},
		"ok empty request":            {nil, &HealthRequest{}, nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.ErrorIs(t, tc.msg.Decode(tc.body), tc.wantErr)
		})
	}
}

func TestCodeMapping(t *testing.T) {
	for c := OK; c <= lastCode; c++ {
		require.Equal(t, c, CodeOf(Err(c)), c.String())
		require.NotEqual(t, "unknown", c.String())
	}
	require.Equal(t, Forbidden, CodeOf(wrapf("authorising: %w", ErrForbidden)))
	require.Equal(t, Conflict, CodeOf(wrapf("sealing policy set: %w", ErrConflict)))
	require.Equal(t, Integrity, CodeOf(wrapf("opening: %w", ErrIntegrity)))
	require.Equal(t, Internal, CodeOf(errPlain))
	require.ErrorIs(t, Err(Code(999)), ErrInternal)
	require.NoError(t, Err(OK))
}

func TestOps(t *testing.T) {
	for op := OpAttest; op <= OpDestroySigningKey; op++ {
		require.True(t, op.Valid())
		require.NotEqual(t, "unknown", op.String())
	}
	require.Equal(t, "seal_identity", OpSealIdentity.String())
	require.Equal(t, "destroy_signing_key", OpDestroySigningKey.String())
	require.False(t, (OpDestroySigningKey + 1).Valid())
	require.False(t, Op(0).Valid())
}

func TestAuditHeadMessage(t *testing.T) {
	hash := [32]byte{0xab, 0xcd}
	msg, err := AuditHeadMessage("org-1", 42, 7, hash)
	require.NoError(t, err)
	want := "ocv-audit-head-v1\norg-1\n42\n7\nabcd" + string(bytes.Repeat([]byte("00"), 30))
	require.Equal(t, want, string(msg))

	tests := map[string]struct {
		org     string
		wantErr error
	}{
		"fail empty org": {"", ErrBadRequest},
		// A newline in the org would let one head's message pass for another's.
		"fail newline in org": {"a\n1", ErrBadRequest},
		"ok uuid":             {"0b6f3b1e-8f0c-4d8e-9a55-1c1f2d3e4f50", nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := AuditHeadMessage(tc.org, 1, 1, hash)
			require.ErrorIs(t, err, tc.wantErr)
		})
	}
}

func TestParseAddr(t *testing.T) {
	tests := map[string]struct {
		in      string
		want    Addr
		wantErr error
	}{
		"ok unix absolute":   {"unix:///tmp/e.sock", Addr{Network: NetworkUnix, Path: "/tmp/e.sock"}, nil},
		"ok unix relative":   {"unix://.ocv/enclave.sock", Addr{Network: NetworkUnix, Path: ".ocv/enclave.sock"}, nil},
		"ok vsock":           {"vsock://16:5000", Addr{Network: NetworkVsock, CID: 16, HasCID: true, Port: 5000}, nil},
		"ok vsock any cid":   {"vsock://:5000", Addr{Network: NetworkVsock, Port: 5000}, nil},
		"fail tcp":           {"tcp://127.0.0.1:1", Addr{}, ErrAddress},
		"fail empty unix":    {"unix://", Addr{}, ErrAddress},
		"fail vsock no port": {"vsock://3", Addr{}, ErrAddress},
		"fail vsock bad cid": {"vsock://x:1", Addr{}, ErrAddress},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := ParseAddr(tc.in)
			require.ErrorIs(t, err, tc.wantErr)
			require.Equal(t, tc.want, got)
			if err == nil {
				require.Equal(t, tc.in, got.String())
			}
		})
	}
}
