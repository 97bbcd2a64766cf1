package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/opencustody/ocv/internal/auditchain"
)

const insertEventSQL = `INSERT INTO audit_events (org_id, occurred_at, request_id, actor_type, actor_id, action, resource, outcome, status, client_ip)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`

func eventArgs(e *auditchain.Event) []any {
	return []any{e.OrgID, e.OccurredAt, e.RequestID, e.ActorType, e.ActorID, e.Action, e.Resource, e.Outcome, e.Status, e.ClientIP}
}

// insertEvent records ev inside tx; a nil ev records nothing.
func insertEvent(ctx context.Context, tx pgx.Tx, ev *auditchain.Event) error {
	if ev == nil {
		return nil
	}
	if _, err := tx.Exec(ctx, insertEventSQL, eventArgs(ev)...); err != nil {
		return fmt.Errorf("recording audit event: %w", err)
	}
	noteEvent(tx, ev)
	return nil
}

// queueEvent queues the insert of ev into b, which tx will send; a nil ev
// records nothing.
func queueEvent(tx pgx.Tx, b *pgx.Batch, ev *auditchain.Event) {
	if ev != nil {
		b.Queue(insertEventSQL, eventArgs(ev)...)
		noteEvent(tx, ev)
	}
}

// InsertEvents records events durably in one statement (one commit). The
// audit log's group committer calls it with the events of many requests.
func (s *Store) InsertEvents(ctx context.Context, evs []*auditchain.Event) error {
	n := len(evs)
	org, at, req, atype, aid, act, res, out, status, ip :=
		make([]string, n), make([]time.Time, n), make([]string, n), make([]string, n), make([]string, n),
		make([]string, n), make([]string, n), make([]string, n), make([]int32, n), make([]string, n)
	for i, e := range evs {
		org[i], at[i], req[i], atype[i], aid[i] = e.OrgID, e.OccurredAt, e.RequestID, e.ActorType, e.ActorID
		act[i], res[i], out[i], status[i], ip[i] = e.Action, e.Resource, e.Outcome, int32(e.Status), e.ClientIP
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO audit_events (org_id, occurred_at, request_id, actor_type, actor_id, action, resource, outcome, status, client_ip)
		SELECT * FROM unnest($1::uuid[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::int[], $10::text[])`,
		org, at, req, atype, aid, act, res, out, status, ip)
	if err != nil {
		return fmt.Errorf("recording %d audit events: %w", n, err)
	}
	return nil
}

const eventColumns = `org_id, id, occurred_at, request_id, actor_type, actor_id, action, resource, outcome, status, client_ip,
	coalesce(chain_seq, 0), coalesce(prev_id, 0), coalesce(hash, ''::bytea)`

func scanEvent(row pgx.Row) (*auditchain.Event, error) {
	e := &auditchain.Event{}
	var status int32
	err := row.Scan(&e.OrgID, &e.ID, &e.OccurredAt, &e.RequestID, &e.ActorType, &e.ActorID, &e.Action, &e.Resource,
		&e.Outcome, &status, &e.ClientIP, &e.ChainSeq, &e.PrevID, &e.Hash)
	e.Status = int(status)
	return e, err
}

func collectEvents(rows pgx.Rows, err error) ([]*auditchain.Event, error) {
	if err != nil {
		return nil, fmt.Errorf("reading audit events: %w", err)
	}
	defer rows.Close()
	var out []*auditchain.Event
	for rows.Next() {
		e, err := scanEvent(rows)
		if err != nil {
			return nil, fmt.Errorf("reading audit events: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// ListEvents returns an organization's events newest first, with ids below
// before (0: from the newest), optionally of one action.
func (s *Store) ListEvents(ctx context.Context, orgID, action string, before int64, limit int) ([]*auditchain.Event, error) {
	return collectEvents(s.pool.Query(ctx, `SELECT `+eventColumns+` FROM audit_events
		WHERE org_id = $1 AND ($2 = '' OR action = $2) AND ($3 = 0 OR id < $3) ORDER BY id DESC LIMIT $4`,
		orgID, action, before, limit))
}

// ListActorEvents is ListEvents narrowed to what a member may see: events
// whose actor is userID, or an agent of orgID that userID created.
func (s *Store) ListActorEvents(ctx context.Context, orgID, userID, action string, before int64, limit int) ([]*auditchain.Event, error) {
	return collectEvents(s.pool.Query(ctx, `SELECT `+eventColumns+` FROM audit_events
		WHERE org_id = $1 AND ($2 = '' OR action = $2) AND ($3 = 0 OR id < $3)
		AND ((actor_type = 'user' AND actor_id = $5) OR (actor_type = 'agent' AND actor_id IN
			(SELECT id::text FROM agents WHERE org_id = $1 AND created_by::text = $5)))
		ORDER BY id DESC LIMIT $4`,
		orgID, action, before, limit, userID))
}

// ChainEvents returns sealed events of one chain in chain order after seq.
func (s *Store) ChainEvents(ctx context.Context, orgID string, afterSeq int64, limit int) ([]*auditchain.Event, error) {
	return collectEvents(s.pool.Query(ctx, `SELECT `+eventColumns+` FROM audit_events
		WHERE org_id = $1 AND chain_seq > $2 ORDER BY chain_seq LIMIT $3`, orgID, afterSeq, limit))
}

// ChainOrgs lists every organization that has audit events.
func (s *Store) ChainOrgs(ctx context.Context) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT DISTINCT org_id::text FROM audit_events ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("listing audited organizations: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// UnsealedOrgs lists organizations with events the sealer has not chained yet.
func (s *Store) UnsealedOrgs(ctx context.Context, limit int) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT DISTINCT org_id::text FROM audit_events WHERE chain_seq IS NULL LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("listing unsealed organizations: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// ChainHead is the newest sealed position of a chain.
type ChainHead struct {
	OrgID   string
	Seq     int64
	EventID int64
	Hash    []byte
}

// SealChain chains up to max unsealed events of orgID in insertion order,
// under a per-organization advisory lock so that one replica at a time
// extends a chain. It returns the new head (ok false when another replica
// holds the lock or nothing was sealed).
func (s *Store) SealChain(ctx context.Context, orgID string, max int) (head ChainHead, ok bool, err error) {
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		var locked bool
		if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock(hashtextextended('ocv-audit:' || $1, 0))`, orgID).Scan(&locked); err != nil {
			return fmt.Errorf("locking chain: %w", err)
		}
		if !locked {
			return nil
		}
		head = ChainHead{OrgID: orgID, Hash: auditchain.Genesis}
		err := tx.QueryRow(ctx, `SELECT last_seq, last_id, last_hash FROM audit_chain_state WHERE org_id = $1`, orgID).
			Scan(&head.Seq, &head.EventID, &head.Hash)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("reading chain state: %w", err)
		}
		evs, err := collectEvents(tx.Query(ctx, `SELECT `+eventColumns+` FROM audit_events
			WHERE org_id = $1 AND chain_seq IS NULL ORDER BY id LIMIT $2`, orgID, max))
		if err != nil || len(evs) == 0 {
			return err
		}
		ids, seqs, prevs, hashes := make([]int64, len(evs)), make([]int64, len(evs)), make([]int64, len(evs)), make([][]byte, len(evs))
		for i, e := range evs {
			e.ChainSeq, e.PrevID = head.Seq+1, head.EventID
			e.Hash = auditchain.Hash(head.Hash, e)
			head.Seq, head.EventID, head.Hash = e.ChainSeq, e.ID, e.Hash
			ids[i], seqs[i], prevs[i], hashes[i] = e.ID, e.ChainSeq, e.PrevID, e.Hash
		}
		if _, err := tx.Exec(ctx, `UPDATE audit_events a SET chain_seq = u.seq, prev_id = u.prev, hash = u.hash
			FROM unnest($2::bigint[], $3::bigint[], $4::bigint[], $5::bytea[]) AS u(id, seq, prev, hash)
			WHERE a.org_id = $1 AND a.id = u.id`, orgID, ids, seqs, prevs, hashes); err != nil {
			return fmt.Errorf("sealing events: %w", err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO audit_chain_state (org_id, last_seq, last_id, last_hash) VALUES ($1, $2, $3, $4)
			ON CONFLICT (org_id) DO UPDATE SET last_seq = $2, last_id = $3, last_hash = $4`,
			orgID, head.Seq, head.EventID, head.Hash); err != nil {
			return fmt.Errorf("saving chain state: %w", err)
		}
		ok = true
		return nil
	})
	return head, ok, err
}

// SignedHead is a chain head signed by the enclave.
type SignedHead struct {
	ChainHead
	Signature []byte
	KID       string
	SignedAt  time.Time
}

// SaveHead stores a signed chain head.
func (s *Store) SaveHead(ctx context.Context, h SignedHead) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO audit_heads (org_id, chain_seq, event_id, hash, signature, kid)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`, h.OrgID, h.Seq, h.EventID, h.Hash, h.Signature, h.KID)
	if err != nil {
		return fmt.Errorf("saving signed head: %w", err)
	}
	return nil
}

// Heads lists the signed heads of a chain in order.
func (s *Store) Heads(ctx context.Context, orgID string) ([]SignedHead, error) {
	rows, err := s.pool.Query(ctx, `SELECT org_id::text, chain_seq, event_id, hash, signature, kid, signed_at
		FROM audit_heads WHERE org_id = $1 ORDER BY chain_seq`, orgID)
	if err != nil {
		return nil, fmt.Errorf("listing signed heads: %w", err)
	}
	defer rows.Close()
	var out []SignedHead
	for rows.Next() {
		var h SignedHead
		if err := rows.Scan(&h.OrgID, &h.Seq, &h.EventID, &h.Hash, &h.Signature, &h.KID, &h.SignedAt); err != nil {
			return nil, fmt.Errorf("listing signed heads: %w", err)
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// UnsignedOrgs lists organizations whose sealed chain runs past their newest
// signed head: the sealer has the enclave sign those (again, after a
// failure).
func (s *Store) UnsignedOrgs(ctx context.Context, limit int) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT c.org_id::text FROM audit_chain_state c
		WHERE c.last_seq > coalesce((SELECT max(h.chain_seq) FROM audit_heads h WHERE h.org_id = c.org_id), 0)
		ORDER BY 1 LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("listing unsigned organizations: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// LastHead returns the newest signed head of a chain (ok false: none).
func (s *Store) LastHead(ctx context.Context, orgID string) (h SignedHead, ok bool, err error) {
	err = s.pool.QueryRow(ctx, `SELECT org_id::text, chain_seq, event_id, hash, signature, kid, signed_at
		FROM audit_heads WHERE org_id = $1 ORDER BY chain_seq DESC LIMIT 1`, orgID).
		Scan(&h.OrgID, &h.Seq, &h.EventID, &h.Hash, &h.Signature, &h.KID, &h.SignedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return SignedHead{}, false, nil
	}
	if err != nil {
		return SignedHead{}, false, fmt.Errorf("reading the last signed head: %w", err)
	}
	return h, true, nil
}
