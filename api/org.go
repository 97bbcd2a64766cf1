package api

// OrgMember is a member of the caller's organization.
type OrgMember struct {
	ID       string `json:"id"`
	Email    string `json:"email"`
	Role     string `json:"role"`
	JoinedAt string `json:"joined_at"`
}

// InviteRequest is the body of POST /v1/org/invite.
type InviteRequest struct {
	Email *string `json:"email"`
	Role  *string `json:"role"`
}

// Invite is the answer of POST /v1/org/invite; the token is shown once.
type Invite struct {
	ID        string `json:"id"`
	Email     string `json:"email"`
	Role      string `json:"role"`
	InvitedBy string `json:"invited_by"`
	Token     string `json:"token"`
	Notified  bool   `json:"notified"`
	ExpiresAt string `json:"expires_at"`
	CreatedAt string `json:"created_at"`
}

// MemberRoleUpdate is the body of PATCH /v1/org/members/{user_id}.
type MemberRoleUpdate struct {
	Role *string `json:"role"`
}

// IPRuleCreate is the body of POST /v1/security/ip-rules.
type IPRuleCreate struct {
	CIDR        *string `json:"cidr"`
	RuleType    *string `json:"rule_type"`
	Description *string `json:"description"`
}

// IPRule is one IP rule of an organization.
type IPRule struct {
	ID          string `json:"id"`
	CIDR        string `json:"cidr"`
	RuleType    string `json:"rule_type"`
	Description string `json:"description"`
	CreatedBy   string `json:"created_by"`
	CreatedAt   string `json:"created_at"`
}
