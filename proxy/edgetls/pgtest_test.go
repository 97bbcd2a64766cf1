package edgetls

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

const defaultTestDatabaseURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

const migrationFile = "../../internal/store/migrations/0100_certmagic.sql"

// pkgDB is the database created for this test package, once, on first use,
// and dropped by TestMain.
var pkgDB struct {
	once sync.Once
	base string // OCV_TEST_DATABASE_URL or the default
	name string
	drop func()
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if pkgDB.drop != nil {
		pkgDB.drop()
	}
	os.Exit(code)
}

// randomName returns prefix followed by 12 random lowercase characters.
func randomName(prefix string) string {
	return prefix + strings.ToLower(rand.Text()[:12])
}

// createPackageDatabase creates ocv_edgetls_<random> on the server named by
// OCV_TEST_DATABASE_URL.
func createPackageDatabase() {
	pkgDB.base = os.Getenv("OCV_TEST_DATABASE_URL")
	if pkgDB.base == "" {
		pkgDB.base = defaultTestDatabaseURL
	}
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, pkgDB.base)
	if err != nil {
		pkgDB.err = fmt.Errorf("connecting to PostgreSQL (OCV_TEST_DATABASE_URL): %w", err)
		return
	}
	name := randomName("ocv_edgetls_")
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		_ = admin.Close(ctx)
		pkgDB.err = fmt.Errorf("creating test database: %w", err)
		return
	}
	pkgDB.name = name
	pkgDB.drop = func() {
		_, _ = admin.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
		_ = admin.Close(ctx)
	}
}

// testPoolConfig returns a pool configuration bound to a fresh schema of the
// package database, with migration 0100 applied there. It fails the test
// (never skips) when PostgreSQL is unreachable.
func testPoolConfig(t testing.TB) *pgxpool.Config {
	t.Helper()
	pkgDB.once.Do(createPackageDatabase)
	require.NoError(t, pkgDB.err, "PostgreSQL is required for this test")

	cfg, err := pgxpool.ParseConfig(pkgDB.base)
	require.NoError(t, err)
	cfg.ConnConfig.Database = pkgDB.name
	schema := randomName("t_")
	ctx := context.Background()
	conn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig)
	require.NoError(t, err)
	defer func() { _ = conn.Close(ctx) }()
	_, err = conn.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize())
	require.NoError(t, err)

	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	migrated, err := pgx.ConnectConfig(ctx, cfg.ConnConfig)
	require.NoError(t, err)
	defer func() { _ = migrated.Close(ctx) }()
	ddl, err := os.ReadFile(migrationFile)
	require.NoError(t, err)
	_, err = migrated.Exec(ctx, string(ddl)) // no arguments: simple protocol, several statements
	require.NoError(t, err, "applying %s", migrationFile)
	return cfg
}

// newTestPool opens a pool on cfg, closed at the end of the test.
func newTestPool(t testing.TB, cfg *pgxpool.Config) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg.Copy())
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return pool
}
