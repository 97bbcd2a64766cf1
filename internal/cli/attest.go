package cli

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/opencustody/ocv/attestation/nitro"
	"github.com/opencustody/ocv/attestation/sim"
)

// attestVerify checks a document saved from GET /v1/attestation?nonce=...
func attestVerify(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("ocv attest verify", stderr)
	docPath := fs.String("document", "", "the JSON answer of GET /v1/attestation (or a raw COSE document with --raw); - for stdin")
	raw := fs.Bool("raw", false, "the document file is the raw COSE_Sign1 bytes")
	nonceHex := fs.String("nonce", "", "the hex nonce you sent (required: it proves the document is fresh)")
	rootPath := fs.String("root", "", "PEM root to trust (the simulator's .ocv/attestation/root.pem); default: the AWS Nitro root")
	pcr0 := fs.String("pcr0", "", "accepted PCR0 values, hex SHA-384, comma-separated (required)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *docPath == "" || *nonceHex == "" || *pcr0 == "" {
		return fmt.Errorf("%w: --document, --nonce and --pcr0 are required", ErrUsage)
	}
	nonce, err := hex.DecodeString(*nonceHex)
	if err != nil {
		return fmt.Errorf("%w: --nonce must be hex", ErrUsage)
	}
	doc, err := readDocument(*docPath, *raw)
	if err != nil {
		return err
	}
	cfg := nitro.Config{AllowedPCRs: map[uint][][]byte{}}
	for _, p := range strings.Split(*pcr0, ",") {
		b, err := hex.DecodeString(strings.TrimSpace(p))
		if err != nil {
			return fmt.Errorf("%w: --pcr0 must be hex", ErrUsage)
		}
		cfg.AllowedPCRs[0] = append(cfg.AllowedPCRs[0], b)
	}
	if *rootPath != "" {
		root, err := sim.LoadRoot(*rootPath)
		if err != nil {
			return err
		}
		cfg.Roots, cfg.SimulatedRoots = []*x509.Certificate{root}, true
	}
	res, err := nitro.VerifyDocument(ctx, doc, nonce, cfg)
	if err != nil {
		return fmt.Errorf("attestation document rejected: %w", err)
	}
	fmt.Fprintf(stdout, "ok: document verified\n  module_id: %s\n  timestamp: %s\n  simulated: %v\n  public_key: %s\n",
		res.ModuleID, res.Timestamp.UTC().Format("2006-01-02T15:04:05Z"), res.Simulated, hex.EncodeToString(res.PublicKey))
	idx := make([]int, 0, len(res.PCRs))
	for i := range res.PCRs {
		idx = append(idx, int(i))
	}
	sort.Ints(idx)
	for _, i := range idx {
		if i <= 2 {
			fmt.Fprintf(stdout, "  pcr%d: %s\n", i, hex.EncodeToString(res.PCRs[uint(i)]))
		}
	}
	return nil
}

func readDocument(path string, raw bool) ([]byte, error) {
	var b []byte
	var err error
	if path == "-" {
		b, err = io.ReadAll(io.LimitReader(os.Stdin, 1<<20))
	} else {
		b, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("reading document: %w", err)
	}
	if raw {
		return b, nil
	}
	var resp struct {
		Document string `json:"document"`
	}
	if err := json.Unmarshal(b, &resp); err != nil || resp.Document == "" {
		return nil, fmt.Errorf("reading document: expected the JSON answer of GET /v1/attestation (or use --raw)")
	}
	doc, err := base64.StdEncoding.DecodeString(resp.Document)
	if err != nil {
		return nil, fmt.Errorf("reading document: document is not base64")
	}
	return doc, nil
}
