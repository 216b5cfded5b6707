package oauth

import (
	"context"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// Support's operations on apps and support accounts, shared by the
// command line and the support portal.

// SupportAccount is a support staff member who signs in to /support.
type SupportAccount struct {
	ID          string
	Email       string
	LockedUntil time.Time // zero when not locked
	CreatedAt   time.Time
}

// App returns one app, with who registered it.
func (s *Server) App(ctx context.Context, clientID string) (ListedApp, error) {
	if !loyalty.ValidID(clientID) {
		return ListedApp{}, appNotFound(clientID)
	}
	a, err := s.Store.ListedApp(ctx, clientID)
	if loyalty.ErrorCode(err) == loyalty.ENotFound {
		return a, appNotFound(clientID)
	}
	return a, err
}

// Unsuspend lets a suspended app obtain and use tokens again. An app that
// is not suspended is left as it is: a pending one waits for approval.
func (s *Server) Unsuspend(ctx context.Context, clientID string) error {
	a, err := s.App(ctx, clientID)
	if err != nil {
		return err
	}
	if a.Status != AppSuspended {
		return loyalty.Errorf(loyalty.EConflict, "The app %s is %s, not suspended.", clientID, a.Status)
	}
	return s.SetAppStatus(ctx, clientID, AppApproved)
}

// DeleteApp removes an app with its tokens, codes and connections. An
// approved app must be suspended first, so that a live integration is not
// removed by a slip.
func (s *Server) DeleteApp(ctx context.Context, clientID string) error {
	a, err := s.App(ctx, clientID)
	if err != nil {
		return err
	}
	if a.Status == AppApproved {
		return loyalty.Errorf(loyalty.EConflict, "The app %s is approved: suspend it before deleting it.", clientID)
	}
	return s.Store.DeleteApp(ctx, a.ID)
}

// SupportAccounts lists the support accounts, oldest first.
func (s *Server) SupportAccounts(ctx context.Context) ([]SupportAccount, error) {
	return s.Store.SupportAccounts(ctx)
}

// DeleteSupport removes the support account with the given id or e-mail
// and ends its sessions.
func (s *Server) DeleteSupport(ctx context.Context, idOrEmail string) (SupportAccount, error) {
	ref := strings.TrimSpace(idOrEmail)
	email, isEmail := loyalty.NormalizeEmail(ref)
	all, err := s.Store.SupportAccounts(ctx)
	if err != nil {
		return SupportAccount{}, err
	}
	for _, a := range all {
		if a.ID == ref || (isEmail && a.Email == email) {
			return a, s.Store.DeleteSupport(ctx, a.ID)
		}
	}
	return SupportAccount{}, loyalty.Errorf(loyalty.ENotFound, "Support account %q not found.", ref)
}

func appNotFound(clientID string) error {
	return loyalty.Errorf(loyalty.ENotFound, "App %q not found.", clientID)
}
