package loyalty

import "context"

// ExportReader reads what an export gathers beyond the entities' own
// readers.
type ExportReader interface {
	// MessagesTo returns the outbox's messages to any of addresses, oldest
	// first.
	MessagesTo(ctx context.Context, addresses []string) ([]SentMessage, error)
}

// ErasureTx is the part of a transaction that erases a person's data.
type ErasureTx interface {
	// LockCustomer locks a customer's row of a business and returns it
	// with its balance, deleted or not; ENotFound when there is none.
	LockCustomer(ctx context.Context, businessID, customerID string) (Customer, error)
	// PersonBusinesses returns the ids of the businesses that have the
	// person as a customer, deleted or not.
	PersonBusinesses(ctx context.Context, userID string) ([]string, error)
	// ErasePerson replaces the person's record with u (a tombstone) and
	// drops its PIN, its verifications and its secrets.
	ErasePerson(ctx context.Context, u User) error
	// EraseMessagesTo deletes the messages to any of addresses not sent
	// yet, and blanks the address and text of those sent.
	EraseMessagesTo(ctx context.Context, addresses []string) error
}
