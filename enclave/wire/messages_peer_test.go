package wire

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"strings"
	"testing"
)

func peerKey(b byte) ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{b}, ed25519.SeedSize))
}

func pubOf(k ed25519.PrivateKey) ed25519.PublicKey { return k.Public().(ed25519.PublicKey) }

func testTranscript(t testing.TB) PeerTranscript {
	t.Helper()
	tr, err := NewPeerTranscript(bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32), bytes.Repeat([]byte{3}, 32), []byte("document"))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestPeerProofVerify(t *testing.T) {
	good, other := peerKey(1), peerKey(2)
	keys := []ed25519.PublicKey{pubOf(peerKey(9)), pubOf(good)} // rotation: the second key matches
	tr := testTranscript(t)
	tests := map[string]struct {
		sign    ed25519.PrivateKey
		edit    func(p *PeerProof, tr *PeerTranscript)
		wantErr error
	}{
		"ok":                   {good, nil, nil},
		"fail wrong key":       {other, nil, ErrPeerUnknownKey},
		"fail other key's id":  {other, func(p *PeerProof, _ *PeerTranscript) { p.KeyID = PeerKeyIDOf(pubOf(good)) }, ErrPeerBadSignature},
		"fail unknown key id":  {good, func(p *PeerProof, _ *PeerTranscript) { p.KeyID[0] ^= 1 }, ErrPeerUnknownKey},
		"fail no signature":    {good, func(p *PeerProof, _ *PeerTranscript) { p.Signature = [64]byte{} }, ErrPeerBadSignature},
		"fail flipped bit":     {good, func(p *PeerProof, _ *PeerTranscript) { p.Signature[10] ^= 1 }, ErrPeerBadSignature},
		"fail other nonce":     {good, func(_ *PeerProof, tr *PeerTranscript) { tr.Nonce = bytes.Repeat([]byte{4}, 32) }, ErrPeerBadSignature},
		"fail other proxy key": {good, func(_ *PeerProof, tr *PeerTranscript) { tr.ProxyPublicKey = bytes.Repeat([]byte{4}, 32) }, ErrPeerBadSignature},
		// The enclave's ephemeral key: a proof cannot move to another session.
		"fail other enclave key": {good, func(_ *PeerProof, tr *PeerTranscript) { tr.EnclavePublicKey = bytes.Repeat([]byte{4}, 32) }, ErrPeerBadSignature},
		"fail other document":    {good, func(_ *PeerProof, tr *PeerTranscript) { tr.DocumentDigest[0] ^= 1 }, ErrPeerBadSignature},
		"fail short nonce":       {good, func(_ *PeerProof, tr *PeerTranscript) { tr.Nonce = tr.Nonce[:8] }, ErrBadRequest},
		"fail short channel key": {good, func(_ *PeerProof, tr *PeerTranscript) { tr.EnclavePublicKey = tr.EnclavePublicKey[:31] }, ErrBadRequest},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			p, err := SignPeerProof(tc.sign, &tr)
			if err != nil {
				t.Fatal(err)
			}
			check := tr
			check.Nonce, check.ProxyPublicKey, check.EnclavePublicKey = bytes.Clone(tr.Nonce), bytes.Clone(tr.ProxyPublicKey), bytes.Clone(tr.EnclavePublicKey)
			if tc.edit != nil {
				tc.edit(p, &check)
			}
			err = VerifyPeerProof(keys, &check, p)
			if tc.wantErr == nil && err != nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Fatalf("VerifyPeerProof = %v, want %v", err, tc.wantErr)
			}
		})
	}
}

func TestPeerProofNoKeys(t *testing.T) {
	tr := testTranscript(t)
	p, err := SignPeerProof(peerKey(1), &tr)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyPeerProof(nil, &tr, p); !errors.Is(err, ErrPeerUnknownKey) {
		t.Fatalf("no configured key: %v", err)
	}
}

func TestPeerTranscriptCopies(t *testing.T) {
	nonce := bytes.Repeat([]byte{1}, 32)
	tr, err := NewPeerTranscript(nonce, bytes.Repeat([]byte{2}, 32), bytes.Repeat([]byte{3}, 32), nil)
	if err != nil {
		t.Fatal(err)
	}
	nonce[0] = 9 // a frame buffer reused for the next frame
	if tr.Nonce[0] != 1 {
		t.Fatal("the transcript aliases its input")
	}
}

func TestPeerProofCodec(t *testing.T) {
	tr := testTranscript(t)
	p, _ := SignPeerProof(peerKey(1), &tr)
	b, err := p.Append(nil)
	if err != nil || len(b) != PeerProofLen {
		t.Fatalf("Append: %d bytes, %v", len(b), err)
	}
	var got PeerProof
	if err := got.Decode(b); err != nil || got != *p {
		t.Fatalf("Decode: %v", err)
	}
	for name, bad := range map[string][]byte{"empty": nil, "short": b[:PeerProofLen-1], "long": append(bytes.Clone(b), 0)} {
		if err := got.Decode(bad); !errors.Is(err, ErrBadRequest) {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

func TestParsePeerPublicKey(t *testing.T) {
	pub := pubOf(peerKey(1))
	s := FormatPeerPublicKey(pub)
	tests := map[string]struct {
		in string
		ok bool
	}{
		"ok formatted":   {s, true},
		"ok bare base64": {strings.TrimPrefix(s, "ed25519:"), true},
		"ok spaces":      {" " + s + "\n", true},
		"fail empty":     {"", false},
		"fail short":     {"ed25519:AAAA", false},
		"fail not b64":   {"ed25519:!!!", false},
		"fail hex":       {strings.Repeat("ab", 32), false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := ParsePeerPublicKey(tc.in)
			if (err == nil) != tc.ok {
				t.Fatalf("err = %v", err)
			}
			if tc.ok && !got.Equal(pub) {
				t.Fatal("wrong key")
			}
		})
	}
}

// FuzzDecodePeerProof: whatever decodes re-encodes to the same bytes.
func FuzzDecodePeerProof(f *testing.F) {
	tr := testTranscript(f)
	p, _ := SignPeerProof(peerKey(1), &tr)
	good, _ := p.Append(nil)
	f.Add(good)
	f.Add(good[:10])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		var m PeerProof
		if err := m.Decode(b); err != nil {
			return
		}
		again, err := m.Append(nil)
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("did not round-trip: %v", err)
		}
		_ = VerifyPeerProof([]ed25519.PublicKey{pubOf(peerKey(1))}, &tr, &m)
	})
}
