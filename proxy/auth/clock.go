package auth

import "time"

// UseClock makes v judge expiry on now: a token's exp, and a personal API
// key's expires_at when v.APIKeys is set. The proxy passes the database's
// clock (store.Clock.Now), the one time source of its expiry decisions.
// Call it before v serves.
func (v *Verifier) UseClock(now func() time.Time) {
	v.now = now
	if v.APIKeys != nil {
		v.APIKeys.now = now
	}
}
