// Package ops runs the enclave's operations: it decodes a request body,
// does the work against the key store (through envelope for secret values)
// and encodes the answer. It builds everything it signs itself (JOSE
// headers, audit head messages) and never signs a digest a caller chose.
// Errors leave it as enclave/wire sentinels, so the server can send their
// codes and nothing else.
//
// Trust level: trusted (runs only inside the enclave).
package ops
