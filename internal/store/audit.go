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

// InsertEvents records events durably in one transaction (one commit), each
// already in its organization's chain: under a lock on every organization's
// chain tip (audit_chain_state, locked in org order so that concurrent
// batches of several replicas cannot deadlock), it numbers the events after
// the tip, computes their hashes, inserts them and moves the tips. The
// events are written once: the sealer does not touch them again. A batch
// that fails leaves nothing behind, neither events nor a moved tip. The
// audit log's group committer calls it with the events of many requests;
// it sets the events' ID and chain fields.
func (s *Store) InsertEvents(ctx context.Context, evs []*auditchain.Event) error {
	if len(evs) == 0 {
		return nil
	}
	for i, e := range evs {
		// The database keeps microseconds; hash what it will return.
		evs[i].OccurredAt = e.OccurredAt.UTC().Truncate(time.Microsecond)
	}
	seen := make(map[string]bool, 4)
	orgs := make([]string, 0, 4)
	for _, e := range evs {
		if !seen[e.OrgID] {
			seen[e.OrgID] = true
			orgs = append(orgs, e.OrgID)
		}
	}
	for attempt := 0; ; attempt++ {
		missing, err := s.insertChained(ctx, orgs, evs)
		if err != nil {
			return fmt.Errorf("recording %d audit events: %w", len(evs), err)
		}
		if len(missing) == 0 {
			return nil
		}
		if attempt > 0 {
			return fmt.Errorf("recording %d audit events: the chain tip of org %s is missing", len(evs), missing[0])
		}
		// An organization's first event: its tip starts at the genesis,
		// created outside the batch's transaction (so that it never waits
		// for another batch while holding tips).
		if _, err := s.pool.Exec(ctx, `INSERT INTO audit_chain_state (org_id, last_seq, last_id, last_hash)
			SELECT o::uuid, 0, 0, $2 FROM unnest($1::text[]) AS o ON CONFLICT DO NOTHING`, missing, auditchain.Genesis); err != nil {
			return fmt.Errorf("starting audit chains: %w", err)
		}
	}
}

// insertChained is one attempt of InsertEvents, on one connection in two
// round trips: BEGIN, lock the tips and draw the ids; then insert, move the
// tips and COMMIT. It returns the organizations that have no tip yet
// (nothing is written then).
func (s *Store) insertChained(ctx context.Context, orgs []string, evs []*auditchain.Event) (missing []string, err error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("acquiring a connection: %w", err)
	}
	// A connection released inside a transaction is closed by the pool,
	// so a failed ROLLBACK cannot leak the transaction.
	defer conn.Release()
	committed := false
	defer func() {
		if !committed {
			_, _ = conn.Exec(ctx, "ROLLBACK")
		}
	}()

	b := &pgx.Batch{}
	b.Queue("BEGIN")
	b.Queue(`SELECT u.o, t.org_id::text, t.last_seq, t.last_id, t.last_hash
		FROM unnest($1::text[]) AS u(o) JOIN audit_chain_state t ON t.org_id = u.o::uuid
		ORDER BY t.org_id FOR UPDATE OF t`, orgs)
	b.Queue(`SELECT nextval(pg_get_serial_sequence('audit_events', 'id')) FROM generate_series(1, $1::int)`, len(evs))
	br := conn.SendBatch(ctx, b)
	tips, uniq, err := readTips(br, len(orgs))
	if err != nil {
		return nil, err
	}
	ids, err := readIDs(br, len(evs))
	if err != nil {
		br.Close()
		return nil, err
	}
	if err := br.Close(); err != nil {
		return nil, fmt.Errorf("locking chain tips: %w", err)
	}
	for _, o := range orgs {
		if tips[o] == nil {
			missing = append(missing, o)
		}
	}
	if len(missing) > 0 {
		return missing, nil
	}

	n := len(evs)
	org, at, req, atype, aid, act, res, out, status, ip, seq, prev, hash :=
		make([]string, n), make([]time.Time, n), make([]string, n), make([]string, n), make([]string, n),
		make([]string, n), make([]string, n), make([]string, n), make([]int32, n), make([]string, n),
		make([]int64, n), make([]int64, n), make([][]byte, n)
	for i, e := range evs {
		t := tips[e.OrgID]
		// The chain hashes the organization id as the database spells it.
		e.OrgID, e.ID, e.ChainSeq, e.PrevID = t.canonical, ids[i], t.seq+1, t.id
		e.Hash = auditchain.Hash(t.hash, e)
		t.seq, t.id, t.hash = e.ChainSeq, e.ID, e.Hash
		org[i], at[i], req[i], atype[i], aid[i] = e.OrgID, e.OccurredAt, e.RequestID, e.ActorType, e.ActorID
		act[i], res[i], out[i], status[i], ip[i] = e.Action, e.Resource, e.Outcome, int32(e.Status), e.ClientIP
		seq[i], prev[i], hash[i] = e.ChainSeq, e.PrevID, e.Hash
	}
	tOrg, tSeq, tID, tHash := make([]string, len(uniq)), make([]int64, len(uniq)), make([]int64, len(uniq)), make([][]byte, len(uniq))
	for i, t := range uniq {
		tOrg[i], tSeq[i], tID[i], tHash[i] = t.canonical, t.seq, t.id, t.hash
	}
	b = &pgx.Batch{}
	b.Queue(`INSERT INTO audit_events (org_id, id, occurred_at, request_id, actor_type, actor_id, action, resource, outcome, status, client_ip,
			chain_seq, prev_id, hash) OVERRIDING SYSTEM VALUE
		SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::timestamptz[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
			$9::text[], $10::int[], $11::text[], $12::bigint[], $13::bigint[], $14::bytea[])`,
		org, ids, at, req, atype, aid, act, res, out, status, ip, seq, prev, hash)
	b.Queue(`UPDATE audit_chain_state t SET last_seq = u.seq, last_id = u.id, last_hash = u.hash
		FROM unnest($1::uuid[], $2::bigint[], $3::bigint[], $4::bytea[]) AS u(org, seq, id, hash) WHERE t.org_id = u.org`,
		tOrg, tSeq, tID, tHash)
	b.Queue("COMMIT")
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		return nil, fmt.Errorf("inserting chained events: %w", err)
	}
	committed = true
	return nil, nil
}

// tip is an organization's chain tip while a batch holds its lock.
type tip struct {
	canonical string
	seq, id   int64
	hash      []byte
}

// readTips reads the locked tips by the organization id as the events
// spell it (tips) and once per chain (uniq: two spellings of one id share
// their tip, so they cannot number one chain twice).
func readTips(br pgx.BatchResults, n int) (tips map[string]*tip, uniq []*tip, err error) {
	if _, err := br.Exec(); err != nil {
		br.Close()
		return nil, nil, fmt.Errorf("beginning transaction: %w", err)
	}
	rows, err := br.Query()
	if err != nil {
		br.Close()
		return nil, nil, fmt.Errorf("locking chain tips: %w", err)
	}
	tips = make(map[string]*tip, n)
	byCanonical := make(map[string]*tip, n)
	for rows.Next() {
		var o string
		t := &tip{}
		if err := rows.Scan(&o, &t.canonical, &t.seq, &t.id, &t.hash); err != nil {
			rows.Close()
			br.Close()
			return nil, nil, fmt.Errorf("reading chain tips: %w", err)
		}
		if u, ok := byCanonical[t.canonical]; ok {
			t = u
		} else {
			byCanonical[t.canonical] = t
			uniq = append(uniq, t)
		}
		tips[o] = t
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		br.Close()
		return nil, nil, fmt.Errorf("locking chain tips: %w", err)
	}
	return tips, uniq, nil
}

func readIDs(br pgx.BatchResults, n int) ([]int64, error) {
	rows, err := br.Query()
	if err != nil {
		return nil, fmt.Errorf("drawing event ids: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("drawing event ids: %w", err)
	}
	if len(ids) != n {
		return nil, fmt.Errorf("drawing event ids: got %d, want %d", len(ids), n)
	}
	return ids, nil
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

// SealChain chains up to max events of orgID that were inserted unsealed
// (those a write records in its own transaction, and any left from before
// events were chained as they are inserted), in insertion order after the
// chain's tip, under the same lock on the tip that InsertEvents takes. It
// returns the new head and how many events it chained.
func (s *Store) SealChain(ctx context.Context, orgID string, max int) (head ChainHead, n int, err error) {
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO audit_chain_state (org_id, last_seq, last_id, last_hash) VALUES ($1, 0, 0, $2)
			ON CONFLICT DO NOTHING`, orgID, auditchain.Genesis); err != nil {
			return fmt.Errorf("starting the chain: %w", err)
		}
		head = ChainHead{OrgID: orgID}
		if err := tx.QueryRow(ctx, `SELECT last_seq, last_id, last_hash FROM audit_chain_state WHERE org_id = $1 FOR UPDATE`, orgID).
			Scan(&head.Seq, &head.EventID, &head.Hash); err != nil {
			return fmt.Errorf("locking the chain tip: %w", err)
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
		if _, err := tx.Exec(ctx, `UPDATE audit_chain_state SET last_seq = $2, last_id = $3, last_hash = $4 WHERE org_id = $1`,
			orgID, head.Seq, head.EventID, head.Hash); err != nil {
			return fmt.Errorf("saving chain state: %w", err)
		}
		n = len(evs)
		return nil
	})
	if err != nil {
		return ChainHead{}, 0, err
	}
	return head, n, nil
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
