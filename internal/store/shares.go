package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/opencustody/ocv/internal/auditchain"
)

// Share statuses.
const (
	SharePending  = "pending"
	ShareAccepted = "accepted"
	ShareDeclined = "declined"
	ShareRevoked  = "revoked"
)

// ErrShareUnavailable: a share cannot be opened any more (expired, revoked,
// declined or its access count exhausted).
var ErrShareUnavailable = errors.New("share unavailable")

// Share is a grant to open one secret a bounded number of times. It is
// opened with the authority of its creator (CreatorType, CreatorID).
type Share struct {
	OrgID          string
	ID             string
	SecretID       string
	SecretVersion  uint32 // the version the share serves: the secret's version when the share was created
	VaultID        string
	Path           string
	CreatorType    string
	CreatorID      string
	RecipientType  string
	RecipientID    *string
	RecipientEmail *string
	ExpiresAt      time.Time
	MaxAccessCount int
	Remaining      int
	PassphraseHash *string
	IPAllowlist    []string
	Status         string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

const shareColumns = `org_id, id, secret_id, secret_version, vault_id, path, creator_type, creator_id, recipient_type, recipient_id,
	recipient_email, expires_at, max_access_count, remaining, passphrase_hash, ip_allowlist, status, created_at, updated_at`

func scanShare(row pgx.Row) (Share, error) {
	var s Share
	err := row.Scan(&s.OrgID, &s.ID, &s.SecretID, &s.SecretVersion, &s.VaultID, &s.Path, &s.CreatorType, &s.CreatorID, &s.RecipientType,
		&s.RecipientID, &s.RecipientEmail, &s.ExpiresAt, &s.MaxAccessCount, &s.Remaining, &s.PassphraseHash,
		&s.IPAllowlist, &s.Status, &s.CreatedAt, &s.UpdatedAt)
	return s, err
}

func collectShares(rows pgx.Rows, err error) ([]Share, error) {
	if err != nil {
		return nil, fmt.Errorf("reading shares: %w", err)
	}
	defer rows.Close()
	var out []Share
	for rows.Next() {
		s, err := scanShare(rows)
		if err != nil {
			return nil, fmt.Errorf("reading shares: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// SecretByID returns the current metadata of a secret of the organization;
// ErrNotFound when it has none with that id.
func (s *Store) SecretByID(ctx context.Context, orgID, id string) (Secret, error) {
	sec, err := scanSecret(s.pool.QueryRow(ctx, `SELECT `+secretColumns+` FROM secrets s WHERE s.org_id = $1 AND s.id = $2`, orgID, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return Secret{}, fmt.Errorf("finding secret: %w", NotFound("secret"))
	}
	if err != nil {
		return Secret{}, fmt.Errorf("finding secret: %w", err)
	}
	return sec, nil
}

// CreateShare stores sh (Remaining = MaxAccessCount) with ev. The share
// serves the secret's version at this moment (sh.SecretVersion is ignored).
func (s *Store) CreateShare(ctx context.Context, sh Share, ev *auditchain.Event) (Share, error) {
	var out Share
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		out, err = scanShare(tx.QueryRow(ctx, `INSERT INTO shares (org_id, id, secret_id, secret_version, vault_id, path,
			creator_type, creator_id, recipient_type, recipient_id, recipient_email, recipient_email_key, expires_at,
			max_access_count, remaining, passphrase_hash, ip_allowlist)
			SELECT $1, $2, $3, s.version, $4, $5, $6, $7, $8, $9, $10, lower($10), $11, $12, $12, $13, $14
			FROM secrets s WHERE s.org_id = $1 AND s.id = $3 AND s.version > 0 RETURNING `+shareColumns,
			sh.OrgID, sh.ID, sh.SecretID, sh.VaultID, sh.Path, sh.CreatorType, sh.CreatorID, sh.RecipientType,
			sh.RecipientID, sh.RecipientEmail, sh.ExpiresAt, sh.MaxAccessCount, sh.PassphraseHash, sh.IPAllowlist))
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("creating share: %w", NotFound("secret"))
		}
		if err != nil {
			if pgCode(err) == codeForeignKeyViolation {
				return fmt.Errorf("creating share: %w", NotFound("secret"))
			}
			return fmt.Errorf("creating share: %w", err)
		}
		return insertEvent(ctx, tx, ev)
	})
	return out, err
}

// GetShare returns a share by id in any organization (share links are
// opened without a principal); ErrNotFound when there is none.
func (s *Store) GetShare(ctx context.Context, id string) (Share, error) {
	sh, err := scanShare(s.pool.QueryRow(ctx, `SELECT `+shareColumns+` FROM shares WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return Share{}, fmt.Errorf("finding share: %w", NotFound("share"))
	}
	if err != nil {
		return Share{}, fmt.Errorf("finding share: %w", err)
	}
	return sh, nil
}

// SharedSecret returns a secret's metadata and the sealed value of the given
// version (Version set to it): ErrNotFound when the secret or that version
// is gone.
func (s *Store) SharedSecret(ctx context.Context, orgID, secretID string, version uint32) (Secret, Sealed, error) {
	var sealed Sealed
	var v uint32
	sec, err := scanSecret(s.pool.QueryRow(ctx, `SELECT `+secretColumns+`, v.version, v.kek_version, v.wrapped_dek, v.ciphertext
		FROM secrets s JOIN secret_versions v ON v.org_id = s.org_id AND v.secret_id = s.id AND v.version = $3
		WHERE s.org_id = $1 AND s.id = $2`, orgID, secretID, version),
		&v, &sealed.KEKVersion, &sealed.WrappedDEK, &sealed.Ciphertext)
	if errors.Is(err, pgx.ErrNoRows) {
		return Secret{}, Sealed{}, fmt.Errorf("finding shared secret version: %w", NotFound("secret version"))
	}
	if err != nil {
		return Secret{}, Sealed{}, fmt.Errorf("finding shared secret version: %w", err)
	}
	sec.Version = v
	return sec, sealed, nil
}

// ConsumeShare takes one access from a share in a single statement: of any
// number of concurrent calls on a share with n accesses left, exactly n
// succeed. It returns the accesses left after this one, or
// ErrShareUnavailable when the share is exhausted, expired, revoked or
// declined. Its expiry is judged in the statement, on the database's own
// now(): the one time source, whatever the caller's clock says.
func (s *Store) ConsumeShare(ctx context.Context, id string) (int, error) {
	var left int
	err := s.pool.QueryRow(ctx, `UPDATE shares SET remaining = remaining - 1, updated_at = now()
		WHERE id = $1 AND remaining > 0 AND status IN ('pending', 'accepted') AND expires_at > now()
		RETURNING remaining`, id).Scan(&left)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("consuming share: %w", ErrShareUnavailable)
	}
	if err != nil {
		return 0, fmt.Errorf("consuming share: %w", err)
	}
	return left, nil
}

// ListOutboundShares lists the shares a principal created, newest first.
func (s *Store) ListOutboundShares(ctx context.Context, orgID, creatorType, creatorID string, limit int) ([]Share, error) {
	return collectShares(s.pool.Query(ctx, `SELECT `+shareColumns+` FROM shares
		WHERE org_id = $1 AND creator_type = $2 AND creator_id = $3 ORDER BY created_at DESC, id LIMIT $4`,
		orgID, creatorType, creatorID, limit))
}

// ListInboundShares lists the shares sent to a principal: as the named
// user or agent recipient (a creator share names the user it goes back
// to), or (users) to the user's email address.
func (s *Store) ListInboundShares(ctx context.Context, principalType, principalID string, limit int) ([]Share, error) {
	return collectShares(s.pool.Query(ctx, `SELECT `+shareColumns+` FROM shares
		WHERE (recipient_id = $2 AND (recipient_type = $1 OR (recipient_type = 'creator' AND $1 = 'user')))
		   OR ($1 = 'user' AND recipient_type = 'external_email'
		       AND recipient_email_key = (SELECT email_key FROM users WHERE id = $2))
		ORDER BY created_at DESC, id LIMIT $3`, principalType, principalID, limit))
}

// SetShareStatus moves a share to status with ev when allowed(share) holds;
// ErrNotFound when there is no such share or allowed refuses it (so a
// caller learns nothing of shares that are not theirs), ErrConflict when
// the share is already revoked or declined.
func (s *Store) SetShareStatus(ctx context.Context, id, status string, allowed func(Share) bool, ev func(Share) *auditchain.Event) (Share, error) {
	var out Share
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		sh, err := scanShare(tx.QueryRow(ctx, `SELECT `+shareColumns+` FROM shares WHERE id = $1 FOR UPDATE`, id))
		if errors.Is(err, pgx.ErrNoRows) || (err == nil && !allowed(sh)) {
			return fmt.Errorf("finding share: %w", NotFound("share"))
		}
		if err != nil {
			return fmt.Errorf("finding share: %w", err)
		}
		if sh.Status == ShareRevoked || sh.Status == ShareDeclined {
			return fmt.Errorf("changing share status: %w", ErrConflict)
		}
		if out, err = scanShare(tx.QueryRow(ctx, `UPDATE shares SET status = $2, updated_at = now() WHERE id = $1
			RETURNING `+shareColumns, id, status)); err != nil {
			return fmt.Errorf("changing share status: %w", err)
		}
		return insertEvent(ctx, tx, ev(out))
	})
	return out, err
}

// MemberRole returns a user's role in the organization and platform role;
// ErrNotFound when the user is not a member.
func (s *Store) MemberRole(ctx context.Context, orgID, userID string) (role, platformRole string, err error) {
	err = s.pool.QueryRow(ctx, `SELECT m.role, coalesce(u.platform_role, '') FROM org_members m JOIN users u ON u.id = m.user_id
		WHERE m.org_id = $1 AND m.user_id = $2`, orgID, userID).Scan(&role, &platformRole)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", "", fmt.Errorf("finding member: %w", ErrNotFound)
	}
	if err != nil {
		return "", "", fmt.Errorf("finding member: %w", err)
	}
	return role, platformRole, nil
}

// ShareAttempt is one counter of share-open attempts: Key names it
// ("share:<id>" or "addr:<address>"), Limit is the most failures allowed in
// a window.
type ShareAttempt struct {
	Key   string
	Limit int
}

// maxShareAttemptKey bounds a counter's key (the table checks it too).
const maxShareAttemptKey = 128

// ShareAttemptWait reads the counters and returns how long until every one
// of them allows another attempt: zero when none has reached its limit in
// the window that contains now.
func (s *Store) ShareAttemptWait(ctx context.Context, counters []ShareAttempt, window time.Duration, now time.Time) (time.Duration, error) {
	keys := make([]string, len(counters))
	for i, c := range counters {
		keys[i] = c.Key
	}
	rows, err := s.pool.Query(ctx, `SELECT key, window_start, failures FROM share_attempts WHERE key = ANY($1)`, keys)
	if err != nil {
		return 0, fmt.Errorf("reading share attempts: %w", err)
	}
	defer rows.Close()
	found := map[string]attemptWindow{}
	for rows.Next() {
		var k string
		var w attemptWindow
		if err := rows.Scan(&k, &w.start, &w.failures); err != nil {
			return 0, fmt.Errorf("reading share attempts: %w", err)
		}
		found[k] = w
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("reading share attempts: %w", err)
	}
	var wait time.Duration
	for _, c := range counters {
		if w, ok := found[c.Key]; ok {
			wait = max(wait, w.wait(c.Limit, window, now))
		}
	}
	return wait, nil
}

type attemptWindow struct {
	start    time.Time
	failures int
}

// wait is how long a counter at w blocks attempts under limit: until its
// window ends when it is at the limit, else zero.
func (w attemptWindow) wait(limit int, window time.Duration, now time.Time) time.Duration {
	end := w.start.Add(window)
	if !now.Before(end) || w.failures < limit {
		return 0
	}
	return end.Sub(now)
}

// CountShareAttempt counts one attempt on each counter atomically (a new
// window starts when the last one ended) and returns how long until every
// counter allows another: non-zero when this attempt went over a limit and
// must not be made. A caller whose attempt then succeeds gives it back with
// ForgiveShareAttempt, so that only failures stay counted; counting before
// trying means concurrent guesses cannot overrun a limit.
func (s *Store) CountShareAttempt(ctx context.Context, counters []ShareAttempt, window time.Duration, now time.Time) (time.Duration, error) {
	// Drop a few long-ended windows so that the table stays small (rows
	// another attempt holds are skipped).
	if _, err := s.pool.Exec(ctx, `DELETE FROM share_attempts WHERE key IN (SELECT key FROM share_attempts
		WHERE window_start < $1 LIMIT 64 FOR UPDATE SKIP LOCKED)`, now.Add(-2*window)); err != nil {
		return 0, fmt.Errorf("pruning share attempts: %w", err)
	}
	var wait time.Duration
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		wait = 0
		for _, c := range counters {
			if len(c.Key) > maxShareAttemptKey {
				return fmt.Errorf("counting share attempt: key too long")
			}
			var w attemptWindow
			err := tx.QueryRow(ctx, `INSERT INTO share_attempts AS a (key, window_start, failures) VALUES ($1, $2, 1)
				ON CONFLICT (key) DO UPDATE SET
					window_start = CASE WHEN a.window_start <= $2 - make_interval(secs => $3) THEN $2 ELSE a.window_start END,
					failures = CASE WHEN a.window_start <= $2 - make_interval(secs => $3) THEN 1 ELSE a.failures + 1 END
				RETURNING window_start, failures`, c.Key, now, window.Seconds()).Scan(&w.start, &w.failures)
			if err != nil {
				return fmt.Errorf("counting share attempt: %w", err)
			}
			// Over the limit only when this attempt is beyond it.
			wait = max(wait, w.wait(c.Limit+1, window, now))
		}
		return nil
	})
	return wait, err
}

// ForgiveShareAttempt takes back one attempt counted by CountShareAttempt
// (the attempt succeeded).
func (s *Store) ForgiveShareAttempt(ctx context.Context, counters []ShareAttempt) error {
	keys := make([]string, len(counters))
	for i, c := range counters {
		keys[i] = c.Key
	}
	if _, err := s.pool.Exec(ctx, `UPDATE share_attempts SET failures = failures - 1 WHERE key = ANY($1) AND failures > 0`, keys); err != nil {
		return fmt.Errorf("forgiving share attempt: %w", err)
	}
	return nil
}
