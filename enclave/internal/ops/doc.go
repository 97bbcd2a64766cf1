// Package ops runs the enclave's operations: it decodes a request body,
// does the work against the key store (through envelope for secret values)
// and encodes the answer. It builds everything it signs itself (JOSE
// headers, audit head messages) and never signs a digest a caller chose.
// Errors leave it as enclave/wire sentinels, so the server can send their
// codes and nothing else.
//
// It also enforces who may open and seal (authz.go): the caller's token,
// verified by enclave/internal/tokens, and the vault's policy set, whose
// MAC (policyset.go, HMAC-SHA256 in the key store under PolicyMACKeyID)
// proves an owner or admin sealed it and which must be the newest sealed
// set (its anti-rollback floor in the HSM, setfloors.go), evaluated with
// the policy package.
//
// Trust level: trusted (runs only inside the enclave).
package ops
