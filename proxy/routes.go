package proxy

import (
	"net/http"

	"github.com/opencustody/ocv/proxy/handlers"
)

// Routes is the route table: for every route its access level and audit
// action. The router enforces the access level; handlers never re-check it.
func Routes(h *handlers.Handlers) []Route {
	return []Route{
		{http.MethodGet, "/v1/health", Public, "health.read", h.Health, nil},
		{http.MethodGet, "/v1/health/hsm", Public, "health.hsm", h.HSMHealth, nil},
		{http.MethodGet, "/v1/attestation", Public, "attestation.read", h.Attestation, nil},
		{http.MethodGet, "/openapi.json", Public, "openapi.read", h.OpenAPIDoc, nil},
		{http.MethodGet, "/.well-known/jwks.json", Public, "jwks.read", h.JWKS, nil},

		{http.MethodPost, "/v1/auth/signup", Public, "auth.signup", h.Signup, nil},
		{http.MethodPost, "/v1/auth/token", Public, "auth.token", h.Token, nil},
		{http.MethodDelete, "/v1/auth/token", Any, "auth.token.revoke", h.SignOut, nil},
		{http.MethodPost, "/v1/auth/api-key-token", Public, "auth.api_key_token", h.APIKeyToken, nil},
		{http.MethodPost, "/v1/auth/refresh", Public, "auth.refresh", h.Refresh, nil},
		{http.MethodPost, "/v1/auth/change-password", UserOnly, "auth.password.change", h.ChangePassword, nil},
		{http.MethodPost, "/v1/auth/set-password", UserOnly, "auth.password.set", h.SetPassword, nil},
		{http.MethodPost, "/v1/auth/api-keys", UserOnly, "auth.api_key.create", h.CreateAPIKey, nil},
		{http.MethodGet, "/v1/auth/api-keys", UserOnly, "auth.api_key.list", h.ListAPIKeys, nil},
		{http.MethodDelete, "/v1/auth/api-keys/{key_id}", UserOnly, "auth.api_key.delete", h.DeleteAPIKey, nil},
		{http.MethodPost, "/v1/auth/agent-token", Public, "auth.agent_token", h.AgentToken, nil},
		{http.MethodGet, "/v1/auth/settings", UserOnly, "auth.settings.read", h.GetSettings, nil},
		{http.MethodPatch, "/v1/auth/settings", UserOnly, "auth.settings.update", h.UpdateSettings, nil},

		{http.MethodGet, "/v1/org/members", UserOnly, "org.member.list", h.ListMembers, nil},
		{http.MethodPost, "/v1/org/invite", UserOnly, "org.invite.create", h.InviteMember, nil},
		{http.MethodPost, "/v1/org/invitations/accept", Public, "org.invite.accept", h.AcceptInvitation, nil},
		{http.MethodPatch, "/v1/org/members/{user_id}", UserOnly, "org.member.update", h.UpdateMember, nil},
		{http.MethodDelete, "/v1/org/members/{user_id}", UserOnly, "org.member.delete", h.RemoveMember, nil},

		{http.MethodGet, "/v1/security/ip-rules", UserOnly, "ip_rule.list", h.ListIPRules, nil},
		{http.MethodPost, "/v1/security/ip-rules", UserOnly, "ip_rule.create", h.CreateIPRule, nil},
		{http.MethodDelete, "/v1/security/ip-rules/{rule_id}", UserOnly, "ip_rule.delete", h.DeleteIPRule, nil},

		{http.MethodGet, "/v1/admin/users", AdminOnly, "admin.user.list", h.AdminListUsers, nil},
		{http.MethodDelete, "/v1/admin/users/{user_id}", AdminOnly, "admin.user.delete", h.AdminDeleteUserEverywhere, nil},
		{http.MethodGet, "/v1/admin/settings", AdminOnly, "admin.setting.list", h.AdminListSettings, nil},
		{http.MethodGet, "/v1/admin/settings/{key}", AdminOnly, "admin.setting.read", h.AdminGetSetting, nil},
		{http.MethodPut, "/v1/admin/settings/{key}", AdminOnly, "admin.setting.update", h.AdminPutSetting, nil},
		{http.MethodGet, "/v1/admin/x402", AdminOnly, "admin.x402.read", h.AdminGetX402, nil},
		{http.MethodPut, "/v1/admin/x402", AdminOnly, "admin.x402.update", h.AdminPutX402, nil},
		{http.MethodGet, "/v1/admin/orgs/{org_id}/limits", AdminOnly, "admin.org.limits", h.AdminOrgLimits, nil},
		{http.MethodPut, "/v1/admin/orgs/{org_id}/tier", AdminOnly, "admin.org.tier", h.AdminSetOrgTier, nil},
		{http.MethodGet, "/v1/admin/chains", AdminOnly, "admin.chain.list", h.ListChains, nil},
		{http.MethodPost, "/v1/admin/chains", AdminOnly, "admin.chain.put", h.AdminPutChain, nil},
		{http.MethodPost, "/v1/admin/tokens", AdminOnly, "admin.token.create", h.AdminCreateToken, nil},
		{http.MethodDelete, "/v1/admin/tokens/{chain}/{contract_address}", AdminOnly, "admin.token.delete", h.AdminDeleteToken, nil},

		{http.MethodGet, "/v1/chains", Any, "chain.list", h.ListChains, nil},
		{http.MethodGet, "/v1/chains/{id_or_chain_id}", Any, "chain.read", h.GetChain, nil},
		{http.MethodGet, "/v1/chains/{chain}/tokens", Public, "token.list_chain", h.ListChainTokens, nil},
		{http.MethodGet, "/v1/tokens", Public, "token.list", h.ListTokens, nil},

		{http.MethodPost, "/v1/agents", UserOnly, "agent.create", h.CreateAgent, nil},
		{http.MethodGet, "/v1/agents", UserOnly, "agent.list", h.ListAgents, nil},
		{http.MethodGet, "/v1/agents/me", Any, "agent.me", h.AgentMe, nil}, // agents only: users get 403 forbidden
		{http.MethodGet, "/v1/agents/org-directory", Any, "agent.directory", h.AgentDirectory, nil},
		{http.MethodGet, "/v1/agents/{id}", UserOnly, "agent.read", h.GetAgent, nil},
		{http.MethodPatch, "/v1/agents/{id}", UserOnly, "agent.update", h.UpdateAgent, nil},
		{http.MethodPost, "/v1/agents/{id}/rotate-key", UserOnly, "agent.rotate_key", h.RotateAgentKey, nil},
		{http.MethodDelete, "/v1/agents/{id}", UserOnly, "agent.delete", h.DeleteAgent, nil},

		{http.MethodPost, "/v1/agents/{id}/signing-keys", Any, "signing_key.create", h.CreateSigningKey, nil},
		{http.MethodGet, "/v1/agents/{id}/signing-keys", Any, "signing_key.list", h.ListSigningKeys, nil},
		{http.MethodGet, "/v1/agents/{id}/signing-keys/{chain}", Any, "signing_key.read", h.GetSigningKey, nil},
		{http.MethodPost, "/v1/agents/{id}/signing-keys/{chain}/rotate", UserOnly, "signing_key.rotate", h.RotateSigningKey, nil},
		{http.MethodPost, "/v1/agents/{id}/signing-keys/{chain}/import", UserOnly, "signing_key.import", h.ImportSigningKey, nil},
		{http.MethodDelete, "/v1/agents/{id}/signing-keys/{chain}", UserOnly, "signing_key.delete", h.DeleteSigningKey, nil},
		{http.MethodGet, "/v1/agents/{id}/signing-keys/{chain}/balance", Any, "signing_key.balance", h.SigningKeyBalance, nil},
		{http.MethodPost, "/v1/agents/{id}/sign", AgentIntents, "agent.sign", h.SignIntent, nil},
		{http.MethodPost, "/v1/agents/{id}/transactions", AgentIntents, "agent.transaction.send", h.SendTransaction, nil},
		{http.MethodPost, "/v1/agents/{id}/transactions/sign", AgentIntents, "agent.transaction.sign", h.SignTransactionOnly, nil},
		{http.MethodPost, "/v1/agents/{id}/transactions/simulate", AgentIntents, "agent.transaction.simulate", h.SimulateTransaction, nil},
		{http.MethodPost, "/v1/agents/{id}/transactions/simulate-bundle", AgentIntents, "agent.transaction.simulate_bundle", h.SimulateBundle, nil},
		{http.MethodGet, "/v1/agents/{id}/transactions", Any, "agent.transaction.list", h.ListTransactions, nil},
		{http.MethodGet, "/v1/agents/{id}/transactions/{tx_id}", Any, "agent.transaction.read", h.GetTransaction, nil},

		{http.MethodPost, "/v1/vaults", UserOnly, "vault.create", h.CreateVault, nil},
		{http.MethodGet, "/v1/vaults", Any, "vault.list", h.ListVaults, nil},
		{http.MethodGet, "/v1/vaults/{id}", Any, "vault.read", h.GetVault, nil},
		{http.MethodDelete, "/v1/vaults/{id}", UserOnly, "vault.delete", h.DeleteVault, nil},

		{http.MethodPost, "/v1/vaults/{vault_id}/policies", UserOnly, "policy.create", h.CreatePolicy, nil},
		{http.MethodGet, "/v1/vaults/{vault_id}/policies", UserOnly, "policy.list", h.ListPolicies, nil},
		{http.MethodPut, "/v1/vaults/{vault_id}/policies/{policy_id}", UserOnly, "policy.update", h.UpdatePolicy, nil},
		{http.MethodDelete, "/v1/vaults/{vault_id}/policies/{policy_id}", UserOnly, "policy.delete", h.DeletePolicy, nil},

		{http.MethodGet, "/v1/vaults/{vault_id}/secrets", Any, "secret.list", h.ListSecrets, nil},
		{http.MethodPut, "/v1/vaults/{vault_id}/secrets/{path...}", Any, "secret.write", h.PutSecret, nil},
		{http.MethodGet, "/v1/vaults/{vault_id}/secrets/{path...}", Any, "secret.read", h.GetSecret, nil},
		{http.MethodDelete, "/v1/vaults/{vault_id}/secrets/{path...}", Any, "secret.delete", h.DeleteSecret, nil},

		{http.MethodGet, "/v1/audit/events", UserOnly, "audit.list", h.ListAuditEvents, nil},

		{http.MethodPost, "/v1/secrets/{secret_id}/share", Any, "share.create", h.CreateShare, nil},
		{http.MethodGet, "/v1/shares/outbound", Any, "share.list_outbound", h.ListOutboundShares, nil},
		{http.MethodGet, "/v1/shares/inbound", Any, "share.list_inbound", h.ListInboundShares, nil},
		{http.MethodPost, "/v1/shares/{id}/accept", Any, "share.accept", h.AcceptShare, nil},
		{http.MethodPost, "/v1/shares/{id}/decline", Any, "share.decline", h.DeclineShare, nil},
		{http.MethodGet, "/v1/share/{id}", Public, "share.open", h.OpenShare, nil},
		{http.MethodDelete, "/v1/share/{id}", Any, "share.revoke", h.RevokeShare, nil},

		{http.MethodPost, "/v1/webhooks", UserOnly, "webhook.create", h.CreateWebhook, nil},
		{http.MethodGet, "/v1/webhooks", UserOnly, "webhook.list", h.ListWebhooks, nil},
		{http.MethodGet, "/v1/webhooks/{id}", UserOnly, "webhook.read", h.GetWebhook, nil},
		{http.MethodPatch, "/v1/webhooks/{id}", UserOnly, "webhook.update", h.UpdateWebhook, nil},
		{http.MethodDelete, "/v1/webhooks/{id}", UserOnly, "webhook.delete", h.DeleteWebhook, nil},
		{http.MethodGet, "/v1/webhooks/{id}/deliveries", UserOnly, "webhook.delivery.list", h.ListDeliveries, nil},
		{http.MethodPost, "/v1/webhooks/{id}/deliveries/{delivery_id}/replay", UserOnly, "webhook.delivery.replayed", h.ReplayDelivery, nil},
		{http.MethodPost, "/v1/webhooks/{id}/deliveries/replay", UserOnly, "webhook.deliveries.replayed", h.ReplayDeliveries, nil},

		{http.MethodGet, "/v1/vaults/{id}/env-vars/resolve", Any, "env_vars.resolve", h.ResolveEnvVars, nil},

		{http.MethodGet, "/.well-known/x402", Public, "x402.discovery", h.X402Discovery, nil},
		{http.MethodGet, "/v1/billing/usage", UserOnly, "billing.usage", h.BillingUsage, nil},
		{http.MethodGet, "/v1/billing/history", UserOnly, "billing.history", h.BillingHistory, nil},
		{http.MethodGet, "/v1/billing/subscription", UserOnly, "billing.subscription", h.BillingSubscription, nil},
	}
}
