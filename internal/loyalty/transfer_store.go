package loyalty

import (
	"context"
	"time"
)

// TransferReader reads transfers.
type TransferReader interface {
	// MemberTransfers returns the transfers a member of a business sent or
	// received, newest first.
	MemberTransfers(ctx context.Context, businessID, memberID string) ([]Transfer, error)
	// DueTransfers returns up to limit pending transfers whose hold ended
	// at or before at, oldest first; with businessID, of that business
	// only.
	DueTransfers(ctx context.Context, businessID string, at time.Time, limit int) ([]Transfer, error)
}

// TransferTx is the part of a transaction that writes transfers.
type TransferTx interface {
	InsertTransfer(ctx context.Context, t *Transfer) error
	// Transfer returns a transfer of a business, or ENotFound.
	Transfer(ctx context.Context, businessID, id string) (Transfer, error)
	// PendingTransfersTo returns a business's pending transfers to the
	// e-mail or the phone (either may be ""), oldest first.
	PendingTransfersTo(ctx context.Context, businessID, email, phone string) ([]Transfer, error)
	// SettleTransfer records t's end (its State, ReceiverID, SettledEntry
	// and SettledAt) if it is still pending; it reports whether it did.
	SettleTransfer(ctx context.Context, t Transfer) (bool, error)
	// SentToday sums the points a member sent in [from, to), every state
	// but recalled and returned.
	SentSince(ctx context.Context, businessID, senderID string, from time.Time) (int64, error)
}
