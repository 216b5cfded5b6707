package loyalty

import "context"

// AdminStore is what support's operations need from storage.
type AdminStore interface {
	CreateCoalition(ctx context.Context, name, appKey string) (string, error)
	CreateBusiness(ctx context.Context, n NewBusiness, passwordHash, appKey string) (CreatedBusiness, error)
	// BusinessSummaries lists every business, oldest first.
	BusinessSummaries(ctx context.Context) ([]BusinessSummary, error)
	// BusinessSummary returns the business with id, or the business whose
	// owner signs in with ownerEmail when id is empty; ENotFound otherwise.
	BusinessSummary(ctx context.Context, id, ownerEmail string) (BusinessSummary, error)
	// HasBusinesses reports whether any business exists.
	HasBusinesses(ctx context.Context) (bool, error)
	// Coalitions lists every coalition, oldest first.
	Coalitions(ctx context.Context) ([]CoalitionSummary, error)
	// ApplicationKey returns the live Application Key of a business.
	ApplicationKey(ctx context.Context, businessID string) (string, error)
	// RotateKey revokes the live key of a business or coalition and
	// stores newKey in its place.
	RotateKey(ctx context.Context, t Tenant, newKey string) error
	// SetOwnerPassword stores an owner's new password hash, lifts any
	// sign-in lock and ends the owner's portal sessions; a non-nil m is
	// queued in the outbox in the same transaction.
	SetOwnerPassword(ctx context.Context, ownerID, hash string, m *Message) error
}
