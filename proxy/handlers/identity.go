package handlers

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/auth"
)

// IdentityStore is the storage of accounts, sessions, keys and members.
type IdentityStore interface {
	CreateUserWithOrg(ctx context.Context, u store.User, emailKey string, o store.Org, ev *auditchain.Event) (time.Time, error)
	UserByEmail(ctx context.Context, emailKey string) (store.User, store.Membership, error)
	RevokeToken(ctx context.Context, jti, orgID string, exp time.Time, ev *auditchain.Event) error
	UserByID(ctx context.Context, id string) (store.User, error)
	RecordLoginFailure(ctx context.Context, userID string, max int, lockFor time.Duration, ev, lockEv *auditchain.Event) (time.Time, error)
	CompleteSignIn(ctx context.Context, userID string, refresh *store.RefreshToken, ev *auditchain.Event) error
	ChangePassword(ctx context.Context, userID, hash string, ev *auditchain.Event) error
	SetPassword(ctx context.Context, userID, hash string, ev *auditchain.Event) error
	RotateRefreshToken(ctx context.Context, old []byte, next store.RefreshToken,
		issue func(context.Context, store.RefreshGrant) (*auditchain.Event, error), onReuse func(store.RefreshGrant) []*auditchain.Event) error
	RevokeSession(ctx context.Context, jti, orgID string, exp time.Time, refreshHash []byte, userID string, ev *auditchain.Event) (bool, error)
	CreateAPIKey(ctx context.Context, k store.APIKey, ev *auditchain.Event) (store.APIKey, error)
	ListAPIKeys(ctx context.Context, orgID, userID, after string, limit int) ([]store.APIKey, error)
	DeleteAPIKey(ctx context.Context, orgID, userID, id string, ev *auditchain.Event) error
	Settings(ctx context.Context, userID string) (store.UserSettings, error)
	SaveSettings(ctx context.Context, userID string, in store.UserSettings, ev *auditchain.Event) error
	ListUsers(ctx context.Context, after string, limit int) ([]store.User, error)
	ListMembers(ctx context.Context, orgID, after string, limit int) ([]store.Member, error)
	CreateInvite(ctx context.Context, in store.Invite, emailKey string, ev *auditchain.Event) (store.Invite, error)
}

// IdentityConfig holds the account rules the handlers apply.
type IdentityConfig struct {
	// RefreshTTL is the lifetime of each refresh token (every rotation
	// issues a new one); zero issues no refresh tokens.
	RefreshTTL time.Duration
	// LockoutDuration is how long an account stays locked after
	// MaxFailedLogins failed password checks.
	LockoutDuration time.Duration
}

// MaxFailedLogins failed password checks (sign-ins and current-password
// checks) lock an account (spec, Limits: account lockout).
const MaxFailedLogins = 10

// InviteTTL is how long an invitation can be accepted.
const InviteTTL = 7 * 24 * time.Hour

// checkNewPassword applies the password rules to a new password, named
// field in the 400 answer.
func checkNewPassword(field, p string) error {
	if utf8.RuneCountInString(p) < minPasswordChars || len(p) > maxPasswordBytes {
		return problem.BadRequest(problem.TypeInvalidRequest, field+" must be at least 8 characters (at most 1024 bytes)")
	}
	return nil
}

// verifyPassword checks password against hash: auth.ErrPasswordMismatch
// when it is wrong. A password over the byte limit is never right (and
// never hashed).
func verifyPassword(ctx context.Context, hash, password string) error {
	if len(password) > maxPasswordBytes {
		return auth.ErrPasswordMismatch
	}
	return auth.VerifyPassword(ctx, hash, password)
}

func newID() string { return uuid.Must(uuid.NewV7()).String() }

// accountLocked is the 401 for a locked account; Retry-After says when to
// try again.
func (h *Handlers) accountLocked(w http.ResponseWriter, until time.Time) error {
	secs := int64(math.Ceil(until.Sub(h.now()).Seconds()))
	if secs < 1 {
		secs = 1
	}
	w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
	return problem.Unauthorized(problem.TypeAccountLocked, "the account is locked after too many failed sign-ins; it unlocks at "+
		until.UTC().Format(time.RFC3339))
}

// passwordFailed counts a failed password check of a known user, with the
// request's audit event in the same transaction, and answers 401:
// account_locked when the account is (now) locked, fail otherwise.
func (h *Handlers) passwordFailed(w http.ResponseWriter, r *http.Request, userID string, fail error) error {
	entry := auditlog.FromContext(r.Context())
	ev := entry.Prepare(http.StatusUnauthorized)
	lockEv := *ev
	lockEv.Action = "auth.lockout"
	until, err := h.Accounts.RecordLoginFailure(r.Context(), userID, MaxFailedLogins, h.Identity.LockoutDuration, ev, &lockEv)
	if err != nil {
		return err
	}
	if !until.IsZero() {
		return h.accountLocked(w, until)
	}
	return fail
}

// bearerToken is the answer that hands out the access token tok, valid for
// ttl.
func bearerToken(tok string, ttl time.Duration) api.TokenResponse {
	return api.TokenResponse{AccessToken: tok, TokenType: "Bearer", ExpiresIn: int64(ttl.Seconds())}
}

// newRefreshToken returns a fresh refresh token and its row (id, hash,
// expiry; the caller fills in organization, user and family).
func (h *Handlers) newRefreshToken() (string, store.RefreshToken, error) {
	tok, hash, err := auth.NewOpaque(auth.RefreshPrefix)
	if err != nil {
		return "", store.RefreshToken{}, err
	}
	return tok, store.RefreshToken{ID: newID(), Hash: hash, ExpiresAt: h.now().Add(h.Identity.RefreshTTL)}, nil
}

// errReader fails a read with err after the bytes already read.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// decodeOptionalJSON is decodeJSON for a body that may be absent: it
// reports false, and decodes nothing, when the body is empty.
func decodeOptionalJSON(r *http.Request, v any) (bool, error) {
	if r.ContentLength == 0 {
		return false, nil
	}
	body, err := io.ReadAll(r.Body)
	if err == nil && len(bytes.TrimSpace(body)) == 0 {
		return false, nil
	}
	var rest io.Reader = bytes.NewReader(body)
	if err != nil {
		// Replay the read error (413 past the body limit) through decodeJSON.
		rest = io.MultiReader(rest, errReader{err})
	}
	r.Body = io.NopCloser(rest)
	return true, decodeJSON(r, v)
}

// cursorID checks that a list cursor is a UUID.
func cursorID(cursor string) error {
	if cursor == "" {
		return nil
	}
	if _, err := uuid.Parse(cursor); err != nil {
		return problem.BadRequest(problem.TypeInvalidRequest, "cursor is not valid")
	}
	return nil
}

// currentUser loads the caller's user row.
func (h *Handlers) currentUser(r *http.Request) (store.User, error) {
	u, err := h.Accounts.UserByID(r.Context(), principal(r).ID)
	if errors.Is(err, store.ErrNotFound) {
		return store.User{}, problem.Unauthorized(problem.TypeInvalidToken, "the authenticated user no longer exists")
	}
	return u, err
}
