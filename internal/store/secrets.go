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
// secret is new), in one transaction. created reports whether the secret is
// new. A missing vault gives ErrNotFound.
func (s *Store) PutSecret(ctx context.Context, in Secret, seal SealFunc, ev func(created bool) *auditchain.Event) (out Secret, created bool, err error) {
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
				return fmt.Errorf("creating secret: %w", ErrNotFound)
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
			queueEvent(b, ev(created))
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
		return Secret{}, Sealed{}, fmt.Errorf("finding secret: %w", ErrNotFound)
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
			return fmt.Errorf("deleting secret: %w", ErrNotFound)
		}
		return insertEvent(ctx, tx, ev)
	})
}
