package cli

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/store"
)

// ErrChainBroken is returned when any chain fails to verify.
var ErrChainBroken = errors.New("audit chain verification failed")

func auditVerify(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("ocv audit verify", stderr)
	dbURL := fs.String("database-url", os.Getenv("OCV_DATABASE_URL"), "PostgreSQL URL (read access is enough; default $OCV_DATABASE_URL)")
	org := fs.String("org", "", "verify only this organization's chain")
	jwksPath := fs.String("jwks", "", "JWKS file (GET /.well-known/jwks.json) to check the enclave's signatures on chain heads")
	headsArg := fs.String("heads", "", "the proxy's external audit heads, a directory (audit_heads_dir) or s3://bucket/prefix (audit_heads_url, with the OCV_AUDIT_HEADS_S3_* environment): fail when the database is behind or disagrees with them")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *dbURL == "" {
		return fmt.Errorf("%w: --database-url or OCV_DATABASE_URL is required", ErrUsage)
	}
	var keys map[string]*ecdsa.PublicKey
	if *jwksPath != "" {
		var err error
		if keys, err = loadJWKS(*jwksPath); err != nil {
			return err
		}
	}
	var src headsSource
	if *headsArg != "" {
		var err error
		if src, err = openHeads(*headsArg); err != nil {
			return err
		}
	}
	db, err := store.Open(ctx, *dbURL, 2)
	if err != nil {
		return err
	}
	defer db.Close()
	orgs := []string{*org}
	if *org == "" {
		if orgs, err = db.ChainOrgs(ctx); err != nil {
			return err
		}
		if src != nil {
			// An organization whose every event was deleted is still in
			// the external heads.
			if orgs, err = src.withOrgs(ctx, orgs); err != nil {
				return err
			}
		}
	}
	if src != nil && keys == nil {
		fmt.Fprintln(stderr, "note: without --jwks the signatures of the heads are not checked")
	}
	failed := false
	for _, o := range orgs {
		var ext []store.SignedHead
		if src != nil {
			if ext, err = src.heads(ctx, o); err != nil {
				failed = true
				fmt.Fprintln(stdout, "FAIL", err)
				continue
			}
			if ext == nil {
				fmt.Fprintf(stderr, "note: org %s has no external heads\n", o)
			}
		}
		n, err := verifyChain(ctx, db, o, keys, ext)
		if err != nil {
			failed = true
			fmt.Fprintln(stdout, "FAIL", err)
			continue
		}
		fmt.Fprintf(stdout, "ok   org %s: %d events chained\n", o, n)
	}
	if failed {
		return ErrChainBroken
	}
	return nil
}

// verifyChain walks one organization's chain and checks it against its
// signed heads, those in the database and ext, the external ones.
func verifyChain(ctx context.Context, db *store.Store, org string, keys map[string]*ecdsa.PublicKey, ext []store.SignedHead) (int64, error) {
	w := auditchain.NewWalker(org)
	heads, err := db.Heads(ctx, org)
	if err != nil {
		return 0, err
	}
	type at struct {
		hash []byte
		id   int64
	}
	seen := map[int64]*at{}
	for _, h := range append(heads, ext...) {
		seen[h.Seq] = nil
	}
	for {
		evs, err := db.ChainEvents(ctx, org, w.Seq(), 1000)
		if err != nil {
			return 0, err
		}
		for _, e := range evs {
			if err := w.Next(e); err != nil {
				return 0, err
			}
			if _, ok := seen[e.ChainSeq]; ok {
				seen[e.ChainSeq] = &at{hash: e.Hash, id: e.ID}
			}
		}
		if len(evs) < 1000 {
			break
		}
	}
	check := func(h store.SignedHead, where string) error {
		broken := func(reason string) error {
			return &auditchain.BrokenLinkError{OrgID: org, ChainSeq: h.Seq, EventID: h.EventID, Reason: reason}
		}
		got := seen[h.Seq]
		switch {
		case got == nil:
			return broken(fmt.Sprintf("%s signed head names seq %d but the database's chain ends at %d (events or heads deleted)", where, h.Seq, w.Seq()))
		case subtle.ConstantTimeCompare(got.hash, h.Hash) != 1:
			return broken(fmt.Sprintf("the database's chain differs from the %s head the enclave signed", where))
		case got.id != h.EventID:
			return broken(fmt.Sprintf("the %s head names event %d, the database's chain has %d there", where, h.EventID, got.id))
		}
		if keys != nil {
			if err := verifyHead(h, keys); err != nil {
				return broken(where + " head: " + err.Error())
			}
		}
		return nil
	}
	for _, h := range heads {
		if err := check(h, "a"); err != nil {
			return 0, err
		}
	}
	var newestDB int64
	if len(heads) > 0 {
		newestDB = heads[len(heads)-1].Seq
	}
	for _, h := range ext {
		if err := check(h, "an external"); err != nil {
			return 0, err
		}
		if h.Seq > newestDB {
			return 0, &auditchain.BrokenLinkError{OrgID: org, ChainSeq: h.Seq, EventID: h.EventID,
				Reason: fmt.Sprintf("the database's signed heads end at seq %d, behind the external head at %d (heads deleted)", newestDB, h.Seq)}
		}
	}
	return w.Seq(), nil
}

func verifyHead(h store.SignedHead, keys map[string]*ecdsa.PublicKey) error {
	key, ok := keys[h.KID]
	if !ok {
		return fmt.Errorf("head signed with unknown key %q", h.KID)
	}
	var hash [32]byte
	copy(hash[:], h.Hash)
	msg, err := wire.AuditHeadMessage(h.OrgID, uint64(h.Seq), h.EventID, hash)
	if err != nil {
		return err
	}
	digest := sha256.Sum256(msg)
	if len(h.Signature) != 64 || !ecdsa.Verify(key, digest[:],
		new(big.Int).SetBytes(h.Signature[:32]), new(big.Int).SetBytes(h.Signature[32:])) {
		return errors.New("the enclave's signature on the head does not verify")
	}
	return nil
}

func loadJWKS(path string) (map[string]*ecdsa.PublicKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading jwks: %w", err)
	}
	var doc api.JWKS
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("parsing jwks: %w", err)
	}
	out := map[string]*ecdsa.PublicKey{}
	for _, k := range doc.Keys {
		x, errX := base64.RawURLEncoding.DecodeString(k.X)
		y, errY := base64.RawURLEncoding.DecodeString(k.Y)
		if k.Crv != "P-256" || errX != nil || errY != nil || len(x) != 32 || len(y) != 32 {
			continue
		}
		pk, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
		if err == nil {
			out[k.Kid] = pk
		}
	}
	return out, nil
}
