package ops

import (
	"fmt"

	"github.com/opencustody/ocv/enclave/internal/envelope"
	"github.com/opencustody/ocv/enclave/internal/tokens"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/policy"
)

// rawKeyTypes are the secret types an agent with the intents API never
// reads: it signs through the enclave instead.
var rawKeyTypes = map[string]bool{"private_key": true, "ssh_key": true}

// checkKeyType refuses, before anything is decrypted, to open blob for an
// agent whose token has intents_api_enabled when the blob is a private_key
// or ssh_key. The type is the one bound into the blob (envelope.TypeOf):
// a proxy or a database writer who edits it makes Open fail its integrity
// check, so the enclave never hands out a value under a type it was not
// sealed with. A legacy blob, an untyped one and a malformed one bind no
// type the enclave can trust and count as private keys for such an agent
// (fail closed; every other caller opens them as before).
func checkKeyType(c tokens.Claims, blob []byte) error {
	if c.PrincipalType != policy.PrincipalAgent || !c.IntentsAPIEnabled {
		return nil
	}
	typ, typed, err := envelope.TypeOf(blob)
	switch {
	case err != nil:
		return err
	case !typed || typ == "":
		return fmt.Errorf("%w: a value sealed without a bound type", wire.ErrPrivateKeyBlocked)
	case rawKeyTypes[typ]:
		return fmt.Errorf("%w: %s", wire.ErrPrivateKeyBlocked, typ)
	}
	return nil
}
