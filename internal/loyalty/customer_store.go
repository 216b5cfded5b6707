package loyalty

import (
	"context"
	"time"
)

// CustomerFilter is a search of a business's customers as the store runs
// it: every set condition must hold. Prefixes are compared as stored
// (e-mail lower-case, phone E.164, names lower-cased).
type CustomerFilter struct {
	NamePrefix    string    // the first name, the last name or "first last" starts with it
	EmailPrefix   string    // the e-mail starts with it
	PhonePrefixes []string  // the phone starts with one of them
	Enabled       *bool     // enabled or disabled customers only
	JoinedFrom    time.Time // joined at or after
	JoinedBefore  time.Time // joined before
}

// CustomerReader reads the customers of a business outside a transaction.
type CustomerReader interface {
	// Customer returns an active customer of the business, or ENotFound.
	Customer(ctx context.Context, businessID, customerID string) (Customer, error)
	// CustomerNeverExpiring is Customer for a business none of whose
	// points has ever had an expiry (Business.NeverExpires): it does not
	// look for expiring points, leaving the balance's next expiry empty.
	CustomerNeverExpiring(ctx context.Context, businessID, customerID string) (Customer, error)
	// CustomerActive reports whether the business has the active
	// customer, reading nothing else of it.
	CustomerActive(ctx context.Context, businessID, customerID string) (bool, error)
	// Customers lists the active customers of a business.
	Customers(ctx context.Context, businessID string, q ListQuery) ([]Customer, int, error)
	// SearchCustomers pages the active customers of a business matching
	// f, newest first, with the total that match.
	SearchCustomers(ctx context.Context, businessID string, f CustomerFilter, offset, limit int) ([]Customer, int, error)
	// EachCustomer calls fn for each active customer of a business
	// matching f, oldest first, without holding them all.
	EachCustomer(ctx context.Context, businessID string, f CustomerFilter, fn func(Customer) error) error
}

// CustomerTx is the part of a transaction that reads and changes
// customers and their memberships.
type CustomerTx interface {
	// CustomerAny returns a membership even when deleted (Deleted is set).
	CustomerAny(ctx context.Context, businessID, userID string) (Customer, error)
	// CustomerByContact finds an active customer of a business by the
	// e-mail of its profile, or by phone when email is empty.
	CustomerByContact(ctx context.Context, businessID, email, phone string) (Customer, error)
	// PersonReach counts the businesses that know a person and tells
	// whether the person claimed the account with a PIN.
	PersonReach(ctx context.Context, userID string) (memberships int, hasPIN bool, err error)
	InsertCustomer(ctx context.Context, c *Customer) error
	UpdateCustomer(ctx context.Context, c *Customer) error
}
