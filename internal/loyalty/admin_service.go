package loyalty

import (
	"context"
	"strings"
	"time"
)

// AdminService runs the operations on businesses, coalitions and their
// Application Keys that support's command line and the portals share, so
// each operation has one path whichever door it comes through.
type AdminService struct {
	Store AdminStore
	Hash  PasswordHasher
	// Notify, when set, is called after a message was queued (it wakes an
	// outbox worker running in this process).
	Notify func()
}

// PasswordHasher hashes passwords for storage (oauth.Hasher is one).
type PasswordHasher interface {
	Password(ctx context.Context, password string) (string, error)
}

// CreatedCoalition is what creating a coalition yields.
type CreatedCoalition struct {
	CoalitionID    string
	ApplicationKey string
}

// BusinessSummary is a business as support sees it: its owner and its
// live Application Key.
type BusinessSummary struct {
	ID             string
	Name           string
	LoyaltyType    string
	Country        string
	CoalitionID    string // empty when the business stands alone
	OwnerID        string
	OwnerEmail     string
	OwnerLocked    time.Time // the owner cannot sign in before then (zero: not locked)
	ApplicationKey string
	CreatedAt      time.Time
}

// CoalitionSummary is a coalition with its live key and member count.
type CoalitionSummary struct {
	ID             string
	Name           string
	ApplicationKey string
	Members        int
	CreatedAt      time.Time
}

// OwnerReset is what resetting an owner's password did.
type OwnerReset struct {
	BusinessID string
	OwnerID    string
	OwnerEmail string
	Emailed    bool // a new password was generated and queued to the owner
}

// CreateCoalition creates a coalition of businesses with its Application Key.
func (s *AdminService) CreateCoalition(ctx context.Context, name string) (CreatedCoalition, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 200 {
		return CreatedCoalition{}, Invalid("name", "The name is required (at most 200 characters).")
	}
	key := NewToken()
	id, err := s.Store.CreateCoalition(ctx, name, key)
	if err != nil {
		return CreatedCoalition{}, err
	}
	return CreatedCoalition{CoalitionID: id, ApplicationKey: key}, nil
}

// CreateBusiness creates a business with its owner, main branch and
// Application Key.
func (s *AdminService) CreateBusiness(ctx context.Context, n NewBusiness) (CreatedBusiness, error) {
	if err := n.Validate(); err != nil {
		return CreatedBusiness{}, err
	}
	hash, err := s.Hash.Password(ctx, n.OwnerPassword)
	if err != nil {
		return CreatedBusiness{}, err
	}
	return s.Store.CreateBusiness(ctx, n, hash, NewToken())
}

// Businesses lists every business, oldest first.
func (s *AdminService) Businesses(ctx context.Context) ([]BusinessSummary, error) {
	return s.Store.BusinessSummaries(ctx)
}

// Business finds a business by its id or by its owner's e-mail address.
func (s *AdminService) Business(ctx context.Context, idOrEmail string) (BusinessSummary, error) {
	ref := strings.TrimSpace(idOrEmail)
	if strings.Contains(ref, "@") {
		email, ok := NormalizeEmail(ref)
		if !ok {
			return BusinessSummary{}, Errorf(ENotFound, "Business with the owner e-mail %q not found.", ref)
		}
		b, err := s.Store.BusinessSummary(ctx, "", email)
		if ErrorCode(err) == ENotFound {
			return b, Errorf(ENotFound, "Business with the owner e-mail %q not found.", ref)
		}
		return b, err
	}
	if !ValidID(ref) {
		return BusinessSummary{}, Errorf(ENotFound, "Business %q not found.", ref)
	}
	b, err := s.Store.BusinessSummary(ctx, ref, "")
	if ErrorCode(err) == ENotFound {
		return b, Errorf(ENotFound, "Business %q not found.", ref)
	}
	return b, err
}

// Empty reports whether no business exists yet: a new installation.
func (s *AdminService) Empty(ctx context.Context) (bool, error) {
	has, err := s.Store.HasBusinesses(ctx)
	return !has, err
}

// Coalitions lists every coalition, oldest first.
func (s *AdminService) Coalitions(ctx context.Context) ([]CoalitionSummary, error) {
	return s.Store.Coalitions(ctx)
}

// ApplicationKey returns the live Application Key of a business.
func (s *AdminService) ApplicationKey(ctx context.Context, businessID string) (string, error) {
	return s.Store.ApplicationKey(ctx, businessID)
}

// RotateKey gives a business a new Application Key and returns it; the
// old key stops working at once.
func (s *AdminService) RotateKey(ctx context.Context, businessID string) (string, error) {
	if !ValidID(businessID) {
		return "", Errorf(ENotFound, "Business %q not found.", businessID)
	}
	if _, err := s.Business(ctx, businessID); err != nil {
		return "", err
	}
	key := NewToken()
	if err := s.Store.RotateKey(ctx, Tenant{BusinessID: businessID}, key); err != nil {
		return "", err
	}
	return key, nil
}

// ResetOwnerPassword gives the owner of a business (found by id or owner
// e-mail) a new password, lifts any sign-in lock and ends the owner's
// portal sessions; tokens already issued to apps stay valid. With an empty
// password a random one is generated and e-mailed to the owner through
// the outbox; a given password is set as it is and nothing is sent.
func (s *AdminService) ResetOwnerPassword(ctx context.Context, business, password string) (OwnerReset, error) {
	emailed := password == ""
	if emailed {
		password = NewToken()[:20]
	} else if len(password) < 8 || len(password) > 200 {
		return OwnerReset{}, Invalid("password", "The password must have 8 to 200 characters.")
	}
	b, err := s.Business(ctx, business)
	if err != nil {
		return OwnerReset{}, err
	}
	if b.OwnerID == "" {
		return OwnerReset{}, Errorf(ENotFound, "The business %s has no owner.", b.ID)
	}
	hash, err := s.Hash.Password(ctx, password)
	if err != nil {
		return OwnerReset{}, err
	}
	var m *Message
	if emailed {
		m = ownerPasswordMessage(b, password)
	}
	if err := s.Store.SetOwnerPassword(ctx, b.OwnerID, hash, m); err != nil {
		return OwnerReset{}, err
	}
	if m != nil && s.Notify != nil {
		s.Notify()
	}
	return OwnerReset{BusinessID: b.ID, OwnerID: b.OwnerID, OwnerEmail: b.OwnerEmail, Emailed: emailed}, nil
}

// ownerPasswordMessage tells an owner the password support set for them.
func ownerPasswordMessage(b BusinessSummary, password string) *Message {
	return &Message{Channel: ChannelEmail, To: b.OwnerEmail, Subject: "Your new " + b.Name + " password",
		Body: Greeting("") + "Loyalty support reset the password of the owner account of " + b.Name +
			". Sign in to the business portal (/business) with your e-mail address and this password:\n\n" +
			"Password: " + password + "\n\n" +
			"If you did not ask for this, contact Loyalty support.\n"}
}
