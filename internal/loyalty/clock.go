package loyalty

import "time"

// A sandbox business's clock runs ahead of the real one by its
// Business.ClockOffset. What acts for the business sees that clock through
// a view of its store (ClockedStore, Services.ClockedBy): the view's Now
// and the time of each of its transactions are offset. Nothing reads the
// offset from a context; workers, which act for many businesses, add
// each one's offset to their own clock.

// clock is anything with the store's clock.
type clock interface{ Now() time.Time }

// clockable is a store that gives views of itself on a business's clock
// (sqlstore.DB).
type clockable interface {
	ClockedBy(offset time.Duration) any
}

// ClockedStore returns the view of st whose Now and transactions run
// offset ahead of the real clock, keeping st's audit record: the store as
// a business with that clock offset sees it (0: the real clock). It is st
// itself when st gives no such view (a store with no clock of its own).
func ClockedStore[S any](st S, offset time.Duration) S {
	if c, ok := any(st).(clockable); ok {
		if v, ok := c.ClockedBy(offset).(S); ok {
			return v
		}
	}
	return st
}

// wallNow is the real time on st's clock, whatever business clock the
// view st may be keeps.
func wallNow(st clock) time.Time { return ClockedStore(st, 0).Now() }
