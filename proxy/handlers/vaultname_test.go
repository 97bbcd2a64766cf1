package handlers

import (
	"testing"
)

func TestNormalizeVaultName(t *testing.T) {
	tests := []struct {
		in, name, key string
		wantErr       bool
	}{
		{in: "Prod", name: "Prod", key: "prod"},
		{in: "  prod  db ", name: "prod  db", key: "prod db"},
		{in: "ｐｒｏｄ", name: "ｐｒｏｄ", key: "prod"},
		{in: "cafe\u0301", name: "café", key: "café"},
		{in: "café", name: "café", key: "café"},
		{in: "Straße", name: "Straße", key: "strasse"},
		{in: "日本の金庫", name: "日本の金庫", key: "日本の金庫"},
		{in: "Ελληνικά", name: "Ελληνικά", key: "ελληνικά"},
		{in: "pr\u043ed", wantErr: true},         // Cyrillic о inside a Latin name
		{in: "prod\u200b", wantErr: true},        // zero-width space
		{in: "\ufeffprod", wantErr: true},        // BOM
		{in: "prod\u202etxt.exe", wantErr: true}, // right-to-left override
		{in: "pro\x07d", wantErr: true},
	}
	for _, tt := range tests {
		name, key, err := normalizeVaultName(tt.in)
		if tt.wantErr {
			if err == nil {
				t.Errorf("normalizeVaultName(%q) accepted %q", tt.in, name)
			}
			continue
		}
		if err != nil || name != tt.name || key != tt.key {
			t.Errorf("normalizeVaultName(%q) = %q, %q, %v; want %q, %q", tt.in, name, key, err, tt.name, tt.key)
		}
	}
}
