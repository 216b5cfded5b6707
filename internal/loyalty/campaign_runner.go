package loyalty

import (
	"context"
	"log/slog"
	"time"

	"golang.org/x/time/rate"

	"github.com/loyalty/loyalty/internal/worker"
)

// CampaignRunner sends the campaigns that are due: it draws each one's
// recipients from its segment, then reaches them a batch at a time,
// outside quiet hours, each recipient in a transaction of its own. One
// instance at a time runs it (a lease, renewed between batches); what a
// stopped run left is taken up by the next, and a recipient done is
// never done again (FinishRecipient).
type CampaignRunner struct {
	Store  Store
	Holder string // this instance's name on the lease
	Logger *slog.Logger
	Poll   time.Duration // how often to look for due campaigns (5s)
	// Lease is how long a run holds the lease (15s) unless renewed: the
	// run renews it every third of that, between recipients too, so a
	// batch at any rate keeps it, and an instance that died (SIGKILL) is
	// taken over within Lease and a Poll.
	Lease time.Duration
	Batch int // customers drawn, or recipients reached, per batch (500)
	// Batches bounds the batches of one campaign per run (20), so one
	// big campaign does not keep the others waiting.
	Batches int
	// UnsubscribeKey signs unsubscribe links; UnsubscribeURL is the page
	// they open (a token is appended). Without them e-mail and text are
	// not sent (the recipient is left pending): a campaign needs a way out.
	UnsubscribeKey []byte
	UnsubscribeURL string
	// Notify wakes the outbox worker after a batch queued messages.
	Notify func()
	// Rate bounds the recipients reached per second across every
	// campaign (DefaultCampaignRate when 0), so that sending never crowds
	// out the rewards the service is there for.
	Rate float64

	limiter *rate.Limiter // made on first use
}

// DefaultCampaignRate is the recipients reached per second unless set:
// on a two-core machine, 30 a second (each a message and a gift) slowed
// concurrent rewards by under 10 % (BenchmarkRewardsWhileSending; 100 a
// second by a fifth).
const DefaultCampaignRate = 30

// pace waits until n more recipients (at most chunk) may be reached.
func (r *CampaignRunner) pace(ctx context.Context, n int) error {
	return r.limit().WaitN(ctx, n)
}

// chunk is how many recipients are reached together, in one transaction:
// what a third of a second allows at the rate, and at most
// maxChunk.
func (r *CampaignRunner) chunk() int { return min(maxChunk, r.limit().Burst()) }

// maxChunk bounds the recipients of one transaction: a recipient's row
// and customer stay locked until the transaction commits.
const maxChunk = 10

// limit returns the rate of reaching recipients (made on first use).
func (r *CampaignRunner) limit() *rate.Limiter {
	if r.limiter == nil {
		per := r.Rate
		if per <= 0 {
			per = DefaultCampaignRate
		}
		r.limiter = rate.NewLimiter(rate.Limit(per), max(1, int(per/3)))
	}
	return r.limiter
}

const campaignLease = "campaign_runner"

// RunOnce does what is due of every active campaign, if this instance
// holds the lease; it returns how many recipients it drew or reached.
func (r *CampaignRunner) RunOnce(ctx context.Context) (int, error) {
	lease := orDefault(r.Lease, 15*time.Second)
	var renewed time.Time // by this process's clock: when the lease was last taken
	take := func() bool {
		now := r.Store.Now()
		ok, err := r.Store.TakeLease(ctx, campaignLease, r.Holder, now, now.Add(lease))
		renewed = time.Now()
		return ok && err == nil
	}
	// renew keeps the lease, taking it again once a third of it has gone;
	// false once another instance holds it.
	renew := func() bool {
		return time.Since(renewed) < lease/3 || take()
	}
	if !take() {
		return 0, nil
	}
	active, err := r.Store.ActiveCampaigns(ctx, []string{CampaignScheduled, CampaignSending})
	if err != nil {
		return 0, err
	}
	total := 0
	for _, c := range active {
		n, err := r.run(ctx, c, renew)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// Start runs the runner in the background until stop is called.
func (r *CampaignRunner) Start(ctx context.Context) (stop func()) {
	return worker.Start(ctx, func(ctx context.Context) {
		worker.Loop(ctx, orDefault(r.Poll, 5*time.Second), nil, func(ctx context.Context) {
			if _, err := r.RunOnce(ctx); err != nil && ctx.Err() == nil {
				r.logger().Error("campaign runner", "err", err)
			}
		})
	})
}

func (r *CampaignRunner) logger() *slog.Logger {
	if r.Logger != nil {
		return r.Logger
	}
	return slog.Default()
}
