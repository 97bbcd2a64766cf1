package test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/test/stack"
)

func TestAdmin(t *testing.T) {
	// The spec's Free limits, which the e2e stack otherwise lifts.
	s := stack.Start(t, stack.WithProxyEnv("OCV_BOOTSTRAP_ADMIN_EMAIL="+rootEmail, "OCV_BOOTSTRAP_ADMIN_PASSWORD="+rootPassword,
		"OCV_TIER_FREE_REQUESTS=1000", "OCV_TIER_FREE_VAULTS=5"))
	root := signIn(t, s, rootEmail, rootPassword)["access_token"].(string)
	rootID := claims(t, root)["sub"].(string)
	normal := s.SignUp("admin-normal@example.com")

	t.Run("normal users get 403 on every admin route", func(t *testing.T) {
		for _, rt := range []struct {
			method, path string
			body         any
		}{
			{"GET", "/v1/admin/settings", nil},
			{"GET", "/v1/admin/settings/signup_enabled", nil},
			{"PUT", "/v1/admin/settings/signup_enabled", map[string]any{"value": false}},
			{"GET", "/v1/admin/x402", nil},
			{"PUT", "/v1/admin/x402", map[string]any{"network": "base"}},
			{"DELETE", "/v1/admin/users/" + rootID, nil},
			{"GET", "/v1/admin/orgs/" + normal.OrgID + "/limits", nil},
			{"PUT", "/v1/admin/orgs/" + normal.OrgID + "/tier", map[string]any{"tier": "enterprise"}},
			{"GET", "/v1/admin/chains", nil},
			{"POST", "/v1/admin/chains", map[string]any{"name": "x", "chain_id": 5}},
			{"POST", "/v1/admin/tokens", map[string]any{"chain": "base"}},
			{"DELETE", "/v1/admin/tokens/base/0x833589fcd6edb6e08f4c7c32d4f71b54bda02913", nil},
		} {
			requireProblem(t, s.Do(rt.method, rt.path, normal.Token, rt.body), 403, "forbidden")
		}
	})

	t.Run("settings", func(t *testing.T) {
		r := s.Do("GET", "/v1/admin/settings", root, nil)
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		keys := map[string]any{}
		for _, it := range r.JSON(t)["items"].([]any) {
			m := it.(map[string]any)
			keys[m["key"].(string)] = m["value"]
		}
		require.Equal(t, true, keys["signup_enabled"])
		require.Contains(t, keys, "mcp_reveal_values")

		r = s.Do("PUT", "/v1/admin/settings/mcp_reveal_values", root, map[string]any{"value": "true"})
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		require.Equal(t, true, r.JSON(t)["value"], "booleans sent as strings are stored as booleans")
		r = s.Do("PUT", "/v1/admin/settings/default_tier", root, map[string]any{"value": "pro"})
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		got := s.Do("GET", "/v1/admin/settings/default_tier", root, nil).JSON(t)
		require.Equal(t, "pro", got["value"])
		require.Equal(t, false, got["is_default"])
		require.Equal(t, rootID, got["updated_by"])

		for name, tc := range map[string]struct {
			key  string
			body any
		}{
			"unknown key":   {key: "no_such_key", body: map[string]any{"value": true}},
			"bad key":       {key: "Bad-Key", body: map[string]any{"value": true}},
			"wrong type":    {key: "signup_enabled", body: map[string]any{"value": 3}},
			"unknown tier":  {key: "default_tier", body: map[string]any{"value": "gold"}},
			"missing value": {key: "signup_enabled", body: map[string]any{}},
			"too large":     {key: "default_tier", body: map[string]any{"value": strings.Repeat("a", 17<<10)}},
		} {
			t.Run(name, func(t *testing.T) {
				requireProblem(t, s.Do("PUT", "/v1/admin/settings/"+tc.key, root, tc.body), 400, "invalid_request")
			})
		}
		requireProblem(t, s.Do("GET", "/v1/admin/settings/no_such_key", root, nil), 400, "invalid_request")
	})

	t.Run("x402", func(t *testing.T) {
		r := s.Do("GET", "/v1/admin/x402", root, nil)
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		require.Equal(t, false, r.JSON(t)["configured"])

		good := func(edit func(map[string]any)) map[string]any {
			m := map[string]any{"pay_to": "0x209693bc6afc0c5328ba36faf03c514ef312287c", "network": "base-sepolia",
				"facilitator_url": "https://facilitator.example", "price_atomic": "10000", "max_timeout_seconds": 120}
			if edit != nil {
				edit(m)
			}
			return m
		}
		r = s.Do("PUT", "/v1/admin/x402", root, good(nil))
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		got := s.Do("GET", "/v1/admin/x402", root, nil).JSON(t)
		require.Equal(t, true, got["configured"])
		require.Equal(t, "base-sepolia", got["network"])
		require.Equal(t, "0x036CbD53842c5426634e7929541eC2318f3dCF7e", got["asset"], "USDC on the network by default")
		require.EqualValues(t, 120, got["max_timeout_seconds"])

		r = s.Do("PUT", "/v1/admin/x402", root, good(func(m map[string]any) {
			m["pay_to"] = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" // EIP-55 vector
		}))
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))

		for name, edit := range map[string]func(map[string]any){
			"bad checksum":      func(m map[string]any) { m["pay_to"] = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD" },
			"not an address":    func(m map[string]any) { m["pay_to"] = "0x1234" },
			"zero address":      func(m map[string]any) { m["pay_to"] = "0x0000000000000000000000000000000000000000" },
			"network":           func(m map[string]any) { m["network"] = "ethereum" },
			"http facilitator":  func(m map[string]any) { m["facilitator_url"] = "http://facilitator.example" },
			"zero price":        func(m map[string]any) { m["price_atomic"] = "0" },
			"decimal price":     func(m map[string]any) { m["price_atomic"] = "1.5" },
			"timeout too long":  func(m map[string]any) { m["max_timeout_seconds"] = 3601 },
			"negative timeout":  func(m map[string]any) { m["max_timeout_seconds"] = -1 },
			"alias disagrees":   func(m map[string]any) { m["payment_address"] = "0x1111111111111111111111111111111111111111" },
			"missing pay_to":    func(m map[string]any) { delete(m, "pay_to") },
			"unknown field":     func(m map[string]any) { m["surprise"] = 1 },
			"bad asset address": func(m map[string]any) { m["asset"] = "usdc" },
		} {
			t.Run(name, func(t *testing.T) {
				requireProblem(t, s.Do("PUT", "/v1/admin/x402", root, good(edit)), 400, "invalid_request")
			})
		}
	})

	t.Run("org limits and tier", func(t *testing.T) {
		owner := s.SignUp("admin-limits@example.com")
		s.CreateVault(owner.Token, "one")
		r := s.Do("GET", "/v1/admin/orgs/"+owner.OrgID+"/limits", root, nil)
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		m := r.JSON(t)
		require.Equal(t, "free", m["tier"])
		require.EqualValues(t, 1000, m["limits"].(map[string]any)["requests"])
		require.EqualValues(t, 5, m["limits"].(map[string]any)["vaults"])
		require.EqualValues(t, 1, m["usage"].(map[string]any)["vaults"])
		require.EqualValues(t, 0, m["usage"].(map[string]any)["agents"])

		r = s.Do("PUT", "/v1/admin/orgs/"+owner.OrgID+"/tier", root, map[string]any{"tier": "enterprise"})
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		m = r.JSON(t)
		require.Equal(t, "enterprise", m["tier"])
		require.EqualValues(t, -1, m["limits"].(map[string]any)["vaults"], "unlimited")

		requireProblem(t, s.Do("PUT", "/v1/admin/orgs/"+owner.OrgID+"/tier", root, map[string]any{"tier": "Gold"}), 400, "invalid_request")
		requireProblem(t, s.Do("PUT", "/v1/admin/orgs/"+owner.OrgID+"/tier", root, map[string]any{"tier": "Pro"}), 400, "invalid_request")
		requireProblem(t, s.Do("GET", "/v1/admin/orgs/0190a000-0000-7000-8000-000000000000/limits", root, nil), 404, "not_found")
		requireProblem(t, s.Do("GET", "/v1/admin/orgs/not-a-uuid/limits", root, nil), 400, "invalid_request")
	})

	t.Run("chains", func(t *testing.T) {
		for ref, want := range map[string]string{
			"ethereum": "ethereum", "mainnet": "ethereum", "eth": "ethereum", "1": "ethereum", "ETH": "ethereum",
			"base": "base", "8453": "base", "84532": "base-sepolia", "sepolia": "sepolia", "btc": "bitcoin", "solana": "solana",
		} {
			r := s.Do("GET", "/v1/chains/"+ref, normal.Token, nil)
			require.Equal(t, http.StatusOK, r.Status, "%s: %s", ref, r.Body)
			m := r.JSON(t)
			require.Equal(t, want, m["id"], ref)
			require.NotContains(t, m, "rpc_url", "RPC URLs are for platform administrators only")
		}
		for _, ref := range []string{"dogecoin", "999999", "0"} {
			requireProblem(t, s.Do("GET", "/v1/chains/"+ref, normal.Token, nil), 404, "not_found")
		}

		r := s.Do("GET", "/v1/chains", normal.Token, nil)
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		require.GreaterOrEqual(t, len(r.JSON(t)["items"].([]any)), 9)
		btc := s.Do("GET", "/v1/chains/bitcoin", root, nil).JSON(t)
		require.Nil(t, btc["chain_id"])
		require.Contains(t, btc, "rpc_url")

		chain := map[string]any{"name": "OP Mainnet", "chain_id": 10, "aliases": []string{"op", "optimism"},
			"rpc_url": "https://rpc.example/op", "explorer_url": "https://optimistic.etherscan.io"}
		r = s.Do("POST", "/v1/admin/chains", root, chain)
		require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
		require.Equal(t, "op-mainnet", r.JSON(t)["id"])
		require.Equal(t, "evm", r.JSON(t)["family"])
		chain["rpc_url"] = "http://127.0.0.1:8545"
		r = s.Do("POST", "/v1/admin/chains", root, chain)
		require.Equal(t, http.StatusOK, r.Status, "same id updates: %s", r.Body)
		require.Equal(t, "op-mainnet", s.Do("GET", "/v1/chains/10", normal.Token, nil).JSON(t)["id"])

		for name, body := range map[string]map[string]any{
			"http not loopback": {"name": "X", "chain_id": 77, "rpc_url": "http://rpc.example"},
			"no rpc":            {"name": "X", "chain_id": 77},
			"numeric id":        {"id": "123", "name": "X", "chain_id": 77, "rpc_url": "https://rpc.example"},
			"bad family":        {"id": "x", "family": "dogecoin", "name": "X", "rpc_url": "https://rpc.example"},
			"evm without id":    {"id": "x", "family": "evm", "name": "X", "rpc_url": "https://rpc.example"},
			"chain id on utxo":  {"id": "x", "family": "bitcoin", "chain_id": 3, "name": "X", "rpc_url": "https://rpc.example"},
			"numeric alias":     {"name": "X", "chain_id": 77, "aliases": []string{"77"}, "rpc_url": "https://rpc.example"},
		} {
			t.Run(name, func(t *testing.T) {
				requireProblem(t, s.Do("POST", "/v1/admin/chains", root, body), 400, "invalid_request")
			})
		}
		requireProblem(t, s.Do("POST", "/v1/admin/chains", root, map[string]any{"name": "Other", "chain_id": 78,
			"aliases": []string{"mainnet"}, "rpc_url": "https://rpc.example"}), 409, "conflict")
		requireProblem(t, s.Do("POST", "/v1/admin/chains", root, map[string]any{"name": "Other", "chain_id": 8453,
			"rpc_url": "https://rpc.example"}), 409, "conflict")
	})

	t.Run("token registry", func(t *testing.T) {
		r := s.Do("GET", "/v1/tokens", "", nil)
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		require.NotEmpty(t, r.JSON(t)["items"])

		tok := map[string]any{"chain": "mainnet", "contract_address": "0xdAC17F958D2ee523a2206206994597C13D831ec7",
			"symbol": "USDT", "decimals": 6, "name": "Tether USD"}
		r = s.Do("POST", "/v1/admin/tokens", root, tok)
		require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
		m := r.JSON(t)
		require.Equal(t, "ethereum", m["chain"])
		require.Equal(t, "0xdac17f958d2ee523a2206206994597c13d831ec7", m["contract_address"], "stored lowercase")

		tok["contract_address"] = "0xdac17f958d2ee523a2206206994597c13d831ec7"
		requireProblem(t, s.Do("POST", "/v1/admin/tokens", root, tok), 409, "conflict")

		for name, edit := range map[string]func(map[string]any){
			"decimals":      func(m map[string]any) { m["decimals"] = 37 },
			"no decimals":   func(m map[string]any) { delete(m, "decimals") },
			"bad checksum":  func(m map[string]any) { m["contract_address"] = "0xdAC17F958D2ee523a2206206994597C13D831ec8" },
			"unknown chain": func(m map[string]any) { m["chain"] = "dogecoin" },
			"symbol":        func(m map[string]any) { m["symbol"] = "" },
		} {
			t.Run(name, func(t *testing.T) {
				b := map[string]any{"chain": "base", "contract_address": "0x4200000000000000000000000000000000000006",
					"symbol": "WETH", "decimals": 18}
				edit(b)
				requireProblem(t, s.Do("POST", "/v1/admin/tokens", root, b), 400, "invalid_request")
			})
		}

		r = s.Do("GET", "/v1/chains/1/tokens", "", nil)
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		var symbols []string
		for _, it := range r.JSON(t)["items"].([]any) {
			symbols = append(symbols, it.(map[string]any)["symbol"].(string))
		}
		require.ElementsMatch(t, []string{"USDC", "USDT"}, symbols)
		r = s.Do("GET", "/v1/tokens?chain=ethereum", "", nil)
		require.Len(t, r.JSON(t)["items"], 2)
		requireProblem(t, s.Do("GET", "/v1/tokens?chain=dogecoin", "", nil), 404, "not_found")

		path := "/v1/admin/tokens/eth/0xdAC17F958D2ee523a2206206994597C13D831ec7"
		r = s.Do("DELETE", path, root, nil)
		require.Equal(t, http.StatusNoContent, r.Status, string(r.Body))
		requireProblem(t, s.Do("DELETE", path, root, nil), 404, "not_found")
	})

	t.Run("delete user", func(t *testing.T) {
		requireProblem(t, s.Do("DELETE", "/v1/admin/users/"+rootID, root, nil), 400, "invalid_request")
		requireProblem(t, s.Do("DELETE", "/v1/admin/users/0190a000-0000-7000-8000-000000000000", root, nil), 404, "not_found")

		owner := s.SignUp("del-owner@example.com")
		vault := s.CreateVault(owner.Token, "shared")
		r := s.Do("PUT", "/v1/vaults/"+vault+"/secrets/prod/a", owner.Token, map[string]string{"type": "password", "value": "v"})
		require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
		victim := s.SignUp("del-victim@example.com")
		victimToken := joinAsMember(t, s, victim, owner.OrgID)
		other := s.SignUp("del-other@example.com")
		otherToken := joinAsMember(t, s, other, owner.OrgID)
		for _, id := range []string{victim.UserID, other.UserID} {
			createPolicy(t, s, owner.Token, vault, map[string]any{"secret_path_pattern": "prod/*", "principal_type": "user",
				"principal_id": id, "permissions": []string{"read"}})
		}
		r = s.Do("POST", "/v1/auth/api-keys", victimToken, map[string]any{"name": "ci"})
		require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
		key := r.JSON(t)["key"].(string)
		require.Equal(t, http.StatusOK, s.Do("GET", "/v1/vaults/"+vault+"/secrets/prod/a", key, nil).Status)

		// The owner is the last owner of an organization with other members.
		r = s.Do("DELETE", "/v1/admin/users/"+owner.UserID, root, nil)
		requireProblem(t, r, 409, "conflict")
		require.Contains(t, r.JSON(t)["detail"], owner.OrgID)

		r = s.Do("DELETE", "/v1/admin/users/"+victim.UserID, root, nil)
		require.Equal(t, http.StatusNoContent, r.Status, string(r.Body))
		requireProblem(t, s.Do("GET", "/v1/vaults", key, nil), 401, "invalid_token")
		pols := s.Do("GET", "/v1/vaults/"+vault+"/policies", owner.Token, nil).JSON(t)["items"].([]any)
		require.Len(t, pols, 1, "only the other member's policy is left")
		require.Equal(t, other.UserID, pols[0].(map[string]any)["principal_id"])
		// The proxy cannot act for the organization's owners (the enclave
		// mints no token the proxy chose), so the changed policy set stays
		// unsealed (fail closed) until an owner changes a policy again.
		r = s.Do("GET", "/v1/vaults/"+vault+"/secrets/prod/a", otherToken, nil)
		require.Equal(t, http.StatusForbidden, r.Status, "the policy set is not sealed again by the proxy: %s", r.Body)
		createPolicy(t, s, owner.Token, vault, map[string]any{"secret_path_pattern": "dev/*", "principal_type": "user",
			"principal_id": other.UserID, "permissions": []string{"read"}})
		r = s.Do("GET", "/v1/vaults/"+vault+"/secrets/prod/a", otherToken, nil)
		require.Equal(t, http.StatusOK, r.Status, "the owner sealed the set again: %s", r.Body)
		requireProblem(t, s.Do("DELETE", "/v1/admin/users/"+victim.UserID, root, nil), 404, "not_found")

		// A user alone in its organization takes the organization with it.
		solo := s.SignUp("del-solo@example.com")
		s.CreateVault(solo.Token, "mine")
		r = s.Do("DELETE", "/v1/admin/users/"+solo.UserID, root, nil)
		require.Equal(t, http.StatusNoContent, r.Status, string(r.Body))
		requireProblem(t, s.Do("GET", "/v1/admin/orgs/"+solo.OrgID+"/limits", root, nil), 404, "not_found")

		// Another platform administrator: only a super_admin may delete one.
		adm := s.SignUp("del-admin@example.com")
		execSQL(t, s, `UPDATE users SET platform_role = 'admin' WHERE id = '`+adm.UserID+`'`)
		sealPlatformRole(t, s, adm.UserID, "admin")
		adm2 := s.SignUp("del-admin2@example.com")
		execSQL(t, s, `UPDATE users SET platform_role = 'admin' WHERE id = '`+adm2.UserID+`'`)
		sealPlatformRole(t, s, adm2.UserID, "admin")
		admToken := signIn(t, s, adm.Email, adm.Password)["access_token"].(string)
		requireProblem(t, s.Do("DELETE", "/v1/admin/users/"+adm2.UserID, admToken, nil), 403, "forbidden")
		r = s.Do("DELETE", "/v1/admin/users/"+adm2.UserID, root, nil)
		require.Equal(t, http.StatusNoContent, r.Status, string(r.Body))
	})
}
