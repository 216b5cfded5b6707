package console

import (
	"context"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// AppRevoker withdraws an app's access to a business (oauth.Server does).
type AppRevoker interface {
	RevokeConnection(ctx context.Context, businessID, appID string) error
}

// AccessService is the console's side of the Application Key and the
// connected apps: the owner's alone, each change in the audit log.
type AccessService struct {
	Admin *loyalty.AdminService
	Apps  AppRevoker
}

// Key returns the live Application Key of the actor's business.
func (s *AccessService) Key(ctx context.Context, a loyalty.Actor) (string, error) {
	if err := a.Require(loyalty.PermKeys); err != nil {
		return "", err
	}
	return s.Admin.ApplicationKey(ctx, a.BusinessID)
}

// RotateKey gives the actor's business a new Application Key; the old one
// stops working at once.
func (s *AccessService) RotateKey(ctx context.Context, a loyalty.Actor) error {
	if err := a.Require(loyalty.PermKeys); err != nil {
		return err
	}
	return loyalty.Audited(a, loyalty.AuditKeyRotated, "Application Key", nil, nil, func(r *loyalty.AuditRecord) error {
		admin := *s.Admin
		admin.Store = loyalty.AuditedStore(admin.Store, r)
		_, err := admin.RotateKey(ctx, a.BusinessID)
		return err
	})
}

// RevokeApp withdraws an app's access to the actor's business; name is
// how the log names the app.
func (s *AccessService) RevokeApp(ctx context.Context, a loyalty.Actor, appID, name string) error {
	if err := a.Require(loyalty.PermKeys); err != nil {
		return err
	}
	return loyalty.Audited(a, loyalty.AuditAppRevoked, name, nil, nil, func(r *loyalty.AuditRecord) error {
		return loyalty.AuditedStore(s.Apps, r).RevokeConnection(ctx, a.BusinessID, appID)
	})
}
