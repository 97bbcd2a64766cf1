package nitro

import (
	"crypto/x509"
	_ "embed"
	"encoding/pem"
)

// awsRootPEM is the AWS Nitro Enclaves Root-G1 certificate
// (CN=aws.nitro-enclaves, valid 2019-10-28 to 2049-10-28), SHA-256
// fingerprint 64:1A:03:21:A3:E2:44:EF:E4:56:46:31:95:D6:06:31:7E:D7:CD:CC:
// 3C:17:56:E0:98:93:F3:C6:8F:79:BB:5B as published by AWS. A test pins the
// fingerprint.
//
//go:embed aws_root_g1.pem
var awsRootPEM []byte

// AWSRoot returns the AWS Nitro Enclaves root certificate (G1). Each call
// returns a fresh copy, so callers may not alter the one other callers use.
func AWSRoot() *x509.Certificate {
	block, _ := pem.Decode(awsRootPEM)
	if block == nil {
		panic("nitro: embedded AWS root is not PEM") // programmer error: the file ships with the package
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		panic("nitro: embedded AWS root does not parse: " + err.Error())
	}
	return cert
}
