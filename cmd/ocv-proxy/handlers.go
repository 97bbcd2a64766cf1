package main

import (
	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy"
	"github.com/opencustody/ocv/proxy/auth"
	"github.com/opencustody/ocv/proxy/chainrpc"
	"github.com/opencustody/ocv/proxy/handlers"
	"github.com/opencustody/ocv/proxy/intents"
	"github.com/opencustody/ocv/proxy/mail"
	"github.com/opencustody/ocv/proxy/metering"
)

// newHandlers builds the API handlers over their dependencies: the one
// place that fills handlers.Deps.
func newHandlers(cfg proxy.Config, db *store.Store, clock *store.Clock, enclave proxy.EnclaveAdapter, minter *auth.Minter, verifier *auth.Verifier,
	mailer mail.Sender, ipRules *proxy.IPRuleCache, meter *metering.Meter, chains *chainrpc.Pool) (*handlers.Handlers, error) {
	openapi, err := api.JSON()
	if err != nil {
		return nil, err
	}
	return handlers.New(handlers.Deps{Vaults: db, Accounts: db, Agents: db, Policies: db, Orgs: db, Shares: db,
		Hooks: db, Admin: db, Keys: db, Txs: db, Pinger: db, Enclave: enclave, Minter: minter,
		Verifier: verifier, OpenAPI: openapi, Identity: cfg.IdentityConfig(), Mailer: mailer, IPRulesChanged: ipRules.Invalidate,
		Webhooks: cfg.WebhookOptions(), Egress: cfg.Egress(), Metering: meter, Resources: db, Tiers: cfg.Metering.Tiers, Chains: chains,
		Clock:   clock.Now,
		Intents: intents.New(intents.Config{Keys: db, Txs: db, Chains: db, Enclave: enclave, Dialer: chains, Now: clock.Now})}), nil
}
