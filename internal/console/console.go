// Package console is the merchant console's application layer: the use
// cases of its pages (the counter, the customer desk and its exports and
// imports, the program's setup, staff, passwords, the business profile,
// the dashboard). Each checks the actor's role, calls the domain's
// services in internal/loyalty, which hold the rules, and records the
// action in the audit log.
package console

import (
	"context"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// Store is the storage of the console's services.
type Store interface {
	loyalty.StaffStore
	loyalty.AuditStore
	loyalty.PasswordStore
	loyalty.ProfileStore
	loyalty.DashboardStore
}

// Services are the services of the merchant console, built once and
// shared by its pages.
type Services struct {
	Staff     *StaffService
	Access    *AccessService
	Audit     *loyalty.AuditService
	Passwords *PasswordService // every portal's, not only the console's
	Profiles  *ProfileService
	Dashboard *DashboardService
}

// Options are what the console's services need beyond the store.
type Options struct {
	Admin  *loyalty.AdminService // the Application Key
	Apps   AppRevoker            // the connected apps
	Hash   loyalty.Hasher        // passwords and tokens
	Notify func()                // wakes the outbox worker; may be nil
	// Verify checks an account's password under the sign-in lockout.
	Verify func(ctx context.Context, kind, email, password string) error
}

// New builds the console's services over store.
func New(store Store, opt Options) *Services {
	return &Services{
		Staff:     &StaffService{Store: store, Hash: opt.Hash, Notify: opt.Notify},
		Access:    &AccessService{Admin: opt.Admin, Apps: opt.Apps},
		Audit:     &loyalty.AuditService{Store: store},
		Passwords: &PasswordService{Store: store, Hash: opt.Hash, Verify: opt.Verify, Notify: opt.Notify},
		Profiles:  &ProfileService{Store: store},
		Dashboard: &DashboardService{Store: store},
	}
}
