package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/opencustody/ocv/enclave/client"
	"github.com/opencustody/ocv/enclave/wire"
)

// keygenProxyIdentity is `ocv-enclave keygen-proxy-identity -out FILE`: it
// makes the proxy's identity key in FILE (PEM, mode 0600) unless FILE
// exists already, and prints its public key, the value for the enclave's
// proxy_identity_pubkeys (OCV_PROXY_IDENTITY_PUBKEYS). -pub FILE also
// writes the public key there. Give FILE to the proxy only
// (OCV_PROXY_IDENTITY_KEY).
func keygenProxyIdentity(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("keygen-proxy-identity", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "private key file to create (kept if it exists)")
	pub := fs.String("pub", "", "also write the public key to this file (optional)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *out == "" || fs.NArg() != 0 {
		fmt.Fprintln(stderr, "usage: ocv-enclave keygen-proxy-identity -out FILE [-pub FILE]")
		return 2
	}
	id, err := loadOrCreateIdentity(*out)
	if err != nil {
		fmt.Fprintln(stderr, "ocv-enclave:", err)
		return 1
	}
	line := wire.FormatPeerPublicKey(id.PublicKey())
	if *pub != "" {
		if err := os.WriteFile(*pub, []byte(line+"\n"), 0o644); err != nil {
			fmt.Fprintln(stderr, "ocv-enclave: writing public key:", err)
			return 1
		}
	}
	fmt.Fprintln(stdout, line)
	return 0
}

// loadOrCreateIdentity loads the key at path, or creates it when there is
// no file.
func loadOrCreateIdentity(path string) (*client.Identity, error) {
	if _, err := os.Stat(path); err == nil {
		return client.LoadIdentity(path)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	id, err := client.GenerateIdentity()
	if err != nil {
		return nil, err
	}
	if err := id.WriteFile(path); err != nil {
		return nil, err
	}
	return id, nil
}
