package oauth

import "time"

// Lockout is an account's sign-in lockout as stored: its failed sign-ins
// in a row and the end of its lock (zero when it was never locked; a past
// time once a lock has run out).
type Lockout struct {
	Failures    int
	LockedUntil time.Time
}

// After returns the lockout after one sign-in at now, good (ok) or not.
// The MaxFailures-th failure in a row locks the account until now+LockFor
// and starts the count again; an earlier one adds to the count and leaves
// the lock as it was. A good sign-in clears the count and the lock that
// ran out, and changes nothing when there is no count to clear.
func (l Lockout) After(ok bool, now time.Time) Lockout {
	switch {
	case ok && l.Failures == 0:
		return l
	case ok:
		return Lockout{}
	case l.Failures+1 >= MaxFailures:
		return Lockout{LockedUntil: now.Add(LockFor)}
	}
	return Lockout{Failures: l.Failures + 1, LockedUntil: l.LockedUntil}
}

// Equal reports whether l and o are the same lockout.
func (l Lockout) Equal(o Lockout) bool {
	return l.Failures == o.Failures && l.LockedUntil.Equal(o.LockedUntil)
}
