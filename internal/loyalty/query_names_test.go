package loyalty_test

import (
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// TestQueryNames: every form a client sends a list in means the same, and
// nothing a client meant is dropped.
func TestQueryNames(t *testing.T) {
	allowed := []string{"balance", "tier_level", "tiers"}
	both := map[string]bool{"balance": true, "tier_level": true}
	for _, raw := range []string{
		"include=balance,tier_level",
		"include=balance&include=tier_level",
		"include[]=balance&include[]=tier_level",
		"include%5B%5D=balance&include%5B%5D=tier_level", // as http_build_query encodes it
		"include[0]=balance&include[1]=tier_level",
		"include%5B0%5D=balance,tier_level",
		"include=balance&include[]=tier_level&relationships=x",
	} {
		q, _ := url.ParseQuery(raw)
		got, err := loyalty.QueryNames(q, "include", allowed)
		if err != nil || !reflect.DeepEqual(got, both) {
			t.Errorf("%s: %v, %v; want balance and tier_level", raw, got, err)
		}
	}
	for _, c := range []struct{ raw, mention string }{
		{"include[]=balance&include[]=wallet", "wallet"},
		{"include[0]=nope", "nope"},
		{"include[x]=balance", "include[x]"},
		{"include[0][1]=balance", "include[0][1]"},
		{"include[=balance", "include["},
	} {
		q, _ := url.ParseQuery(c.raw)
		_, err := loyalty.QueryNames(q, "include", allowed)
		if loyalty.ErrorCode(err) != loyalty.EBadRequest || !strings.Contains(loyalty.ErrorMessage(err), c.mention) {
			t.Errorf("%s: %v, want a bad request naming %q", c.raw, err, c.mention)
		}
	}
	// An endpoint that offers no names refuses any, saying so.
	q, _ := url.ParseQuery("include[]=analytics")
	_, err := loyalty.QueryNames(q, "include", nil)
	if loyalty.ErrorCode(err) != loyalty.EBadRequest || !strings.Contains(loyalty.ErrorMessage(err), "analytics") {
		t.Errorf("no names offered: %v", err)
	}
	// Other parameters are not its business.
	q, _ = url.ParseQuery("includes=x&page=2")
	if got, err := loyalty.QueryNames(q, "include", nil); err != nil || len(got) != 0 {
		t.Errorf("unrelated parameters: %v, %v", got, err)
	}
}

// TestParseListQueryNames: a list reserves include or relationships in
// every form, and names the ones it does not take.
func TestParseListQueryNames(t *testing.T) {
	spec := loyalty.ListSpec{Reserved: []string{"include"}, DefaultPerPage: 10}
	for _, raw := range []string{"include=balance", "include[]=balance", "include[3]=balance&page=2"} {
		q, _ := url.ParseQuery(raw)
		if _, err := loyalty.ParseListQuery(q, spec); err != nil {
			t.Errorf("%s: %v", raw, err)
		}
	}
	for _, raw := range []string{"relationships=branch", "relationships[]=branch", "relationships%5B0%5D=branch"} {
		q, _ := url.ParseQuery(raw)
		_, err := loyalty.ParseListQuery(q, spec)
		if loyalty.ErrorCode(err) != loyalty.EBadRequest || !strings.Contains(loyalty.ErrorMessage(err), "branch") ||
			!strings.Contains(loyalty.ErrorMessage(err), "relationships") {
			t.Errorf("%s: %v, want a bad request naming relationships and branch", raw, err)
		}
	}
}
