package nitro

import (
	"fmt"

	"github.com/fxamacker/cbor/v2"
	"github.com/veraison/go-cose"
)

// maxDocumentSize bounds the input before any decoding. The NSM answers in at
// most 12 KiB; anything much larger is not a Nitro document.
const maxDocumentSize = 16 << 10

// cborTagSign1 is the one-byte head of CBOR tag 18 (COSE_Sign1_Tagged).
const cborTagSign1 = 0xd2

// payload is the CBOR map an NSM signs (AWS "attestation document" spec).
// Optional fields are encoded as null by the NSM when absent.
type payload struct {
	ModuleID    string          `cbor:"module_id"`
	Digest      string          `cbor:"digest"`
	Timestamp   uint64          `cbor:"timestamp"` // milliseconds since the Unix epoch
	PCRs        map[uint][]byte `cbor:"pcrs"`
	Certificate []byte          `cbor:"certificate"` // DER
	CABundle    [][]byte        `cbor:"cabundle"`    // DER, root first
	PublicKey   []byte          `cbor:"public_key"`
	UserData    []byte          `cbor:"user_data"`
	Nonce       []byte          `cbor:"nonce"`
}

// document is a parsed but not yet verified attestation document.
type document struct {
	msg     *cose.Sign1Message
	payload payload
}

// payloadDecMode is strict where ambiguity could be abused: a duplicated key
// (two "nonce" entries, say) is rejected rather than resolved.
var payloadDecMode = mustDecMode(cbor.DecOptions{
	DupMapKey:   cbor.DupMapKeyEnforcedAPF,
	IndefLength: cbor.IndefLengthForbidden,
	TagsMd:      cbor.TagsForbidden,
})

func mustDecMode(opts cbor.DecOptions) cbor.DecMode {
	dm, err := opts.DecMode()
	if err != nil {
		panic("nitro: invalid CBOR decode options: " + err.Error()) // programmer error
	}
	return dm
}

// parseDocument decodes the COSE_Sign1 envelope (tagged or untagged), checks
// that it declares ES384 in its protected header and decodes the payload.
// It verifies nothing cryptographic.
func parseDocument(doc []byte) (*document, error) {
	if len(doc) == 0 {
		return nil, fmt.Errorf("%w: empty document", ErrMalformed)
	}
	if len(doc) > maxDocumentSize {
		return nil, fmt.Errorf("%w: document is %d bytes, limit %d", ErrMalformed, len(doc), maxDocumentSize)
	}
	msg, err := decodeSign1(doc)
	if err != nil {
		return nil, fmt.Errorf("%w: decoding COSE_Sign1: %w", ErrMalformed, err)
	}
	alg, err := msg.Headers.Protected.Algorithm()
	if err != nil {
		return nil, fmt.Errorf("%w: reading algorithm: %w", ErrMalformed, err)
	}
	if alg != cose.AlgorithmES384 {
		return nil, fmt.Errorf("%w: algorithm %v, want ES384", ErrMalformed, alg)
	}
	if len(msg.Payload) == 0 {
		return nil, fmt.Errorf("%w: no payload", ErrMalformed)
	}
	var p payload
	if err := payloadDecMode.Unmarshal(msg.Payload, &p); err != nil {
		return nil, fmt.Errorf("%w: decoding payload: %w", ErrMalformed, err)
	}
	return &document{msg: msg, payload: p}, nil
}

// decodeSign1 accepts both encodings the NSM is documented to produce:
// COSE_Sign1 bare or wrapped in tag 18.
func decodeSign1(doc []byte) (*cose.Sign1Message, error) {
	var msg cose.Sign1Message
	if doc[0] == cborTagSign1 {
		if err := msg.UnmarshalCBOR(doc); err != nil {
			return nil, err
		}
		return &msg, nil
	}
	if err := (*cose.UntaggedSign1Message)(&msg).UnmarshalCBOR(doc); err != nil {
		return nil, err
	}
	return &msg, nil
}
