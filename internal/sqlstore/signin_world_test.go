package sqlstore_test

import (
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// signInWorld is an owner who signs in with a password through an
// authorization server on db, and what the lookups of the ledger need.
type signInWorld struct {
	db     *sqlstore.DB
	srv    *oauth.Server
	hasher *oauth.Hasher
	biz    loyalty.CreatedBusiness
	owner  string
	app    oauth.CreatedApp
}

const cachePassword = "correct horse battery"

func newSignInWorld(t *testing.T, db *sqlstore.DB) *signInWorld {
	t.Helper()
	w := &signInWorld{db: db, hasher: oauth.NewHasher([]byte("cache test key"))}
	var err error
	if w.srv, err = oauth.NewServer(ctx, db, w.hasher); err != nil {
		t.Fatal(err)
	}
	hash, err := w.hasher.Password(ctx, cachePassword)
	if err != nil {
		t.Fatal(err)
	}
	id := loyalty.NewID()
	w.owner = "owner-" + id + "@shop.example"
	w.biz, err = db.CreateBusiness(ctx, loyalty.NewBusiness{Name: "Shop", LoyaltyType: loyalty.PerSpend, Country: "US",
		OwnerEmail: w.owner, OwnerPassword: cachePassword}, hash, "key-"+id)
	if err != nil {
		t.Fatal(err)
	}
	w.app, err = w.srv.CreateApp(ctx, oauth.NewApp{Name: "Till", GrantType: oauth.GrantPassword, API: oauth.APIBusiness, Approve: true})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// signIn asks for a token with the owner's password.
func (w *signInWorld) signIn(password string) (oauth.TokenResponse, error) {
	return w.srv.Token(ctx, oauth.TokenRequest{GrantType: oauth.GrantPassword, ClientID: w.app.ClientID,
		ClientSecret: w.app.ClientSecret, Username: w.owner, Password: password, Scope: oauth.ScopeAdmin,
		Tenant: loyalty.Tenant{Key: w.biz.ApplicationKey, BusinessID: w.biz.BusinessID}, AppKeyForm: w.biz.ApplicationKey})
}

// lookup is the ledger route's token lookup of access sent with key.
func (w *signInWorld) lookup(t *testing.T, access, key string) (oauth.Token, loyalty.Business) {
	t.Helper()
	got, b, err := w.db.AccessWithBusiness(ctx, w.hasher.Token(access), key)
	if err != nil {
		t.Fatalf("AccessWithBusiness: %v", err)
	}
	return got, b
}
