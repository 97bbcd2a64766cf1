// Package sim is the simulator attester: it issues Nitro-format attestation
// documents (COSE_Sign1, ES384, the same CBOR payload an NSM produces) signed
// by a root and intermediate CA it generates and keeps on disk. Package
// attestation/nitro validates them with the same code it uses for real
// documents, configured with the simulator root instead of the AWS root and
// with SimulatedRoots set, so everything downstream reports "simulated".
//
// Trust level: untrusted. It is for development, tests and `make run`: its
// CA keys sit in plain files, so a document it issues proves nothing about
// the code that asked for it.
package sim
