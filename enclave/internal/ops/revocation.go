package ops

import (
	"context"
	"errors"
	"fmt"
	"unicode"

	"github.com/opencustody/ocv/enclave/internal/floors"
	"github.com/opencustody/ocv/enclave/internal/tokens"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/policy"
)

// Revocation floors (enclave/internal/floors names): a signed-out token is
// revokedFloor(jti) until its exp; a principal's tokens issued before a
// cut-off are cutoffFloor(org, id), and a user's in every organization
// cutoffFloor(allOrgsFloor, id). A deleted principal's cut-off is
// math.MaxInt64.
const (
	revokedPrefix = "revoked/"
	cutoffPrefix  = "cutoff/"
	allOrgsFloor  = "-"
	// maxFloorName is the longest register name the HSM keeps
	// (keyvault/pkcs11 key ids).
	maxFloorName = 200
)

func revokedFloor(jti string) string    { return revokedPrefix + jti }
func cutoffFloor(org, id string) string { return cutoffPrefix + org + "/" + id }

// floorNamePart reports whether s can be part of a floor name: non-empty,
// printable ASCII, without the separator. Ids minted by OCV (UUIDs, hex
// jtis) always are.
func floorNamePart(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r > unicode.MaxASCII || !unicode.IsPrint(r) || r == '/' {
			return false
		}
	}
	return true
}

// checkRevocation refuses a verified token that was signed out, or issued
// before a cut-off of its principal (in its organization or, for a user,
// in every one), or of a token of a deleted organization. It runs for every token, also one the verifier had
// cached: the floors are cached for floors.Config.Refresh, so a request
// costs map lookups, and at most one HSM read per name per refresh. A
// token whose ids cannot name a floor is refused; an HSM failure is an
// outage (fail closed).
func (a *authorizer) checkRevocation(ctx context.Context, c tokens.Claims) error {
	if a.floors == nil {
		return fmt.Errorf("%w: no revocation store", wire.ErrUnavailable)
	}
	if !floorNamePart(c.JTI) || !floorNamePart(c.OrgID) || !floorNamePart(c.Subject) ||
		len(revokedFloor(c.JTI)) > maxFloorName || len(cutoffFloor(c.OrgID, c.Subject)) > maxFloorName {
		return forbidden("token ids cannot be checked for revocation")
	}
	if _, err := a.floor(ctx, revokedFloor(c.JTI)); err == nil {
		return forbidden("token signed out")
	} else if !errors.Is(err, floors.ErrNoFloor) {
		return err
	}
	// The principal's own cut-off, and its organization's (deleted).
	names := []string{cutoffFloor(c.OrgID, c.Subject), cutoffFloor(c.OrgID, wire.OrgCutoffPrincipal)}
	if c.PrincipalType == policy.PrincipalUser {
		names = append(names, cutoffFloor(allOrgsFloor, c.Subject))
	}
	for _, name := range names {
		f, err := a.floor(ctx, name)
		switch {
		case errors.Is(err, floors.ErrNoFloor):
		case err != nil:
			return err
		case c.IssuedAtMs < f.NotBefore:
			return forbidden("token issued before its principal's cut-off")
		}
	}
	return nil
}

// floor reads a floor through the cache; a key-store failure is an outage.
func (a *authorizer) floor(ctx context.Context, name string) (floors.Floor, error) {
	f, err := a.floors.Get(ctx, name)
	if err != nil && !errors.Is(err, floors.ErrNoFloor) {
		return floors.Floor{}, fmt.Errorf("%w: reading revocation floor: %w", wire.ErrUnavailable, err)
	}
	return f, err
}
