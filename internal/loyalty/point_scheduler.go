package loyalty

import (
	"context"
	"log/slog"
	"time"

	"github.com/loyalty/loyalty/internal/worker"
)

// PointsScheduler activates and expires lots when they fall due, writing
// their ledger entries, ends tier periods (RollTiers) and gives back the
// points of vouchers not handed over by their expiry (ReturnDueVouchers)
// and of transfers nobody joined to receive (ReturnDueTransfers).
// One instance at a time runs it (a lease in the
// database, renewed between batches; another instance takes over once it
// runs out); each lot's entry is written at most once whatever runs it
// (SettleLot), and lots that fell due while no instance ran are settled
// on the next run, dated when they fell due.
type PointsScheduler struct {
	Store  Store
	Holder string // this instance's name on the lease
	Logger *slog.Logger
	Poll   time.Duration // how often to look for due lots (5s)
	Lease  time.Duration // how long a run holds the lease (1 min)
	Batch  int           // customers per batch of activations (200)
	// Duty is the share of the time a run works (0.25); see SettleOptions.
	Duty float64
}

// pointsLease names the scheduler's lease.
const pointsLease = "points_scheduler"

func (s *PointsScheduler) lease() time.Duration { return orDefault(s.Lease, time.Minute) }

// RunOnce settles what is due now (and, for each sandbox business, what
// is due on its clock) if this instance holds the lease; it returns how
// many entries it wrote.
func (s *PointsScheduler) RunOnce(ctx context.Context) (int, error) {
	renew := func() bool {
		now := s.Store.Now()
		ok, err := s.Store.TakeLease(ctx, pointsLease, s.Holder, now, now.Add(s.lease()))
		return ok && err == nil
	}
	if !renew() {
		return 0, nil
	}
	batch := orDefault(s.Batch, 200)
	now := s.Store.Now()
	// Notices first: a lot told of and expiring in the same run is told
	// of before it goes.
	if _, err := NotifyDue(ctx, s.Store, "", now, batch, false); err != nil {
		return 0, err
	}
	opt := SettleOptions{Batch: batch, Renew: renew, Duty: orDefault(s.Duty, 0.25)}
	total, err := SettleDue(ctx, s.Store, "", now, opt)
	if err != nil {
		return total, err
	}
	if _, err := RollTiers(ctx, s.Store, "", now, 0); err != nil {
		return total, err
	}
	n, err := ReturnDueVouchers(ctx, s.Store, "", now, batch)
	total += n
	if err != nil {
		return total, err
	}
	n, err = ReturnDueTransfers(ctx, s.Store, "", now, batch)
	total += n
	if err != nil {
		return total, err
	}
	sandboxes, err := s.Store.SandboxBusinesses(ctx)
	if err != nil {
		return total, err
	}
	for _, b := range sandboxes {
		if _, err := NotifyDue(ctx, s.Store, b.ID, now.Add(b.ClockOffset), batch, false); err != nil {
			return total, err
		}
		n, err := SettleDue(ctx, s.Store, b.ID, now.Add(b.ClockOffset), opt)
		total += n
		if err != nil {
			return total, err
		}
		if _, err := RollTiers(ctx, s.Store, b.ID, now.Add(b.ClockOffset), 0); err != nil {
			return total, err
		}
		n, err = ReturnDueVouchers(ctx, s.Store, b.ID, now.Add(b.ClockOffset), batch)
		total += n
		if err != nil {
			return total, err
		}
		n, err = ReturnDueTransfers(ctx, s.Store, b.ID, now.Add(b.ClockOffset), batch)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// Start runs the scheduler in the background until stop is called; stop
// waits for the run under way to finish.
func (s *PointsScheduler) Start(ctx context.Context) (stop func()) {
	return worker.Start(ctx, func(ctx context.Context) {
		worker.Loop(ctx, orDefault(s.Poll, 5*time.Second), nil, func(ctx context.Context) {
			if _, err := s.RunOnce(ctx); err != nil && ctx.Err() == nil {
				s.logger().Error("points scheduler", "err", err)
			}
		})
	})
}

func (s *PointsScheduler) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
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
