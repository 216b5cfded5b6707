package loyalty_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
)

func asError(err error, target **loyalty.Error) bool { return errors.As(err, target) }

// wantCode fails the test unless err carries the domain code want.
func wantCode(tb testing.TB, err error, want string) {
	tb.Helper()
	if got := loyalty.ErrorCode(err); got != want {
		tb.Fatalf("error %v has code %q, want %q", err, got, want)
	}
}

// wantInvalid fails the test unless err is EInvalid naming field.
func wantInvalid(tb testing.TB, err error, field string) {
	tb.Helper()
	if fields := invalidFields(tb, err); len(fields[field]) == 0 {
		tb.Fatalf("error %v does not name %q", err, field)
	}
}

func TestErrorCode(t *testing.T) {
	if got := loyalty.ErrorCode(nil); got != "" {
		t.Errorf("ErrorCode(nil) = %q, want empty", got)
	}
	if got := loyalty.ErrorCode(errors.New("disk on fire")); got != loyalty.EInternal {
		t.Errorf("ErrorCode(foreign error) = %q, want %q", got, loyalty.EInternal)
	}
	wrapped := fmt.Errorf("context: %w", loyalty.Errorf(loyalty.ENotFound, "Customer %s not found.", "x"))
	if got := loyalty.ErrorCode(wrapped); got != loyalty.ENotFound {
		t.Errorf("ErrorCode(wrapped) = %q, want %q", got, loyalty.ENotFound)
	}
	if got := loyalty.ErrorMessage(wrapped); got != "Customer x not found." {
		t.Errorf("ErrorMessage(wrapped) = %q", got)
	}
	if got := loyalty.ErrorMessage(errors.New("secret detail")); got != "Internal error." {
		t.Errorf("ErrorMessage(foreign error) = %q, want the detail hidden", got)
	}
}

func TestValidation(t *testing.T) {
	v := loyalty.Validation{}
	if v.Err() != nil {
		t.Fatal("an empty Validation must give a nil error")
	}
	v.Add("email", "bad")
	v.Add("email", "worse")
	v.Add("phone", "bad")
	if !v.Has("email") || v.Has("name") {
		t.Errorf("Has: email %v, name %v", v.Has("email"), v.Has("name"))
	}
	err := v.Err()
	fields := invalidFields(t, err)
	if len(fields["email"]) != 2 || len(fields["phone"]) != 1 {
		t.Errorf("fields = %v", fields)
	}
	if got := err.Error(); got != "invalid: The given data was invalid. [email phone]" {
		t.Errorf("Error() = %q", got)
	}
	wantInvalid(t, loyalty.Invalid("referral.referrer_id", "x"), "referral.referrer_id")
}
