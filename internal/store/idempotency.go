package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// States of an idempotency record.
const (
	// IdempotencyInFlight: the first request holding the key is running.
	IdempotencyInFlight = "in_flight"
	// IdempotencyDone: the first request succeeded and its response is stored.
	IdempotencyDone = "done"
)

// errInvalidClaim: a claim without a TTL, a staleness bound or a SHA-256
// request hash (a programmer error in the caller).
var errInvalidClaim = errors.New("invalid idempotency claim")

// purgeBatch bounds the rows one purge statement deletes, so that a large
// purge never holds locks on the whole table at once.
const purgeBatch = 5000

// IdempotencyKey names one client-chosen Idempotency-Key within the scope of
// the principal that sent it, so two tenants or callers never collide.
type IdempotencyKey struct {
	OrgID       string
	PrincipalID string
	Key         string
}

// IdempotencyClaim asks to reserve a key for one request.
type IdempotencyClaim struct {
	IdempotencyKey
	// RequestHash is the SHA-256 fingerprint of the request (32 bytes).
	RequestHash []byte
	// TTL is the replay window: the record expires TTL after the claim.
	TTL time.Duration
	// StaleAfter: an in-flight record older than this (its request crashed)
	// may be taken over by a new claim.
	StaleAfter time.Duration
}

// IdempotentResponse is the stored first response of a key.
type IdempotentResponse struct {
	Status int
	Header map[string][]string
	Body   []byte
}

// IdempotencyRecord is the stored state of a key.
type IdempotencyRecord struct {
	RequestHash []byte
	State       string // IdempotencyInFlight or IdempotencyDone
	// ClaimID identifies the claim that holds the key; only its holder may
	// complete or release it.
	ClaimID   string
	Response  IdempotentResponse // set when State is IdempotencyDone
	CreatedAt time.Time
	ExpiresAt time.Time
}

// ClaimIdempotencyKey atomically reserves c's key across every replica. It
// returns won=true and the new in-flight record when the caller now holds the
// key: the key was unused, its record had expired, or its in-flight record
// was stale. Otherwise it returns won=false and the existing record, which
// the caller compares and replays. Database time decides expiry and
// staleness, so replicas with skewed clocks agree.
func (s *Store) ClaimIdempotencyKey(ctx context.Context, c IdempotencyClaim) (IdempotencyRecord, bool, error) {
	if c.TTL <= 0 || c.StaleAfter <= 0 || len(c.RequestHash) != 32 {
		return IdempotencyRecord{}, false, fmt.Errorf("claiming idempotency key: %w", errInvalidClaim)
	}
	claimID := uuid.NewString()
	ttl, stale := c.TTL.Seconds(), c.StaleAfter.Seconds()
	for range 3 {
		rec := IdempotencyRecord{RequestHash: c.RequestHash, State: IdempotencyInFlight, ClaimID: claimID}
		err := s.pool.QueryRow(ctx, `INSERT INTO idempotency_keys
			(org_id, principal_id, key, request_hash, state, claim_id, expires_at)
			VALUES ($1, $2, $3, $4, 'in_flight', $5, now() + make_interval(secs => $6))
			ON CONFLICT DO NOTHING
			RETURNING created_at, expires_at`,
			c.OrgID, c.PrincipalID, c.Key, c.RequestHash, claimID, ttl).Scan(&rec.CreatedAt, &rec.ExpiresAt)
		if err == nil {
			return rec, true, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return IdempotencyRecord{}, false, fmt.Errorf("claiming idempotency key: %w", err)
		}
		// The key exists: take it over when it expired or its holder died.
		// The WHERE is re-checked on the newest row version, so of many
		// concurrent takeovers exactly one matches.
		err = s.pool.QueryRow(ctx, `UPDATE idempotency_keys
			SET request_hash = $4, state = 'in_flight', claim_id = $5, status = 0, headers = '{}', body = ''::bytea,
			    created_at = now(), expires_at = now() + make_interval(secs => $6)
			WHERE org_id = $1 AND principal_id = $2 AND key = $3
			  AND (expires_at <= now() OR (state = 'in_flight' AND created_at <= now() - make_interval(secs => $7)))
			RETURNING created_at, expires_at`,
			c.OrgID, c.PrincipalID, c.Key, c.RequestHash, claimID, ttl, stale).Scan(&rec.CreatedAt, &rec.ExpiresAt)
		if err == nil {
			return rec, true, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return IdempotencyRecord{}, false, fmt.Errorf("taking over idempotency key: %w", err)
		}
		existing, err := s.idempotencyRecord(ctx, c.IdempotencyKey)
		if errors.Is(err, ErrNotFound) {
			continue // purged or released between the statements: claim again
		}
		return existing, false, err
	}
	return IdempotencyRecord{}, false, fmt.Errorf("claiming idempotency key: %w", ErrConflict)
}

func (s *Store) idempotencyRecord(ctx context.Context, k IdempotencyKey) (IdempotencyRecord, error) {
	var rec IdempotencyRecord
	var headers []byte
	var status int32
	err := s.pool.QueryRow(ctx, `SELECT request_hash, state, claim_id::text, status, headers, body, created_at, expires_at
		FROM idempotency_keys WHERE org_id = $1 AND principal_id = $2 AND key = $3`,
		k.OrgID, k.PrincipalID, k.Key).Scan(&rec.RequestHash, &rec.State, &rec.ClaimID, &status, &headers,
		&rec.Response.Body, &rec.CreatedAt, &rec.ExpiresAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return IdempotencyRecord{}, fmt.Errorf("reading idempotency key: %w", ErrNotFound)
	}
	if err != nil {
		return IdempotencyRecord{}, fmt.Errorf("reading idempotency key: %w", err)
	}
	rec.Response.Status = int(status)
	if err := json.Unmarshal(headers, &rec.Response.Header); err != nil {
		return IdempotencyRecord{}, fmt.Errorf("decoding idempotency headers: %w", err)
	}
	return rec, nil
}

// CompleteIdempotencyKey stores the first response of the key held by
// claimID and marks it done. It returns ErrNotFound (wrapped) when the claim
// was lost (taken over as stale, or purged).
func (s *Store) CompleteIdempotencyKey(ctx context.Context, k IdempotencyKey, claimID string, resp IdempotentResponse) error {
	header := resp.Header
	if header == nil {
		header = map[string][]string{}
	}
	headers, err := json.Marshal(header)
	if err != nil {
		return fmt.Errorf("encoding idempotency headers: %w", err)
	}
	body := resp.Body
	if body == nil {
		body = []byte{}
	}
	tag, err := s.pool.Exec(ctx, `UPDATE idempotency_keys SET state = 'done', status = $5, headers = $6::jsonb, body = $7
		WHERE org_id = $1 AND principal_id = $2 AND key = $3 AND claim_id = $4 AND state = 'in_flight'`,
		k.OrgID, k.PrincipalID, k.Key, claimID, int32(resp.Status), string(headers), body)
	if err != nil {
		return fmt.Errorf("completing idempotency key: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("completing idempotency key: %w", ErrNotFound)
	}
	return nil
}

// ReleaseIdempotencyKey deletes the in-flight record held by claimID so that
// the client may retry with the same key. Releasing a lost claim is a no-op.
func (s *Store) ReleaseIdempotencyKey(ctx context.Context, k IdempotencyKey, claimID string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM idempotency_keys
		WHERE org_id = $1 AND principal_id = $2 AND key = $3 AND claim_id = $4 AND state = 'in_flight'`,
		k.OrgID, k.PrincipalID, k.Key, claimID)
	if err != nil {
		return fmt.Errorf("releasing idempotency key: %w", err)
	}
	return nil
}

// PurgeIdempotencyKeys deletes every record created more than olderThan ago,
// in batches, and returns how many it deleted.
func (s *Store) PurgeIdempotencyKeys(ctx context.Context, olderThan time.Duration) (int64, error) {
	var total int64
	for {
		tag, err := s.pool.Exec(ctx, `DELETE FROM idempotency_keys WHERE (org_id, principal_id, key) IN (
			SELECT org_id, principal_id, key FROM idempotency_keys
			WHERE created_at < now() - make_interval(secs => $1) LIMIT $2)`, olderThan.Seconds(), purgeBatch)
		if err != nil {
			return total, fmt.Errorf("purging idempotency keys: %w", err)
		}
		total += tag.RowsAffected()
		if tag.RowsAffected() < purgeBatch {
			return total, nil
		}
	}
}
