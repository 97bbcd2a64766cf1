package test

import (
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/test/stack"
)

func TestIdempotencyKey(t *testing.T) {
	s := stack.Start(t)
	me := s.SignUp("idempotent@example.com")
	other := s.SignUp("idempotent-other@example.com")
	key := func(k string) http.Header { return http.Header{"Idempotency-Key": {k}} }

	t.Run("a duplicate replays the first response", func(t *testing.T) {
		body := map[string]string{"name": "once"}
		first := s.DoHeaders("POST", "/v1/vaults", me.Token, body, key("create-once"))
		require.Equal(t, http.StatusCreated, first.Status, string(first.Body))
		require.Empty(t, first.Header.Get("Idempotent-Replayed"))

		again := s.DoHeaders("POST", "/v1/vaults", me.Token, body, key("create-once"))
		require.Equal(t, http.StatusOK, again.Status, string(again.Body))
		require.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
		require.JSONEq(t, string(first.Body), string(again.Body))

		list := s.Do("GET", "/v1/vaults", me.Token, nil).JSON(t)["items"].([]any)
		require.Len(t, list, 1, "the vault was created once")
	})

	t.Run("the same key with another body is 422", func(t *testing.T) {
		r := s.DoHeaders("POST", "/v1/vaults", me.Token, map[string]string{"name": "different"}, key("create-once"))
		requireProblem(t, r, http.StatusUnprocessableEntity, "idempotency_mismatch")
	})

	t.Run("keys are scoped to the caller", func(t *testing.T) {
		r := s.DoHeaders("POST", "/v1/vaults", other.Token, map[string]string{"name": "once"}, key("create-once"))
		require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
		require.Empty(t, r.Header.Get("Idempotent-Replayed"))
	})

	t.Run("a failed first attempt releases the key", func(t *testing.T) {
		body := map[string]string{"name": "once"} // taken: 409
		requireProblem(t, s.DoHeaders("POST", "/v1/vaults", me.Token, body, key("conflict")), http.StatusConflict, "conflict")
		requireProblem(t, s.DoHeaders("POST", "/v1/vaults", me.Token, body, key("conflict")), http.StatusConflict, "conflict")
	})

	t.Run("an invalid key is 400", func(t *testing.T) {
		r := s.DoHeaders("POST", "/v1/vaults", me.Token, map[string]string{"name": "x"}, key("tab\there"))
		requireProblem(t, r, http.StatusBadRequest, "invalid_request")
	})

	t.Run("routes returning a credential refuse the header", func(t *testing.T) {
		r := s.DoHeaders("POST", "/v1/agents", me.Token, map[string]any{"name": "bot"}, key("agent"))
		requireProblem(t, r, http.StatusBadRequest, "idempotency_unsupported")
		r = s.Do("POST", "/v1/agents", me.Token, map[string]any{"name": "bot"})
		require.Equal(t, http.StatusCreated, r.Status, "without the header it is served")
	})

	// Issue 13, item 1: 50 parallel PUTs of a secret with one key make one
	// version; every other answer is the replay or 409 in flight.
	t.Run("parallel secret writes with one key make one version", func(t *testing.T) {
		vault := s.CreateVault(me.Token, "idem-put")
		path := "/v1/vaults/" + vault + "/secrets/db"
		var wg sync.WaitGroup
		statuses := make(chan int, 50)
		for i := 0; i < 50; i++ {
			wg.Go(func() {
				r := s.DoHeaders("PUT", path, me.Token, map[string]any{"type": "password", "value": "v1"}, key("put-once"))
				statuses <- r.Status
			})
		}
		wg.Wait()
		close(statuses)
		for st := range statuses {
			require.Contains(t, []int{http.StatusCreated, http.StatusOK, http.StatusConflict}, st)
		}
		r := s.Do("GET", path, me.Token, nil)
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		require.EqualValues(t, 1, r.JSON(t)["version"], "one version, however many retries")
	})
}
