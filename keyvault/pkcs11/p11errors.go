//go:build cgo

package pkcs11

import (
	"errors"

	"github.com/miekg/pkcs11"
)

// rvIs reports whether err carries one of the PKCS#11 return values rvs.
func rvIs(err error, rvs ...uint) bool {
	var e pkcs11.Error
	if !errors.As(err, &e) {
		return false
	}
	for _, rv := range rvs {
		if uint(e) == rv {
			return true
		}
	}
	return false
}

// isSessionFault reports errors after which a session cannot be trusted: the
// pool closes it and opens a new one (which logs in again if needed).
func isSessionFault(err error) bool {
	return rvIs(err,
		pkcs11.CKR_SESSION_HANDLE_INVALID,
		pkcs11.CKR_SESSION_CLOSED,
		pkcs11.CKR_DEVICE_ERROR,
		pkcs11.CKR_DEVICE_MEMORY,
		pkcs11.CKR_DEVICE_REMOVED,
		pkcs11.CKR_TOKEN_NOT_PRESENT,
		pkcs11.CKR_USER_NOT_LOGGED_IN,
		pkcs11.CKR_OPERATION_ACTIVE,
	)
}

// isHandleInvalid reports a stale object handle: the key was destroyed (maybe
// by another process) after its handle was cached, or the module renumbered
// its objects (SoftHSM drops every object handle of a token when the
// application's last session on it closes).
func isHandleInvalid(err error) bool {
	return rvIs(err,
		pkcs11.CKR_OBJECT_HANDLE_INVALID,
		pkcs11.CKR_KEY_HANDLE_INVALID,
		pkcs11.CKR_WRAPPING_KEY_HANDLE_INVALID,
		pkcs11.CKR_UNWRAPPING_KEY_HANDLE_INVALID,
	)
}

// isUnwrapFailure reports the answers C_UnwrapKey gives for a wrapped key
// that fails the RFC 3394 integrity check. SoftHSM 2.6.1 answers
// CKR_GENERAL_ERROR; the specification names the others.
func isUnwrapFailure(err error) bool {
	return rvIs(err,
		pkcs11.CKR_GENERAL_ERROR,
		pkcs11.CKR_WRAPPED_KEY_INVALID,
		pkcs11.CKR_WRAPPED_KEY_LEN_RANGE,
		pkcs11.CKR_ENCRYPTED_DATA_INVALID,
		pkcs11.CKR_ENCRYPTED_DATA_LEN_RANGE,
	)
}
