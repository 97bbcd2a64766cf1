package sim

import (
	"crypto/ecdsa"
	"crypto/rand"
	"fmt"

	"github.com/fxamacker/cbor/v2"
	"github.com/veraison/go-cose"
)

// payload mirrors the NSM's attestation document map, in the NSM's field
// order. Absent optional fields encode as null, as the NSM encodes them.
type payload struct {
	ModuleID    string   `cbor:"module_id"`
	Digest      string   `cbor:"digest"`
	Timestamp   uint64   `cbor:"timestamp"`
	PCRs        pcrMap   `cbor:"pcrs"`
	Certificate []byte   `cbor:"certificate"`
	CABundle    [][]byte `cbor:"cabundle"`
	PublicKey   []byte   `cbor:"public_key"`
	UserData    []byte   `cbor:"user_data"`
	Nonce       []byte   `cbor:"nonce"`
}

// pcrMap encodes with keys in ascending order, as the NSM's BTreeMap does.
type pcrMap map[uint][]byte

// sortedMode sorts map keys; it is used only for pcrMap, so payload keeps
// its field order.
var sortedMode = func() cbor.EncMode {
	em, err := cbor.EncOptions{Sort: cbor.SortCanonical}.EncMode()
	if err != nil {
		panic("sim: invalid CBOR options: " + err.Error()) // programmer error
	}
	return em
}()

// MarshalCBOR implements cbor.Marshaler.
func (m pcrMap) MarshalCBOR() ([]byte, error) {
	return sortedMode.Marshal(map[uint][]byte(m))
}

// signDocument encodes p and signs it as a tagged COSE_Sign1 with ES384 in
// the protected header and an empty unprotected header, as an NSM does.
func signDocument(p payload, key *ecdsa.PrivateKey) ([]byte, error) {
	body, err := cbor.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encoding payload: %w", err)
	}
	signer, err := cose.NewSigner(cose.AlgorithmES384, key)
	if err != nil {
		return nil, fmt.Errorf("creating signer: %w", err)
	}
	msg := cose.Sign1Message{
		Headers: cose.Headers{
			Protected:   cose.ProtectedHeader{cose.HeaderLabelAlgorithm: cose.AlgorithmES384},
			Unprotected: cose.UnprotectedHeader{},
		},
		Payload: body,
	}
	if err := msg.Sign(rand.Reader, nil, signer); err != nil {
		return nil, fmt.Errorf("signing payload: %w", err)
	}
	doc, err := msg.MarshalCBOR()
	if err != nil {
		return nil, fmt.Errorf("encoding COSE_Sign1: %w", err)
	}
	return doc, nil
}
