package handlers

import (
	"context"

	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/store"
)

// OrgStore is the storage of an organization's members and IP rules.
type OrgStore interface {
	UpdateMemberRole(ctx context.Context, orgID, userID, role string, check func(store.Member) error,
		ev *auditchain.Event) (store.Member, error)
	RemoveMember(ctx context.Context, orgID, userID string, check func(store.Member) error,
		ev *auditchain.Event) (store.MemberRemoval, error)
	CreateIPRule(ctx context.Context, r store.IPRule, ev *auditchain.Event) (store.IPRule, error)
	ListIPRules(ctx context.Context, orgID, after string, limit int) ([]store.IPRule, error)
	DeleteIPRule(ctx context.Context, orgID, id string, ev *auditchain.Event) error
}
