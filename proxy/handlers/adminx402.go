package handlers

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/metering/x402"
)

// x402SettingKey is the platform setting that holds the x402 configuration.
const x402SettingKey = "x402"

var (
	hexAddressRE = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)
	priceRE      = regexp.MustCompile(`^[1-9][0-9]{0,77}$`)
)

// checkEVMAddress accepts a 0x address in lowercase or with a correct
// EIP-55 checksum (mixed case with a wrong checksum is a typo: refused).
// The zero address is refused too.
func checkEVMAddress(field, s string) error {
	if !hexAddressRE.MatchString(s) {
		return badField(field, "must be a 0x-prefixed 20-byte hex address")
	}
	a := common.HexToAddress(s)
	if a == (common.Address{}) {
		return badField(field, "must not be the zero address")
	}
	if s != strings.ToLower(s) && s != a.Hex() {
		return badField(field, "has an invalid EIP-55 checksum (use the checksummed or the all-lowercase form)")
	}
	return nil
}

// parseX402 decodes, completes and validates an x402 configuration.
func parseX402(v json.RawMessage) (api.AdminX402Write, error) {
	var c api.AdminX402Write
	if err := strictUnmarshal(v, &c); err != nil {
		return c, badField("value", "must be an x402 configuration object")
	}
	return normalizeX402(c)
}

// normalizeX402 folds payment_address into pay_to, fills the defaults (enabled
// true, network base, USDC on the network, price 10000, 60 s) and checks
// every field: pay_to and facilitator_url are required while enabled.
func normalizeX402(c api.AdminX402Write) (api.AdminX402Write, error) {
	if c.PaymentAddress != "" {
		if c.PayTo != "" && !strings.EqualFold(c.PayTo, c.PaymentAddress) {
			return c, badField("payment_address", "differs from pay_to (its alias)")
		}
		c.PayTo, c.PaymentAddress = c.PaymentAddress, ""
	}
	enabled := c.Enabled == nil || *c.Enabled
	c.Enabled = &enabled
	if c.Network == "" {
		c.Network = x402.NetworkBase
	}
	if c.Network != x402.NetworkBase && c.Network != x402.NetworkBaseSepolia {
		return c, badField("network", "must be base or base-sepolia")
	}
	d := x402.PaymentConfig{Network: c.Network}.WithDefaults()
	if c.Asset == "" {
		c.Asset = d.Asset
	}
	if c.PriceAtomic == "" {
		c.PriceAtomic = d.PriceAtomic
	}
	if c.MaxTimeoutSeconds == 0 {
		c.MaxTimeoutSeconds = d.MaxTimeoutSeconds
	}
	if c.PayTo != "" || enabled {
		if err := checkEVMAddress("pay_to", c.PayTo); err != nil {
			return c, err
		}
	}
	if err := checkEVMAddress("asset", c.Asset); err != nil {
		return c, err
	}
	if !priceRE.MatchString(c.PriceAtomic) {
		return c, badField("price_atomic", "must be a positive integer in the asset's atomic units, as a string")
	}
	if c.FacilitatorURL != "" || enabled {
		u, err := url.Parse(c.FacilitatorURL)
		if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || u.Fragment != "" || len(c.FacilitatorURL) > 2048 {
			return c, badField("facilitator_url", "must be an https URL without credentials")
		}
	}
	if c.MaxTimeoutSeconds < 1 || c.MaxTimeoutSeconds > 3600 {
		return c, badField("max_timeout_seconds", "must be an integer from 1 to 3600")
	}
	return c, nil
}

// AdminGetX402 answers GET /v1/admin/x402: the stored x402 configuration,
// or (configured false) the defaults of an unconfigured platform.
func (h *Handlers) AdminGetX402(w http.ResponseWriter, r *http.Request) error {
	auditlog.FromContext(r.Context()).SetResource("settings/" + x402SettingKey)
	st, err := h.Admin.Setting(r.Context(), x402SettingKey)
	if errors.Is(err, store.ErrNotFound) {
		d := x402.PaymentConfig{}.WithDefaults()
		return writeJSON(w, http.StatusOK, api.AdminX402{Network: d.Network, Asset: d.Asset, PriceAtomic: d.PriceAtomic,
			MaxTimeoutSeconds: d.MaxTimeoutSeconds}) // enabled false: nothing configured
	}
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, toX402Response(st))
}

func toX402Response(st store.Setting) api.AdminX402 {
	var c api.AdminX402Write
	_ = json.Unmarshal(st.Value, &c) // stored only after parseX402 accepted it
	at := rfc3339(st.UpdatedAt)
	return api.AdminX402{Enabled: c.Enabled == nil || *c.Enabled, PayTo: c.PayTo, PaymentAddress: c.PayTo, Network: c.Network, Asset: c.Asset, PriceAtomic: c.PriceAtomic,
		FacilitatorURL: c.FacilitatorURL, MaxTimeoutSeconds: c.MaxTimeoutSeconds, Configured: true, UpdatedAt: &at}
}

// AdminPutX402 answers PUT /v1/admin/x402: replaces the x402 configuration
// (every field required, validated) stored in the platform setting "x402".
func (h *Handlers) AdminPutX402(w http.ResponseWriter, r *http.Request) error {
	var in api.AdminX402Write
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	c, err := normalizeX402(in)
	if err != nil {
		return err
	}
	value, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return h.putSetting(w, r, x402SettingKey, value, func(st store.Setting) any { return toX402Response(st) })
}
