package store

import "context"

// SecretChangesChannel is the LISTEN/NOTIFY channel on which the database
// announces, at commit, every change to what a secret read returns
// (triggers of migration 0030 on secrets and secret_versions). The payload
// is "<org_id> <vault_id> <path>" for one secret, or "<org_id> <vault_id>"
// for every secret of a vault (large deletions, very long paths).
const SecretChangesChannel = "ocv_secret_changed"

// InIdempotentTx reports whether ctx carries an open idempotent transaction
// of this store: statements with ctx see the request's uncommitted writes,
// and the writes become visible to others only at its commit.
func (s *Store) InIdempotentTx(ctx context.Context) bool {
	return boundTx(ctx, s.pool.Pool) != nil
}
