package handlers

import "time"

// now is the time of every expiry decision the handlers make about a stored
// record (a secret's or a share's expires_at, an invitation, a lockout, an
// agent key): the database's clock (Deps.Clock), never this replica's own,
// so that every replica and the SQL that compares with now() agree.
func (h *Handlers) now() time.Time {
	if h.Clock != nil {
		return h.Clock()
	}
	return time.Now()
}
