package loyalty

import (
	"context"
	"slices"
	"time"
)

// Person is a user as the user API shows them: the person's own record,
// whether they chose a PIN, and which of their contacts are verified.
type Person struct {
	User
	HasPIN          bool
	EmailVerifiedAt time.Time
	PhoneVerifiedAt time.Time
}

// Program is what an Application Key opens for the user API: its
// businesses and, for a coalition key, the coalition.
type Program struct {
	Tenant        Tenant
	Name          string // the business's or the coalition's name
	CoalitionName string
	Businesses    []Business
}

// BusinessIDs returns the ids of the program's businesses.
func (p Program) BusinessIDs() []string {
	ids := make([]string, len(p.Businesses))
	for i, b := range p.Businesses {
		ids[i] = b.ID
	}
	return ids
}

// Country is how the program reads local phone numbers.
func (p Program) Country() string {
	if len(p.Businesses) > 0 {
		return p.Businesses[0].Country
	}
	return ""
}

// Membership is a person's standing with one business of a program.
type Membership struct {
	Business Business
	Balance  Balance
}

// UserReader reads people and what an Application Key opens to them.
type UserReader interface {
	// Program resolves a tenant into its businesses (and coalition name).
	Program(ctx context.Context, t Tenant) (Program, error)
	// Person returns a person's own record, or ENotFound.
	Person(ctx context.Context, id string) (Person, error)
	// Memberships returns the person's active memberships among
	// businessIDs, in the order of businessIDs, each with its balance.
	Memberships(ctx context.Context, userID string, businessIDs []string) ([]Membership, error)
}

// UserTx is the part of a transaction that changes people, their secrets
// and the outbox.
type UserTx interface {
	UserByEmail(ctx context.Context, email string) (User, error)
	UserByPhone(ctx context.Context, phone string) (User, error)
	InsertUser(ctx context.Context, u *User) error
	UpdateUser(ctx context.Context, u *User) error
	// Person returns a person's own record inside the transaction.
	Person(ctx context.Context, id string) (Person, error)
	// IsMember reports whether the person is an active customer of one of
	// businessIDs.
	IsMember(ctx context.Context, userID string, businessIDs []string) (bool, error)
	// SetUserPIN stores a PIN hash and lifts any sign-in lock.
	SetUserPIN(ctx context.Context, userID, hash string) error
	// RevokeUserTokens revokes every access and refresh token of a person
	// and ends their wallet sessions.
	RevokeUserTokens(ctx context.Context, userID string) error
	// SetContactVerified marks the person's e-mail or phone verified at at,
	// or unverified when at is zero.
	SetContactVerified(ctx context.Context, userID, kind string, at time.Time) error
	// InsertUserSecret stores a new secret and voids the unused secrets of
	// the same person and purpose (of the same target, for SecretVerify).
	InsertUserSecret(ctx context.Context, s *UserSecret) error
	// UserSecretByHash finds a secret of purpose by its hash.
	UserSecretByHash(ctx context.Context, purpose string, hash []byte) (UserSecret, error)
	// LatestUserSecret returns the person's newest secret of purpose.
	LatestUserSecret(ctx context.Context, userID, purpose string) (UserSecret, error)
	// CountResetSecrets counts the PIN-reset secrets a person was sent since.
	CountResetSecrets(ctx context.Context, userID string, since time.Time) (int, error)
	// CountSignInCodes counts the sign-in codes a person was sent since.
	CountSignInCodes(ctx context.Context, userID string, since time.Time) (int, error)
	// SpendUserSecret marks a secret used; it reports false when it already was.
	SpendUserSecret(ctx context.Context, id int64, at time.Time) (bool, error)
	// AddSecretTry counts one try of a code and returns the count.
	AddSecretTry(ctx context.Context, id int64) (int, error)
	// EnqueueMessage writes a message to the outbox, due now.
	EnqueueMessage(ctx context.Context, m *Message) error
}

// Hasher hashes the secrets the user service keeps: PINs with a slow
// password hash, tokens and codes with a keyed hash (oauth.Hasher).
type Hasher interface {
	Password(ctx context.Context, secret string) (string, error)
	Token(secret string) []byte
}

// allPages reads every page of a paged store read.
func allPages[T any](read func(q ListQuery) ([]T, int, error)) ([]T, error) {
	var out []T
	for page := 1; ; page++ {
		list, total, err := read(ListQuery{Page: page, PerPage: 100})
		if err != nil {
			return nil, err
		}
		out = append(out, list...)
		// The bound keeps one read finite whatever the catalog holds.
		if len(list) == 0 || len(out) >= total || page >= 100 {
			return out, nil
		}
	}
}

// memberOf returns the membership of the business with id, if any.
func memberOf(ms []Membership, id string) (Membership, bool) {
	i := slices.IndexFunc(ms, func(m Membership) bool { return m.Business.ID == id })
	if i < 0 {
		return Membership{}, false
	}
	return ms[i], true
}
