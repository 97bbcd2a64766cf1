package pkcs11

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/opencustody/ocv/keyvault"
)

// maxIDLen bounds KeyRef.ID so labels stay well inside what HSMs accept.
const maxIDLen = 200

// labelPrefix starts the CKA_LABEL and CKA_ID of every key this package makes.
const labelPrefix = "ocv:"

// objectLabel is the CKA_LABEL (and CKA_ID) of ref: "ocv:<id>:v<version>".
func objectLabel(ref keyvault.KeyRef) string {
	return labelPrefix + ref.ID + ":v" + strconv.FormatUint(uint64(ref.Version), 10)
}

// checkRef rejects refs that cannot name a key.
func checkRef(ref keyvault.KeyRef) error {
	if ref.Version == 0 {
		return fmt.Errorf("%w: version 0", ErrInvalidKeyRef)
	}
	return checkID(ref.ID)
}

func checkID(id string) error {
	if id == "" || len(id) > maxIDLen {
		return fmt.Errorf("%w: id length %d", ErrInvalidKeyRef, len(id))
	}
	for _, r := range id {
		if r > unicode.MaxASCII || !unicode.IsPrint(r) {
			return fmt.Errorf("%w: id is not printable ascii", ErrInvalidKeyRef)
		}
	}
	return nil
}

// versionsFromLabels picks the versions of id out of a list of labels, in
// ascending order without duplicates (a key pair has two objects).
func versionsFromLabels(id string, labels []string) []uint32 {
	prefix := labelPrefix + id + ":v"
	out := []uint32{}
	for _, l := range labels {
		rest, ok := strings.CutPrefix(l, prefix)
		if !ok {
			continue
		}
		v, err := strconv.ParseUint(rest, 10, 32)
		// Only the canonical spelling counts: "ocv:a:v01" is not version 1,
		// and "ocv:a:v1:v2" belongs to id "a:v1".
		if err != nil || v == 0 || strconv.FormatUint(v, 10) != rest {
			continue
		}
		out = append(out, uint32(v))
	}
	slices.Sort(out)
	return slices.Compact(out)
}
