package wire

import (
	"errors"
	"fmt"
)

var errPlain = errors.New("plain")

func wrapf(format string, err error) error { return fmt.Errorf(format, err) }
