package ops

import (
	"context"
	"errors"
	"fmt"

	"github.com/opencustody/ocv/enclave/internal/floors"
	"github.com/opencustody/ocv/enclave/wire"
)

// Sealed sets (a vault's policy set, an agent's guardrail set) are held by
// the proxy, so a compromised proxy could present an older one, validly
// MAC'd but superseded. Each set therefore has an anti-rollback floor in
// the HSM (enclave/internal/floors): sealing a set advances it, and a
// presented set is accepted only when it is exactly the floor (version and
// digest). The floor outlives a restart and is shared by every enclave on
// the same HSM token.

// policyFloorName names the floor of a vault's policy set.
func policyFloorName(org, vault string) string { return "policy/" + org + "/" + vault }

// guardFloorName names the floor of an agent's guardrail set.
func guardFloorName(org, agent string) string { return "guard/" + org + "/" + agent }

// advanceSetFloor makes (version, digest) the floor of name when sealing a
// set; kind names the set in errors. A version not above the floor (a
// replay, or a change that lost a race, maybe on another enclave) is a
// Conflict; a key-store failure is an outage.
func (a *authorizer) advanceSetFloor(ctx context.Context, name, kind string, version uint64, digest [32]byte) error {
	// Advance takes resending exactly the floor for a retry; sealing
	// refuses it like any version not above, as it always did.
	cur, err := a.floors.Load(ctx, name)
	switch {
	case err == nil && cur.Version >= version:
		err = floors.ErrSuperseded
	case err == nil || errors.Is(err, floors.ErrNoFloor):
		err = a.floors.Advance(ctx, name, floors.Floor{Version: version, Digest: digest})
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, floors.ErrSuperseded):
		return fmt.Errorf("%w: %s version %d is not newer than the sealed one", wire.ErrConflict, kind, version)
	default:
		return fmt.Errorf("%w: advancing %s floor: %w", wire.ErrUnavailable, kind, err)
	}
}

// checkSetFloor accepts a presented set, whose MAC verified, only when
// (version, digest) is the floor of name. While the floor is cached and
// matches this is a map lookup, with no key-store call.
//
// A set with no floor at all was sealed before floors existed: it is
// accepted and becomes the floor (trust on first use; see
// docs/threat-model.d/sets.md). A superseded set is Forbidden; a key-store
// failure is an outage, never a verdict.
func (a *authorizer) checkSetFloor(ctx context.Context, name, kind string, version uint64, digest [32]byte) error {
	_, err := a.floors.Check(ctx, name, version, digest)
	if errors.Is(err, floors.ErrNoFloor) {
		err = a.floors.Advance(ctx, name, floors.Floor{Version: version, Digest: digest})
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, floors.ErrSuperseded):
		return forbidden(kind + " superseded by a newer one")
	default:
		return fmt.Errorf("%w: checking %s floor: %w", wire.ErrUnavailable, kind, err)
	}
}
