// Package store holds OCV's PostgreSQL repositories (pgx/v5) and the embedded,
// numbered migrations applied at start. It stores what the proxy hands it:
// ciphertext, wrapped data keys, metadata and the audit chain. It holds no
// business rules, and every tenant query is scoped by organization.
//
// Trust level: untrusted (proxy side). Nothing here can decrypt a secret.
package store
