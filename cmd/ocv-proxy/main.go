// Command ocv-proxy is OCV's untrusted HTTPS edge. It loads its
// configuration, builds its dependencies and runs until SIGINT or SIGTERM.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/opencustody/ocv/internal/obs"
	"github.com/opencustody/ocv/proxy"
)

func main() {
	configPath := flag.String("config", "", "YAML configuration file (optional; OCV_* variables override it)")
	printConfig := flag.Bool("print-config", false, "print the effective configuration, secrets masked, and exit")
	flag.Parse()

	cfg, err := proxy.LoadConfig(*configPath)
	if *printConfig {
		fmt.Print(cfg.Masked())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "ocv-proxy:", err)
		os.Exit(2)
	}
	if *printConfig {
		return
	}
	// No client can flood the log: each is held to a budget of lines per
	// second, the rest counted in one summary line.
	log := slog.New(obs.NewClientLimiter(obs.NewLogger(os.Stderr, cfg.LogLevel).Handler(), obs.ClientLimit{}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg, log); err != nil {
		log.Error("proxy stopped", "err", err)
		stop()
		os.Exit(1)
	}
}

// run wires the proxy and serves until ctx ends, then shuts down
// gracefully: it stops accepting and finishes the requests in flight
// (bounded), waits for every background loop to return, and only then
// flushes the audit log, returns leased usage and closes the chain pool,
// the enclave channel and the database.
func run(ctx context.Context, cfg proxy.Config, log *slog.Logger) error {
	s := newStack(ctx)
	err := wire(ctx, cfg, log, s)
	if werr := s.wait(); err == nil {
		err = werr
	}
	return err
}
