// Package outbox delivers the e-mails and text messages that the service
// writes to its outbox table in the same transaction as the change that
// causes them. A Worker claims due messages one at a time with a lease, so
// that several instances never deliver one message twice, hands each to
// the Sender of its channel, and marks it sent, or schedules a retry with
// exponential backoff, or marks it failed after the last attempt. A
// message committed but not yet delivered when a process stops stays
// pending and goes out after the restart.
package outbox

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/worker"
)

// Channels a message goes out on.
const (
	Email = loyalty.ChannelEmail
	SMS   = loyalty.ChannelSMS
)

// Message is one outbox message as a worker delivers it.
type Message struct {
	ID        int64
	Channel   string
	To        string
	Subject   string
	Body      string
	Headers   map[string]string // extra e-mail headers, such as List-Unsubscribe
	Attempts  int               // including the one under way
	CreatedAt time.Time
}

// Store keeps the outbox table.
type Store interface {
	// DueMessages returns the ids of up to limit messages due at now, oldest
	// first: pending ones whose next attempt has come, and claimed ones
	// whose lease ran out (their worker died).
	DueMessages(ctx context.Context, now time.Time, limit int) ([]int64, error)
	// ClaimMessage leases a due message to claim until leaseUntil and counts
	// the attempt; it reports false when the message is no longer due
	// (another worker claimed it first).
	ClaimMessage(ctx context.Context, id int64, claim string, now, leaseUntil time.Time) (Message, bool, error)
	// MessageSent marks a message sent, if claim still holds it.
	MessageSent(ctx context.Context, id int64, claim string, at time.Time) error
	// MessageFailed records a failed attempt: the message is pending again
	// at next, or failed for good when next is zero.
	MessageFailed(ctx context.Context, id int64, claim, reason string, next time.Time) error
}

// Sender delivers messages of one channel.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// Worker delivers due messages. Set Store and Senders; the rest has defaults.
type Worker struct {
	Store       Store
	Senders     map[string]Sender // by channel
	Logger      *slog.Logger
	Clock       func() time.Time
	Poll        time.Duration                   // how often to look for due messages (1s)
	Lease       time.Duration                   // how long a claim holds (2 min); deliveries time out at half
	MaxAttempts int                             // attempts before a message fails for good (8)
	Backoff     func(attempt int) time.Duration // wait after a failed attempt (5s doubling, at most 1h)
	Batch       int                             // due messages read at once (20)

	wakeOnce sync.Once
	wake     chan struct{}
}

// Backoff is the default retry delay: 5 seconds, doubling per attempt, at
// most an hour.
func Backoff(attempt int) time.Duration {
	d := 5 * time.Second
	for i := 1; i < attempt && d < time.Hour; i++ {
		d *= 2
	}
	return min(d, time.Hour)
}

func (w *Worker) wakeCh() chan struct{} {
	w.wakeOnce.Do(func() { w.wake = make(chan struct{}, 1) })
	return w.wake
}

// Wake makes a running worker look for due messages now.
func (w *Worker) Wake() {
	select {
	case w.wakeCh() <- struct{}{}:
	default:
	}
}

func (w *Worker) now() time.Time {
	if w.Clock != nil {
		return w.Clock().UTC()
	}
	return time.Now().UTC()
}

func (w *Worker) logger() *slog.Logger {
	if w.Logger != nil {
		return w.Logger
	}
	return slog.Default()
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// Start runs the worker in the background until stop is called; stop
// waits for the delivery under way to finish.
func (w *Worker) Start(ctx context.Context) (stop func()) { return worker.Start(ctx, w.Run) }

// Run delivers due messages until ctx is done.
func (w *Worker) Run(ctx context.Context) {
	worker.Loop(ctx, orDefault(w.Poll, time.Second), w.wakeCh(), func(ctx context.Context) {
		if _, err := w.Drain(ctx); err != nil && ctx.Err() == nil {
			w.logger().ErrorContext(ctx, "outbox: delivery round failed", "err", err)
		}
	})
}

// Drain delivers messages until none is due or ctx is done, and returns
// how many it delivered. A delivery under way when ctx ends is finished.
func (w *Worker) Drain(ctx context.Context) (int, error) {
	sent := 0
	for ctx.Err() == nil {
		ids, err := w.Store.DueMessages(ctx, w.now(), orDefault(w.Batch, 20))
		if err != nil || len(ids) == 0 {
			return sent, err
		}
		for _, id := range ids {
			if ctx.Err() != nil {
				break
			}
			now := w.now()
			claim := loyalty.NewID()
			// Not cut short by ctx: a claim made must reach its delivery.
			m, ok, err := w.Store.ClaimMessage(context.WithoutCancel(ctx), id, claim, now, now.Add(orDefault(w.Lease, 2*time.Minute)))
			if err != nil {
				return sent, err
			}
			if !ok {
				continue
			}
			if w.deliver(ctx, m, claim) {
				sent++
			}
		}
	}
	return sent, nil
}

// deliver sends one claimed message and records the outcome. It runs to
// the end even when ctx is cancelled, so a stopped worker leaves no
// message half-done.
func (w *Worker) deliver(ctx context.Context, m Message, claim string) bool {
	lease := orDefault(w.Lease, 2*time.Minute)
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lease/2)
	defer cancel()
	var err error
	if s := w.Senders[m.Channel]; s == nil {
		err = errNoSender(m.Channel)
	} else {
		err = s.Send(dctx, m)
	}
	log := w.logger().With("message_id", m.ID, "channel", m.Channel, "attempt", m.Attempts)
	if err == nil {
		if err := w.Store.MessageSent(dctx, m.ID, claim, w.now()); err != nil {
			log.ErrorContext(dctx, "outbox: delivered but not marked sent", "err", err)
		}
		log.InfoContext(dctx, "outbox: message sent")
		return true
	}
	var next time.Time
	if m.Attempts < orDefault(w.MaxAttempts, 8) {
		backoff := w.Backoff
		if backoff == nil {
			backoff = Backoff
		}
		next = w.now().Add(backoff(m.Attempts))
	}
	if merr := w.Store.MessageFailed(dctx, m.ID, claim, truncate(err.Error(), 500), next); merr != nil {
		log.ErrorContext(dctx, "outbox: failure not recorded", "err", merr)
	}
	if next.IsZero() {
		log.ErrorContext(dctx, "outbox: message failed for good", "err", err)
	} else {
		log.WarnContext(dctx, "outbox: delivery failed; will retry", "err", err, "next_attempt_at", next)
	}
	return false
}

type errNoSender string

// Error names the channel without a sender.
func (e errNoSender) Error() string { return "no sender for channel " + string(e) }

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
