package console

import (
	"context"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// ProfileService runs the rules of business profiles.
type ProfileService struct {
	Store loyalty.ProfileStore
}

// Profile returns the profile of a business, as its public pages show it.
func (s *ProfileService) Profile(ctx context.Context, businessID string) (loyalty.BusinessProfile, error) {
	return s.Store.BusinessProfile(ctx, businessID)
}

// Get returns the profile of the actor's business for editing.
func (s *ProfileService) Get(ctx context.Context, a loyalty.Actor) (loyalty.BusinessProfile, error) {
	if err := a.Require(loyalty.PermManage); err != nil {
		return loyalty.BusinessProfile{}, err
	}
	return s.Store.BusinessProfile(ctx, a.BusinessID)
}

// Update changes the profile of the actor's business; the audit log
// records each changed field before and after.
func (s *ProfileService) Update(ctx context.Context, a loyalty.Actor, p loyalty.BusinessProfile) (loyalty.BusinessProfile, error) {
	if err := a.Require(loyalty.PermManage); err != nil {
		return loyalty.BusinessProfile{}, err
	}
	if err := p.Normalize(); err != nil {
		return p, err
	}
	old, err := s.Store.BusinessProfile(ctx, a.BusinessID)
	if err != nil || old == p {
		return p, err
	}
	before, after := profileFields(old), profileFields(p)
	for k := range before {
		if before[k] == after[k] {
			delete(before, k)
			delete(after, k)
		}
	}
	return p, loyalty.Audited(a, loyalty.AuditProfileUpdated, p.Name, before, after, func(r *loyalty.AuditRecord) error {
		return loyalty.AuditedStore(s.Store, r).UpdateBusinessProfile(ctx, a.BusinessID, old, p)
	})
}

// profileFields is the profile as the audit log records it.
func profileFields(p loyalty.BusinessProfile) map[string]string {
	return map[string]string{"name": p.Name, "about": p.About, "logo": p.Logo, "cover": p.Cover, "category": p.Category,
		"currency": p.Currency, "time_zone": p.TimeZone, "brand_color": p.BrandColor}
}
