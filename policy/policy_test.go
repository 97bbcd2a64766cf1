package policy

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// validPolicy returns a policy that passes Validate; tests change one field.
func validPolicy() Policy {
	return Policy{
		ID:            "p-1",
		Pattern:       "prod/**",
		PrincipalType: PrincipalAgent,
		PrincipalID:   "agent-1",
		Permissions:   []Permission{PermissionRead},
		Effect:        EffectAllow,
		Priority:      10,
	}
}

func TestPolicyValidate(t *testing.T) {
	zero := time.Time{}
	later := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	tooLate := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := map[string]struct {
		edit     func(p *Policy)
		wantErr  error
		wantText string // the field the message must name
	}{
		"ok minimal":               {edit: func(*Policy) {}},
		"ok user read write":       {edit: func(p *Policy) { p.PrincipalType, p.Permissions = PrincipalUser, []Permission{"read", "write"} }},
		"ok deny":                  {edit: func(p *Policy) { p.Effect = EffectDeny }},
		"ok negative priority":     {edit: func(p *Policy) { p.Priority = -5 }},
		"ok expiry":                {edit: func(p *Policy) { p.ExpiresAt = &later }},
		"ok all conditions":        {edit: func(p *Policy) { p.Conditions = fullConditions() }},
		"ok wrapping window":       {edit: func(p *Policy) { p.Conditions.TimeWindow = &TimeWindow{Start: "22:00", End: "02:00"} }},
		"fail id missing":          {edit: func(p *Policy) { p.ID = "" }, wantErr: ErrInvalidPolicy, wantText: "id"},
		"fail id too long":         {edit: func(p *Policy) { p.ID = strings.Repeat("x", 129) }, wantErr: ErrInvalidPolicy, wantText: "id"},
		"fail pattern":             {edit: func(p *Policy) { p.Pattern = "prod/a**" }, wantErr: ErrInvalidPattern, wantText: "secret_path_pattern"},
		"fail pattern is policy":   {edit: func(p *Policy) { p.Pattern = "" }, wantErr: ErrInvalidPolicy, wantText: "secret_path_pattern"},
		"fail principal type":      {edit: func(p *Policy) { p.PrincipalType = "User" }, wantErr: ErrInvalidPolicy, wantText: "principal_type"}, // exact lowercase only
		"fail principal id":        {edit: func(p *Policy) { p.PrincipalID = "" }, wantErr: ErrInvalidPolicy, wantText: "principal_id"},
		"fail principal id ctl":    {edit: func(p *Policy) { p.PrincipalID = "a\nb" }, wantErr: ErrInvalidPolicy, wantText: "principal_id"},
		"fail no permissions":      {edit: func(p *Policy) { p.Permissions = nil }, wantErr: ErrInvalidPolicy, wantText: "permissions"},
		"fail unknown permission":  {edit: func(p *Policy) { p.Permissions = []Permission{"delete"} }, wantErr: ErrInvalidPolicy, wantText: "permissions"},
		"fail repeated permission": {edit: func(p *Policy) { p.Permissions = []Permission{"read", "read"} }, wantErr: ErrInvalidPolicy, wantText: "permissions"},
		"fail effect":              {edit: func(p *Policy) { p.Effect = "" }, wantErr: ErrInvalidPolicy, wantText: "effect"},
		"fail zero expiry":         {edit: func(p *Policy) { p.ExpiresAt = &zero }, wantErr: ErrInvalidPolicy, wantText: "expires_at"},
		"fail expiry past 9999":    {edit: func(p *Policy) { p.ExpiresAt = &tooLate }, wantErr: ErrInvalidPolicy, wantText: "expires_at"},
		"fail cidr":                {edit: func(p *Policy) { p.Conditions.IPCIDRs = []string{"10.0.0.0/8", "10.0.0.1"} }, wantErr: ErrInvalidPolicy, wantText: "conditions.ip_cidrs[1]"},
		"fail too many cidrs":      {edit: func(p *Policy) { p.Conditions.IPCIDRs = make([]string, 65) }, wantErr: ErrInvalidPolicy, wantText: "conditions.ip_cidrs"},
		"fail window start":        {edit: func(p *Policy) { p.Conditions.TimeWindow = &TimeWindow{Start: "24:00", End: "02:00"} }, wantErr: ErrInvalidPolicy, wantText: "conditions.time_window.start"},
		"fail window end":          {edit: func(p *Policy) { p.Conditions.TimeWindow = &TimeWindow{Start: "09:00", End: "9:30"} }, wantErr: ErrInvalidPolicy, wantText: "conditions.time_window.end"},
		"fail window minutes":      {edit: func(p *Policy) { p.Conditions.TimeWindow = &TimeWindow{Start: "09:60", End: "10:00"} }, wantErr: ErrInvalidPolicy, wantText: "conditions.time_window.start"},
		"fail window empty":        {edit: func(p *Policy) { p.Conditions.TimeWindow = &TimeWindow{Start: "09:00", End: "09:00"} }, wantErr: ErrInvalidPolicy, wantText: "conditions.time_window"},
		"fail window day": {edit: func(p *Policy) {
			p.Conditions.TimeWindow = &TimeWindow{Start: "09:00", End: "17:00", Days: []time.Weekday{7}}
		}, wantErr: ErrInvalidPolicy, wantText: "conditions.time_window.days"},
		"fail window repeated day": {edit: func(p *Policy) {
			p.Conditions.TimeWindow = &TimeWindow{Start: "09:00", End: "17:00", Days: []time.Weekday{1, 1}}
		}, wantErr: ErrInvalidPolicy, wantText: "conditions.time_window.days"},
		"fail empty environment": {edit: func(p *Policy) { p.Conditions.EnvironmentIn = []string{""} }, wantErr: ErrInvalidPolicy, wantText: "conditions.environment_in[0]"},
		"fail repeated env":      {edit: func(p *Policy) { p.Conditions.EnvironmentIn = []string{"a", "a"} }, wantErr: ErrInvalidPolicy, wantText: "conditions.environment_in"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			p := validPolicy()
			tc.edit(&p)
			err := p.Validate()
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, ErrInvalidPolicy)
				require.Contains(t, err.Error(), tc.wantText)
			}
			require.ErrorIs(t, p.Prepare(), tc.wantErr)
		})
	}
}

func fullConditions() Conditions {
	return Conditions{
		IPCIDRs:       []string{"10.0.0.0/8", "2001:db8::/32"},
		TimeWindow:    &TimeWindow{Start: "09:00", End: "17:00", Days: []time.Weekday{time.Monday, time.Friday}},
		EnvironmentIn: []string{"production"},
	}
}
