package handlers

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/egress"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auth"
	"github.com/opencustody/ocv/proxy/intents"
	"github.com/opencustody/ocv/proxy/mail"
	"github.com/opencustody/ocv/proxy/metering"
	"github.com/opencustody/ocv/proxy/webhooks"
)

// Func is an HTTP handler that returns its error instead of writing it.
type Func func(w http.ResponseWriter, r *http.Request) error

// VaultStore is the storage of vaults, their secrets and the audit log.
type VaultStore interface {
	CreateVault(ctx context.Context, v store.Vault, createKEK func(context.Context) (uint32, error), ev *auditchain.Event) (store.Vault, error)
	GetVault(ctx context.Context, orgID, id string) (store.Vault, error)
	ListVaults(ctx context.Context, orgID, after string, limit int) ([]store.Vault, error)
	DeleteVault(ctx context.Context, orgID, id string, ev *auditchain.Event) error
	PutSecret(ctx context.Context, in store.Secret, seal store.SealFunc, ev func(created bool) *auditchain.Event) (store.Secret, bool, error)
	GetSecret(ctx context.Context, orgID, vaultID, path string) (store.Secret, store.Sealed, error)
	ListSecrets(ctx context.Context, orgID, vaultID, prefix, after string, limit int) ([]store.Secret, error)
	DeleteSecret(ctx context.Context, orgID, vaultID, path string, ev *auditchain.Event) error
	ListEvents(ctx context.Context, orgID, action string, before int64, limit int) ([]*auditchain.Event, error)
}

// Pinger tells whether the database answers (the health routes).
type Pinger interface {
	Ping(ctx context.Context) error
}

// EnclaveState is what the proxy knows of its channel to the enclave.
type EnclaveState struct {
	Attested  bool
	Reason    string
	Since     time.Time
	Mode      string
	Simulated bool
}

// Enclave is the attested channel to the enclave.
type Enclave interface {
	CreateKEK(ctx context.Context, token, orgID, vaultID string) (uint32, error)
	DestroySigningKey(ctx context.Context, req wire.DestroySigningKeyRequest) (uint32, error)
	Seal(ctx context.Context, req wire.SealRequest) (wire.SealResponse, error)
	Open(ctx context.Context, req wire.OpenRequest) ([]byte, error)
	SealPolicySet(ctx context.Context, req wire.SealPolicySetRequest) ([]byte, error)
	SigningKey(ctx context.Context, req wire.SigningKeyRequest) (wire.SigningKeyResponse, error)
	SignIntent(ctx context.Context, req wire.SignIntentRequest) (wire.SignIntentResponse, error)
	SealGuardrails(ctx context.Context, req wire.SealGuardrailsRequest) ([]byte, error)
	RevokeToken(ctx context.Context, token string) (int64, error)
	SetCutoff(ctx context.Context, req wire.SetCutoffRequest) (int64, error)
	Attest(ctx context.Context, nonce []byte) ([]byte, error)
	Health(ctx context.Context) (wire.HealthResponse, error)
	PublicKeys(ctx context.Context) ([]wire.PublicKey, error)
	State() EnclaveState
}

// Deps are the handlers' dependencies.
type Deps struct {
	// The storage, one small interface per resource group (one
	// *store.Store implements them all).
	Vaults   VaultStore
	Accounts IdentityStore
	Agents   AgentStore
	Policies PolicyStore
	Orgs     OrgStore
	Shares   ShareStore
	Hooks    WebhookStore
	Admin    AdminStore
	Keys     SigningKeyStore
	Txs      TxStore
	Pinger   Pinger
	// Clock is the one time source of every expiry decision (the
	// database's clock, store.Clock.Now); nil (unit tests) is time.Now.
	Clock func() time.Time

	Enclave  Enclave
	Minter   *auth.Minter
	Verifier *auth.Verifier
	OpenAPI  []byte // the JSON rendering of api/openapi.yaml
	Identity IdentityConfig
	Mailer   mail.Sender
	// Webhooks are the destination checks of webhook URLs (AllowLoopback
	// is TEST ONLY).
	Webhooks webhooks.Options
	// Egress is the outbound policy that admin-set URLs (a chain's rpc_url,
	// the x402 facilitator_url) are judged by when they are set; nil is the
	// strict default.
	Egress *egress.Policy
	// IPRulesChanged, when set, is called after an organization's IP rules
	// changed (the proxy drops its cached copy on this replica at once).
	IPRulesChanged func(orgID string)
	// Metering enforces the per-tier resource limits and serves the billing
	// routes; nil (unit tests) allows every creation.
	Metering Metering
	// Resources counts the capped resources for Metering.
	Resources ResourceCounter
	// Chains dials chains' RPC nodes for the Intents API; nil answers 503
	// chain_unavailable where a node is needed.
	Chains ChainDialer
	// Tiers are the configured tier limits that the admin limits route
	// reports; nil means metering.DefaultTiers().
	Tiers metering.Tiers
	// Intents is the Intents API's service; nil makes New build it over
	// Keys, Txs, Admin, Enclave and Chains.
	Intents *intents.Service
}

// Handlers serves every route of the API.
type Handlers struct {
	Deps
	keyTokens keyTokenCache
}

// New returns the handlers over d.
func New(d Deps) *Handlers {
	if d.Intents == nil {
		d.Intents = intents.New(intents.Config{Keys: d.Keys, Txs: d.Txs, Chains: d.Admin, Enclave: d.Enclave, Dialer: d.Chains})
	}
	return &Handlers{Deps: d}
}

// writeJSON sends v with status.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, err = w.Write(body)
	return err
}

// listPage turns up to limit+1 rows into a list: the extra row only says that
// there is a next page, whose cursor is the last row shown.
func listPage[S, T any](rows []S, limit int, conv func(S) T, cursor func(S) string) api.List[T] {
	out := api.List[T]{Items: make([]T, 0, min(len(rows), limit))}
	for i, r := range rows {
		if i == limit {
			out.NextCursor = encodeCursor(cursor(rows[i-1]))
			break
		}
		out.Items = append(out.Items, conv(r))
	}
	return out
}

func timePtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := t.UTC().Format(time.RFC3339)
	return &s
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }
