package loyalty

import (
	"context"
	"time"
)

// clockKey carries the clock of the business a request acts for.
type clockKey struct{}

// WithClock returns ctx acting for a business whose clock is offset ahead
// of the real one (a sandbox business; 0 for a live one). The services
// read "now" through it, and RequestTxOptions hands it to the store as
// the offset of every transaction run under ctx.
func WithClock(ctx context.Context, offset time.Duration) context.Context {
	if offset == 0 && ClockOffset(ctx) == 0 {
		return ctx
	}
	return context.WithValue(ctx, clockKey{}, offset)
}

// ClockOffset is the business clock's offset that ctx carries, 0 for none.
func ClockOffset(ctx context.Context) time.Duration {
	d, _ := ctx.Value(clockKey{}).(time.Duration)
	return d
}

// clock is anything with the store's clock.
type clock interface{ Now() time.Time }

// nowFor is the time of the business ctx acts for: the store's clock
// moved by the business's offset.
func nowFor(ctx context.Context, st clock) time.Time {
	return st.Now().Add(ClockOffset(ctx))
}
