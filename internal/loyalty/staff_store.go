package loyalty

import (
	"context"
	"time"
)

// StaffStore keeps a business's staff and their invitations.
type StaffStore interface {
	// Now is the store's clock, as a change would read it.
	Now() time.Time
	Business(ctx context.Context, id string) (Business, error)
	// BusinessAccountKind says which business account signs in with
	// email: AccountOwner, AccountStaff, or ENotFound.
	BusinessAccountKind(ctx context.Context, email string) (string, error)
	// StaffMembers lists a business's staff, oldest first.
	StaffMembers(ctx context.Context, businessID string) ([]StaffMember, error)
	// StaffMember returns one member of a business's staff (of any
	// business when businessID is empty), or ENotFound.
	StaffMember(ctx context.Context, businessID, id string) (StaffMember, error)
	// InviteStaff stores m (new when its CreatedAt is zero, pending
	// otherwise) with a new invitation token, voiding its older ones, and
	// queues msg, in one transaction.
	InviteStaff(ctx context.Context, m *StaffMember, t AccountToken, msg Message) error
	// AccountToken returns the unused token of purpose with hash, expired
	// or not; ENotFound otherwise.
	AccountToken(ctx context.Context, purpose string, hash []byte) (AccountToken, error)
	// AcceptInvitation spends the invitation token and gives the member
	// the password hash; ENotFound when the token is spent or expired.
	AcceptInvitation(ctx context.Context, tokenID int64, staffID, passwordHash string) error
	// SetStaffRole changes a member's role from one to the other;
	// EConflict when the role is no longer from.
	SetStaffRole(ctx context.Context, businessID, id, from, to string) error
	// RemoveStaff deletes a member with its sessions and tokens.
	RemoveStaff(ctx context.Context, businessID, id string) error
}
