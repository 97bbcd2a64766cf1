package store

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/opencustody/ocv/internal/auditchain"
)

// Exactly once (docs/architecture.md): a request that holds an
// Idempotency-Key runs its writes in ONE transaction, the idempotent
// transaction, which also stores the key's answer and commits both at
// once. BeginIdempotent opens it and takes the key's transaction-scoped
// advisory lock; Bind puts it in the request's context, and from then on
// every statement of this store whose context carries it runs inside it
// (dbRouter): a plain statement in a savepoint of its own (so that a
// refused statement, such as a unique violation the caller expects, does
// not abort the request's other writes), inTx in a savepoint. A crash
// before the commit leaves nothing (PostgreSQL rolls back and frees the
// lock); after it the key's answer is stored with the effect.

// idleInIdempotentTx bounds how long an idempotent transaction may sit
// idle (its proxy hung between statements) before PostgreSQL ends it,
// freeing its locks. Each statement is bounded by DefaultResponseTimeout.
const idleInIdempotentTx = "60000" // milliseconds

// IdempotencyHold is the idempotent transaction of the request that holds
// a key. It is not safe for concurrent statements: a request's store calls
// are sequential.
type IdempotencyHold interface {
	// Bind returns ctx carrying the transaction: this store's statements
	// with the returned context run in it until it ends.
	Bind(ctx context.Context) context.Context
	// Finish stores resp as the key's answer (resp nil stores none and
	// leaves the key free) and commits it with every write of the
	// request. After a Checkpoint it replaces the stored answer (resp
	// nil keeps the one of the Checkpoint).
	Finish(ctx context.Context, resp *IdempotentResponse) error
	// Rollback undoes every write of the request that is not committed
	// and frees the key; a no-op once committed.
	Rollback(ctx context.Context)
}

// ErrAnswerKept: Finish after a Checkpoint could not replace the
// provisional answer, which stays stored (the request's effect did
// happen).
var ErrAnswerKept = errors.New("the checkpoint's answer is kept")

// idemTxKey is the context key of a bound transaction.
type idemTxKey struct{}

// idempotentTx implements IdempotencyHold.
type idempotentTx struct {
	pool        *pgxpool.Pool
	tx          pgx.Tx
	key         IdempotencyKey
	hash        []byte
	ttl         float64 // seconds
	afterCommit func()

	mu     sync.Mutex
	open   bool // the transaction is open: statements go to it
	stored bool // a Checkpoint committed an answer
	events []*auditchain.Event
}

// BeginIdempotent starts the idempotent transaction of c's key. When the
// caller now holds the key it returns the hold (and a zero record). When
// another request holds it, it returns a nil hold and a record in state
// IdempotencyInFlight with c's request hash; when an answer is stored and
// not expired, a nil hold and that record (the caller compares its hash
// and replays). afterCommit, if not nil, runs right after the commit that
// stores the answer (a test hook). Database time decides expiry.
func (s *Store) BeginIdempotent(ctx context.Context, c IdempotencyClaim, afterCommit func()) (IdempotencyHold, IdempotencyRecord, error) {
	if c.TTL <= 0 || len(c.RequestHash) != 32 {
		return nil, IdempotencyRecord{}, fmt.Errorf("claiming idempotency key: %w", errInvalidClaim)
	}
	tx, err := s.pool.Pool.Begin(ctx)
	if err != nil {
		return nil, IdempotencyRecord{}, fmt.Errorf("beginning idempotent transaction: %w", err)
	}
	var locked bool
	err = tx.QueryRow(ctx, `SELECT set_config('idle_in_transaction_session_timeout', $1, true) IS NOT NULL,
		pg_try_advisory_xact_lock($2)`, idleInIdempotentTx, lockID(c.IdempotencyKey)).Scan(new(bool), &locked)
	if err == nil && locked {
		var rec IdempotencyRecord
		rec, err = readRecord(ctx, tx, c.IdempotencyKey)
		if errors.Is(err, ErrNotFound) {
			return &idempotentTx{pool: s.pool.Pool, tx: tx, key: c.IdempotencyKey, hash: c.RequestHash,
				ttl: c.TTL.Seconds(), afterCommit: afterCommit, open: true}, IdempotencyRecord{}, nil
		}
		_ = tx.Rollback(ctx)
		return nil, rec, err
	}
	_ = tx.Rollback(ctx)
	if err != nil {
		return nil, IdempotencyRecord{}, fmt.Errorf("claiming idempotency key: %w", err)
	}
	// Another request holds the key: its answer may have just committed.
	rec, err := readRecord(ctx, s.pool.Pool, c.IdempotencyKey)
	if errors.Is(err, ErrNotFound) {
		return nil, IdempotencyRecord{RequestHash: c.RequestHash, State: IdempotencyInFlight}, nil
	}
	return nil, rec, err
}

// lockID is the advisory lock of k: 64 bits of SHA-256 over its
// length-prefixed parts.
func lockID(k IdempotencyKey) int64 {
	h := sha256.New()
	for _, p := range []string{"ocv.idempotency", k.OrgID, k.PrincipalID, k.Key} {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write([]byte(p))
	}
	return int64(binary.BigEndian.Uint64(h.Sum(nil)[:8])) //nolint:gosec // a hash, any 64 bits do
}

func (t *idempotentTx) Bind(ctx context.Context) context.Context {
	return context.WithValue(ctx, idemTxKey{}, t)
}

func (t *idempotentTx) isOpen() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.open
}

func (t *idempotentTx) Finish(ctx context.Context, resp *IdempotentResponse) error {
	t.mu.Lock()
	open, stored := t.open, t.stored
	t.mu.Unlock()
	if !open {
		if !stored || resp == nil {
			return nil
		}
		// The answer of a Checkpoint is replaced by the final one.
		if err := t.storeAnswer(ctx, t.pool, *resp); err != nil {
			return fmt.Errorf("%w: %w", ErrAnswerKept, err)
		}
		return nil
	}
	return t.commit(ctx, resp)
}

// commit stores resp (when not nil) and commits the transaction; the
// audit events inserted in it are told they are stored only then.
func (t *idempotentTx) commit(ctx context.Context, resp *IdempotentResponse) error {
	defer t.Rollback(ctx)
	if resp != nil {
		if err := t.storeAnswer(ctx, t.tx, *resp); err != nil {
			return err
		}
	}
	if err := t.tx.Commit(ctx); err != nil {
		return fmt.Errorf("committing idempotent transaction: %w", err)
	}
	t.mu.Lock()
	t.open, t.stored = false, resp != nil
	events := t.events
	t.events = nil
	t.mu.Unlock()
	for _, ev := range events {
		markStored(ev)
	}
	if t.afterCommit != nil {
		t.afterCommit()
	}
	return nil
}

func (t *idempotentTx) storeAnswer(ctx context.Context, q querier, resp IdempotentResponse) error {
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
	_, err = q.Exec(ctx, `INSERT INTO idempotency_keys
			(org_id, principal_id, key, request_hash, state, claim_id, status, headers, body, expires_at)
		VALUES ($1, $2, $3, $4, 'done', $5, $6, $7::jsonb, $8, now() + make_interval(secs => $9))
		ON CONFLICT (org_id, principal_id, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, state = 'done',
			claim_id = EXCLUDED.claim_id, status = EXCLUDED.status, headers = EXCLUDED.headers, body = EXCLUDED.body,
			created_at = now(), expires_at = EXCLUDED.expires_at`,
		t.key.OrgID, t.key.PrincipalID, t.key.Key, t.hash, uuid.NewString(), int32(resp.Status), string(headers), body, t.ttl)
	if err != nil {
		return fmt.Errorf("storing idempotent answer: %w", err)
	}
	return nil
}

func (t *idempotentTx) Rollback(ctx context.Context) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.open {
		return
	}
	t.open, t.events = false, nil
	_ = t.tx.Rollback(context.WithoutCancel(ctx))
}

// noteStored remembers that ev was inserted in the transaction; it is
// stored when the transaction commits.
func (t *idempotentTx) noteStored(evs ...*auditchain.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.events = append(t.events, evs...)
}

// boundTx returns the open idempotent transaction of pool that ctx
// carries, or nil.
func boundTx(ctx context.Context, pool *pgxpool.Pool) *idempotentTx {
	t, _ := ctx.Value(idemTxKey{}).(*idempotentTx)
	if t == nil || t.pool != pool || !t.isOpen() {
		return nil
	}
	return t
}

// CheckpointIdempotent commits the idempotent transaction that ctx
// carries now, with resp as the key's provisional answer: a retry replays
// resp and never runs the request again. The request's later statements
// run on their own (autocommit), and its final 2xx answer replaces resp. A
// request sending something irrevocable (a broadcast) checkpoints first.
// Without a bound transaction it does nothing.
func (s *Store) CheckpointIdempotent(ctx context.Context, resp IdempotentResponse) error {
	t := boundTx(ctx, s.pool.Pool)
	if t == nil {
		return nil
	}
	return t.commit(ctx, &resp)
}

// ForgetIdempotent deletes the answer a Checkpoint stored for the request
// of ctx, so that a retry runs the request again (for a request that
// failed for good after its checkpoint, having given back what it took).
func (s *Store) ForgetIdempotent(ctx context.Context) error {
	t, _ := ctx.Value(idemTxKey{}).(*idempotentTx)
	if t == nil || t.pool != s.pool.Pool {
		return nil
	}
	t.mu.Lock()
	stored := !t.open && t.stored
	t.stored = false
	t.mu.Unlock()
	if !stored {
		return nil
	}
	_, err := s.pool.Pool.Exec(ctx, `DELETE FROM idempotency_keys WHERE org_id = $1 AND principal_id = $2 AND key = $3`,
		t.key.OrgID, t.key.PrincipalID, t.key.Key)
	if err != nil {
		return fmt.Errorf("forgetting idempotent answer: %w", err)
	}
	return nil
}

// noteStored tells ev it is stored: at once, or when the idempotent
// transaction of ctx that holds it commits.
func (s *Store) noteStored(ctx context.Context, ev *auditchain.Event) {
	if t := boundTx(ctx, s.pool.Pool); t != nil {
		t.noteStored(ev)
		return
	}
	markStored(ev)
}

// querier runs statements: a pool, a transaction or a savepoint.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// dbRouter is the store's pool: a statement whose context carries an open
// idempotent transaction of this pool runs in it, in a savepoint of its
// own; any other runs on the pool.
type dbRouter struct{ *pgxpool.Pool }

func (d dbRouter) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	t := boundTx(ctx, d.Pool)
	if t == nil {
		return d.Pool.Exec(ctx, sql, args...)
	}
	sp, err := t.tx.Begin(ctx)
	if err != nil {
		return pgconn.CommandTag{}, fmt.Errorf("opening savepoint: %w", err)
	}
	tag, err := sp.Exec(ctx, sql, args...)
	return tag, endSavepoint(ctx, sp, err)
}

func (d dbRouter) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	t := boundTx(ctx, d.Pool)
	if t == nil {
		return d.Pool.QueryRow(ctx, sql, args...)
	}
	sp, err := t.tx.Begin(ctx)
	if err != nil {
		return errRow{fmt.Errorf("opening savepoint: %w", err)}
	}
	return &savepointRow{ctx: ctx, sp: sp, row: sp.QueryRow(ctx, sql, args...)}
}

func (d dbRouter) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	t := boundTx(ctx, d.Pool)
	if t == nil {
		return d.Pool.Query(ctx, sql, args...)
	}
	sp, err := t.tx.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("opening savepoint: %w", err)
	}
	rows, err := sp.Query(ctx, sql, args...)
	if err != nil {
		return nil, endSavepoint(ctx, sp, err)
	}
	return &savepointRows{Rows: rows, ctx: ctx, sp: sp}, nil
}

// Begin begins a transaction, or a savepoint in the idempotent
// transaction of ctx.
func (d dbRouter) Begin(ctx context.Context) (pgx.Tx, error) {
	if t := boundTx(ctx, d.Pool); t != nil {
		return t.tx.Begin(ctx)
	}
	return d.Pool.Begin(ctx)
}

// endSavepoint releases sp after a statement that succeeded and rolls
// back to it after one that failed (err), returning err.
func endSavepoint(ctx context.Context, sp pgx.Tx, err error) error {
	if err != nil {
		if rerr := sp.Rollback(ctx); rerr != nil {
			return errors.Join(err, fmt.Errorf("rolling back to savepoint: %w", rerr))
		}
		return err
	}
	if cerr := sp.Commit(ctx); cerr != nil {
		return fmt.Errorf("releasing savepoint: %w", cerr)
	}
	return nil
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

type savepointRow struct {
	ctx context.Context
	sp  pgx.Tx
	row pgx.Row
}

func (r *savepointRow) Scan(dest ...any) error {
	err := r.row.Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		// Not a failed statement: nothing to roll back.
		if cerr := endSavepoint(r.ctx, r.sp, nil); cerr != nil {
			return cerr
		}
		return err
	}
	return endSavepoint(r.ctx, r.sp, err)
}

type savepointRows struct {
	pgx.Rows
	ctx   context.Context
	sp    pgx.Tx
	ended bool
	err   error
}

func (r *savepointRows) Next() bool {
	if r.Rows.Next() {
		return true
	}
	r.Close()
	return false
}

func (r *savepointRows) Close() {
	if r.ended {
		return
	}
	r.ended = true
	r.Rows.Close()
	r.err = endSavepoint(r.ctx, r.sp, r.Rows.Err())
}

func (r *savepointRows) Err() error {
	if r.err != nil {
		return r.err
	}
	return r.Rows.Err()
}

// RecordEvent stores ev: in the idempotent transaction of ctx when it
// carries one (ev is told it is stored when that commits), else at once.
// In the transaction it is a no-op when a write already inserted the
// request's event there (same request id and action, not yet committed).
func (s *Store) RecordEvent(ctx context.Context, ev *auditchain.Event) error {
	if t := boundTx(ctx, s.pool.Pool); t != nil && t.holds(ev) {
		return nil
	}
	return s.inTx(ctx, func(tx pgx.Tx) error { return insertEvent(ctx, tx, ev) })
}

// holds reports whether the transaction inserted an event of ev's request
// and action.
func (t *idempotentTx) holds(ev *auditchain.Event) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, e := range t.events {
		if ev.RequestID != "" && e.RequestID == ev.RequestID && e.OrgID == ev.OrgID && e.Action == ev.Action {
			return true
		}
	}
	return false
}
