package oauth

import (
	"context"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// PortalStore is the storage of the web portals: accounts, sessions, the
// apps developers registered, and the apps each business let in.
type PortalStore interface {
	// InsertAccount stores a developer or support account (login.Kind).
	InsertAccount(ctx context.Context, login Login, email, name string, now time.Time) error
	// AccountLogin finds a developer or support account by e-mail.
	AccountLogin(ctx context.Context, kind, email string) (Login, error)
	// InsertSession stores a session under the hash of its cookie value,
	// and drops expired ones.
	InsertSession(ctx context.Context, hash []byte, s Session) error
	// SessionByHash returns a session; LastSeen is its sign-in time until
	// it was first touched.
	SessionByHash(ctx context.Context, hash []byte) (Session, error)
	// TouchSession records that a session was used at now.
	TouchSession(ctx context.Context, hash []byte, now time.Time) error
	DeleteSession(ctx context.Context, hash []byte) error
	// DeveloperApps lists a developer's apps, newest first.
	DeveloperApps(ctx context.Context, developerID string) ([]App, error)
	// DeveloperApp returns one app of a developer, or ENotFound.
	DeveloperApp(ctx context.Context, developerID, clientID string) (App, error)
	// SetAppSecret replaces the secret hash of a developer's app.
	SetAppSecret(ctx context.Context, developerID, clientID string, hash []byte) error
	// ListApps lists every app for support, pending ones first.
	ListApps(ctx context.Context) ([]ListedApp, error)
	// ListedApp returns one app as ListApps shows it, or ENotFound.
	ListedApp(ctx context.Context, clientID string) (ListedApp, error)
	// DeleteApp removes an app with its tokens, codes and connections.
	DeleteApp(ctx context.Context, appID string) error
	// SupportAccounts lists the support accounts, oldest first.
	SupportAccounts(ctx context.Context) ([]SupportAccount, error)
	// DeleteSupport removes a support account and its sessions, or
	// returns ENotFound.
	DeleteSupport(ctx context.Context, id string) error
	// Connections lists the apps that hold live tokens for a business or
	// that its owner let in.
	Connections(ctx context.Context, businessID string, now time.Time) ([]Connection, error)
	// RevokeConnection withdraws an app's access to a business: its
	// consent, its tokens and its unused codes.
	RevokeConnection(ctx context.Context, businessID, appID string, now time.Time) error
}

// ListedApp is an app as support sees it, with who registered it.
type ListedApp struct {
	App
	DeveloperEmail string
}

// Connection is an app with access to a business.
type Connection struct {
	App       App
	Since     time.Time // first consent or oldest live token
	Tokens    int       // live token pairs
	Consented bool      // the owner approved it on the consent page
}

// RegisterApp registers an app for a developer; it waits for support's
// approval. The client secret is in the result and nowhere else.
func (s *Server) RegisterApp(ctx context.Context, developerID string, n NewApp) (CreatedApp, error) {
	n.DeveloperID, n.Approve = developerID, false
	return s.CreateApp(ctx, n)
}

// DeveloperApps lists the apps of a developer.
func (s *Server) DeveloperApps(ctx context.Context, developerID string) ([]App, error) {
	return s.Store.DeveloperApps(ctx, developerID)
}

// DeveloperApp returns one app of a developer; another's app is ENotFound.
func (s *Server) DeveloperApp(ctx context.Context, developerID, clientID string) (App, error) {
	if !loyalty.ValidID(clientID) {
		return App{}, loyalty.Errorf(loyalty.ENotFound, "App not found.")
	}
	return s.Store.DeveloperApp(ctx, developerID, clientID)
}

// RegenerateSecret gives a developer's app a new client secret and
// returns it; the old one stops working at once. Tokens already issued
// stay valid.
func (s *Server) RegenerateSecret(ctx context.Context, developerID, clientID string) (string, error) {
	if !loyalty.ValidID(clientID) {
		return "", loyalty.Errorf(loyalty.ENotFound, "App not found.")
	}
	secret := RandomToken()
	if err := s.Store.SetAppSecret(ctx, developerID, clientID, s.Hash.Token(secret)); err != nil {
		return "", err
	}
	return secret, nil
}

// ListApps lists every app for support.
func (s *Server) ListApps(ctx context.Context) ([]ListedApp, error) { return s.Store.ListApps(ctx) }

// SetAppStatus approves or suspends an app. A suspended app's tokens stop
// working at once (Authenticate checks the app's status) and it gets no
// new ones; approving it again brings them back.
func (s *Server) SetAppStatus(ctx context.Context, clientID, status string) error {
	if status != AppApproved && status != AppSuspended {
		return loyalty.Invalid("status", "The status must be approved or suspended.")
	}
	if !loyalty.ValidID(clientID) {
		return loyalty.Errorf(loyalty.ENotFound, "App not found.")
	}
	return s.Store.SetAppStatus(ctx, clientID, status)
}

// Connections lists the apps with access to a business.
func (s *Server) Connections(ctx context.Context, businessID string) ([]Connection, error) {
	return s.Store.Connections(ctx, businessID, s.now())
}

// AuditedBy returns a copy of the server whose store's transactions write
// r's audit entry (loyalty.AuditedStore), for a console action.
func (s *Server) AuditedBy(r *loyalty.AuditRecord) any {
	c := *s
	c.Store = loyalty.AuditedStore(s.Store, r)
	return &c
}

// AuditRecord is the audit record the server's store writes, if any.
func (s *Server) AuditRecord() *loyalty.AuditRecord {
	if a, ok := s.Store.(interface{ AuditRecord() *loyalty.AuditRecord }); ok {
		return a.AuditRecord()
	}
	return nil
}

// RevokeConnection withdraws an app's access to a business: its access
// and refresh tokens stop working and its unused codes are void (spec
// section 3, "user revokes the app").
func (s *Server) RevokeConnection(ctx context.Context, businessID, appID string) error {
	if !loyalty.ValidID(appID) {
		return loyalty.Errorf(loyalty.ENotFound, "App not found.")
	}
	return s.Store.RevokeConnection(ctx, businessID, appID, s.now())
}
