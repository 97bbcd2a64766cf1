package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// A server that accepts and then never answers (a frozen PostgreSQL)
// fails the connection attempt instead of hanging it, as Unavailable.
func TestResponseDeadlineConnectToSilentServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // read nothing, answer nothing
		}
	}()
	cfg, err := pgconn.ParseConfig("postgres://u@" + ln.Addr().String() + "/db?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	withResponseDeadline(cfg, 100*time.Millisecond)
	_, err = pgconn.ConnectConfig(context.Background(), cfg)
	if err == nil || !Unavailable(err) {
		t.Fatalf("connect to a silent server: err = %v, want an Unavailable error", err)
	}
}

// A read that waits for an answer after a write ends with a timeout.
func TestResponseDeadlineConnRead(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	go func() {
		buf := make([]byte, 16)
		_, _ = b.Read(buf) // take the request, never answer
	}()
	c := &responseDeadlineConn{Conn: a, timeout: 50 * time.Millisecond}
	if _, err := c.Write([]byte("query")); err != nil {
		t.Fatal(err)
	}
	_, err := c.Read(make([]byte, 1))
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !Unavailable(err) {
		t.Fatalf("read = %v, want a timeout", err)
	}
}

func TestUnavailable(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{context.Canceled, false},
		{errors.New("syntax error"), false},
		{&pgconn.PgError{Code: "23505"}, false},
		{&pgconn.PgError{Code: "57P01"}, true},
		{&pgconn.PgError{Code: "08006"}, true},
		{context.DeadlineExceeded, false},
		{&noAnswerError{err: context.DeadlineExceeded}, true},
		{io.ErrUnexpectedEOF, false}, // another peer's broken connection
		{fmt.Errorf("receiving: %w", &lostConnError{err: io.EOF}), true},
	} {
		if got := Unavailable(tt.err); got != tt.want {
			t.Errorf("Unavailable(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

// A server that closes the connection (a stopped PostgreSQL) breaks the
// read as the database's: Unavailable.
func TestResponseDeadlineConnLost(t *testing.T) {
	client, server := net.Pipe()
	c := &responseDeadlineConn{Conn: client, timeout: time.Minute}
	_ = server.Close()
	if _, err := c.Read(make([]byte, 1)); !Unavailable(err) {
		t.Fatalf("read on a closed connection = %v, want Unavailable", err)
	}
	if _, err := c.Write([]byte("x")); !Unavailable(err) {
		t.Fatalf("write on a closed connection = %v, want Unavailable", err)
	}
}

// After one connection waited its full deadline on a silent server, the
// other connections of the pool fail at once (no chain of full waits, one
// per idle connection pinged); a timeout the caller's context caused (pgx
// sets its own deadline) starts no hold.
func TestOutageHold(t *testing.T) {
	pipe := func(o *outage) *responseDeadlineConn {
		client, server := net.Pipe()
		t.Cleanup(func() { _ = client.Close(); _ = server.Close() })
		go func() { _, _ = io.Copy(io.Discard, server) }() // a server that reads and never answers
		return &responseDeadlineConn{Conn: client, timeout: 50 * time.Millisecond, outage: o}
	}
	for name, tt := range map[string]struct {
		callerCancelled bool
		wantHold        bool
	}{
		"the server is silent":               {false, true},
		"the caller's context was cancelled": {true, false},
	} {
		t.Run(name, func(t *testing.T) {
			o := &outage{}
			first := pipe(o)
			if _, err := first.Write([]byte("query")); err != nil {
				t.Fatal(err)
			}
			if tt.callerCancelled {
				_ = first.SetDeadline(time.Now())
			}
			if _, err := first.Read(make([]byte, 1)); !Unavailable(err) {
				t.Fatalf("read = %v, want a timeout", err)
			}
			_, err := pipe(o).Write([]byte("query"))
			if held := errors.Is(err, errOutage); held != tt.wantHold {
				t.Fatalf("second connection's write = %v, want hold %v", err, tt.wantHold)
			}
			if tt.wantHold && !Unavailable(err) {
				t.Fatalf("a held call is Unavailable: %v", err)
			}
		})
	}
}
