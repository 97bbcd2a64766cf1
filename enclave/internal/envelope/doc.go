// Package envelope seals and opens secret values with envelope encryption:
// a fresh 32-byte data key (DEK) per sealed value, AES-256-GCM over the
// value with the secret's locator as additional data, and the DEK wrapped
// in the enclave under the vault's intermediate key, which is derived from
// the vault's versioned key-encryption key inside the key store (KEK,
// KeyRef{ID: "kek/<org>/<vault>", Version: n}: the id names the
// organization, so no request for one organization addresses another's KEK).
// See ikey.go and blob.go (version 3, written since issue 14); versions 1
// and 2 wrapped the DEK inside the key store and are still opened.
//
// Ciphertext blob, version 1:
//
//	[0x01][kek version uint32 BE][GCM nonce (12) ‖ ciphertext ‖ tag (16)]
//
// AAD = "ocv-envelope-v1" ‖ len‖org ‖ len‖vault ‖ len‖path ‖ secret version
// (uint32 lengths, big endian), so a ciphertext moved to another row, path,
// version, vault or organization fails to open. The KEK version is not in
// the AAD on purpose: re-wrapping a DEK under a newer KEK version rewrites
// the header without re-encrypting the value; a forged version only points
// the unwrap at a KEK that fails RFC 3394's integrity check.
//
// Trust level: trusted (runs only inside the enclave).
package envelope
