package proxy

import (
	"github.com/opencustody/ocv/enclave/client"
	"github.com/opencustody/ocv/proxy/handlers"
)

// EnclaveAdapter fits the enclave client to the interfaces of the handlers,
// the token minter and the audit sealer.
type EnclaveAdapter struct{ *client.Client }

// State reports the channel's trust state as the handlers show it.
func (e EnclaveAdapter) State() handlers.EnclaveState {
	s := e.Client.State()
	return handlers.EnclaveState{Attested: s.Attested, Reason: s.Reason, Since: s.Since, Mode: s.Mode, Simulated: s.Simulated}
}
