package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// UserTokensChannel is the LISTEN/NOTIFY channel that announces a moved user
// cut-off as "user_id org_id unix_microseconds" (org_id AllOrgs: every
// organization), so that every replica refuses the user's older access
// tokens at once.
const UserTokensChannel = "ocv_user_tokens_revoked"

// AllOrgs is the org id of a user cut-off that applies in every
// organization (password change or set, user deletion).
const AllOrgs = "00000000-0000-0000-0000-000000000000"

// UserCutoffWindow is how far back UserTokenCutoffs looks: longer than any
// access token lives (OCV_TOKEN_TTL is at most 24 h, and both verifiers
// refuse a token living longer than its configured lifetime plus 60 s).
const UserCutoffWindow = 25 * time.Hour

// UserCutoff is a moved user cut-off: the user's access tokens for OrgID
// (AllOrgs: any organization) issued before At are refused.
type UserCutoff struct {
	UserID string
	OrgID  string
	At     time.Time
}

// revokeUserTokens moves the cut-off of userID in orgID (AllOrgs: every
// organization) to one second past the database's now (never backwards)
// and announces it on UserTokensChannel, in tx. The second of margin covers
// clock skew between replicas as for agents; a token minted afterwards is
// stamped with the cut-off at least (see UserTokensNotBefore and
// proxy/auth.Minter), so a fresh sign-in works at once.
func revokeUserTokens(ctx context.Context, tx pgx.Tx, userID, orgID string) (UserCutoff, error) {
	out := UserCutoff{UserID: userID, OrgID: orgID}
	err := tx.QueryRow(ctx, `INSERT INTO user_token_cutoffs (user_id, org_id, tokens_valid_after)
		VALUES ($1, $2, now() + interval '1 second')
		ON CONFLICT (user_id, org_id) DO UPDATE
		SET tokens_valid_after = greatest(user_token_cutoffs.tokens_valid_after, excluded.tokens_valid_after)
		RETURNING tokens_valid_after`, userID, orgID).Scan(&out.At)
	if err != nil {
		return UserCutoff{}, fmt.Errorf("revoking user tokens: %w", err)
	}
	if _, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, UserTokensChannel, FormatUserCutoff(out)); err != nil {
		return UserCutoff{}, fmt.Errorf("notifying user token revocation: %w", err)
	}
	return out, nil
}

// RevokeUserTokens cuts off every access token of userID issued until now in
// orgID (AllOrgs: in every organization) and returns the cut-off, which the
// caller also hands to its own replica's verifier at once (the notification
// reaches the others). Call it in the same request as the change it follows,
// e.g. after deleting a user.
func (s *Store) RevokeUserTokens(ctx context.Context, userID, orgID string) (UserCutoff, error) {
	var out UserCutoff
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		out, err = revokeUserTokens(ctx, tx, userID, orgID)
		return err
	})
	if hook := s.userCutoffs.Load(); err == nil && hook != nil {
		(*hook)(out)
	}
	return out, err
}

// FormatUserCutoff is the notification payload of c.
func FormatUserCutoff(c UserCutoff) string {
	return c.UserID + " " + c.OrgID + " " + strconv.FormatInt(c.At.UnixMicro(), 10)
}

// ParseUserCutoff reads a notification of UserTokensChannel.
func ParseUserCutoff(payload string) (UserCutoff, bool) {
	parts := strings.Split(payload, " ")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" {
		return UserCutoff{}, false
	}
	n, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil {
		return UserCutoff{}, false
	}
	return UserCutoff{UserID: parts[0], OrgID: parts[1], At: time.UnixMicro(n)}, true
}

// UserTokenCutoffs returns every user cut-off set within UserCutoffWindow.
func (s *Store) UserTokenCutoffs(ctx context.Context) ([]UserCutoff, error) {
	rows, err := s.pool.Query(ctx, `SELECT user_id::text, org_id::text, tokens_valid_after FROM user_token_cutoffs
		WHERE tokens_valid_after > now() - make_interval(secs => $1)`, UserCutoffWindow.Seconds())
	if err != nil {
		return nil, fmt.Errorf("loading user token cutoffs: %w", err)
	}
	defer rows.Close()
	var out []UserCutoff
	for rows.Next() {
		var c UserCutoff
		if err := rows.Scan(&c.UserID, &c.OrgID, &c.At); err != nil {
			return nil, fmt.Errorf("loading user token cutoffs: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// UserTokensNotBefore returns the latest cut-off of userID that applies in
// orgID (its own or the all-organizations one); zero when none.
func (s *Store) UserTokensNotBefore(ctx context.Context, userID, orgID string) (time.Time, error) {
	var at *time.Time
	err := s.pool.QueryRow(ctx, `SELECT max(tokens_valid_after) FROM user_token_cutoffs
		WHERE user_id = $1 AND org_id IN ($2, $3)`, userID, orgID, AllOrgs).Scan(&at)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, fmt.Errorf("reading user token cutoff: %w", err)
	}
	if at == nil {
		return time.Time{}, nil
	}
	return *at, nil
}

// PurgeUserTokenCutoffs deletes cut-offs older than UserCutoffWindow.
func (s *Store) PurgeUserTokenCutoffs(ctx context.Context) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM user_token_cutoffs
		WHERE tokens_valid_after < now() - make_interval(secs => $1)`, UserCutoffWindow.Seconds()); err != nil {
		return fmt.Errorf("purging user token cutoffs: %w", err)
	}
	return nil
}

// SetUserCutoffHook has fn told of every user cut-off this store commits,
// right after the commit, so that the replica's own verifier refuses the old
// tokens at once (the other replicas learn it through UserTokensChannel).
func (s *Store) SetUserCutoffHook(fn func(UserCutoff)) { s.userCutoffs.Store(&fn) }

// inTxRevoking is inTx for changes that cut off user tokens: fn calls revoke
// (in its transaction) for each user and organization (AllOrgs: all), and
// the hook learns of each cut-off after the commit.
func (s *Store) inTxRevoking(ctx context.Context, fn func(tx pgx.Tx, revoke func(userID, orgID string) error) error) error {
	var made []UserCutoff
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		made = made[:0]
		return fn(tx, func(userID, orgID string) error {
			c, err := revokeUserTokens(ctx, tx, userID, orgID)
			if err == nil {
				made = append(made, c)
			}
			return err
		})
	})
	if err != nil {
		return err
	}
	if hook := s.userCutoffs.Load(); hook != nil {
		for _, c := range made {
			(*hook)(c)
		}
	}
	return nil
}
