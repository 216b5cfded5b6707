package loyalty

import "context"

// AccountStore reads a business account.
type AccountStore interface {
	Business(ctx context.Context, id string) (Business, error)
	Account(ctx context.Context, businessID, ownerID string) (Account, error)
	Branches(ctx context.Context, businessID string) ([]Branch, error)
	// BusinessIDs returns the member businesses a tenant covers.
	BusinessIDs(ctx context.Context, t Tenant) ([]string, error)
}
