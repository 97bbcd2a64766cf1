package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/internal/store/storetest"
)

// databaseAt is a database whose clock is off this process's by skew.
type databaseAt struct {
	skew time.Duration
	err  error
}

func (d databaseAt) DatabaseTime(context.Context) (time.Time, error) {
	if d.err != nil {
		return time.Time{}, d.err
	}
	return time.Now().Add(d.skew), nil
}

// The clock's time is the database's whatever this replica's wall clock
// says: a record that expires one hour from the replica's point of view is
// expired when the database is two hours ahead, and not yet when it is two
// hours behind.
func TestClockIsTheDatabases(t *testing.T) {
	ctx := context.Background()
	expiresAt := time.Now().Add(time.Hour) // as this replica's clock sees it
	for name, c := range map[string]struct {
		skew    time.Duration
		expired bool
	}{
		"database ahead":  {skew: 2 * time.Hour, expired: true},
		"database behind": {skew: -2 * time.Hour, expired: false},
		"same time":       {skew: 0, expired: false},
	} {
		t.Run(name, func(t *testing.T) {
			var clock store.Clock
			if err := clock.Sync(ctx, databaseAt{skew: c.skew}); err != nil {
				t.Fatal(err)
			}
			if got := !clock.Now().Before(expiresAt); got != c.expired {
				t.Fatalf("expired = %v, want %v (clock %s, expires %s)", got, c.expired, clock.Now(), expiresAt)
			}
			// A failed sync keeps the last anchor: still the database's time.
			if err := clock.Sync(ctx, databaseAt{err: errors.New("down")}); err == nil {
				t.Fatal("a failed sync reports its error")
			}
			if got := !clock.Now().Before(expiresAt); got != c.expired {
				t.Fatalf("after a failed sync: expired = %v, want %v", got, c.expired)
			}
		})
	}
}

// Against PostgreSQL: the clock agrees with the server's now() on a row
// that expired a second ago by the server's clock and one that expires in
// an hour, so the proxy's decision and the SQL's are the same.
func TestClockAgreesWithPostgres(t *testing.T) {
	ctx := context.Background()
	url := storetest.NewDatabase(t)
	db, err := store.Open(ctx, url, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(ctx) })
	clock, err := db.NewClock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dbNow, err := db.DatabaseTime(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		expiresAt time.Time
		expired   bool
	}{
		"expired a minute ago": {dbNow.Add(-time.Minute), true},
		"expires in an hour":   {dbNow.Add(time.Hour), false},
	} {
		t.Run(name, func(t *testing.T) {
			var sqlExpired bool
			if err := conn.QueryRow(ctx, `SELECT $1::timestamptz <= now()`, c.expiresAt).Scan(&sqlExpired); err != nil {
				t.Fatal(err)
			}
			if proxy := !clock.Now().Before(c.expiresAt); proxy != c.expired || sqlExpired != c.expired {
				t.Fatalf("proxy says expired=%v, SQL says %v, want %v", proxy, sqlExpired, c.expired)
			}
		})
	}
}
