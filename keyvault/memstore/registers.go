package memstore

import (
	"context"
	"fmt"

	"github.com/opencustody/ocv/keyvault"
)

// ReadRegister returns a copy of the register's value.
func (s *Store) ReadRegister(ctx context.Context, name string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, keyvault.ErrClosed
	}
	v, ok := s.registers[name]
	if !ok {
		return nil, fmt.Errorf("register %q: %w", name, keyvault.ErrKeyNotFound)
	}
	return append([]byte(nil), v...), nil
}

// WriteRegister sets the register's value.
func (s *Store) WriteRegister(ctx context.Context, name string, value []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if name == "" || len(value) > keyvault.MaxRegisterLen {
		return fmt.Errorf("%w: register %q of %d bytes", ErrInvalidKeyRef, name, len(value))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return keyvault.ErrClosed
	}
	if s.registers == nil {
		s.registers = map[string][]byte{}
	}
	s.registers[name] = append([]byte(nil), value...)
	return nil
}
