package console

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// InvitationTTL is how long an invitation to join a business's staff can
// be accepted.
const InvitationTTL = 72 * time.Hour

// StaffService runs the rules of a business's staff: the owner invites
// people by e-mail with a role, changes roles and removes members; an
// invitation is accepted by choosing a password.
type StaffService struct {
	Store loyalty.StaffStore
	Hash  loyalty.Hasher
	// Notify, when set, wakes the outbox worker after a message was queued.
	Notify func()
}

// Actor returns who a console session acts as. A staff member's role is
// read at every request, so a change of role counts at once.
func (s *StaffService) Actor(ctx context.Context, kind, id, businessID, email string) (loyalty.Actor, error) {
	a := loyalty.Actor{Kind: kind, ID: id, BusinessID: businessID, Email: email, Role: loyalty.RoleOwner}
	if kind == loyalty.AccountOwner {
		return a, nil
	}
	m, err := s.Store.StaffMember(ctx, businessID, id)
	if loyalty.ErrorCode(err) == loyalty.ENotFound || (err == nil && !m.Joined()) {
		return loyalty.Actor{}, loyalty.Errorf(loyalty.EUnauthorized, "Not signed in.")
	}
	a.Role = m.Role
	return a, err
}

// AccountKind says which business account signs in with email; an
// unknown address is an owner's, so a sign-in costs the same either way.
func (s *StaffService) AccountKind(ctx context.Context, email string) (string, error) {
	email, ok := loyalty.NormalizeEmail(email)
	if !ok {
		return loyalty.AccountOwner, nil
	}
	kind, err := s.Store.BusinessAccountKind(ctx, email)
	if loyalty.ErrorCode(err) == loyalty.ENotFound {
		return loyalty.AccountOwner, nil
	}
	return kind, err
}

// List returns the staff of the actor's business.
func (s *StaffService) List(ctx context.Context, a loyalty.Actor) ([]loyalty.StaffMember, error) {
	if err := a.Require(loyalty.PermStaff); err != nil {
		return nil, err
	}
	return s.Store.StaffMembers(ctx, a.BusinessID)
}

// StaffInvite is who the owner invites, and as what.
type StaffInvite struct {
	Email string
	Role  string
}

func validRole(v loyalty.Validation, role string) {
	if !slices.Contains(loyalty.StaffRoles, role) {
		v.Add("role", "The role must be manager or cashier.")
	}
}

// Invite adds a member to the staff of the actor's business and e-mails
// them an invitation: a single-use token, valid InvitationTTL, to choose
// a password with at acceptURL (a page address; may be empty).
func (s *StaffService) Invite(ctx context.Context, a loyalty.Actor, in StaffInvite, acceptURL string) (loyalty.StaffMember, error) {
	if err := a.Require(loyalty.PermStaff); err != nil {
		return loyalty.StaffMember{}, err
	}
	v := loyalty.Validation{}
	email, ok := loyalty.NormalizeEmail(in.Email)
	if !ok {
		v.Add("email", "Enter a valid e-mail address.")
	}
	validRole(v, in.Role)
	if err := v.Err(); err != nil {
		return loyalty.StaffMember{}, err
	}
	if _, err := s.Store.BusinessAccountKind(ctx, email); err == nil {
		return loyalty.StaffMember{}, loyalty.Invalid("email", "This e-mail address already has a business account.")
	} else if loyalty.ErrorCode(err) != loyalty.ENotFound {
		return loyalty.StaffMember{}, err
	}
	m := loyalty.StaffMember{ID: loyalty.NewID(), BusinessID: a.BusinessID, Email: email, Role: in.Role, InvitedBy: a.Email}
	return m, s.invite(ctx, a, &m, loyalty.AuditStaffInvited, acceptURL)
}

// Reinvite sends a pending member a new invitation; the older ones stop
// working.
func (s *StaffService) Reinvite(ctx context.Context, a loyalty.Actor, id, acceptURL string) (loyalty.StaffMember, error) {
	m, err := s.member(ctx, a, id)
	if err != nil {
		return m, err
	}
	if m.Joined() {
		return m, loyalty.Errorf(loyalty.EConflict, "%s already accepted the invitation.", m.Email)
	}
	m.InvitedBy = a.Email
	return m, s.invite(ctx, a, &m, loyalty.AuditStaffReinvited, acceptURL)
}

func (s *StaffService) invite(ctx context.Context, a loyalty.Actor, m *loyalty.StaffMember, action, acceptURL string) error {
	b, err := s.Store.Business(ctx, a.BusinessID)
	if err != nil {
		return err
	}
	token := loyalty.NewToken()
	t := loyalty.AccountToken{Hash: s.Hash.Token(token), Purpose: loyalty.TokenInvite, AccountKind: loyalty.AccountStaff, AccountID: m.ID,
		ExpiresAt: s.Store.Now().Add(InvitationTTL)}
	msg := invitationMessage(b.Name, m.Email, m.Role, a.Email, acceptURL, token)
	err = loyalty.Audited(a, action, m.Email, nil, map[string]string{"role": m.Role}, func(r *loyalty.AuditRecord) error {
		return loyalty.AuditedStore(s.Store, r).InviteStaff(ctx, m, t, msg)
	})
	if err == nil && s.Notify != nil {
		s.Notify()
	}
	return err
}

// StaffInvitation is a live invitation as its page shows it.
type StaffInvitation struct {
	Token    loyalty.AccountToken
	Member   loyalty.StaffMember
	Business loyalty.Business
}

// Invitation returns the live invitation that token opens; a token that
// is unknown, spent or expired is ENotFound.
func (s *StaffService) Invitation(ctx context.Context, token string) (StaffInvitation, error) {
	gone := loyalty.Errorf(loyalty.ENotFound, "This invitation is no longer valid: it was used, replaced or has expired. Ask the owner for a new one.")
	if token == "" {
		return StaffInvitation{}, gone
	}
	t, err := s.Store.AccountToken(ctx, loyalty.TokenInvite, s.Hash.Token(token))
	if loyalty.ErrorCode(err) == loyalty.ENotFound {
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

func (s *StaffService) memberByID(ctx context.Context, id string) (loyalty.StaffMember, error) {
	// The token names the member; the business is read with it.
	return s.Store.StaffMember(ctx, "", id)
}

// Accept accepts an invitation with the password the member chose; the
// token works once.
func (s *StaffService) Accept(ctx context.Context, token, password string) (loyalty.StaffMember, error) {
	if err := checkPassword(password); err != nil {
		return loyalty.StaffMember{}, err
	}
	inv, err := s.Invitation(ctx, token)
	if err != nil {
		return loyalty.StaffMember{}, err
	}
	hash, err := s.Hash.Password(ctx, password)
	if err != nil {
		return loyalty.StaffMember{}, err
	}
	m := inv.Member
	a := loyalty.Actor{Kind: loyalty.AccountStaff, ID: m.ID, BusinessID: m.BusinessID, Email: m.Email, Role: m.Role}
	err = loyalty.Audited(a, loyalty.AuditStaffJoined, m.Email, nil, nil, func(r *loyalty.AuditRecord) error {
		return loyalty.AuditedStore(s.Store, r).AcceptInvitation(ctx, inv.Token.ID, m.ID, hash)
	})
	if loyalty.ErrorCode(err) == loyalty.ENotFound {
		return m, loyalty.Errorf(loyalty.ENotFound, "This invitation is no longer valid: it was used, replaced or has expired. Ask the owner for a new one.")
	}
	return m, err
}

// SetRole changes a member's role.
func (s *StaffService) SetRole(ctx context.Context, a loyalty.Actor, id, role string) (loyalty.StaffMember, error) {
	v := loyalty.Validation{}
	validRole(v, role)
	if err := v.Err(); err != nil {
		return loyalty.StaffMember{}, err
	}
	m, err := s.member(ctx, a, id)
	if err != nil || m.Role == role {
		return m, err
	}
	err = loyalty.Audited(a, loyalty.AuditStaffRole, m.Email, map[string]string{"role": m.Role}, map[string]string{"role": role},
		func(r *loyalty.AuditRecord) error {
			return loyalty.AuditedStore(s.Store, r).SetStaffRole(ctx, a.BusinessID, m.ID, m.Role, role)
		})
	m.Role = role
	return m, err
}

// Remove takes a member off the staff: their sessions end at once.
func (s *StaffService) Remove(ctx context.Context, a loyalty.Actor, id string) (loyalty.StaffMember, error) {
	m, err := s.member(ctx, a, id)
	if err != nil {
		return m, err
	}
	return m, loyalty.Audited(a, loyalty.AuditStaffRemoved, m.Email, map[string]string{"role": m.Role}, nil,
		func(r *loyalty.AuditRecord) error {
			return loyalty.AuditedStore(s.Store, r).RemoveStaff(ctx, a.BusinessID, m.ID)
		})
}

// Member returns one member of the actor's staff.
func (s *StaffService) Member(ctx context.Context, a loyalty.Actor, id string) (loyalty.StaffMember, error) {
	return s.member(ctx, a, id)
}

func (s *StaffService) member(ctx context.Context, a loyalty.Actor, id string) (loyalty.StaffMember, error) {
	if err := a.Require(loyalty.PermStaff); err != nil {
		return loyalty.StaffMember{}, err
	}
	if !loyalty.ValidID(id) {
		return loyalty.StaffMember{}, loyalty.Errorf(loyalty.ENotFound, "Staff member not found.")
	}
	return s.Store.StaffMember(ctx, a.BusinessID, id)
}

// checkPassword holds a console password to the portals' rule.
func checkPassword(p string) error {
	if len(p) < 10 || len(p) > 200 || strings.TrimSpace(p) == "" {
		return loyalty.Invalid("password", "The password must have 10 to 200 characters.")
	}
	return nil
}
