package loyalty

import (
	"context"
	"time"
)

// TransactionExporter hands a business's ledger to an export one entry at
// a time. (It belongs with TransactionReader in transaction_store.go.)
type TransactionExporter interface {
	// EachTransaction calls fn for each ledger entry of a business made in
	// [from, to) (zero: no bound), in the order they were written.
	EachTransaction(ctx context.Context, businessID string, from, to time.Time, fn func(Transaction) error) error
}
