package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/opencustody/ocv/internal/auditchain"
)

// Secret is a secret's metadata at its current version.
type Secret struct {
	OrgID     string
	ID        string
	VaultID   string
	Path      string
	Type      string
	Metadata  json.RawMessage
	Version   uint32
	ExpiresAt *time.Time
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Sealed is a secret value as storage sees it: ciphertext and the wrapped
// data key, never plaintext.
type Sealed struct {
	KEKVersion uint32
	WrappedDEK []byte
	Ciphertext []byte
}

// SealFunc encrypts the value being written for the given secret version.
type SealFunc func(ctx context.Context, version uint32) (Sealed, error)

const secretColumns = `s.org_id, s.id, s.vault_id, s.path, s.type, s.metadata, s.version, s.expires_at, s.created_at, s.updated_at`

func scanSecret(row pgx.Row, extra ...any) (Secret, error) {
	var sec Secret
	dest := append([]any{&sec.OrgID, &sec.ID, &sec.VaultID, &sec.Path, &sec.Type, &sec.Metadata, &sec.Version,
		&sec.ExpiresAt, &sec.CreatedAt, &sec.UpdatedAt}, extra...)
	return sec, row.Scan(dest...)
}

// PutSecret writes a new version of the secret at in.Path (creating the
// secret at version 1), sealing the value through seal with the version
// number it will have, and records the event ev returns (told whether the
// secret is new), atomically. created reports whether the secret is new. A
// missing vault gives ErrNotFound.
//
// The common case takes one round trip and one commit: seal for the
// version after the one guessed (the version this process last wrote, or a
// new secret when it wrote none), then one statement that advances the
// version only if it is still the one guessed and inserts the version row
// and the audit event with it. When the guess was wrong the same statement
// answers the current version, and the writer seals again for the one
// after it. After a few lost races it falls back to locking the row. The
// version sealed is always the version written: the enclave binds it into
// the ciphertext.
func (s *Store) PutSecret(ctx context.Context, in Secret, seal SealFunc, ev func(created bool) *auditchain.Event) (Secret, bool, error) {
	guess, _ := s.hints.get(in.OrgID, in.VaultID, in.Path)
	for attempt := 0; attempt < 3; attempt++ {
		out, created, ok, err := s.putOptimistic(ctx, in, &guess, seal, ev)
		if err != nil {
			s.hints.forget(in.OrgID, in.VaultID, in.Path)
		}
		if err != nil || ok {
			return out, created, err
		}
	}
	s.hints.forget(in.OrgID, in.VaultID, in.Path)
	out, created, err := s.putLocked(ctx, in, seal, ev)
	if err == nil {
		s.hints.set(in.OrgID, in.VaultID, in.Path, secretHint{id: out.ID, version: out.Version})
	}
	return out, created, err
}

// insertVersionCTE ends the optimistic write: the written row with true, or
// when nothing was written the current row (as of the statement's start)
// with false, or no row when the secret does not exist.
const insertVersionCTE = `ver AS (INSERT INTO secret_versions (org_id, secret_id, version, kek_version, wrapped_dek, ciphertext)
		SELECT org_id, id, version, $10, $11, $12 FROM w),
	aud AS (INSERT INTO audit_events (org_id, occurred_at, request_id, actor_type, actor_id, action, resource, outcome, status, client_ip)
		SELECT org_id, $13, $14, $15, $16, $17, $18, $19, $20, $21 FROM w WHERE $22)
	SELECT ` + secretColumns + `, true FROM w s
	UNION ALL SELECT ` + secretColumns + `, false FROM secrets s
		WHERE s.org_id = $1 AND s.vault_id = $3 AND s.path = $4 AND NOT EXISTS (SELECT 1 FROM w)`

// putOptimistic writes the version after guess (a new secret when guess has
// no id). It returns ok false when the guess was wrong, with guess set to
// what the statement found (read afresh when it found nothing).
func (s *Store) putOptimistic(ctx context.Context, in Secret, guess *secretHint, seal SealFunc, ev func(bool) *auditchain.Event) (Secret, bool, bool, error) {
	id, version := guess.id, guess.version
	created := id == ""
	if created {
		id, version = uuid.Must(uuid.NewV7()).String(), 0
	}
	sealed, err := seal(ctx, version+1)
	if err != nil {
		return Secret{}, false, false, err
	}
	var e *auditchain.Event
	if ev != nil {
		e = ev(created)
	}
	record := e != nil
	if e == nil {
		e = &auditchain.Event{}
	}
	args := []any{in.OrgID, id, in.VaultID, in.Path, in.Type, in.Metadata, in.ExpiresAt, version + 1, version,
		sealed.KEKVersion, sealed.WrappedDEK, sealed.Ciphertext,
		e.OccurredAt, e.RequestID, e.ActorType, e.ActorID, e.Action, e.Resource, e.Outcome, e.Status, e.ClientIP, record}
	var sql string
	if created {
		sql = `WITH w AS (INSERT INTO secrets (org_id, id, vault_id, path, type, metadata, expires_at, version)
			SELECT $1, $2, $3, $4, $5, $6, $7, $8 WHERE $9::int = 0
			ON CONFLICT (org_id, vault_id, path) DO NOTHING RETURNING *), ` + insertVersionCTE
	} else {
		sql = `WITH w AS (UPDATE secrets SET type = $5, metadata = $6, expires_at = $7, version = $8, updated_at = now()
			WHERE org_id = $1 AND id = $2 AND vault_id = $3 AND path = $4 AND version = $9 RETURNING *), ` + insertVersionCTE
	}
	var written bool
	out, err := scanSecret(s.pool.QueryRow(ctx, sql, args...), &written)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		// Nothing written and no row found: the secret is gone (or was
		// made after the statement began). Read it afresh.
		*guess, err = s.readVersion(ctx, in)
		return Secret{}, false, false, err
	case pgCode(err) == codeForeignKeyViolation:
		return Secret{}, false, false, fmt.Errorf("writing secret: %w", NotFound("vault"))
	case err != nil:
		return Secret{}, false, false, fmt.Errorf("writing secret: %w", err)
	case !written:
		*guess = secretHint{id: out.ID, version: out.Version} // lost a race: try again
		return Secret{}, false, false, nil
	}
	s.hints.set(in.OrgID, in.VaultID, in.Path, secretHint{id: out.ID, version: out.Version})
	if record {
		s.noteStored(ctx, e) // the statement committed with its audit event
	}
	return out, created, true, nil
}

// readVersion reads a secret's id and version; a missing secret gives the
// zero hint (a new secret).
func (s *Store) readVersion(ctx context.Context, in Secret) (secretHint, error) {
	var h secretHint
	err := s.pool.QueryRow(ctx, `SELECT id, version FROM secrets WHERE org_id = $1 AND vault_id = $2 AND path = $3`,
		in.OrgID, in.VaultID, in.Path).Scan(&h.id, &h.version)
	if errors.Is(err, pgx.ErrNoRows) {
		return secretHint{}, nil
	}
	if err != nil {
		return secretHint{}, fmt.Errorf("reading secret version: %w", err)
	}
	return h, nil
}

// putLocked is the contended path: it locks (or creates) the row first.
func (s *Store) putLocked(ctx context.Context, in Secret, seal SealFunc, ev func(created bool) *auditchain.Event) (out Secret, created bool, err error) {
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		out, created = Secret{}, false
		var id string
		var version uint32
		// Lock the row, or create it; a concurrent creator makes the insert a
		// no-op and the second select finds its row.
		for attempt := 0; ; attempt++ {
			err := tx.QueryRow(ctx, `SELECT id, version FROM secrets WHERE org_id = $1 AND vault_id = $2 AND path = $3
				FOR UPDATE`, in.OrgID, in.VaultID, in.Path).Scan(&id, &version)
			if err == nil {
				break
			}
			if !errors.Is(err, pgx.ErrNoRows) || attempt > 0 {
				return fmt.Errorf("locking secret: %w", err)
			}
			id, version = uuid.Must(uuid.NewV7()).String(), 0
			tag, err := tx.Exec(ctx, `INSERT INTO secrets (org_id, id, vault_id, path, type, metadata, version, expires_at)
				VALUES ($1, $2, $3, $4, $5, $6, 0, $7) ON CONFLICT (org_id, vault_id, path) DO NOTHING`,
				in.OrgID, id, in.VaultID, in.Path, in.Type, in.Metadata, in.ExpiresAt)
			if pgCode(err) == codeForeignKeyViolation {
				return fmt.Errorf("creating secret: %w", NotFound("vault"))
			}
			if err != nil {
				return fmt.Errorf("creating secret: %w", err)
			}
			if tag.RowsAffected() == 1 {
				created = true
				break
			}
		}
		version++
		sealed, err := seal(ctx, version)
		if err != nil {
			return err
		}
		b := &pgx.Batch{}
		b.Queue(`INSERT INTO secret_versions (org_id, secret_id, version, kek_version, wrapped_dek, ciphertext)
			VALUES ($1, $2, $3, $4, $5, $6)`, in.OrgID, id, version, sealed.KEKVersion, sealed.WrappedDEK, sealed.Ciphertext)
		b.Queue(`UPDATE secrets s SET type = $4, metadata = $5, expires_at = $6, version = $7, updated_at = now()
			WHERE org_id = $1 AND vault_id = $2 AND id = $3 RETURNING `+secretColumns,
			in.OrgID, in.VaultID, id, in.Type, in.Metadata, in.ExpiresAt, version).QueryRow(func(row pgx.Row) error {
			out, err = scanSecret(row)
			return err
		})
		if ev != nil {
			queueEvent(tx, b, ev(created))
		}
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return fmt.Errorf("writing secret version: %w", err)
		}
		return nil
	})
	return out, created, err
}

// GetSecret returns the secret at path with its current sealed value.
func (s *Store) GetSecret(ctx context.Context, orgID, vaultID, path string) (Secret, Sealed, error) {
	var sealed Sealed
	sec, err := scanSecret(s.pool.QueryRow(ctx, `SELECT `+secretColumns+`, v.kek_version, v.wrapped_dek, v.ciphertext
		FROM secrets s JOIN secret_versions v ON v.org_id = s.org_id AND v.secret_id = s.id AND v.version = s.version
		WHERE s.org_id = $1 AND s.vault_id = $2 AND s.path = $3`, orgID, vaultID, path),
		&sealed.KEKVersion, &sealed.WrappedDEK, &sealed.Ciphertext)
	if errors.Is(err, pgx.ErrNoRows) {
		return Secret{}, Sealed{}, fmt.Errorf("finding secret: %w", NotFound("secret"))
	}
	if err != nil {
		return Secret{}, Sealed{}, fmt.Errorf("finding secret: %w", err)
	}
	return sec, sealed, nil
}

// ListSecrets returns up to limit secrets of a vault in path order after the
// cursor path, optionally under a path prefix. It never reads values.
func (s *Store) ListSecrets(ctx context.Context, orgID, vaultID, prefix, after string, limit int) ([]Secret, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+secretColumns+` FROM secrets s
		WHERE s.org_id = $1 AND s.vault_id = $2 AND s.path > $3 AND starts_with(s.path, $4) AND s.version > 0
		ORDER BY s.path LIMIT $5`, orgID, vaultID, after, prefix, limit)
	if err != nil {
		return nil, fmt.Errorf("listing secrets: %w", err)
	}
	defer rows.Close()
	var out []Secret
	for rows.Next() {
		sec, err := scanSecret(rows)
		if err != nil {
			return nil, fmt.Errorf("listing secrets: %w", err)
		}
		out = append(out, sec)
	}
	return out, rows.Err()
}

// DeleteSecret deletes a secret and all its versions, recording ev.
func (s *Store) DeleteSecret(ctx context.Context, orgID, vaultID, path string, ev *auditchain.Event) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM secrets WHERE org_id = $1 AND vault_id = $2 AND path = $3`, orgID, vaultID, path)
		if err != nil {
			return fmt.Errorf("deleting secret: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("deleting secret: %w", NotFound("secret"))
		}
		return insertEvent(ctx, tx, ev)
	})
}
