package intents

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/chainrpc"
)

// chainCacheTTL is how long a resolved chain is reused: registry changes
// (an RPC URL, a disabled chain) reach every replica within it.
const chainCacheTTL = 10 * time.Second

// chainCacheCap bounds the cache (names, aliases and ids resolve apart).
const chainCacheCap = 1024

// chainCache keeps recently resolved chains: signing resolves one on every
// request, and the registry changes rarely.
type chainCache struct {
	mu      sync.Mutex
	entries map[string]cachedChain
}

type cachedChain struct {
	chain store.Chain
	until time.Time
}

// cachedChain resolves ref through the cache; misses and errors go to the
// store (errors are not cached).
func (s *Service) cachedChain(ctx context.Context, ref string) (store.Chain, error) {
	key := strings.ToLower(strings.TrimSpace(ref))
	now := time.Now()
	c := &s.cache
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok && now.Before(e.until) {
		return e.chain, nil
	}
	ch, err := s.chains.ResolveChain(ctx, ref)
	if err != nil {
		return store.Chain{}, err
	}
	c.mu.Lock()
	if c.entries == nil || len(c.entries) >= chainCacheCap {
		c.entries = map[string]cachedChain{}
	}
	c.entries[key] = cachedChain{chain: ch, until: now.Add(chainCacheTTL)}
	c.mu.Unlock()
	return ch, nil
}

// ForgetChains drops every cached chain (after a registry change on this
// replica).
func (s *Service) ForgetChains() {
	s.cache.mu.Lock()
	s.cache.entries = nil
	s.cache.mu.Unlock()
}

var errUnknownChain = problem.BadRequest(problem.TypeUnsupportedChain, "unknown chain; see GET /v1/chains")

// evmChain resolves an enabled EVM chain.
func (s *Service) evmChain(ctx context.Context, ref string) (store.Chain, error) {
	c, err := s.cachedChain(ctx, ref)
	if errors.Is(err, store.ErrNotFound) {
		return store.Chain{}, errUnknownChain
	}
	if err != nil {
		return store.Chain{}, err
	}
	switch {
	case !c.IsEnabled:
		return store.Chain{}, problem.BadRequest(problem.TypeUnsupportedChain, "chain "+c.ID+" is disabled")
	case c.Family != "evm":
		return store.Chain{}, problem.BadRequest(problem.TypeUnsupportedChain,
			"signing on "+c.ID+" is not supported yet; keys and addresses are")
	}
	return c, nil
}

// signChain resolves the chain of a message intent: any enabled EVM chain;
// Ethereum when none is named.
func (s *Service) signChain(ctx context.Context, ref json.RawMessage) (store.Chain, error) {
	name := "ethereum"
	if len(ref) > 0 && string(ref) != "null" {
		var err error
		if name, err = chainRef(ref); err != nil {
			return store.Chain{}, err
		}
	}
	return s.evmChain(ctx, name)
}

// txChain resolves the chain of a transaction request (chain_id, else
// chain; one of them is required).
func (s *Service) txChain(ctx context.Context, in chainSelector) (store.Chain, error) {
	if len(in.ChainID) == 0 && len(in.Chain) == 0 {
		return store.Chain{}, problem.BadRequest(problem.TypeInvalidRequest, "chain_id is required")
	}
	ref, err := chainRef(FirstRaw(in.ChainID, in.Chain))
	if err != nil {
		return store.Chain{}, err
	}
	return s.evmChain(ctx, ref)
}

// chainSelector is the chain of a request: chain_id or its alias chain.
type chainSelector struct{ ChainID, Chain json.RawMessage }

// KeyChain resolves a chain reference (a name, alias or EVM chain id) to
// the chain family whose key signs for it: every EVM chain uses the
// agent's "ethereum" key.
func (s *Service) KeyChain(ctx context.Context, ref string) (string, error) {
	ref = strings.ToLower(strings.TrimSpace(ref))
	if _, ok := addressDerivers[ref]; ok {
		return ref, nil
	}
	c, err := s.cachedChain(ctx, ref)
	if errors.Is(err, store.ErrNotFound) {
		return "", errUnknownChain
	}
	if err != nil {
		return "", err
	}
	if c.Family == "evm" {
		return "ethereum", nil
	}
	return c.Family, nil
}

// chainRef reads a chain selector: a JSON integer or string.
func chainRef(raw json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil && s != "" {
		return s, nil
	}
	var n json.Number
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if dec.Decode(&n) == nil {
		if _, err := n.Int64(); err == nil {
			return n.String(), nil
		}
	}
	return "", problem.BadRequest(problem.TypeInvalidRequest, "chain_id must be an integer or a chain name")
}

// FirstRaw is a unless it is absent or null, else b.
func FirstRaw(a, b json.RawMessage) json.RawMessage {
	if len(a) > 0 && string(a) != "null" {
		return a
	}
	return b
}

// chainClient is the RPC client of chain's node; 503 chain_unavailable
// when none is configured. The URL never reaches the caller.
func (s *Service) chainClient(ctx context.Context, c store.Chain) (*chainrpc.Client, error) {
	if s.dialer == nil || c.RPCURL == "" {
		return nil, errChainUnavailable
	}
	cl, err := s.dialer.Client(ctx, c.RPCURL)
	if err != nil {
		return nil, errChainUnavailable
	}
	return cl, nil
}

var errChainUnavailable = problem.New(http.StatusServiceUnavailable, problem.TypeChainUnavailable,
	"the chain's RPC node is not configured or did not answer")

// rpcProblem maps a chain RPC failure to its answer.
func rpcProblem(err error) error {
	var rev *chainrpc.RevertError
	if errors.As(err, &rev) {
		return problem.New(http.StatusUnprocessableEntity, problem.TypeSimulationReverted, "the transaction reverts: "+rev.Reason)
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	return errChainUnavailable
}
