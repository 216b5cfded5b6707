package testenv

import (
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// WantField fails the test unless err is a validation error (EInvalid)
// naming field, as a 422 body would.
func WantField(tb testing.TB, err error, field string) {
	tb.Helper()
	e, ok := err.(*loyalty.Error)
	if !ok || e.Code != loyalty.EInvalid || len(e.Fields[field]) == 0 {
		tb.Fatalf("error %v, want EInvalid naming %q", err, field)
	}
}

// WantNotFound reports an error unless err is ENotFound.
func WantNotFound(tb testing.TB, err error) {
	tb.Helper()
	if loyalty.ErrorCode(err) != loyalty.ENotFound {
		tb.Errorf("error %v, want ENotFound", err)
	}
}
