package loyalty

import "time"

// PortalAccount is an account of a web portal: a business's owner or
// staff, a developer, the service's support.
type PortalAccount struct {
	Kind       string
	ID         string
	BusinessID string // owners and staff
	Email      string
	Role       string // owners and staff
}

// Actor is the account as the audit log names it (business accounts).
func (p PortalAccount) Actor() Actor {
	return Actor{Kind: p.Kind, ID: p.ID, BusinessID: p.BusinessID, Email: p.Email, Role: p.Role}
}

// AccountToken is a single-use secret sent by e-mail to an account (an
// invitation, a password reset), kept as its hash.
type AccountToken struct {
	ID          int64
	Hash        []byte
	Purpose     string // TokenInvite or TokenReset
	AccountKind string
	AccountID   string
	CreatedAt   time.Time
	ExpiresAt   time.Time
}

// Purposes of account tokens.
const (
	TokenInvite = "invite"
	TokenReset  = "reset"
)
