package oauth_test

import (
	"errors"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
)

func TestNewAppValidate(t *testing.T) {
	valid := func() oauth.NewApp {
		return oauth.NewApp{Name: " Till ", GrantType: oauth.GrantCode, API: oauth.APIBusiness, RedirectURI: "https://till.example/cb"}
	}
	n := valid()
	if err := n.Validate(); err != nil || n.Name != "Till" {
		t.Fatalf("Validate = %v, name %q", err, n.Name)
	}
	pw := oauth.NewApp{Name: "Kiosk", GrantType: oauth.GrantPassword, API: oauth.APIUser}
	if err := pw.Validate(); err != nil {
		t.Errorf("a password app needs no callback: %v", err)
	}
	for _, c := range []struct {
		field string
		edit  func(*oauth.NewApp)
	}{
		{"name", func(n *oauth.NewApp) { n.Name = "  " }},
		{"api", func(n *oauth.NewApp) { n.API = "admin" }},
		{"grant", func(n *oauth.NewApp) { n.GrantType = "client_credentials" }},
		{"grant", func(n *oauth.NewApp) { n.API = oauth.APIUser }},
		{"redirect_uri", func(n *oauth.NewApp) { n.RedirectURI = "" }},
		{"redirect_uri", func(n *oauth.NewApp) { n.RedirectURI = "/cb" }},
		{"redirect_uri", func(n *oauth.NewApp) { n.RedirectURI = "ftp://till.example/cb" }},
		{"redirect_uri", func(n *oauth.NewApp) { n.RedirectURI = "https://till.example/cb#frag" }},
	} {
		n := valid()
		c.edit(&n)
		err := n.Validate()
		var e *loyalty.Error
		if !errors.As(err, &e) || e.Code != loyalty.EInvalid || len(e.Fields[c.field]) == 0 {
			t.Errorf("%s: Validate() = %v, want EInvalid naming it", c.field, err)
		}
	}
}

func TestScopeOf(t *testing.T) {
	if oauth.ScopeOf(oauth.APIUser) != oauth.ScopeUser || oauth.ScopeOf(oauth.APIBusiness) != oauth.ScopeAdmin {
		t.Errorf("ScopeOf: user %q, business %q", oauth.ScopeOf(oauth.APIUser), oauth.ScopeOf(oauth.APIBusiness))
	}
}
