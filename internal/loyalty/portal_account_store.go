package loyalty

import (
	"context"
	"time"
)

// PasswordStore keeps the portals' passwords and reset tokens.
type PasswordStore interface {
	Now() time.Time
	// BusinessAccountKind says which business account signs in with email.
	BusinessAccountKind(ctx context.Context, email string) (string, error)
	// PortalAccount finds an account of kind that can sign in, by e-mail
	// (id empty) or by id; ENotFound otherwise.
	PortalAccount(ctx context.Context, kind, id, email string) (PortalAccount, error)
	// CountAccountTokens counts the tokens of purpose an account was sent since.
	CountAccountTokens(ctx context.Context, kind, id, purpose string, since time.Time) (int, error)
	// AccountToken returns the unused token of purpose with hash.
	AccountToken(ctx context.Context, purpose string, hash []byte) (AccountToken, error)
	// InsertResetToken stores a reset token, voiding the account's older
	// ones, and queues msg, in one transaction.
	InsertResetToken(ctx context.Context, t AccountToken, msg Message) error
	// ResetPassword spends the token, sets the account's password hash,
	// lifts any sign-in lock and ends its sessions; ENotFound when the
	// token is spent or expired.
	ResetPassword(ctx context.Context, tokenID int64, kind, id, hash string) error
	// ChangePassword sets the account's password hash and ends its
	// sessions but the one whose hash is keep.
	ChangePassword(ctx context.Context, kind, id, hash string, keep []byte) error
}
