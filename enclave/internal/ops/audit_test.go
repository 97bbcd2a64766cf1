package ops

import (
	"context"
	"crypto/sha256"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/attestation/sim"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/auditchain"
)

// auditChain is a run of event digests with the chain hash after each.
type auditChain struct {
	digests [][32]byte
	hashes  [][32]byte // hashes[i] is the head at seq i (hashes[0] genesis)
}

func newAuditChain(n int, salt string) auditChain {
	c := auditChain{hashes: [][32]byte{{}}}
	for i := range n {
		d := sha256.Sum256([]byte(salt + string(rune('a'+i%26)) + string(rune(i))))
		c.digests = append(c.digests, d)
		prev := c.hashes[len(c.hashes)-1]
		c.hashes = append(c.hashes, auditchain.Link(prev[:], d))
	}
	return c
}

// extend asks h to extend org's chain from seq over c's digests up to end.
func (c auditChain) extend(t testing.TB, f *fixture, org string, from, to int) (wire.ExtendAuditHeadResponse, error) {
	t.Helper()
	req := wire.ExtendAuditHeadRequest{OrgID: org, PrevSeq: uint64(from), PrevHash: c.hashes[from],
		LastEventID: int64(100 + to), Digests: c.digests[from:to]}
	var resp wire.ExtendAuditHeadResponse
	err := f.call(t, wire.OpExtendAuditHead, &req, &resp)
	return resp, err
}

func TestExtendAuditHead(t *testing.T) {
	f := newFixture(t)
	var keys wire.PublicKeysResponse
	require.NoError(t, f.call(t, wire.OpPublicKeys, &wire.PublicKeysRequest{}, &keys))
	pub := jwksKey(t, keys.Keys[0])
	c := newAuditChain(10, "real")

	// Genesis of a new organization: trust on first use.
	resp, err := c.extend(t, f, "org-1", 0, 3)
	require.NoError(t, err)
	require.Equal(t, uint64(3), resp.Seq)
	require.Equal(t, c.hashes[3], resp.Hash, "the enclave computes the chain itself")
	msg, err := wire.AuditHeadMessage("org-1", 3, 103, c.hashes[3])
	require.NoError(t, err)
	require.True(t, verifyRS(pub, msg, resp.Signature))

	// From the floor: extends.
	resp, err = c.extend(t, f, "org-1", 3, 6)
	require.NoError(t, err)
	require.Equal(t, c.hashes[6], resp.Hash)

	// A retry from an earlier head through the floor continues from it.
	resp, err = c.extend(t, f, "org-1", 3, 8)
	require.NoError(t, err)
	require.Equal(t, uint64(8), resp.Seq)
	// A retry that ends at the floor signs the same head again.
	resp, err = c.extend(t, f, "org-1", 6, 8)
	require.NoError(t, err)
	require.Equal(t, c.hashes[8], resp.Hash)

	refused := map[string]func() error{
		"rewritten chain from genesis": func() error {
			r := newAuditChain(10, "rewritten")
			_, err := r.extend(t, f, "org-1", 0, 9)
			return err
		},
		"rewritten past from an earlier head": func() error {
			r := newAuditChain(10, "rewritten")
			_, err := r.extend(t, f, "org-1", 5, 9)
			return err
		},
		"a head past the floor (seq that does not exist)": func() error {
			_, err := c.extend(t, f, "org-1", 9, 10)
			return err
		},
		"a chain that falls short of the floor": func() error {
			_, err := c.extend(t, f, "org-1", 2, 5)
			return err
		},
		"the floor's seq with another hash": func() error {
			req := wire.ExtendAuditHeadRequest{OrgID: "org-1", PrevSeq: 8, PrevHash: sha256.Sum256([]byte("x")),
				Digests: c.digests[8:9]}
			return f.call(t, wire.OpExtendAuditHead, &req, &wire.ExtendAuditHeadResponse{})
		},
	}
	for name, try := range refused {
		require.ErrorIs(t, try(), wire.ErrConflict, name)
	}
	// Nothing refused moved the floor.
	resp, err = c.extend(t, f, "org-1", 8, 10)
	require.NoError(t, err)
	require.Equal(t, c.hashes[10], resp.Hash)
}

func TestExtendAuditHeadBadRequests(t *testing.T) {
	f := newFixture(t)
	c := newAuditChain(2, "x")
	bad := map[string]wire.ExtendAuditHeadRequest{
		"no digests":          {OrgID: "o"},
		"too many digests":    {OrgID: "o", Digests: make([][32]byte, wire.MaxAuditDigests+1)},
		"control char in org": {OrgID: "a\nb", Digests: c.digests},
		"empty org":           {Digests: c.digests},
		"genesis not zero":    {OrgID: "o", PrevHash: [32]byte{1}, Digests: c.digests},
		"seq overflow":        {OrgID: "o", PrevSeq: 1 << 63, PrevHash: [32]byte{1}, Digests: c.digests},
	}
	for name, req := range bad {
		t.Run(name, func(t *testing.T) {
			body, _ := req.Append(nil) // too many digests fails to encode: send the handler the struct
			var err error
			if body == nil || len(req.Digests) > wire.MaxAuditDigests {
				_, err = f.h.ExtendAuditHead(context.Background(), &req)
			} else {
				err = f.call(t, wire.OpExtendAuditHead, &req, &wire.ExtendAuditHeadResponse{})
			}
			require.ErrorIs(t, err, wire.ErrBadRequest)
		})
	}
}

// TestExtendAuditHeadFloorSurvivesRestart: a second handler on the same
// key store (a restarted or second enclave) refuses what the first has
// superseded, and extends from the first one's head.
func TestExtendAuditHeadFloorSurvivesRestart(t *testing.T) {
	f := newFixture(t)
	c := newAuditChain(6, "real")
	_, err := c.extend(t, f, "org-1", 0, 4)
	require.NoError(t, err)

	iss, err := sim.New(sim.Config{Dir: t.TempDir(), PCRs: map[uint][]byte{0: testPCR0}})
	require.NoError(t, err)
	h2, err := New(context.Background(), f.ks, iss, f.channelPub, Config{Issuer: "i",
		TokenLifetimes: wire.DefaultTokenLifetimes(), Mode: wire.ModeSimulated})
	require.NoError(t, err)
	t.Cleanup(h2.Close)
	f2 := &fixture{h: h2, ks: f.ks}

	// A chain rewritten after seq 2, presented from genesis as if new.
	r := newAuditChain(6, "rewritten")
	_, err = r.extend(t, f2, "org-1", 0, 3)
	require.ErrorIs(t, err, wire.ErrConflict)
	_, err = c.extend(t, f2, "org-1", 0, 2)
	require.ErrorIs(t, err, wire.ErrConflict, "an old head is not signed again")
	resp, err := c.extend(t, f2, "org-1", 4, 6)
	require.NoError(t, err)
	require.Equal(t, c.hashes[6], resp.Hash)
	// The first enclave sees the second one's floor.
	_, err = c.extend(t, f, "org-1", 4, 5)
	require.ErrorIs(t, err, wire.ErrConflict)
}
