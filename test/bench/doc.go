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
//	    [-duration 10s] [-warmup 2s] [-concurrency 1,16] [-scenarios write,read,health,authget]
//	    [-value-size 64] [-read-keys 1000] [-timeout 30s] [-h2] [-json] [-allow-remote]
//
// -url and -cacert default to $OCV_BENCH_URL and $OCV_BENCH_CACERT when set
// (`make bench` sets them). HTTP/1.1 with one keep-alive connection per
// worker is the default: on the simulator stack it gave more throughput
// than one multiplexed HTTP/2 connection (-h2).
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
// Only loopback URLs are accepted unless -allow-remote is
// given, so a typo cannot load someone else's server.
package main
