package handlers

import (
	"context"
	"encoding/json"

	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/store"
)

// AdminStore is the storage of the platform administration routes: settings,
// user deletion, organization limits, the chain and token registries.
type AdminStore interface {
	ListSettings(ctx context.Context) ([]store.Setting, error)
	Setting(ctx context.Context, key string) (store.Setting, error)
	PutSetting(ctx context.Context, key string, value json.RawMessage, by string, ev *auditchain.Event) (store.Setting, error)
	DeleteUser(ctx context.Context, userID string, check func(store.User) error, ev *auditchain.Event) (store.UserDeletion, error)
	OrgUsage(ctx context.Context, orgID string) (store.OrgUsage, error)
	SetOrgTier(ctx context.Context, orgID, tier string) error
	ListChains(ctx context.Context) ([]store.Chain, error)
	ResolveChain(ctx context.Context, ref string) (store.Chain, error)
	UpsertChain(ctx context.Context, c store.Chain, ev *auditchain.Event) (store.Chain, bool, error)
	ListTokens(ctx context.Context, chain string) ([]store.KnownToken, error)
	CreateToken(ctx context.Context, k store.KnownToken, ev *auditchain.Event) (store.KnownToken, error)
	DeleteToken(ctx context.Context, chain, address string, ev *auditchain.Event) error
}
