// Command ocv-enclave is the trusted OCV process: it opens the HSM, makes
// its attestation source and serves the attested channel until SIGINT or
// SIGTERM. Configuration: -config FILE (YAML, optional), then OCV_ENCLAVE_*
// environment variables; the defaults run the simulator.
//
// `ocv-enclave keygen-proxy-identity -out FILE` makes the proxy's identity
// key and prints the public key the enclave must be configured with.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/opencustody/ocv/attestation"
	"github.com/opencustody/ocv/attestation/nitro"
	"github.com/opencustody/ocv/attestation/sim"
	"github.com/opencustody/ocv/enclave"
	"github.com/opencustody/ocv/keyvault/pkcs11"
)

func main() {
	os.Exit(run())
}

func run() int {
	if len(os.Args) > 1 && os.Args[1] == "keygen-proxy-identity" {
		return keygenProxyIdentity(os.Args[2:], os.Stdout, os.Stderr)
	}
	configPath := flag.String("config", "", "YAML configuration file (optional)")
	flag.Parse()

	cfg, err := enclave.LoadProcessConfig(*configPath, os.LookupEnv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ocv-enclave: loading configuration:", err)
		return 2
	}
	level, _ := cfg.SlogLevel()
	log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if err := serve(ctx, cfg, log); err != nil {
		log.Error("ocv-enclave stopped", "error", err.Error())
		return 1
	}
	return 0
}

// serve builds the dependencies and runs the server until ctx is done.
func serve(ctx context.Context, cfg enclave.ProcessConfig, log *slog.Logger) (err error) {
	ks, err := pkcs11.New(ctx, pkcs11.Config{
		ModulePath: cfg.PKCS11.ModulePath,
		TokenLabel: cfg.PKCS11.TokenLabel,
		PINFile:    cfg.PKCS11.PINFile,
		PoolSize:   cfg.PKCS11.PoolSize,
	})
	if err != nil {
		return fmt.Errorf("opening key store: %w", err)
	}
	defer func() { err = errors.Join(err, ks.Close()) }()

	issuer, closeIssuer, err := newIssuer(cfg.Attester, log)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeIssuer()) }()

	srv, err := enclave.New(ctx, cfg.Server(), ks, issuer, enclave.WithLogger(log))
	if err != nil {
		return fmt.Errorf("starting enclave: %w", err)
	}
	serveErr := srv.Serve(ctx)
	return errors.Join(serveErr, srv.Close())
}

// newIssuer is the explicit chooser of the attestation source.
func newIssuer(cfg enclave.AttesterConfig, log *slog.Logger) (attestation.Issuer, func() error, error) {
	switch cfg.Kind {
	case enclave.AttesterNitro:
		iss, err := nitro.NewNSMIssuer()
		if err != nil {
			return nil, nil, fmt.Errorf("opening nitro security module: %w", err)
		}
		return iss, iss.Close, nil
	case enclave.AttesterSim:
		exe, err := os.Executable()
		if err != nil {
			return nil, nil, fmt.Errorf("locating own binary: %w", err)
		}
		pcr0, err := sim.MeasureFile(exe)
		if err != nil {
			return nil, nil, err
		}
		iss, err := sim.New(sim.Config{Dir: cfg.Dir, PCRs: map[uint][]byte{0: pcr0}})
		if err != nil {
			return nil, nil, fmt.Errorf("starting simulated attester: %w", err)
		}
		log.Info("simulated attester ready", "dir", cfg.Dir, "root", sim.RootPath(cfg.Dir), "pcr0", fmt.Sprintf("%x", pcr0))
		return iss, func() error { return nil }, nil
	default:
		return nil, nil, fmt.Errorf("%w: attester.kind %q", enclave.ErrInvalidConfig, cfg.Kind)
	}
}
