package handlers

import (
	"context"
	"time"

	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/store"
)

// ShareStore is the storage of shares.
type ShareStore interface {
	SecretByID(ctx context.Context, orgID, id string) (store.Secret, error)
	CreateShare(ctx context.Context, sh store.Share, ev *auditchain.Event) (store.Share, error)
	GetShare(ctx context.Context, id string) (store.Share, error)
	ConsumeShare(ctx context.Context, id string) (int, error)
	SharedSecret(ctx context.Context, orgID, secretID string, version uint32) (store.Secret, store.Sealed, error)
	ShareAttemptWait(ctx context.Context, counters []store.ShareAttempt, window time.Duration, now time.Time) (time.Duration, error)
	CountShareAttempt(ctx context.Context, counters []store.ShareAttempt, window time.Duration, now time.Time) (time.Duration, error)
	ForgiveShareAttempt(ctx context.Context, counters []store.ShareAttempt) error
	ListOutboundShares(ctx context.Context, orgID, creatorType, creatorID string, limit int) ([]store.Share, error)
	ListInboundShares(ctx context.Context, principalType, principalID string, limit int) ([]store.Share, error)
	SetShareStatus(ctx context.Context, id, status string, allowed func(store.Share) bool, ev func(store.Share) *auditchain.Event) (store.Share, error)
	MemberRole(ctx context.Context, orgID, userID string) (role, platformRole string, err error)
	VaultIDByName(ctx context.Context, orgID, name string) (string, error)
}

// WebhookStore is the storage of webhooks and their deliveries.
type WebhookStore interface {
	CreateWebhook(ctx context.Context, w store.Webhook, ev *auditchain.Event) (store.Webhook, error)
	GetWebhook(ctx context.Context, orgID, id string) (store.Webhook, error)
	ListWebhooks(ctx context.Context, orgID, after string, limit int) ([]store.Webhook, error)
	UpdateWebhook(ctx context.Context, orgID, id string, apply func(*store.Webhook) error, ev *auditchain.Event) (store.Webhook, error)
	DeleteWebhook(ctx context.Context, orgID, id string, ev *auditchain.Event) error
	RecentDeliveries(ctx context.Context, orgID, webhookID string, limit int) ([]store.DeliveryRecord, error)
	ListDeliveries(ctx context.Context, orgID, webhookID, status string, after *store.DeliveryCursor, limit int) ([]store.DeliveryRecord, error)
	ReplayDelivery(ctx context.Context, orgID, webhookID, deliveryID string, ev *auditchain.Event) (store.DeliveryRecord, error)
	ReplayFailedDeliveries(ctx context.Context, orgID, webhookID string, from, to time.Time, limit int,
		ev *auditchain.Event) (store.ReplayResult, error)
}
