-- certmagic storage for proxy/edgetls.PGStorage: TLS certificates, their
-- private keys, ACME accounts and challenge data, shared by all proxy
-- replicas. Global (not tenant-owned) tables.

-- One row per certmagic "file". Directories are implicit (key prefixes).
CREATE TABLE IF NOT EXISTS certmagic_data (
    key      text PRIMARY KEY,
    value    bytea NOT NULL,
    modified timestamptz NOT NULL
);

-- Prefix scans (List, Delete of a directory, Exists/Stat of a directory)
-- use LIKE 'prefix/%'; text_pattern_ops lets them use an index whatever the
-- database collation is.
CREATE INDEX IF NOT EXISTS certmagic_data_key_pattern_idx
    ON certmagic_data (key text_pattern_ops);

-- Distributed locks (certmagic.Locker). A row is a held lock; the holder
-- refreshes expires while it works, and a row whose expires lies in the
-- past is stale and may be taken over. Times are the database's clock.
CREATE TABLE IF NOT EXISTS certmagic_locks (
    name    text PRIMARY KEY,
    owner   text NOT NULL,
    expires timestamptz NOT NULL
);
