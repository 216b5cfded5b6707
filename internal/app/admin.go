package app

import (
	"context"
	"strings"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
)

// CreatedCoalition is what creating a coalition yields.
type CreatedCoalition struct {
	CoalitionID    string `json:"coalition_id"`
	ApplicationKey string `json:"application_key"`
}

// CreateCoalition creates a coalition of businesses with its Application Key.
func (a *App) CreateCoalition(ctx context.Context, name string) (CreatedCoalition, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 200 {
		return CreatedCoalition{}, loyalty.Invalid("name", "The name is required (at most 200 characters).")
	}
	key := oauth.RandomToken()
	id, err := a.DB.CreateCoalition(ctx, name, key)
	return CreatedCoalition{CoalitionID: id, ApplicationKey: key}, err
}

// CreateBusiness creates a business with its owner, main branch and
// Application Key.
func (a *App) CreateBusiness(ctx context.Context, n loyalty.NewBusiness) (loyalty.CreatedBusiness, error) {
	if err := n.Validate(); err != nil {
		return loyalty.CreatedBusiness{}, err
	}
	hash, err := a.Hasher.Password(ctx, n.OwnerPassword)
	if err != nil {
		return loyalty.CreatedBusiness{}, err
	}
	return a.DB.CreateBusiness(ctx, n, hash, oauth.RandomToken())
}

// CreateApp registers an app; its secret is in the result and nowhere else.
func (a *App) CreateApp(ctx context.Context, n oauth.NewApp) (oauth.CreatedApp, error) {
	return a.OAuth.CreateApp(ctx, n)
}

// ApproveApp lets a registered app obtain tokens.
func (a *App) ApproveApp(ctx context.Context, clientID string) error {
	return a.DB.SetAppStatus(ctx, clientID, oauth.AppApproved)
}
