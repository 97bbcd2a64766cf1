package test

import (
	"net/http"
	"regexp"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/test/stack"
)

func TestSigningKeys(t *testing.T) {
	s := stack.Start(t)
	owner := s.SignUp("keys-owner@example.com")
	id, key := registerAgent(t, s, owner.Token, map[string]any{"name": "wallets", "intents_api_enabled": true})
	agent := agentJWT(t, s, id, key)
	path := "/v1/agents/" + id + "/signing-keys"

	forms := map[string]*regexp.Regexp{
		"ethereum": regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`),
		"bitcoin":  regexp.MustCompile(`^bc1q[02-9ac-hj-np-z]{38}$`),
		"tron":     regexp.MustCompile(`^T[1-9A-HJ-NP-Za-km-z]{33}$`),
		"solana":   regexp.MustCompile(`^[1-9A-HJ-NP-Za-km-z]{32,44}$`),
		"xrp":      regexp.MustCompile(`^r[1-9A-HJ-NP-Za-km-z]{24,34}$`),
		"cardano":  regexp.MustCompile(`^addr1v[02-9ac-hj-np-z]{50,}$`),
	}
	curves := map[string]string{"ethereum": "secp256k1", "bitcoin": "secp256k1", "tron": "secp256k1",
		"solana": "ed25519", "xrp": "ed25519", "cardano": "ed25519"}
	for chain, form := range forms {
		t.Run(chain, func(t *testing.T) {
			token := owner.Token
			if chain == "solana" {
				token = agent // an agent may have its own key made
			}
			r := s.Do("POST", path, token, map[string]any{"chain": chain})
			require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
			k := r.JSON(t)
			require.Regexp(t, form, k["address"])
			require.Equal(t, curves[chain], k["curve"])
			require.EqualValues(t, 1, k["version"])
			require.NotContains(t, string(r.Body), "private")
			if chain == "ethereum" {
				pub, err := crypto.UnmarshalPubkey(common.FromHex(k["public_key"].(string)))
				require.NoError(t, err)
				require.Equal(t, crypto.PubkeyToAddress(*pub).Hex(), k["address"], "the address is the key's")
			}
			requireProblem(t, s.Do("POST", path, owner.Token, map[string]any{"chain": chain}), http.StatusConflict, "conflict")
		})
	}
	list := s.Do("GET", path, agent, nil).JSON(t)
	require.Len(t, list["items"], 6)

	// EVM chain names resolve to the ethereum key.
	eth := s.Do("GET", path+"/ethereum", agent, nil).JSON(t)
	require.Equal(t, eth["address"], s.Do("GET", path+"/base", agent, nil).JSON(t)["address"])
	requireProblem(t, s.Do("POST", path, owner.Token, map[string]any{"chain": "dogecoin"}), http.StatusBadRequest, "unsupported_chain")

	t.Run("rotate makes a new version and emits signing_key.rotated", func(t *testing.T) {
		requireProblem(t, s.Do("POST", path+"/ethereum/rotate", agent, nil), http.StatusForbidden, "human_only")
		r := s.Do("POST", path+"/ethereum/rotate", owner.Token, nil)
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		k := r.JSON(t)
		require.EqualValues(t, 2, k["version"])
		require.NotEqual(t, eth["address"], k["address"])
		events := s.Do("GET", "/v1/audit/events?action=signing_key.rotate", owner.Token, nil)
		require.Contains(t, string(events.Body), "signing_key.rotate")
	})

	t.Run("import needs re-authentication and derives the known address", func(t *testing.T) {
		// The well-known test key of the go-ethereum documentation.
		const priv = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
		body := map[string]any{"private_key": "0x" + priv}
		requireProblem(t, s.Do("POST", path+"/tron/import", owner.Token, body), http.StatusForbidden, "reauth_required")
		requireProblem(t, s.DoHeaders("POST", path+"/tron/import", owner.Token, body, http.Header{"X-Auth-Confirm": {"wrong password"}}),
			http.StatusUnauthorized, "invalid_credentials")
		r := s.DoHeaders("POST", path+"/ethereum/import", owner.Token, body, http.Header{"X-Auth-Confirm": {owner.Password}})
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		require.Equal(t, "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23", r.JSON(t)["address"])
		require.Equal(t, true, r.JSON(t)["imported"])
		requireProblem(t, s.DoHeaders("POST", path+"/ethereum/import", owner.Token, map[string]any{"private_key": "zz"},
			http.Header{"X-Auth-Confirm": {owner.Password}}), http.StatusBadRequest, "invalid_request")
		// The key is in no response, log or table.
		require.NotContains(t, s.Logs(), priv)
	})

	t.Run("delete deactivates", func(t *testing.T) {
		r := s.Do("DELETE", path+"/xrp", owner.Token, nil)
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		require.Equal(t, "deleted", r.JSON(t)["status"])
		// The store names what is missing: the answers did not change.
		for _, method := range []string{"GET", "DELETE"} {
			gone := s.Do(method, path+"/xrp", owner.Token, nil)
			requireProblem(t, gone, http.StatusNotFound, "not_found")
			require.Equal(t, "signing key not found", gone.JSON(t)["detail"], method)
		}
	})
}
