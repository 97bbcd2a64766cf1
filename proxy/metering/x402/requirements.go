package x402

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// Requirements is one entry of a 402 answer's accepts array (x402 v1
// PaymentRequirements).
type Requirements struct {
	Scheme            string `json:"scheme"`
	Network           string `json:"network"`
	MaxAmountRequired string `json:"maxAmountRequired"` // atomic units of Asset
	Resource          string `json:"resource"`          // the full request URL
	Description       string `json:"description"`
	MimeType          string `json:"mimeType"`
	PayTo             string `json:"payTo"`
	MaxTimeoutSeconds int64  `json:"maxTimeoutSeconds"`
	Asset             string `json:"asset"`
	Extra             Extra  `json:"extra"`
}

// Extra carries the asset's EIP-712 domain name and version, which the payer
// needs to sign the authorization.
type Extra struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Requirements returns what paying for resource (a full URL) takes.
func (c PaymentConfig) Requirements(resource string) Requirements {
	return Requirements{
		Scheme: SchemeExact, Network: c.Network, MaxAmountRequired: c.PriceAtomic, Resource: resource,
		Description: c.Description, MimeType: c.MimeType, PayTo: c.PayTo, MaxTimeoutSeconds: c.MaxTimeoutSeconds,
		Asset: c.Asset, Extra: Extra{Name: c.AssetName, Version: c.AssetVersion},
	}
}

// TypePaymentRequired is the problem type of every 402 answer.
const TypePaymentRequired = "payment_required"

// Body is a 402 answer: problem details (type, title, status, detail) plus
// the x402 fields x402Version, error and accepts (spec Errors rule 4).
type Body struct {
	Type        string         `json:"type"`
	Title       string         `json:"title"`
	Status      int            `json:"status"`
	Detail      string         `json:"detail"`
	X402Version int            `json:"x402Version"`
	Error       string         `json:"error,omitempty"` // x402 code of a refused X-PAYMENT (see Reason)
	Accepts     []Requirements `json:"accepts"`
}

// PaymentRequired builds the 402 body for resource (the full request URL).
// detail is shown to the client; cause, when not nil, is the refused
// payment's error, reported as its x402 code only. Without a payee the
// accepts array is empty.
func (c PaymentConfig) PaymentRequired(resource, detail string, cause error) Body {
	b := Body{
		Type: TypePaymentRequired, Title: http.StatusText(http.StatusPaymentRequired),
		Status: http.StatusPaymentRequired, Detail: detail, X402Version: Version,
		Error: Reason(cause), Accepts: []Requirements{},
	}
	if c.Enabled() {
		b.Accepts = append(b.Accepts, c.Requirements(resource))
	}
	return b
}

// Write sends b as application/problem+json with status 402.
func (b Body) Write(w http.ResponseWriter) {
	body, _ := json.Marshal(b)
	h := w.Header()
	h.Set("Content-Type", "application/problem+json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusPaymentRequired)
	_, _ = w.Write(body)
}

// Discovery is the GET /.well-known/x402 document: whether payments are
// accepted and on what terms. Resource in Accepts is the API base URL, as
// every paid route costs the same.
type Discovery struct {
	X402Version int            `json:"x402Version"`
	Enabled     bool           `json:"enabled"`
	Facilitator string         `json:"facilitator,omitempty"`
	ChainID     int64          `json:"chainId"`
	Header      string         `json:"paymentHeader"`
	Accepts     []Requirements `json:"accepts"`
}

// Discovery builds the /.well-known/x402 document for the API at baseURL.
func (c PaymentConfig) Discovery(baseURL string) Discovery {
	d := Discovery{X402Version: Version, Enabled: c.Enabled(), ChainID: c.ChainID(), Header: HeaderPayment,
		Accepts: []Requirements{}}
	if c.Enabled() {
		d.Facilitator = c.FacilitatorURL
		d.Accepts = append(d.Accepts, c.Requirements(baseURL))
	}
	return d
}

// Header names of the protocol.
const (
	HeaderPayment         = "X-PAYMENT"
	HeaderPaymentResponse = "X-PAYMENT-RESPONSE"
)
