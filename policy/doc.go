// Package policy decides who may read or write which secret path.
//
// It holds the path and pattern grammar (ValidatePath, ValidatePattern,
// Match), policy evaluation (Evaluate), agent scopes (Scopes, InScopes),
// organization roles (Role) and the canonical encoding of a vault's policy
// set that the enclave MACs together with a version counter (EncodeSet,
// DecodeSet).
//
// Trust level: shared contract, pure. The proxy evaluates it first for fast
// 403 answers and the enclave evaluates it again before it touches a key, so
// both sides must reach the same answer from the same inputs. It therefore
// imports only the standard library, does no I/O, keeps no global state and
// reads no clock: the caller passes the time in.
//
// Every choice here fails closed: an invalid path or pattern never matches,
// an invalid policy that targets the caller denies the request, and a
// condition that cannot be evaluated never lets an allow apply.
package policy
