package intents

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/chain/evm"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/egress"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/chainrpc"
)

// fakeStore is the service's storage in memory; it counts what was
// reserved, released and recorded.
type fakeStore struct {
	mu                     sync.Mutex
	denied                 string // ReserveTx's refusal
	reserved, releasedTx   int
	nonces, releasedNonces int
	inserted               []store.AgentTx
	statuses               []string
	chain                  store.Chain
	guardSealed            int
	feesBefore             *big.Int // the day's fees ReserveTxFee answers
	fees, releasedFees     []string // fees reserved and given back
	checkpoints            []string // provisional answers, with the statuses set before each
	forgets                int
}

func (f *fakeStore) ActiveSigningKey(context.Context, string, string, string) (store.SigningKey, error) {
	return store.SigningKey{}, store.NotFound("signing key")
}
func (f *fakeStore) NextSigningKeyVersion(context.Context, string, string, string) (int, error) {
	return 1, nil
}
func (f *fakeStore) AddSigningKey(_ context.Context, k store.SigningKey, _ bool, _ *auditchain.Event) (store.SigningKey, error) {
	return k, nil
}
func (f *fakeStore) AgentGuardrailSource(context.Context, string, string) (store.GuardrailSource, error) {
	return store.GuardrailSource{}, nil
}
func (f *fakeStore) StageGuardrailSet(context.Context, string, string, int64, []byte) error {
	return nil
}
func (f *fakeStore) SetGuardrailMAC(context.Context, string, string, int64, []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.guardSealed++
	return nil
}
func (f *fakeStore) KnownTokenOf(context.Context, string, string) (store.KnownToken, error) {
	return store.KnownToken{}, store.ErrNotFound
}
func (f *fakeStore) InsertAgentTx(_ context.Context, t store.AgentTx, _ *auditchain.Event, _ string, _ any) (store.AgentTx, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inserted = append(f.inserted, t)
	return t, nil
}
func (f *fakeStore) SetAgentTxStatus(_ context.Context, _, _, status, _, _ string, _ any) (store.AgentTx, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.statuses = append(f.statuses, status)
	t := f.inserted[len(f.inserted)-1]
	t.Status = status
	return t, nil
}
func (f *fakeStore) ReserveTxFee(_ context.Context, _, _, _ string, _ time.Time, _, fee *big.Int, _ store.TxLimits) (store.TxCounters, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.denied != "" {
		return store.TxCounters{}, f.denied, nil
	}
	f.reserved++
	f.fees = append(f.fees, fee.String())
	return store.TxCounters{FeesTodayChain: f.feesBefore}, "", nil
}
func (f *fakeStore) ReleaseTxFee(_ context.Context, _, _, _ string, _ time.Time, _, fee *big.Int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.releasedTx++
	f.releasedFees = append(f.releasedFees, fee.String())
	return nil
}
func (f *fakeStore) ReserveNonce(_ context.Context, _ string, _ int64, _ string, pending uint64) (uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nonces++
	return pending, nil
}
func (f *fakeStore) CheckpointIdempotent(_ context.Context, resp store.IdempotentResponse) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.checkpoints = append(f.checkpoints, fmt.Sprintf("%d statuses before; %s", len(f.statuses), resp.Body))
	return nil
}

func (f *fakeStore) ForgetIdempotent(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.forgets++
	return nil
}

func (f *fakeStore) ReleaseNonce(context.Context, string, int64, string, uint64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.releasedNonces++
	return nil
}
func (f *fakeStore) ResolveChain(_ context.Context, ref string) (store.Chain, error) {
	if ref != f.chain.ID {
		return store.Chain{}, store.ErrNotFound
	}
	return f.chain, nil
}

// fakeEnclave signs with a throwaway key, or refuses with denied; it
// keeps the sign context it was sent in seen (when not nil).
type fakeEnclave struct {
	denied string
	seen   *wire.SignContext
}

func (e fakeEnclave) SigningKey(context.Context, wire.SigningKeyRequest) (wire.SigningKeyResponse, error) {
	return wire.SigningKeyResponse{}, wire.ErrUnavailable
}
func (e fakeEnclave) DestroySigningKey(context.Context, wire.DestroySigningKeyRequest) (uint32, error) {
	return 0, nil
}
func (e fakeEnclave) SealGuardrails(context.Context, wire.SealGuardrailsRequest) ([]byte, error) {
	return []byte("mac"), nil
}
func (e fakeEnclave) SignIntent(_ context.Context, req wire.SignIntentRequest) (wire.SignIntentResponse, error) {
	if e.seen != nil {
		if err := json.Unmarshal(req.Context, e.seen); err != nil {
			return wire.SignIntentResponse{}, err
		}
	}
	if e.denied != "" {
		return wire.SignIntentResponse{Denied: e.denied}, nil
	}
	key, err := crypto.GenerateKey()
	if err != nil {
		return wire.SignIntentResponse{}, err
	}
	tx := types.MustSignNewTx(key, types.LatestSignerForChainID(big.NewInt(1337)), &types.DynamicFeeTx{
		ChainID: big.NewInt(1337), Nonce: 5, GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(2), Gas: 21000})
	raw, err := tx.MarshalBinary()
	if err != nil {
		return wire.SignIntentResponse{}, err
	}
	return wire.SignIntentResponse{SignedTx: raw, TxHash: tx.Hash().Bytes(), Digest: make([]byte, 32),
		Signature: make([]byte, 65)}, nil
}

// fakeNode answers the JSON-RPC calls of a transaction: the pending nonce
// and the broadcast, which send decides.
func fakeNode(t *testing.T, send string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		require.NoError(t, json.NewDecoder(r.Body).Decode(&req))
		answer := func(body string) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,` + body + `}`))
		}
		switch {
		case req.Method == "eth_getTransactionCount":
			answer(`"result":"0x5"`)
		case req.Method == "eth_sendRawTransaction" && send == "ok":
			answer(`"result":"0x0000000000000000000000000000000000000000000000000000000000000001"`)
		case req.Method == "eth_sendRawTransaction" && send == "rejected":
			answer(`"error":{"code":-32000,"message":"insufficient funds for gas * price + value"}`)
		default: // the outcome of a broadcast is unknown
			http.Error(w, "bad gateway", http.StatusBadGateway)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// The reservations of a transaction are given back exactly when nothing
// reached the chain.
func TestSignTransactionRollback(t *testing.T) {
	tests := map[string]struct {
		mode         Mode
		send         string // the node's answer to the broadcast
		unsealed     bool
		enclaveDeny  string
		dayDenied    string
		wantErr      error
		wantType     string // the problem's type
		wantReserved int    // day reservations and nonces taken
		wantReleased int    // day reservations and nonces given back
		wantStatuses []string
	}{
		"ok sign only keeps its reservations": {mode: SignOnly, wantReserved: 1},
		"ok broadcast keeps its reservations": {mode: Broadcast, send: "ok", wantReserved: 1,
			wantStatuses: []string{store.TxBroadcast}},
		"fail over the day's limit reserves nothing": {mode: SignOnly, dayDenied: store.DeniedMaxPerDay,
			wantType: "guardrail_tx_max_per_day"},
		"fail guardrail refusal gives back": {mode: SignOnly, enclaveDeny: "tx_max_value_eth",
			wantType: "guardrail_tx_max_value_eth", wantReserved: 1, wantReleased: 1},
		"fail unsealed guardrails give back": {mode: SignOnly, unsealed: true, wantErr: ErrGuardrailsUnsealed,
			wantReserved: 1, wantReleased: 1},
		// Nothing reached the chain: the spend and the nonce return.
		"fail broadcast rejected gives back": {mode: Broadcast, send: "rejected", wantType: problem.TypeBroadcastRejected,
			wantReserved: 1, wantReleased: 1, wantStatuses: []string{store.TxFailed}},
		// The node may hold it: the spend and the nonce stay taken.
		"fail broadcast outcome unknown keeps": {mode: Broadcast, send: "unknown", wantType: problem.TypeChainUnavailable,
			wantReserved: 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			st := &fakeStore{denied: tc.dayDenied, chain: store.Chain{ID: "devnet", ChainID: 1337, Family: "evm",
				IsEnabled: true, RPCURL: fakeNode(t, tc.send)}}
			pool := chainrpc.NewPool(chainrpc.Config{Retries: -1, Egress: egress.New(egress.Config{AllowLoopback: true})})
			t.Cleanup(pool.Close)
			s := New(Config{Keys: st, Txs: st, Chains: st, Enclave: fakeEnclave{denied: tc.enclaveDeny}, Dialer: pool})
			party := store.SigningParty{Agent: store.Agent{OrgID: "o", ID: testAgentID},
				Key:          store.SigningKey{Chain: "ethereum", Version: 1, Address: "0x00000000000000000000000000000000000000a1"},
				GuardrailMAC: []byte("mac")}
			if tc.unsealed {
				party.GuardrailMAC = nil
			}
			gas := uint64(21000)
			in := api.TransactionRequest{ChainID: json.RawMessage(`"devnet"`), To: "0x00000000000000000000000000000000000000b2",
				Value: "0x1", Gas: &gas, MaxFeePerGas: "0x2", MaxPriorityFeePerGas: "0x1"}
			res, err := s.SignTransaction(context.Background(), "token", party, in, tc.mode)
			switch {
			case tc.wantErr != nil:
				require.ErrorIs(t, err, tc.wantErr)
			case tc.wantType != "":
				var p *problem.Problem
				require.ErrorAs(t, err, &p)
				require.Equal(t, tc.wantType, p.Type)
			default:
				require.NoError(t, err)
				require.Equal(t, int64(5), res.Record.Nonce, "the node's pending nonce, reserved")
			}
			require.Equal(t, tc.wantReserved, st.reserved, "day reservations")
			require.Equal(t, tc.wantReserved, st.nonces, "nonces reserved")
			require.Equal(t, tc.wantReleased, st.releasedTx, "day reservations given back")
			require.Equal(t, tc.wantReleased, st.releasedNonces, "nonces given back")
			require.Equal(t, tc.wantStatuses, st.statuses)
			// A broadcast commits the signed record (exactly once) before
			// it leaves; a refused one forgets that answer.
			if tc.mode == Broadcast && (tc.wantStatuses != nil || tc.send == "unknown") {
				require.Len(t, st.checkpoints, 1)
				require.Contains(t, st.checkpoints[0], `0 statuses before; {`)
				require.Contains(t, st.checkpoints[0], `"status":"signed"`)
			} else {
				require.Empty(t, st.checkpoints)
			}
			require.Equal(t, tc.send == "rejected", st.forgets == 1)
			// The maximum fee (21000 gas × 2 wei) is reserved and given
			// back with the value.
			for _, f := range st.fees {
				require.Equal(t, "42000", f)
			}
			require.Len(t, st.releasedFees, tc.wantReleased)
			for _, f := range st.releasedFees {
				require.Equal(t, "42000", f)
			}
		})
	}
}

// The day's fees before the request reach the enclave in the sign context.
func TestSignTransactionSendsFees(t *testing.T) {
	st := &fakeStore{feesBefore: big.NewInt(123456789), chain: store.Chain{ID: "devnet", ChainID: 1337, Family: "evm",
		IsEnabled: true, RPCURL: fakeNode(t, "ok")}}
	pool := chainrpc.NewPool(chainrpc.Config{Retries: -1, Egress: egress.New(egress.Config{AllowLoopback: true})})
	t.Cleanup(pool.Close)
	var seen wire.SignContext
	s := New(Config{Keys: st, Txs: st, Chains: st, Enclave: fakeEnclave{seen: &seen}, Dialer: pool})
	party := store.SigningParty{Agent: store.Agent{OrgID: "o", ID: testAgentID},
		Key:          store.SigningKey{Chain: "ethereum", Version: 1, Address: "0x00000000000000000000000000000000000000a1"},
		GuardrailMAC: []byte("mac")}
	gas, nonce := uint64(30_000_000), uint64(1)
	in := api.TransactionRequest{ChainID: json.RawMessage(`"devnet"`), To: "0x00000000000000000000000000000000000000b2",
		Gas: &gas, Nonce: &nonce, GasPrice: "1000000000000"}
	_, err := s.SignTransaction(context.Background(), "token", party, in, SignOnly)
	require.NoError(t, err)
	require.Equal(t, "123456789", seen.Counters.FeesTodayChain)
	require.Equal(t, []string{"30000000000000000000"}, st.fees, "30M gas × 1000 gwei = 30 ETH")
}

func TestMaxFee(t *testing.T) {
	gas := uint64(21000)
	tests := map[string]struct {
		req     evm.TxRequest
		want    string
		wantErr bool
	}{
		"legacy gas price":      {req: evm.TxRequest{Gas: &gas, GasPrice: "0x3"}, want: "63000"},
		"dynamic max fee":       {req: evm.TxRequest{Gas: &gas, MaxFeePerGas: "10", MaxPriorityFeePerGas: "1"}, want: "210000"},
		"blob gas counts":       {req: evm.TxRequest{Gas: &gas, MaxFeePerGas: "1", MaxFeePerBlobGas: "2", BlobVersionedHashes: []string{"a", "b"}}, want: "545288"},
		"fail no gas":           {req: evm.TxRequest{MaxFeePerGas: "1"}, wantErr: true},
		"fail no fee":           {req: evm.TxRequest{Gas: &gas}, wantErr: true},
		"fail bad fee":          {req: evm.TxRequest{Gas: &gas, GasPrice: "zz"}, wantErr: true},
		"fail blob without cap": {req: evm.TxRequest{Gas: &gas, MaxFeePerGas: "1", BlobVersionedHashes: []string{"a"}}, wantErr: true},
		"fail bad blob fee cap": {req: evm.TxRequest{Gas: &gas, MaxFeePerGas: "1", MaxFeePerBlobGas: "-1", BlobVersionedHashes: []string{"a"}}, wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := maxFee(tc.req)
			if tc.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got.String())
		})
	}
}

func TestSealAgentGuardrails(t *testing.T) {
	st := &fakeStore{}
	s := New(Config{Keys: st, Txs: st, Chains: st, Enclave: fakeEnclave{}})
	require.NoError(t, s.SealAgentGuardrails(context.Background(), "o", testAgentID, "token"))
	require.Equal(t, 1, st.guardSealed)
}

func TestBalanceRefusals(t *testing.T) {
	st := &fakeStore{chain: store.Chain{ID: "devnet", ChainID: 1337, Family: "evm", IsEnabled: true, RPCURL: "http://x"}}
	s := New(Config{Keys: st, Txs: st, Chains: st, Enclave: fakeEnclave{}})
	tests := map[string]struct {
		chain, tokens string
		wantErr       error
	}{
		"fail unknown chain":   {chain: "nowhere", wantErr: errUnknownChain},
		"fail bad token":       {chain: "devnet", tokens: "0x1", wantErr: problem.BadRequest(problem.TypeInvalidRequest, "")},
		"fail no ethereum key": {chain: "devnet", wantErr: ErrNoEthereumKey},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := s.Balance(context.Background(), store.Agent{}, tc.chain, tc.tokens)
			var got, want *problem.Problem
			require.ErrorAs(t, err, &got)
			require.ErrorAs(t, tc.wantErr, &want)
			require.Equal(t, want.Type, got.Type)
			require.Equal(t, want.Status, got.Status)
		})
	}
	_, err := s.chainClient(context.Background(), st.chain)
	require.ErrorIs(t, err, errChainUnavailable, "no dialer: 503")
}
