package handlers

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/proxy/httperr"
)

// HealthCheckTimeout bounds each dependency check of /v1/health; the
// checks run concurrently, so the answer comes within about this long
// whatever state the dependencies are in.
const HealthCheckTimeout = 2 * time.Second

// Health answers GET /v1/health: 200 when the database and the enclave
// (attested, its HSM answering) both answer within HealthCheckTimeout, else
// 503 naming the one that did not.
func (h *Handlers) Health(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), HealthCheckTimeout)
	defer cancel()
	db, enc := make(chan api.HealthCheck, 1), make(chan api.HealthCheck, 1)
	go func() { db <- h.checkDatabase(ctx) }()
	go func() { enc <- h.checkEnclave(ctx) }()
	out := api.Health{Status: "ok", Checks: api.HealthChecks{Database: awaitCheck(ctx, db), Enclave: awaitCheck(ctx, enc)}}
	var down []string
	for _, c := range []struct {
		name  string
		check api.HealthCheck
	}{{"database", out.Checks.Database}, {"enclave", out.Checks.Enclave}} {
		if c.check.Status != "ok" {
			down = append(down, c.name+": "+c.check.Reason)
		}
	}
	if len(down) > 0 {
		out.Status, out.Reason = "unavailable", strings.Join(down, "; ")
		w.Header().Set("Retry-After", strconv.Itoa(httperr.RetryAfterSeconds))
		return writeJSON(w, http.StatusServiceUnavailable, out)
	}
	return writeJSON(w, http.StatusOK, out)
}

// awaitCheck is the result of a check, or unavailable once ctx ends first
// (a check stuck on a frozen dependency never holds the answer).
func awaitCheck(ctx context.Context, ch <-chan api.HealthCheck) api.HealthCheck {
	select {
	case c := <-ch: // a result already there wins over the deadline
		return c
	default:
	}
	select {
	case c := <-ch:
		return c
	case <-ctx.Done():
		return api.HealthCheck{Status: "unavailable", Reason: "no answer within " + HealthCheckTimeout.String()}
	}
}

func (h *Handlers) checkDatabase(ctx context.Context) api.HealthCheck {
	if err := h.Pinger.Ping(ctx); err != nil {
		if ctx.Err() != nil {
			return api.HealthCheck{Status: "unavailable", Reason: "no answer within " + HealthCheckTimeout.String()}
		}
		return api.HealthCheck{Status: "unavailable", Reason: "unreachable"}
	}
	return api.HealthCheck{Status: "ok"}
}

func (h *Handlers) checkEnclave(ctx context.Context) api.HealthCheck {
	if st := h.Enclave.State(); !st.Attested {
		reason := "not attested"
		if st.Reason != "" {
			reason += ": " + st.Reason
		}
		return api.HealthCheck{Status: "unavailable", Reason: reason}
	}
	hr, err := h.Enclave.Health(ctx)
	switch {
	case err != nil && ctx.Err() != nil:
		return api.HealthCheck{Status: "unavailable", Reason: "no answer within " + HealthCheckTimeout.String()}
	case err != nil:
		return api.HealthCheck{Status: "unavailable", Reason: "health check failed"}
	case hr.HSM != "ok":
		return api.HealthCheck{Status: "unavailable", Reason: "HSM: " + hr.Detail}
	}
	return api.HealthCheck{Status: "ok"}
}

// HSMHealth answers GET /v1/health/hsm: whether the enclave is attested and
// its HSM answers, and why not. In simulator mode it says "simulated".
func (h *Handlers) HSMHealth(w http.ResponseWriter, r *http.Request) error {
	st := h.Enclave.State()
	out := api.HSMHealth{Status: "ok", Mode: st.Mode, HSM: "unknown",
		Attestation: api.AttestationHealth{Status: "unverified", Simulated: st.Simulated, Since: timePtr(&st.Since)}}
	if out.Mode == "" {
		out.Mode = "unknown"
	}
	if !st.Attested {
		out.Status, out.Reason = "unavailable", st.Reason
		return writeJSON(w, http.StatusServiceUnavailable, out)
	}
	out.Attestation.Status = "verified"
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	hr, err := h.Enclave.Health(ctx)
	if err != nil {
		out.Status, out.Reason = "unavailable", "enclave health check failed"
		return writeJSON(w, http.StatusServiceUnavailable, out)
	}
	out.HSM = hr.HSM
	if hr.Mode != "" {
		out.Mode = hr.Mode
	}
	if hr.HSM != "ok" {
		out.Status, out.Reason = "unavailable", "HSM: "+hr.Detail
		return writeJSON(w, http.StatusServiceUnavailable, out)
	}
	return writeJSON(w, http.StatusOK, out)
}

// Attestation answers GET /v1/attestation?nonce=HEX with the enclave's
// current attestation document bound to the caller's nonce, for clients and
// auditors to verify offline (`ocv attest verify`).
func (h *Handlers) Attestation(w http.ResponseWriter, r *http.Request) error {
	raw := r.URL.Query().Get("nonce")
	nonce, err := hex.DecodeString(raw)
	if err != nil || len(nonce) < 16 || len(nonce) > 64 {
		return problem.BadRequest(problem.TypeInvalidRequest, "nonce must be 16 to 64 bytes, hex-encoded")
	}
	doc, err := h.Enclave.Attest(r.Context(), nonce)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, api.AttestationDocument{
		Format: "aws-nitro-cose-sign1", Document: base64.StdEncoding.EncodeToString(doc),
		Nonce: hex.EncodeToString(nonce), Simulated: h.Enclave.State().Simulated,
	})
}

// JWKS answers GET /.well-known/jwks.json with the enclave's token-signing
// public keys.
func (h *Handlers) JWKS(w http.ResponseWriter, r *http.Request) error {
	keys, err := h.Enclave.PublicKeys(r.Context())
	if err != nil {
		return err
	}
	out := api.JWKS{Keys: []api.JWK{}}
	for _, k := range keys {
		out.Keys = append(out.Keys, api.JWK{Kty: "EC", Crv: k.Curve, Alg: k.Alg, Use: "sig", Kid: k.KID,
			X: base64.RawURLEncoding.EncodeToString(k.X), Y: base64.RawURLEncoding.EncodeToString(k.Y)})
	}
	return writeJSON(w, http.StatusOK, out)
}

// OpenAPIDoc answers GET /openapi.json.
func (h *Handlers) OpenAPIDoc(w http.ResponseWriter, _ *http.Request) error {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	_, err := w.Write(h.OpenAPI)
	return err
}
