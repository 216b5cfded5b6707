package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/loyalty/loyalty/internal/httpapi"
	"github.com/loyalty/loyalty/internal/loyalty"
)

// TestFailAnswersTheAPIStatus: an error page answers every domain code
// with the status the JSON API gives it; only the page's words differ.
func TestFailAnswersTheAPIStatus(t *testing.T) {
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	codes := []string{loyalty.EInvalid, loyalty.EBadRequest, loyalty.ENotFound, loyalty.EForbidden, loyalty.EUnauthorized,
		loyalty.ETooMany, loyalty.EConflict, loyalty.EUnavailable, loyalty.ENotMet, loyalty.EInternal}
	for _, code := range codes {
		t.Run(code, func(t *testing.T) {
			rec := httptest.NewRecorder()
			s.fail(rec, httptest.NewRequest(http.MethodGet, "/business", nil), loyalty.Errorf(code, "Nothing was done."))
			if want := httpapi.StatusOf(code); rec.Code != want {
				t.Fatalf("status %d, the API's is %d", rec.Code, want)
			}
			if code == loyalty.ENotMet && !strings.Contains(rec.Body.String(), "Not done") {
				t.Errorf("a not-met page does not say nothing was done:\n%s", rec.Body)
			}
		})
	}
}
