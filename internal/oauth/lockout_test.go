package oauth_test

import (
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/oauth"
)

// TestLockoutAfter walks the sign-in lockout through each case: a failure
// adds one, the MaxFailures-th in a row locks for LockFor and starts the
// count again, a failure while a lock stands or after it ran out keeps
// that lock's time, and a good sign-in clears a count (and a run-out lock
// with it) but changes nothing where there is no count.
func TestLockoutAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	past := now.Add(-time.Hour)
	for _, c := range []struct {
		name string
		from oauth.Lockout
		ok   bool
		want oauth.Lockout
	}{
		{"first failure", oauth.Lockout{}, false, oauth.Lockout{Failures: 1}},
		{"failure before the limit", oauth.Lockout{Failures: oauth.MaxFailures - 2}, false,
			oauth.Lockout{Failures: oauth.MaxFailures - 1}},
		{"failure at the limit locks", oauth.Lockout{Failures: oauth.MaxFailures - 1}, false,
			oauth.Lockout{LockedUntil: now.Add(oauth.LockFor)}},
		{"failure over the limit locks", oauth.Lockout{Failures: oauth.MaxFailures + 3}, false,
			oauth.Lockout{LockedUntil: now.Add(oauth.LockFor)}},
		{"failure after a lock ran out keeps its time", oauth.Lockout{LockedUntil: past}, false,
			oauth.Lockout{Failures: 1, LockedUntil: past}},
		{"good sign-in clears the count", oauth.Lockout{Failures: 3}, true, oauth.Lockout{}},
		{"good sign-in clears a run-out lock with the count", oauth.Lockout{Failures: 1, LockedUntil: past}, true, oauth.Lockout{}},
		{"good sign-in without a count changes nothing", oauth.Lockout{LockedUntil: past}, true, oauth.Lockout{LockedUntil: past}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.from.After(c.ok, now); !got.Equal(c.want) {
				t.Errorf("%+v.After(%v) = %+v, want %+v", c.from, c.ok, got, c.want)
			}
		})
	}
}

// TestLockoutEqual compares instants, not time.Time values.
func TestLockoutEqual(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	if !(oauth.Lockout{Failures: 1, LockedUntil: at}).Equal(oauth.Lockout{Failures: 1, LockedUntil: at.In(ny)}) {
		t.Error("the same instant in two zones is not equal")
	}
	if (oauth.Lockout{Failures: 1, LockedUntil: at}).Equal(oauth.Lockout{Failures: 2, LockedUntil: at}) {
		t.Error("two counts are equal")
	}
	if (oauth.Lockout{LockedUntil: at}).Equal(oauth.Lockout{LockedUntil: at.Add(time.Second)}) {
		t.Error("two lock times are equal")
	}
}
