package loyalty_test

import (
	"strings"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
)

func TestNormalizeEmail(t *testing.T) {
	good := map[string]string{
		"ann@example.com":         "ann@example.com",
		"  Ann.Lee@Example.COM  ": "ann.lee@example.com",
		"a+tag@sub.example.co.uk": "a+tag@sub.example.co.uk",
		"o'brien@example.ie":      "o'brien@example.ie",
		"x@y.io":                  "x@y.io",
	}
	for in, want := range good {
		if got, ok := loyalty.NormalizeEmail(in); !ok || got != want {
			t.Errorf("NormalizeEmail(%q) = %q, %v; want %q, true", in, got, ok, want)
		}
	}
	bad := []string{
		"", "   ", "ann", "ann@", "@example.com", "ann@example", "ann@@example.com", "ann example@x.com",
		"Ann <ann@example.com>", "<ann@example.com>", "ann@example.com, bob@example.com",
		strings.Repeat("a", 250) + "@x.com",
	}
	for _, in := range bad {
		if got, ok := loyalty.NormalizeEmail(in); ok {
			t.Errorf("NormalizeEmail(%q) = %q, true; want invalid", in, got)
		}
	}
}

func validBusiness() loyalty.NewBusiness {
	return loyalty.NewBusiness{
		Name: "  Corner Cafe ", LoyaltyType: loyalty.PerSpend, Country: "ca",
		OwnerEmail: " Owner@Cafe.Example ", OwnerPassword: "correct horse",
	}
}

func TestNewBusinessValidateNormalizes(t *testing.T) {
	n := validBusiness()
	if err := n.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if n.Name != "Corner Cafe" || n.Country != "CA" || n.OwnerEmail != "owner@cafe.example" {
		t.Errorf("after Validate: name %q, country %q, owner e-mail %q; want trimmed, upper-case, lower-case",
			n.Name, n.Country, n.OwnerEmail)
	}
	n = validBusiness()
	n.Country = ""
	n.LoyaltyType = loyalty.PerVisit
	if err := n.Validate(); err != nil || n.Country != "US" {
		t.Errorf("empty country: err %v, country %q; want nil and the default US", err, n.Country)
	}
}

func TestNewBusinessValidateNamesFields(t *testing.T) {
	cases := []struct {
		field string
		edit  func(*loyalty.NewBusiness)
	}{
		{"name", func(n *loyalty.NewBusiness) { n.Name = "   " }},
		{"name", func(n *loyalty.NewBusiness) { n.Name = strings.Repeat("n", 201) }},
		{"loyalty_type", func(n *loyalty.NewBusiness) { n.LoyaltyType = "per_smile" }},
		{"loyalty_type", func(n *loyalty.NewBusiness) { n.LoyaltyType = "" }},
		{"country", func(n *loyalty.NewBusiness) { n.Country = "XX" }},
		{"country", func(n *loyalty.NewBusiness) { n.Country = "USA" }},
		{"owner_email", func(n *loyalty.NewBusiness) { n.OwnerEmail = "owner" }},
		{"owner_password", func(n *loyalty.NewBusiness) { n.OwnerPassword = "short" }},
		{"owner_password", func(n *loyalty.NewBusiness) { n.OwnerPassword = strings.Repeat("p", 201) }},
		{"coalition", func(n *loyalty.NewBusiness) { n.CoalitionID = "not-an-id" }},
	}
	for _, c := range cases {
		n := validBusiness()
		c.edit(&n)
		err := n.Validate()
		fields := invalidFields(t, err)
		if len(fields[c.field]) == 0 || len(fields) != 1 {
			t.Errorf("%s: Validate() = %v; want only %q named", c.field, err, c.field)
		}
	}
	var empty loyalty.NewBusiness
	fields := invalidFields(t, empty.Validate())
	for _, f := range []string{"name", "loyalty_type", "owner_email", "owner_password"} {
		if len(fields[f]) == 0 {
			t.Errorf("empty NewBusiness: %q not named in %v", f, fields)
		}
	}
}

// invalidFields returns the per-field messages of an EInvalid error, failing
// the test for any other error.
func invalidFields(tb testing.TB, err error) map[string][]string {
	tb.Helper()
	var e *loyalty.Error
	if !asError(err, &e) || e.Code != loyalty.EInvalid {
		tb.Fatalf("got error %v, want an EInvalid *loyalty.Error", err)
	}
	return e.Fields
}
