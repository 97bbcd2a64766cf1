-- OCV schema v20: identity records as the enclave sealed them.
--
-- name is the record's anti-rollback floor name (id/user/<user>,
-- id/member/<org>/<user>, ...), record the canonical encoding
-- (enclave/wire/identity.go) and mac the enclave's HMAC of it. Only the
-- newest version is kept: the enclave refuses any other. The proxy cannot
-- make or change a row that the enclave accepts; it can only lose one.
CREATE TABLE sealed_identity (
    name       text PRIMARY KEY,
    record     bytea NOT NULL,
    mac        bytea NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
