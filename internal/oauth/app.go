package oauth

import (
	"context"
	"net/url"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// APIs an app can call, and the one scope of each.
const (
	APIBusiness   = "business"
	APIUser       = "user"
	ScopeAdmin    = "admin"
	ScopeUser     = "user"
	GrantPassword = "password"
	GrantCode     = "authorization_code"
	GrantRefresh  = "refresh_token"
)

// App statuses.
const (
	AppPending   = "pending"
	AppApproved  = "approved"
	AppSuspended = "suspended"
)

// ScopeOf returns the only scope an API supports.
func ScopeOf(api string) string {
	if api == APIUser {
		return ScopeUser
	}
	return ScopeAdmin
}

// App is a registered third-party application.
type App struct {
	ID          string
	ClientID    string
	SecretHash  []byte
	Name        string
	Description string
	RedirectURI string
	GrantType   string
	API         string
	Status      string
	DeveloperID string // the developer who registered it; empty for apps support created
	CreatedAt   time.Time
}

// NewApp is what a developer or support gives to register an app.
type NewApp struct {
	Name        string
	Description string
	RedirectURI string
	GrantType   string
	API         string
	Approve     bool
	DeveloperID string // set when a developer registers the app in the portal
}

// CreatedApp is a registered app with its client secret, shown only once.
type CreatedApp struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
	Approved     bool   `json:"approved"`
}

// Validate checks the registration, naming each bad field.
func (n *NewApp) Validate() error {
	v := loyalty.Validation{}
	n.Name = strings.TrimSpace(n.Name)
	if n.Name == "" || len(n.Name) > 100 {
		v.Add("name", "The name is required (at most 100 characters).")
	}
	if len(n.Description) > 1000 {
		v.Add("description", "The description may not be greater than 1000 characters.")
	}
	if n.API != APIBusiness && n.API != APIUser {
		v.Add("api", "The api must be business or user.")
	}
	switch n.GrantType {
	case GrantPassword:
	case GrantCode:
		if n.API == APIUser {
			v.Add("grant", "User-API apps support only the password grant.")
		}
	default:
		v.Add("grant", "The grant must be password or authorization_code.")
	}
	if n.RedirectURI != "" || n.GrantType == GrantCode {
		u, err := url.Parse(n.RedirectURI)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Fragment != "" {
			v.Add("redirect_uri", "The callback URL must be an absolute http(s) URL without a fragment.")
		}
	}
	return v.Err()
}

// Store is the storage the authorization server needs.
type Store interface {
	PortalStore
	CodeStore
	InsertApp(ctx context.Context, a *App) error
	AppByClientID(ctx context.Context, clientID string) (App, error)
	// AppByID returns an app by its id (a token's AppID), or ENotFound.
	AppByID(ctx context.Context, id string) (App, error)
	SetAppStatus(ctx context.Context, clientID, status string) error
	// OwnerLogin finds a business owner by e-mail.
	OwnerLogin(ctx context.Context, email string) (Login, error)
	// UserLogin finds a person who is a customer of one of businessIDs, by
	// e-mail or E.164 phone.
	UserLogin(ctx context.Context, emailOrPhone string, businessIDs []string) (Login, error)
	// UserLoginByID finds a person by id who is a customer of one of
	// businessIDs.
	UserLoginByID(ctx context.Context, id string, businessIDs []string) (Login, error)
	// RecordLogin counts a failed sign-in, locking the account at the limit,
	// or clears the count after a good one.
	RecordLogin(ctx context.Context, kind, id string, ok bool, now time.Time) error
	InsertToken(ctx context.Context, t *Token) error
	// Access returns the token whose access hash matches, with its app's status.
	Access(ctx context.Context, accessHash []byte) (Token, error)
	// AccessForKey is Access that also resolves appKey into Token.Key.
	AccessForKey(ctx context.Context, accessHash []byte, appKey string) (Token, error)
	// Refresh returns the token whose refresh hash matches, without using it.
	Refresh(ctx context.Context, refreshHash []byte) (Token, error)
	// SpendRefresh marks the refresh token used and revokes its access
	// token, in one step. A token already spent is returned with Spent set
	// and its whole chain revoked.
	SpendRefresh(ctx context.Context, refreshHash []byte, now time.Time) (Token, error)
	// RevokeChain revokes every token pair of a chain (one grant and the
	// pairs rotated from it); pairs already revoked keep their time.
	RevokeChain(ctx context.Context, chainID string, now time.Time) error
	// RevokeToken revokes one token pair, access and refresh token.
	RevokeToken(ctx context.Context, id string, now time.Time) error
}

// Login is a sign-in candidate with its lock state.
type Login struct {
	Kind        string // "owner" or "user"
	ID          string
	BusinessID  string // the owner's business; empty for a user
	Hash        string // argon2id hash; empty when no PIN was ever set
	LockedUntil time.Time
}
