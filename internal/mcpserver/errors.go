package mcpserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

var (
	// ErrNoCredentials means the configuration has neither an agent id and
	// key nor a token.
	ErrNoCredentials = errors.New("no agent credentials: set an agent id and key")
	// ErrBadConfig means the configuration is unusable (for example a base
	// URL that is not https).
	ErrBadConfig = errors.New("invalid tool server configuration")
	// ErrNoVault means a tool needed a vault id and neither the call nor the
	// configuration gave one.
	ErrNoVault = errors.New("no vault_id given and the server has no default vault (--vault / OCV_VAULT_ID)")
	// ErrBadPath means a secret path has an empty, "." or ".." segment.
	ErrBadPath = errors.New("secret path must be non-empty segments separated by '/', without '.' or '..'")
	// ErrSecretNotFound means no secret exists at the path (or the agent may
	// not read it).
	ErrSecretNotFound = errors.New("secret not found")
	// ErrNoSecrets means get_env_bundle found no secret at or under a path.
	ErrNoSecrets = errors.New("no secret at or under the path")
	// ErrEnvConflict means two secrets map to the same environment variable.
	ErrEnvConflict = errors.New("two secrets map to the same environment variable name")
	// ErrSharingUnavailable means the API does not serve the share endpoint.
	ErrSharingUnavailable = errors.New("sharing is not available on this server yet")
	// ErrBadAnswer means the API answered 2xx with a body of the wrong shape.
	ErrBadAnswer = errors.New("unexpected answer from the OCV API")
	// ErrBadChain means a chain selector is neither a chain name or alias
	// nor a decimal chain id.
	ErrBadChain = errors.New("chain must be a chain name, alias or decimal chain id")
	// ErrBadArguments means a tool's arguments could not be read as a JSON
	// object.
	ErrBadArguments = errors.New("tool arguments must be a JSON object")
)

// APIError is a problem-details answer of the OCV API (RFC 9457 shape).
// Its text is what a tool error shows: title, problem type, detail and
// status, never a request header or token. The type (a slug such as
// guardrail_tx_max_value_eth or simulation_reverted) is what tells the
// model why a request was refused, so it is always shown when the API gave
// one.
type APIError struct {
	Status int    `json:"status"`
	Type   string `json:"type"`
	Title  string `json:"title"`
	Detail string `json:"detail"`
}

// Error implements error.
func (e *APIError) Error() string {
	msg := "OCV API: " + e.Title
	if e.Type != "" && e.Type != "about:blank" {
		msg += " [" + e.Type + "]"
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return fmt.Sprintf("%s (HTTP %d)", msg, e.Status)
}

// problemFrom decodes a problem answer or makes one from the status. A
// problem without a title keeps its type and detail.
func problemFrom(status int, body []byte) *APIError {
	var p APIError
	if err := json.Unmarshal(body, &p); err != nil {
		p = APIError{}
	}
	if p.Title == "" {
		p.Title = http.StatusText(status)
	}
	p.Status = status
	return &p
}
