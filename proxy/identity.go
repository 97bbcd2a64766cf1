package proxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auth"
	"github.com/opencustody/ocv/proxy/handlers"
)

// apiKeyCacheTTL bounds how long a replica trusts a resolved API key
// without asking the database again (deletions reach it sooner, through
// LISTEN/NOTIFY; this covers a lost notification and role changes).
const apiKeyCacheTTL = 30 * time.Second

func (c *Config) validateIdentity() []error {
	var errs []error
	bad := func(field, why string) { errs = append(errs, fmt.Errorf("config %s: %s", field, why)) }
	if c.RefreshTTL < time.Hour || c.RefreshTTL > 365*24*time.Hour {
		bad("refresh_ttl", "must be between 1h and 8760h")
	}
	if c.LockoutDuration < time.Minute || c.LockoutDuration > 7*24*time.Hour {
		bad("lockout_duration", "must be between 1m and 168h")
	}
	if c.BootstrapAdminEmail != "" {
		if a, err := mail.ParseAddress(c.BootstrapAdminEmail); err != nil || a.Address != c.BootstrapAdminEmail {
			bad("bootstrap_admin_email", "must be a bare email address")
		}
	}
	if p := c.BootstrapAdminPassword; p != "" {
		if c.BootstrapAdminEmail == "" {
			bad("bootstrap_admin_password", "is set without bootstrap_admin_email")
		}
		if utf8.RuneCountInString(p) < 8 || len(p) > 1024 {
			bad("bootstrap_admin_password", "must be at least 8 characters (at most 1024 bytes)")
		}
	}
	return errs
}

// IdentityConfig is the account configuration the handlers apply.
func (c *Config) IdentityConfig() handlers.IdentityConfig {
	return handlers.IdentityConfig{RefreshTTL: c.RefreshTTL, LockoutDuration: c.LockoutDuration}
}

// apiKeyResolver fits the store to auth.APIKeyResolver.
type apiKeyResolver struct{ db *store.Store }

func (a apiKeyResolver) ResolveAPIKey(ctx context.Context, hash []byte) (auth.APIKey, error) {
	o, err := a.db.APIKeyByHash(ctx, hash)
	if errors.Is(err, store.ErrNotFound) {
		return auth.APIKey{}, auth.ErrInvalidToken
	}
	if err != nil {
		return auth.APIKey{}, err
	}
	k := auth.APIKey{ID: o.Key.ID, UserID: o.Key.UserID, OrgID: o.Key.OrgID, Role: o.Role, PlatformRole: o.PlatformRole}
	if o.Key.ExpiresAt != nil {
		k.ExpiresAt = *o.Key.ExpiresAt
	}
	return k, nil
}

// NewAPIKeyVerifier lets a verifier accept personal API keys, resolved
// from db and cached for apiKeyCacheTTL; KeepAPIKeyRevocations keeps the
// cache current.
func NewAPIKeyVerifier(db *store.Store) *auth.APIKeyVerifier {
	return auth.NewAPIKeyVerifier(apiKeyResolver{db}, apiKeyCacheTTL)
}

// KeepAPIKeyRevocations drops deleted keys from the cache as any replica
// announces them, until ctx ends. Whenever the listener (re)connects the
// whole cache is dropped, since notifications may have been missed
// meanwhile. It returns nil.
func KeepAPIKeyRevocations(ctx context.Context, db *store.Store, keys *auth.APIKeyVerifier, log *slog.Logger) error {
	listenLoop(ctx, log, "api key revocation", func() error { return db.Listen(ctx, store.APIKeyRevocationChannel, keys.Flush, keys.Forget) }, keys.Flush)
	return nil
}

// BootstrapAdmin makes cfg.BootstrapAdminEmail a super_admin, creating the
// user (with an organization it owns) when missing. It is idempotent and
// safe when replicas start together. The password never reaches a log.
func BootstrapAdmin(ctx context.Context, cfg Config, db *store.Store, minter *auth.Minter, log *slog.Logger) error {
	email := strings.TrimSpace(cfg.BootstrapAdminEmail)
	if email == "" {
		return nil
	}
	key := strings.ToLower(email)
	const role = "super_admin"
	event := func(orgID, userID, action string) *auditchain.Event {
		return &auditchain.Event{OrgID: orgID, OccurredAt: time.Now().UTC().Truncate(time.Microsecond), RequestID: "bootstrap",
			ActorType: "system", Action: action, Resource: "user/" + userID, Outcome: auditchain.OutcomeSuccess, Status: 200}
	}
	for attempt := 0; attempt < 2; attempt++ {
		u, changed, err := db.SetPlatformRole(ctx, key, role, func(u store.User, m store.Membership) *auditchain.Event {
			return event(m.OrgID, u.ID, "admin.bootstrap")
		})
		if err == nil {
			if err := minter.SetPlatformRole(ctx, u.ID, role); err != nil && !errors.Is(err, auth.ErrNoRecord) {
				return fmt.Errorf("bootstrapping admin: %w", err)
			}
			if changed {
				log.Info("bootstrap admin promoted", "user_id", u.ID, "platform_role", role)
			}
			return nil
		}
		if !errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("bootstrapping admin: %w", err)
		}
		if cfg.BootstrapAdminPassword == "" {
			return errors.New("bootstrapping admin: the user does not exist and OCV_BOOTSTRAP_ADMIN_PASSWORD is not set")
		}
		hash, err := auth.HashPassword(ctx, cfg.BootstrapAdminPassword)
		if err != nil {
			return fmt.Errorf("bootstrapping admin: %w", err)
		}
		userID, orgID := uuid.Must(uuid.NewV7()).String(), uuid.Must(uuid.NewV7()).String()
		if err := minter.Signup(ctx, userID, email, hash, role, orgID); err != nil {
			return fmt.Errorf("bootstrapping admin: %w", err)
		}
		_, err = db.CreateUserWithOrg(ctx, store.User{ID: userID, Email: email, PasswordHash: hash, PlatformRole: role}, key,
			store.Org{ID: orgID, Name: email}, event(orgID, userID, "admin.bootstrap"))
		if err == nil {
			log.Info("bootstrap admin created", "user_id", userID, "org_id", orgID, "platform_role", role)
			return nil
		}
		// Another replica created it meanwhile: promote (a no-op) once more.
		if !errors.Is(err, store.ErrConflict) {
			return fmt.Errorf("bootstrapping admin: %w", err)
		}
	}
	return errors.New("bootstrapping admin: the user appeared and vanished while starting")
}
