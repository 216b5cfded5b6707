package loyalty

import "context"

// ProfileStore keeps business profiles.
type ProfileStore interface {
	// BusinessProfile returns a business's profile, or ENotFound.
	BusinessProfile(ctx context.Context, businessID string) (BusinessProfile, error)
	// UpdateBusinessProfile replaces a business's profile with p when it
	// still is old; EConflict otherwise.
	UpdateBusinessProfile(ctx context.Context, businessID string, old, p BusinessProfile) error
}
