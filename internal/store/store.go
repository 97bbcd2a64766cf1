package store

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/opencustody/ocv/internal/auditchain"
)

// Store is the PostgreSQL system of record. It is safe for concurrent use.
type Store struct {
	// pool sends a statement to the request's idempotent transaction when
	// its context carries one (idemtx.go), to the pool otherwise.
	pool dbRouter
	// userCutoffs is told of every user cut-off this store commits (see
	// SetUserCutoffHook).
	userCutoffs atomic.Pointer[func(UserCutoff)]
	// hints guesses the next version of a secret write (secrethints.go).
	hints secretHints
}

// Open connects to PostgreSQL. maxConns 0 keeps pgx's default.
func Open(ctx context.Context, url string, maxConns int32) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parsing database url: %w", err)
	}
	if maxConns > 0 {
		cfg.MaxConns = maxConns
	}
	withResponseDeadline(&cfg.ConnConfig.Config, DefaultResponseTimeout)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connecting to database: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("pinging database: %w", err)
	}
	return &Store{pool: dbRouter{pool}}, nil
}

// Pool exposes the connection pool to packages that own their own tables
// (certmagic storage, listeners).
func (s *Store) Pool() *pgxpool.Pool { return s.pool.Pool }

// Ping checks the database answers.
func (s *Store) Ping(ctx context.Context) error { return s.pool.Ping(ctx) }

// Close closes every connection.
func (s *Store) Close() { s.pool.Close() }

// inTx runs fn in a transaction and commits it when fn returns nil. The
// audit events fn inserted (insertEvent, queueEvent) are told they are
// stored once the commit succeeded, and only then. In a request's
// idempotent transaction it is a savepoint, and its events are stored when
// that transaction commits.
func (s *Store) inTx(ctx context.Context, fn func(pgx.Tx) error) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("beginning transaction: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a no-op after Commit
	atx := &auditedTx{Tx: tx}
	if err := fn(atx); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("committing: %w", err)
	}
	for _, ev := range atx.events {
		s.noteStored(ctx, ev)
	}
	return nil
}

// markStored tells ev that the transaction that inserted it committed.
func markStored(ev *auditchain.Event) {
	if ev.OnStored != nil {
		ev.OnStored()
	}
}

// auditedTx is a transaction that remembers the audit events inserted in
// it.
type auditedTx struct {
	pgx.Tx
	events []*auditchain.Event
}

// noteEvent remembers that tx inserts ev; it is a no-op for a transaction
// that inTx did not begin.
func noteEvent(tx pgx.Tx, ev *auditchain.Event) {
	if a, ok := tx.(*auditedTx); ok {
		a.events = append(a.events, ev)
	}
}

// pgCode returns the SQLSTATE of a PostgreSQL error, or "".
func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

const (
	codeUniqueViolation     = "23505"
	codeForeignKeyViolation = "23503"
)
