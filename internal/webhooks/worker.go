package webhooks

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/worker"
)

// DefaultBackoff is the wait after each failed attempt, the first after
// the first attempt: about 5 days and 4 hours in all, so a delivery outlives
// the endpoint's loyalty.WebhookFailLimit and an endpoint that keeps
// failing is disabled by its own deliveries.
var DefaultBackoff = []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour,
	10 * time.Hour, 14 * time.Hour, 20 * time.Hour, 24 * time.Hour, 24 * time.Hour, 24 * time.Hour}

// Limits of one attempt.
const (
	DefaultTimeout = 10 * time.Second
	MaxResponse    = 64 << 10 // the most of a reply that is read
)

// Attempt is the outcome of one delivery attempt.
type Attempt struct {
	Key      Key
	Claim    string
	At       time.Time
	Status   int // the receiver's status; 0 when there was none
	Latency  time.Duration
	Response string // the start of the reply, at most loyalty.MaxResponseExcerpt bytes
	Error    string // why there was no status, or why it failed
	Outcome  string // loyalty.DeliveryDelivered, DeliveryPending (retried at Next) or DeliveryFailed
	Next     time.Time
}

// Worker delivers due deliveries. Set Store and Guard; the rest has defaults.
type Worker struct {
	Store  Store
	Guard  Guard
	Logger *slog.Logger
	Clock  func() time.Time
	// Poll is how often it looks for due deliveries; default 1s.
	Poll time.Duration
	// Backoff is the wait after each failed attempt; DefaultBackoff when
	// nil. A delivery fails for good once it has used them all.
	Backoff []time.Duration
	// Jitter spreads each wait by up to this fraction either way, so
	// deliveries failed together are not retried together; default 0.1.
	Jitter float64
	// Timeout bounds an attempt, connection to last byte; default 10s.
	Timeout time.Duration
	// FailLimit is how long an endpoint may keep failing before it is
	// disabled; default loyalty.WebhookFailLimit.
	FailLimit time.Duration
	// Concurrency is how many deliveries run at once; default 8.
	Concurrency int
	// Notify, when set, wakes the outbox after an owner was e-mailed.
	Notify func()
	// PruneEvery is how often the log loses the deliveries older than the
	// events' retention (loyalty.EventRetention); default an hour.
	PruneEvery time.Duration

	once   sync.Once
	client *http.Client
	wake   chan struct{}
}

func (w *Worker) init() {
	w.once.Do(func() {
		w.wake = make(chan struct{}, 1)
		timeout := orDefault(w.Timeout, DefaultTimeout)
		dialer := &net.Dialer{Timeout: timeout, Control: w.Guard.control}
		w.client = &http.Client{
			Timeout: timeout,
			Transport: &http.Transport{
				Proxy:               nil, // a proxy would connect where the guard cannot see
				DialContext:         dialer.DialContext,
				TLSHandshakeTimeout: timeout,
				MaxIdleConnsPerHost: 2,
				IdleConnTimeout:     90 * time.Second,
			},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	})
}

// Wake makes a running worker look for due deliveries now.
func (w *Worker) Wake() {
	w.init()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Start runs the worker until stop is called; stop waits for the
// deliveries under way.
func (w *Worker) Start(ctx context.Context) (stop func()) {
	w.init()
	var pruned time.Time
	return worker.Start(ctx, func(ctx context.Context) {
		worker.Loop(ctx, orDefault(w.Poll, time.Second), w.wake, func(ctx context.Context) {
			if _, err := w.Drain(ctx); err != nil && ctx.Err() == nil {
				logger(w.Logger).ErrorContext(ctx, "webhooks: delivery round failed", "err", err)
			}
			if at := now(w.Clock); at.Sub(pruned) >= orDefault(w.PruneEvery, time.Hour) {
				if n, err := w.Store.PruneDeliveries(ctx, at.Add(-loyalty.EventRetention)); err != nil && ctx.Err() == nil {
					logger(w.Logger).ErrorContext(ctx, "webhooks: pruning the delivery log failed", "err", err)
				} else if n > 0 {
					logger(w.Logger).InfoContext(ctx, "webhooks: delivery log pruned", "deliveries", n)
				}
				pruned = at
			}
		})
	})
}

// Drain makes every due delivery's attempt, Concurrency at once, until
// none is due or ctx is done, and returns how many were delivered. A slot
// is taken before a claim, so no claim's lease runs while it waits.
func (w *Worker) Drain(ctx context.Context) (int, error) {
	w.init()
	var running sync.WaitGroup
	var mu sync.Mutex
	n := 0
	slots := make(chan struct{}, orDefault(w.Concurrency, 8))
	defer running.Wait()
	for ctx.Err() == nil {
		keys, err := w.Store.DueDeliveries(ctx, now(w.Clock), 50)
		if err != nil || len(keys) == 0 {
			running.Wait()
			return n, err
		}
		claimed := 0
		for _, k := range keys {
			slots <- struct{}{}
			claim, at := loyalty.NewID(), now(w.Clock)
			x, ep, ok, err := w.Store.ClaimDelivery(context.WithoutCancel(ctx), k, claim, at, at.Add(w.lease()))
			if err != nil || !ok {
				<-slots
				if err != nil {
					running.Wait()
					return n, err
				}
				continue
			}
			claimed++
			running.Add(1)
			go func() {
				defer func() { <-slots; running.Done() }()
				if w.deliver(context.WithoutCancel(ctx), x, ep, claim) {
					mu.Lock()
					n++
					mu.Unlock()
				}
			}()
		}
		if claimed == 0 {
			// Everything due is held (by this worker or another).
			running.Wait()
			return n, nil
		}
	}
	running.Wait()
	return n, nil
}

// deliver makes one attempt of a claimed delivery and records it.
func (w *Worker) deliver(ctx context.Context, x loyalty.WebhookDelivery, ep loyalty.WebhookEndpoint, claim string) bool {
	at := now(w.Clock)
	a := Attempt{Key: Key{x.EndpointID, x.EventID}, Claim: claim, At: at}
	log := logger(w.Logger).With("endpoint", ep.ID, "event", x.EventID, "attempt", x.Attempts)
	status, latency, excerpt, err := w.post(ctx, ep, x, at)
	a.Status, a.Latency, a.Response = status, latency, excerpt
	switch {
	case err == nil && status >= 200 && status < 300:
		a.Outcome = loyalty.DeliveryDelivered
	case err == nil && status == http.StatusGone:
		a.Outcome, a.Error = loyalty.DeliveryFailed, "410 Gone: the endpoint is disabled"
	default:
		if err != nil {
			a.Error = err.Error()
		} else {
			a.Error = "status " + strconv.Itoa(status)
		}
		a.Outcome = loyalty.DeliveryFailed
		if wait, ok := w.wait(x.Attempts); ok {
			// The wait runs from the failure, not from the attempt's
			// start: a slow answer or a timeout does not eat into it.
			a.Outcome, a.Next = loyalty.DeliveryPending, now(w.Clock).Add(wait)
		}
	}
	since, ferr := w.Store.FinishDelivery(ctx, a)
	if ferr != nil {
		log.ErrorContext(ctx, "webhooks: attempt not recorded", "err", ferr)
		return false
	}
	switch {
	case a.Outcome == loyalty.DeliveryDelivered:
		log.InfoContext(ctx, "webhooks: delivered", "status", status, "latency_ms", latency.Milliseconds())
		return true
	case status == http.StatusGone:
		w.disable(ctx, log, ep, loyalty.WebhookGone)
	case !since.IsZero() && at.Sub(since) >= orDefault(w.FailLimit, loyalty.WebhookFailLimit):
		w.disable(ctx, log, ep, loyalty.WebhookFailing)
	default:
		log.WarnContext(ctx, "webhooks: attempt failed", "status", status, "err", a.Error, "next_attempt_at", a.Next)
	}
	return false
}

// disable turns an endpoint off and tells its owner.
func (w *Worker) disable(ctx context.Context, log *slog.Logger, ep loyalty.WebhookEndpoint, reason string) {
	done, err := w.Store.DisableWebhook(ctx, ep.ID, reason, func(email, name string, e loyalty.WebhookEndpoint) loyalty.Message {
		return loyalty.WebhookDisabledMessage(email, name, e, reason)
	})
	if err != nil {
		log.ErrorContext(ctx, "webhooks: disabling the endpoint failed", "err", err)
		return
	}
	if done {
		log.WarnContext(ctx, "webhooks: endpoint disabled", "reason", reason)
		if w.Notify != nil {
			w.Notify()
		}
	}
}

// wait is how long to wait after the attempts-th failed attempt, jittered;
// false when no attempt is left.
func (w *Worker) wait(attempts int) (time.Duration, bool) {
	schedule := w.Backoff
	if schedule == nil {
		schedule = DefaultBackoff
	}
	if attempts < 1 || attempts > len(schedule) {
		return 0, false
	}
	d := schedule[attempts-1]
	jitter := w.Jitter
	if jitter == 0 {
		jitter = 0.1
	}
	return time.Duration(float64(d) * (1 + jitter*(2*rand.Float64()-1))), true
}

// post sends the delivery, signed with every secret the endpoint signs
// with at at, and returns the status, how long the reply took, and its
// start.
func (w *Worker) post(ctx context.Context, ep loyalty.WebhookEndpoint, x loyalty.WebhookDelivery, at time.Time) (int, time.Duration, string, error) {
	var sigs []string
	for _, secret := range ep.Secrets(at) {
		h, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			return 0, 0, "", err
		}
		sig, err := h.Sign(x.EventID, at, x.Body)
		if err != nil {
			return 0, 0, "", err
		}
		sigs = append(sigs, sig)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.URL, bytes.NewReader(x.Body))
	if err != nil {
		return 0, 0, "", err
	}
	req.Header.Set("content-type", "application/json")
	req.Header.Set("user-agent", "Loyalty-Webhooks/1")
	req.Header.Set(standardwebhooks.HeaderWebhookID, x.EventID)
	req.Header.Set(standardwebhooks.HeaderWebhookTimestamp, strconv.FormatInt(at.Unix(), 10))
	req.Header.Set(standardwebhooks.HeaderWebhookSignature, strings.Join(sigs, " "))
	began := time.Now()
	resp, err := w.client.Do(req)
	if err != nil {
		return 0, time.Since(began), "", attemptError(err)
	}
	defer resp.Body.Close()
	body, rerr := io.ReadAll(io.LimitReader(resp.Body, MaxResponse))
	latency := time.Since(began)
	if rerr != nil && (resp.StatusCode < 200 || resp.StatusCode >= 300) {
		return resp.StatusCode, latency, excerpt(body), attemptError(rerr)
	}
	return resp.StatusCode, latency, excerpt(body), nil
}

// attemptError is the reason an attempt got no status, as the log shows it.
func attemptError(err error) error {
	var ne net.Error
	switch {
	case errors.Is(err, ErrRefusedAddress):
		var oe *net.OpError
		if errors.As(err, &oe) && oe.Err != nil {
			return oe.Err
		}
		return err
	case errors.As(err, &ne) && ne.Timeout():
		return errors.New("timed out")
	}
	return err
}

// excerpt is the start of a reply as the log keeps it: valid UTF-8
// without NUL, at most loyalty.MaxResponseExcerpt bytes.
func excerpt(body []byte) string {
	body = body[:min(len(body), loyalty.MaxResponseExcerpt)]
	s := strings.ToValidUTF8(string(body), "\uFFFD")
	s = strings.ReplaceAll(s, "\x00", "")
	for len(s) > loyalty.MaxResponseExcerpt {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return s
}

// lease is how long a claim holds a delivery: longer than an attempt can
// take (its timeout) with room to record it. A worker that dies leaves its
// deliveries to others after it.
func (w *Worker) lease() time.Duration {
	return 2*orDefault(w.Timeout, DefaultTimeout) + 10*time.Second
}
