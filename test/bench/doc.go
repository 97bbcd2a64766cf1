// Command bench is OCV's load generator (untrusted: a test tool that holds
// only the throw-away account it creates). It drives the running `make run`
// stack over HTTPS in a closed loop: each of C workers sends a request,
// waits for the answer and sends the next, for a fixed time per scenario
// and concurrency level, and prints a markdown table of throughput and
// latency percentiles.
//
// Usage (from the repository root, with the stack running):
//
//	go run ./test/bench [-url https://127.0.0.1:8443] [-cacert .ocv/tls/ca.pem]
//	    [-duration 10s] [-warmup 2s] [-concurrency 1,16]
//	    [-scenarios write,read,personalsign,txsign,hsmraw] [-value-size 64]
//	    [-read-keys 1000] [-timeout 30s] [-h2] [-json] [-allow-remote]
//	    [-softhsm-module /usr/lib/softhsm/libsofthsm2.so] [-floor=true]
//	    [-proxy-pid N] [-enclave-pid N] [-pg-pid N] [-pg-data-dir .ocv/pg/data]
//
// -url and -cacert default to $OCV_BENCH_URL and $OCV_BENCH_CACERT when set
// (`make bench` sets them), -softhsm-module to $OCV_SOFTHSM2_MODULE.
// HTTP/1.1 with one keep-alive connection per worker is the default: on the
// simulator stack it gave more throughput than one multiplexed HTTP/2
// connection (-h2).
//
// Setup signs up a fresh user bench-<random>@example.com, signs in and
// creates a vault; the read scenario first writes -read-keys secrets and
// then reads them round-robin; the write scenario writes a distinct path on
// every request. The pipeline scenarios (not run unless -scenarios names
// them) measure the proxy's middleware on a cheap GET: health (GET
// /v1/health, a public route: audit and rate limit only, the closest thing
// to a bare handler) against authget (GET /v1/vaults/{id} with a token: the
// full pipeline and one indexed query), e.g.
// `make bench BENCH_ARGS='-scenarios health,authget -concurrency 16'`.
//
// The signing scenarios drive the Intents API. Setup creates an agent
// "bench-signer" (intents API and message signing on) and its ethereum key
// with the user's token, and signs the agent in (POST /v1/auth/agent-token;
// the agent token is renewed in the background). personalsign posts
// {"intent_type":"personal_sign","message":"bench <n>"} to
// /v1/agents/{id}/sign; txsign posts an EIP-1559 transaction on Base with
// every field given (a distinct nonce per request, so no RPC node is
// needed) to /v1/agents/{id}/transactions/sign. Both count a 200 whose body
// carries a signature or signed transaction.
//
// hsmraw (reported as hsm-raw-secp256k1) is the ceiling those are read
// against, measured by this process in the same run: it makes a private
// SoftHSM2 token under a temp dir (its own softhsm2.conf; SOFTHSM2_CONF is
// set for this process only, and the stack's token is never touched),
// opens it through keyvault/pkcs11 with a pool of two sessions,
// creates one secp256k1 key, and has the workers sign distinct 32-byte
// digests. It needs softhsm2 and a cgo build, but no running stack:
// `-scenarios hsmraw` alone contacts nothing. After the table, the report
// prints txsign and personalsign throughput as a share of hsmraw's at
// concurrency 16 (the target is ≥ 80 %); -json carries the same under
// "ratios".
//
// CPU per request (cpu.go, proccpu.go): for every cell the report adds
// the CPU seconds per successful request of ocv-proxy, ocv-enclave,
// PostgreSQL (the postmaster and all its children: cutime/cstime of the
// postmaster hold the backends it reaped, live children are summed) and
// the bench process itself, read as utime+stime(+cutime+cstime) from
// /proc/<pid>/stat at the start and the end of the measured window. The
// pids come from -proxy-pid, -enclave-pid, -pg-pid, else OCV_BENCH_PIDS
// ("proxy=1,enclave=2,postgres=3"), else the one ocv-proxy / ocv-enclave
// whose working directory is the current one (`make run` starts them in
// the checkout) and the postmaster named by <-pg-data-dir>/postmaster.pid
// (env OCV_BENCH_PGDATA; `make run`'s cluster by default). A process that
// cannot be found prints as n/a with the reason; the run goes on.
//
// The floor (floor.go, unless -floor=false): before the scenarios, a bare
// TLS hello-world HTTPS server is started inside the bench process (a
// throw-away ECDSA P-256 CA and leaf, the proxy's TLS settings) and loaded
// by the same client (same transport settings and protocol) at every
// concurrency level; its row is tls-floor, its CPU per request is the
// bench process's (server and client together). Every other cell gets its
// req/s and its server CPU per request as a ratio to the floor's at the
// same concurrency.
//
// Only loopback URLs are accepted unless -allow-remote is
// given, so a typo cannot load someone else's server.
package main
