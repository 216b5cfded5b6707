package loyalty

import "time"

// StaffMember is a person who signs in to a business's console with a
// role. Until they accept their invitation they have no password.
type StaffMember struct {
	ID          string
	BusinessID  string
	Email       string
	Role        string
	InvitedBy   string // the e-mail of who invited them
	CreatedAt   time.Time
	JoinedAt    time.Time // zero while the invitation is pending
	LockedUntil time.Time
}

// Joined reports whether the member accepted the invitation.
func (m StaffMember) Joined() bool { return !m.JoinedAt.IsZero() }
