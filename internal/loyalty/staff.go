package loyalty

import (
	"context"
	"slices"
	"strings"
	"time"
)

// InvitationTTL is how long an invitation to join a business's staff can
// be accepted.
const InvitationTTL = 72 * time.Hour

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

// StaffService runs the rules of a business's staff: the owner invites
// people by e-mail with a role, changes roles and removes members; an
// invitation is accepted by choosing a password.
type StaffService struct {
	Store StaffStore
	Hash  Hasher
	// Notify, when set, wakes the outbox worker after a message was queued.
	Notify func()
}

// Actor returns who a console session acts as. A staff member's role is
// read at every request, so a change of role counts at once.
func (s *StaffService) Actor(ctx context.Context, kind, id, businessID, email string) (Actor, error) {
	a := Actor{Kind: kind, ID: id, BusinessID: businessID, Email: email, Role: RoleOwner}
	if kind == AccountOwner {
		return a, nil
	}
	m, err := s.Store.StaffMember(ctx, businessID, id)
	if ErrorCode(err) == ENotFound || (err == nil && !m.Joined()) {
		return Actor{}, Errorf(EUnauthorized, "Not signed in.")
	}
	a.Role = m.Role
	return a, err
}

// AccountKind says which business account signs in with email; an
// unknown address is an owner's, so a sign-in costs the same either way.
func (s *StaffService) AccountKind(ctx context.Context, email string) (string, error) {
	email, ok := NormalizeEmail(email)
	if !ok {
		return AccountOwner, nil
	}
	kind, err := s.Store.BusinessAccountKind(ctx, email)
	if ErrorCode(err) == ENotFound {
		return AccountOwner, nil
	}
	return kind, err
}

// List returns the staff of the actor's business.
func (s *StaffService) List(ctx context.Context, a Actor) ([]StaffMember, error) {
	if err := a.Require(PermStaff); err != nil {
		return nil, err
	}
	return s.Store.StaffMembers(ctx, a.BusinessID)
}

// StaffInvite is who the owner invites, and as what.
type StaffInvite struct {
	Email string
	Role  string
}

func validRole(v Validation, role string) {
	if !slices.Contains(StaffRoles, role) {
		v.Add("role", "The role must be manager or cashier.")
	}
}

// Invite adds a member to the staff of the actor's business and e-mails
// them an invitation: a single-use token, valid InvitationTTL, to choose
// a password with at acceptURL (a page address; may be empty).
func (s *StaffService) Invite(ctx context.Context, a Actor, in StaffInvite, acceptURL string) (StaffMember, error) {
	if err := a.Require(PermStaff); err != nil {
		return StaffMember{}, err
	}
	v := Validation{}
	email, ok := NormalizeEmail(in.Email)
	if !ok {
		v.Add("email", "Enter a valid e-mail address.")
	}
	validRole(v, in.Role)
	if err := v.Err(); err != nil {
		return StaffMember{}, err
	}
	if _, err := s.Store.BusinessAccountKind(ctx, email); err == nil {
		return StaffMember{}, Invalid("email", "This e-mail address already has a business account.")
	} else if ErrorCode(err) != ENotFound {
		return StaffMember{}, err
	}
	m := StaffMember{ID: NewID(), BusinessID: a.BusinessID, Email: email, Role: in.Role, InvitedBy: a.Email}
	return m, s.invite(ctx, a, &m, AuditStaffInvited, acceptURL)
}

// Reinvite sends a pending member a new invitation; the older ones stop
// working.
func (s *StaffService) Reinvite(ctx context.Context, a Actor, id, acceptURL string) (StaffMember, error) {
	m, err := s.member(ctx, a, id)
	if err != nil {
		return m, err
	}
	if m.Joined() {
		return m, Errorf(EConflict, "%s already accepted the invitation.", m.Email)
	}
	m.InvitedBy = a.Email
	return m, s.invite(ctx, a, &m, AuditStaffReinvited, acceptURL)
}

func (s *StaffService) invite(ctx context.Context, a Actor, m *StaffMember, action, acceptURL string) error {
	b, err := s.Store.Business(ctx, a.BusinessID)
	if err != nil {
		return err
	}
	token := newToken()
	t := AccountToken{Hash: s.Hash.Token(token), Purpose: TokenInvite, AccountKind: AccountStaff, AccountID: m.ID,
		ExpiresAt: s.Store.Now().Add(InvitationTTL)}
	msg := invitationMessage(b.Name, m.Email, m.Role, a.Email, acceptURL, token)
	err = audited(ctx, a, action, m.Email, nil, map[string]string{"role": m.Role}, func(ctx context.Context) error {
		return s.Store.InviteStaff(ctx, m, t, msg)
	})
	if err == nil && s.Notify != nil {
		s.Notify()
	}
	return err
}

// StaffInvitation is a live invitation as its page shows it.
type StaffInvitation struct {
	Token    AccountToken
	Member   StaffMember
	Business Business
}

// Invitation returns the live invitation that token opens; a token that
// is unknown, spent or expired is ENotFound.
func (s *StaffService) Invitation(ctx context.Context, token string) (StaffInvitation, error) {
	gone := Errorf(ENotFound, "This invitation is no longer valid: it was used, replaced or has expired. Ask the owner for a new one.")
	if token == "" {
		return StaffInvitation{}, gone
	}
	t, err := s.Store.AccountToken(ctx, TokenInvite, s.Hash.Token(token))
	if ErrorCode(err) == ENotFound {
		return StaffInvitation{}, gone
	} else if err != nil {
		return StaffInvitation{}, err
	}
	if !t.ExpiresAt.After(s.Store.Now()) {
		return StaffInvitation{}, gone
	}
	inv := StaffInvitation{Token: t}
	if inv.Member, err = s.memberByID(ctx, t.AccountID); err != nil {
		return inv, gone
	}
	if inv.Member.Joined() {
		return inv, gone
	}
	inv.Business, err = s.Store.Business(ctx, inv.Member.BusinessID)
	return inv, err
}

func (s *StaffService) memberByID(ctx context.Context, id string) (StaffMember, error) {
	// The token names the member; the business is read with it.
	return s.Store.StaffMember(ctx, "", id)
}

// Accept accepts an invitation with the password the member chose; the
// token works once.
func (s *StaffService) Accept(ctx context.Context, token, password string) (StaffMember, error) {
	if err := checkPassword(password); err != nil {
		return StaffMember{}, err
	}
	inv, err := s.Invitation(ctx, token)
	if err != nil {
		return StaffMember{}, err
	}
	hash, err := s.Hash.Password(ctx, password)
	if err != nil {
		return StaffMember{}, err
	}
	m := inv.Member
	a := Actor{Kind: AccountStaff, ID: m.ID, BusinessID: m.BusinessID, Email: m.Email, Role: m.Role}
	err = audited(ctx, a, AuditStaffJoined, m.Email, nil, nil, func(ctx context.Context) error {
		return s.Store.AcceptInvitation(ctx, inv.Token.ID, m.ID, hash)
	})
	if ErrorCode(err) == ENotFound {
		return m, Errorf(ENotFound, "This invitation is no longer valid: it was used, replaced or has expired. Ask the owner for a new one.")
	}
	return m, err
}

// SetRole changes a member's role.
func (s *StaffService) SetRole(ctx context.Context, a Actor, id, role string) (StaffMember, error) {
	v := Validation{}
	validRole(v, role)
	if err := v.Err(); err != nil {
		return StaffMember{}, err
	}
	m, err := s.member(ctx, a, id)
	if err != nil || m.Role == role {
		return m, err
	}
	err = audited(ctx, a, AuditStaffRole, m.Email, map[string]string{"role": m.Role}, map[string]string{"role": role},
		func(ctx context.Context) error { return s.Store.SetStaffRole(ctx, a.BusinessID, m.ID, m.Role, role) })
	m.Role = role
	return m, err
}

// Remove takes a member off the staff: their sessions end at once.
func (s *StaffService) Remove(ctx context.Context, a Actor, id string) (StaffMember, error) {
	m, err := s.member(ctx, a, id)
	if err != nil {
		return m, err
	}
	return m, audited(ctx, a, AuditStaffRemoved, m.Email, map[string]string{"role": m.Role}, nil,
		func(ctx context.Context) error { return s.Store.RemoveStaff(ctx, a.BusinessID, m.ID) })
}

// Member returns one member of the actor's staff.
func (s *StaffService) Member(ctx context.Context, a Actor, id string) (StaffMember, error) {
	return s.member(ctx, a, id)
}

func (s *StaffService) member(ctx context.Context, a Actor, id string) (StaffMember, error) {
	if err := a.Require(PermStaff); err != nil {
		return StaffMember{}, err
	}
	if !ValidID(id) {
		return StaffMember{}, Errorf(ENotFound, "Staff member not found.")
	}
	return s.Store.StaffMember(ctx, a.BusinessID, id)
}

// checkPassword holds a console password to the portals' rule.
func checkPassword(p string) error {
	if len(p) < 10 || len(p) > 200 || strings.TrimSpace(p) == "" {
		return Invalid("password", "The password must have 10 to 200 characters.")
	}
	return nil
}
