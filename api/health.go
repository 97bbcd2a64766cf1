package api

// Health is the answer of GET /v1/health: "ok" when every dependency
// answered within its deadline, else "unavailable" (503) with the ones that
// did not in Checks and a summary in Reason.
type Health struct {
	Status string       `json:"status"`
	Reason string       `json:"reason,omitempty"`
	Checks HealthChecks `json:"checks"`
}

// HealthChecks is the state of each dependency /v1/health checks.
type HealthChecks struct {
	Database HealthCheck `json:"database"`
	Enclave  HealthCheck `json:"enclave"`
}

// HealthCheck is one dependency's state: "ok" or "unavailable", and why.
type HealthCheck struct {
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
}

// HSMHealth is the answer of GET /v1/health/hsm.
type HSMHealth struct {
	Status      string            `json:"status"`
	Mode        string            `json:"mode"`
	Reason      string            `json:"reason,omitempty"`
	HSM         string            `json:"hsm"`
	Attestation AttestationHealth `json:"attestation"`
}

// AttestationHealth is the attestation part of HSMHealth.
type AttestationHealth struct {
	Status    string  `json:"status"`
	Simulated bool    `json:"simulated"`
	Since     *string `json:"since,omitempty"`
}

// AttestationDocument is the answer of GET /v1/attestation: the enclave's
// document bound to the caller's nonce, base64-encoded.
type AttestationDocument struct {
	Format    string `json:"format"`
	Document  string `json:"document"`
	Nonce     string `json:"nonce"`
	Simulated bool   `json:"simulated"`
}

// JWK is one token-signing public key of the enclave.
type JWK struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	Alg string `json:"alg"`
	Use string `json:"use"`
	Kid string `json:"kid"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

// JWKS is the answer of GET /.well-known/jwks.json.
type JWKS struct {
	Keys []JWK `json:"keys"`
}
