package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// States of an idempotency record.
const (
	// IdempotencyInFlight: the first request holding the key is running
	// (its idempotent transaction holds the key's lock). Rows in this
	// state are only left by releases before exactly-once and are ignored.
	IdempotencyInFlight = "in_flight"
	// IdempotencyDone: the first request succeeded and its response is stored.
	IdempotencyDone = "done"
)

// errInvalidClaim: a claim without a TTL or a SHA-256 request hash (a programmer error in the caller).
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
	// TTL is the replay window: the record expires TTL after its commit.
	TTL time.Duration
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
	// ClaimID identifies the request that stored the answer.
	ClaimID   string
	Response  IdempotentResponse // set when State is IdempotencyDone
	CreatedAt time.Time
	ExpiresAt time.Time
}

// readRecord reads k's stored answer that has not expired.
func readRecord(ctx context.Context, q querier, k IdempotencyKey) (IdempotencyRecord, error) {
	var rec IdempotencyRecord
	var headers []byte
	var status int32
	err := q.QueryRow(ctx, `SELECT request_hash, state, claim_id::text, status, headers, body, created_at, expires_at
		FROM idempotency_keys WHERE org_id = $1 AND principal_id = $2 AND key = $3
		  AND state = 'done' AND expires_at > now()`,
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
