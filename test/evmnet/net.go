package evmnet

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"
)

// ChainID is the chain id of every simulated chain (go-ethereum's fixed value).
const ChainID uint64 = 1337

const (
	// accounts is how many funded keys Start creates.
	accounts = 3
	// minePoll is how often the auto-miner looks at the transaction pool.
	minePoll = 20 * time.Millisecond
	// startAttempts bounds retries when the chosen loopback port was taken
	// between choosing it and the node binding it.
	startAttempts = 5
)

// InitialBalance is what each of Net.Keys holds at genesis: 1,000 ETH.
var InitialBalance = new(big.Int).Mul(big.NewInt(1000), big.NewInt(params.Ether))

// Net is a running simulated chain served over HTTP JSON-RPC on loopback.
// Its methods are safe for concurrent use.
type Net struct {
	// ChainID is the chain id (always 1337).
	ChainID uint64
	// URL is the HTTP JSON-RPC endpoint, http://127.0.0.1:<port>.
	URL string
	// Keys are three accounts funded with InitialBalance each at genesis.
	Keys []*ecdsa.PrivateKey

	backend *simulated.Backend
	client  simulated.Client // in-process client used by the helpers
	pool    *rpc.Client      // HTTP client used by the miner for txpool_status

	commitMu sync.Mutex // the simulated beacon is not safe for concurrent sealing
	sendMu   sync.Mutex // serialises nonce use for Keys[0] in Fund and Deploy*
	stop     chan struct{}
	done     chan struct{}
}

// Start boots a simulated chain with three funded accounts, serves it on a
// loopback HTTP port (namespaces eth, net, web3 and txpool; eth_simulateV1
// lives in eth)
// and mines automatically: a goroutine seals a block whenever the pool holds
// pending transactions. t.Cleanup stops the miner and closes the node.
func Start(t testing.TB) *Net {
	t.Helper()
	n := &Net{ChainID: ChainID, stop: make(chan struct{}), done: make(chan struct{})}
	alloc := types.GenesisAlloc{}
	for range accounts {
		key, err := crypto.GenerateKey()
		if err != nil {
			t.Fatalf("evmnet: generating key: %v", err)
		}
		n.Keys = append(n.Keys, key)
		alloc[crypto.PubkeyToAddress(key.PublicKey)] = types.Account{Balance: new(big.Int).Set(InitialBalance)}
	}
	var err error
	for range startAttempts {
		if err = n.boot(alloc); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("evmnet: starting simulated backend: %v", err)
	}
	go n.mine()
	t.Cleanup(n.close)
	return n
}

// boot starts the backend on a free loopback port. The simulated Backend
// does not expose its node, so the bound address cannot be read back: the
// port is chosen first, and a lost race makes NewBackend panic, which is
// turned into an error so Start can try another port.
func (n *Net) boot(alloc types.GenesisAlloc) (err error) {
	port, err := freePort()
	if err != nil {
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("node start: %v", r)
		}
	}()
	backend := simulated.NewBackend(alloc, func(nc *node.Config, _ *ethconfig.Config) {
		nc.HTTPHost = "127.0.0.1"
		nc.HTTPPort = port
		// txpool is served for the auto-miner: the simulated client hides
		// its in-process rpc.Client, so the miner asks over HTTP.
		nc.HTTPModules = []string{"eth", "net", "web3", "txpool"}
		nc.HTTPVirtualHosts = []string{"localhost", "127.0.0.1"}
	})
	url := "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	pool, err := rpc.DialHTTP(url)
	if err != nil {
		_ = backend.Close()
		return fmt.Errorf("dialing the node: %w", err)
	}
	n.backend, n.client, n.pool, n.URL = backend, backend.Client(), pool, url
	return nil
}

// freePort asks the kernel for an unused loopback TCP port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("choosing a port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Commit seals a block now with whatever the pool holds. It is a no-op once
// the Net is closed.
func (n *Net) Commit() {
	n.commitMu.Lock()
	defer n.commitMu.Unlock()
	select {
	case <-n.stop:
		return
	default:
	}
	n.backend.Commit()
}

// mine seals a block whenever the pool has pending transactions.
func (n *Net) mine() {
	defer close(n.done)
	tick := time.NewTicker(minePoll)
	defer tick.Stop()
	for {
		select {
		case <-n.stop:
			return
		case <-tick.C:
		}
		var status map[string]hexutil.Uint
		if err := n.pool.CallContext(context.Background(), &status, "txpool_status"); err != nil {
			continue
		}
		if status["pending"] > 0 {
			n.Commit()
		}
	}
}

// close stops the miner and shuts the node down.
func (n *Net) close() {
	n.commitMu.Lock()
	close(n.stop)
	n.commitMu.Unlock()
	<-n.done
	n.pool.Close()
	_ = n.backend.Close()
}
