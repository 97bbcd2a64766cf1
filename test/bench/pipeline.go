package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// The pipeline scenarios measure what the proxy's middleware costs on a
// cheap request, apart from the enclave: health is the closest thing to a
// bare handler that still goes through the server, and authget adds the
// full pipeline for an authenticated route. Their difference at the same
// concurrency is the pipeline's overhead.

// healthScenario gets GET /v1/health: a public route, so only the minimal pipeline
// runs (audit and rate limit) before a handler that pings the database.
func (c *client) healthScenario() scenario {
	url := c.base + "/v1/health"
	return scenario{
		name: "health",
		request: func(ctx context.Context, _, _, _ int) (*http.Request, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			if err != nil {
				return nil, fmt.Errorf("building request: %w", err)
			}
			return req, nil
		},
	}
}

// authGetScenario gets GET /v1/vaults/{id} with the bench user's token: the
// full pipeline (audit, rate limit, payment gate, authentication, IP filter,
// usage counting, quota headers) before a handler that does one indexed
// query. The answer must name the bench vault.
func (c *client) authGetScenario() scenario {
	url := c.base + "/v1/vaults/" + c.vaultID
	return scenario{
		name: "authget",
		request: func(ctx context.Context, _, _, _ int) (*http.Request, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			if err != nil {
				return nil, fmt.Errorf("building request: %w", err)
			}
			req.Header.Set("Authorization", "Bearer "+*c.token.Load())
			return req, nil
		},
		verify: func(body []byte) bool {
			var got struct {
				ID string `json:"id"`
			}
			return json.Unmarshal(body, &got) == nil && got.ID == c.vaultID
		},
	}
}
