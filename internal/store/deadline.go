package store

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// DefaultResponseTimeout bounds how long a connection waits for
// PostgreSQL's answer once it sent something: a frozen or lost server makes
// the waiting call fail (Unavailable) instead of hanging every request.
// It is not a statement timeout: a statement whose server-side work sends
// nothing for longer fails the same way, so no statement may be that slow.
const DefaultResponseTimeout = 10 * time.Second

// responseDeadlineConn sets a read deadline each time it writes and each
// time a read brings bytes, so that waiting for the server's next bytes
// ends after the timeout while a long result may keep streaming. A
// listener waiting for notifications turns it off (setBounded).
type responseDeadlineConn struct {
	net.Conn
	timeout time.Duration
	off     atomic.Bool
	outage  *outage
	// cancelled is set while pgx holds a deadline of its own on the
	// connection (the caller's context ended): a timeout then is the
	// caller's, not the database's silence.
	cancelled atomic.Bool
}

// OutageHold is how long, after a connection found PostgreSQL silent, the
// other connections of its pool fail at once instead of each
// waiting DefaultResponseTimeout again: a request meets at most one full
// wait, not one per idle connection that pgxpool pings before use.
const OutageHold = 5 * time.Second

// errOutage is a call refused while the hold after an outage lasts.
var errOutage = errors.New("PostgreSQL left a connection unanswered within the last few seconds")

// outage is the time until which a pool's connections fail fast.
type outage struct{ until atomic.Int64 }

func (o *outage) trip() { o.until.Store(time.Now().Add(OutageHold).UnixNano()) }

func (o *outage) holding() bool { return o != nil && time.Now().UnixNano() < o.until.Load() }

// SetDeadline is pgx's: it sets one when the caller's context ends and
// clears it afterwards.
func (c *responseDeadlineConn) SetDeadline(t time.Time) error {
	c.cancelled.Store(!t.IsZero())
	return c.Conn.SetDeadline(t)
}

func (c *responseDeadlineConn) Write(b []byte) (int, error) {
	if !c.off.Load() {
		if c.outage.holding() {
			return 0, &lostConnError{err: errOutage}
		}
		if err := c.Conn.SetReadDeadline(time.Now().Add(c.timeout)); err != nil {
			return 0, &lostConnError{err: err}
		}
	}
	n, err := c.Conn.Write(b)
	if err != nil {
		err = &lostConnError{err: err}
	}
	return n, err
}

// silent starts the pool's outage hold for err, a wait that timed out,
// unless the caller's context caused it or the connection waits unbounded
// (a listener). A broken connection does not start it: a stopped server
// refuses at once anyway, and pgx's cancel requests end in EOF.
func (c *responseDeadlineConn) silent(err error) error {
	if c.outage != nil && !c.cancelled.Load() && !c.off.Load() {
		c.outage.trip()
	}
	return err
}

func (c *responseDeadlineConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 && err == nil && !c.off.Load() {
		err = c.Conn.SetReadDeadline(time.Now().Add(c.timeout))
	}
	var ne net.Error
	switch {
	case err == nil:
	case errors.As(err, &ne) && ne.Timeout():
		err = c.silent(&noAnswerError{err: err})
	default:
		err = &lostConnError{err: err}
	}
	return n, err
}

// lostConnError is a read or write on a connection to PostgreSQL that
// broke (the server stopped, crashed or reset it): like noAnswerError it
// marks the error as the database's (Unavailable).
type lostConnError struct{ err error }

func (e *lostConnError) Error() string { return "connection to PostgreSQL lost: " + e.err.Error() }
func (e *lostConnError) Unwrap() error { return e.err }

// noAnswerError is a read that timed out waiting for PostgreSQL: it marks
// the error as the database's (Unavailable) rather than any network
// peer's, and stays a net.Error timeout for pgx.
type noAnswerError struct{ err error }

func (e *noAnswerError) Error() string   { return "PostgreSQL did not answer in time: " + e.err.Error() }
func (e *noAnswerError) Unwrap() error   { return e.err }
func (e *noAnswerError) Timeout() bool   { return true }
func (e *noAnswerError) Temporary() bool { return true }

// setBounded turns the response deadline on or off; off also clears the
// one in force.
func (c *responseDeadlineConn) setBounded(on bool) {
	c.off.Store(!on)
	if !on {
		_ = c.Conn.SetReadDeadline(time.Time{})
	}
}

// withResponseDeadline makes cfg dial connections that bound every wait
// for an answer by timeout, and bounds connecting by it too. Once one of
// them times out, the others fail at once for OutageHold (the
// database is known to be away; Unavailable, 503 with Retry-After).
func withResponseDeadline(cfg *pgconn.Config, timeout time.Duration) {
	if cfg.ConnectTimeout == 0 || cfg.ConnectTimeout > timeout {
		cfg.ConnectTimeout = timeout
	}
	dial := cfg.DialFunc
	o := &outage{}
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if o.holding() {
			return nil, errOutage
		}
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &responseDeadlineConn{Conn: conn, timeout: timeout, outage: o}, nil
	}
}

// setBounded turns the response deadline of pc on or off.
func setBounded(pc *pgconn.PgConn, on bool) {
	if c, ok := pc.Conn().(*responseDeadlineConn); ok {
		c.setBounded(on)
	}
}

// Unavailable reports whether err says PostgreSQL could not be reached, did
// not answer in time or dropped the connection (rather than refusing the statement): the caller
// answers 503 and the client may retry. Only errors that name the database
// count: a network error of another peer (the enclave, a chain) is not
// the database's.
func Unavailable(err error) bool {
	var ce *pgconn.ConnectError
	var na *noAnswerError
	var lost *lostConnError
	var pe *pgconn.PgError
	switch {
	case err == nil:
		return false
	case errors.As(err, &ce), errors.As(err, &na), errors.As(err, &lost):
		return true
	case errors.As(err, &pe):
		// Class 08 (connection exception) and 57P01-57P03 (shutdown,
		// cannot connect now).
		return len(pe.Code) == 5 && (pe.Code[:2] == "08" || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03")
	}
	return false
}

// acquireUnbounded acquires a connection for a wait with no response
// deadline (notifications, the migration lock); done turns the deadline
// back on and returns the connection to the pool.
func (s *Store) acquireUnbounded(ctx context.Context) (conn *pgx.Conn, done func(), err error) {
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, nil, err
	}
	setBounded(c.Conn().PgConn(), false)
	return c.Conn(), func() {
		setBounded(c.Conn().PgConn(), true)
		c.Release()
	}, nil
}
