package secretcache

import (
	"context"

	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/store"
)

// Vaults is the store with secret reads served from a Cache: only the
// database fetch of GetSecret is replaced, every check around it stays the
// caller's. Its writes invalidate their key on this replica at once
// (read-your-writes); other replicas learn of them from the database's log
// of changes (Run).
type Vaults struct {
	*store.Store
	Cache *Cache
}

// GetSecret returns the secret at path with its sealed value, from the
// cache when it holds the key, else from the database (then cached).
// Within an idempotent transaction, which may see its own uncommitted
// writes, it always reads the database and caches nothing.
func (v Vaults) GetSecret(ctx context.Context, orgID, vaultID, path string) (store.Secret, store.Sealed, error) {
	if !v.Cache.Enabled() || v.Store.InIdempotentTx(ctx) {
		return v.Store.GetSecret(ctx, orgID, vaultID, path)
	}
	k := Key{OrgID: orgID, VaultID: vaultID, Path: path}
	e, t, ok := v.Cache.Get(k)
	if ok {
		return e.Secret, e.Sealed, nil
	}
	// The miss's ticket is taken before the database is read: an
	// invalidation arriving meanwhile makes Fill refuse what was read.
	sec, sealed, err := v.Store.GetSecret(ctx, orgID, vaultID, path)
	if err == nil {
		v.Cache.Fill(t, Entry{Secret: sec, Sealed: sealed})
	}
	return sec, sealed, err
}

// write runs a write of k holding it out of the cache. Committed on
// return (no idempotent transaction), the hold ends at once; in an
// idempotent transaction, which commits later, it ends with the
// change feed seeing the commit (or when the write failed).
func (v Vaults) write(ctx context.Context, k Key, fn func() error) error {
	if !v.Cache.Enabled() {
		return fn()
	}
	v.Cache.Hold(k)
	err := fn()
	if err != nil || !v.Store.InIdempotentTx(ctx) {
		v.Cache.Release(k)
	}
	return err
}

// PutSecret writes a new version (store.Store.PutSecret) and drops the key.
func (v Vaults) PutSecret(ctx context.Context, in store.Secret, seal store.SealFunc, ev func(created bool) *auditchain.Event) (out store.Secret, created bool, err error) {
	err = v.write(ctx, Key{OrgID: in.OrgID, VaultID: in.VaultID, Path: in.Path}, func() error {
		out, created, err = v.Store.PutSecret(ctx, in, seal, ev)
		return err
	})
	return out, created, err
}

// DeleteSecret deletes the secret (store.Store.DeleteSecret) and drops the key.
func (v Vaults) DeleteSecret(ctx context.Context, orgID, vaultID, path string, ev *auditchain.Event) error {
	return v.write(ctx, Key{OrgID: orgID, VaultID: vaultID, Path: path}, func() error {
		return v.Store.DeleteSecret(ctx, orgID, vaultID, path, ev)
	})
}

// DeleteVault deletes the vault (store.Store.DeleteVault) and drops its keys.
func (v Vaults) DeleteVault(ctx context.Context, orgID, id string, ev *auditchain.Event) error {
	err := v.Store.DeleteVault(ctx, orgID, id, ev)
	if v.Cache.Enabled() {
		v.Cache.InvalidateVault(orgID, id)
	}
	return err
}
