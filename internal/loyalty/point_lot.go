package loyalty

import (
	"context"
	"slices"
	"time"
)

// States of a PointLot.
const (
	LotPending   = "pending"   // earned, not usable until ActivatesAt
	LotActive    = "active"    // usable; holds Remaining points
	LotSpent     = "spent"     // every point was spent (points given back make it active again)
	LotExpired   = "expired"   // what remained expired at ExpiresAt
	LotCancelled = "cancelled" // taken back before it activated
)

// PointLot is the points one earning entry gave a customer: what it
// earned, what remains, when it activates and when it expires (zero for
// never). Spending takes from the active lots that expire first; the lots
// of a customer add up to its balance (active and pending apart).
type PointLot struct {
	ID          int64
	BusinessID  string
	CustomerID  string
	EntryID     int64  // the earning entry; 0 for the opening lot of a balance kept before lots
	BranchID    string // the earning entry's branch, which its activation and expiry are recorded at (as DueLots reads it)
	Earned      int64
	Remaining   int64
	ActivatesAt time.Time
	ExpiresAt   time.Time
	NotifyAt    time.Time // when its customer is told it expires soon; zero for never
	State       string
}

// CustomerKey names one customer of one business.
type CustomerKey struct {
	BusinessID string
	CustomerID string
}

// LotTx is the part of a transaction that activates and expires lots.
type LotTx interface {
	// DueLots locks the customer's row and returns its lots due at at:
	// pending ones whose activation came, active ones whose expiry came.
	DueLots(ctx context.Context, k CustomerKey, at time.Time) ([]PointLot, error)
	// SettleLot writes a lot's activation or expiry as the domain decided
	// it (SettleLotAt): the lot as s.After, the balance moved by the entry
	// and the entry; false (nothing written) when the lot is no longer as
	// s.Before says.
	SettleLot(ctx context.Context, s LotSettlement) (bool, error)
	// DueExpiries locks the customers of up to limit active lots due to
	// expire at at (of one business, or all with "") and returns every lot
	// of theirs due to expire.
	DueExpiries(ctx context.Context, businessID string, at time.Time, limit int) ([]PointLot, error)
	// ExpireLots writes the expiries of lots DueExpiries returned, as the
	// domain decided them (SettleLotAt), moving the lots and the balances.
	ExpireLots(ctx context.Context, expiries []LotSettlement) error
}

// LotStore is the storage of the points scheduler and the lots' readers.
type LotStore interface {
	// DueLotCustomers returns up to limit customers with a lot due at
	// at, of one business or ("") of all.
	DueLotCustomers(ctx context.Context, businessID string, at time.Time, limit int) ([]CustomerKey, error)
	// TakeLease takes or renews a job's lease for holder until until,
	// reporting false while another holder's runs.
	TakeLease(ctx context.Context, name, holder string, now, until time.Time) (bool, error)
	// SandboxBusinesses returns the sandbox businesses with their clocks.
	SandboxBusinesses(ctx context.Context) ([]Business, error)
	// SetClockOffset moves a sandbox business's clock offset from old to
	// offset; EConflict when it is no longer old (another move won).
	SetClockOffset(ctx context.Context, businessID string, old, offset time.Duration) error
}

// lotEvent is one activation or expiry due.
type lotEvent struct {
	intent string
	at     time.Time
	lot    int // index in the lots
}

// lotEvents lists the activations and expiries of lots due at at, in the
// order they fell due: a lot that activated and expired meanwhile does
// both, in that order.
func lotEvents(lots []PointLot, at time.Time) []lotEvent {
	var out []lotEvent
	for i, l := range lots {
		active := l.State == LotActive
		if l.State == LotPending && !l.ActivatesAt.After(at) {
			out = append(out, lotEvent{IntentActivation, l.ActivatesAt, i})
			active = true
		}
		if active && !l.ExpiresAt.IsZero() && !l.ExpiresAt.After(at) {
			out = append(out, lotEvent{IntentExpiry, maxTime(l.ExpiresAt, l.ActivatesAt), i})
		}
	}
	slices.SortStableFunc(out, func(a, b lotEvent) int { return a.at.Compare(b.at) })
	return out
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// settleCustomer writes, in one transaction, the activations and expiries
// of a customer's lots due at at, each dated when it fell due. An
// activation moves the lot's points from pending to active and counts them
// towards tiers then; an expiry takes what remains of the lot and never
// lowers a tier. It returns how many entries it wrote.
func settleCustomer(ctx context.Context, st Store, k CustomerKey, at time.Time) (int, error) {
	n := 0
	err := st.WithTx(ctx, func(tx Tx) error {
		n = 0
		lots, err := tx.DueLots(ctx, k, at)
		if err != nil {
			return err
		}
		for _, ev := range lotEvents(lots, at) {
			l := &lots[ev.lot]
			if l.State == "" {
				continue
			}
			settle := SettleLotAt(*l, ev.intent, ev.at)
			e := settle.Entry
			ok, err := tx.SettleLot(ctx, settle)
			if err != nil {
				return err
			}
			if !ok {
				// Another scheduler settled it: its expiry is not ours either.
				l.State = ""
				continue
			}
			n++
			typ := EventPointsExpired
			if ev.intent == IntentActivation {
				typ = EventPointsActivated
			}
			*l = settle.After
			if err := record(ctx, tx, k.BusinessID, typ, NewTransactionJSON(*e)); err != nil {
				return err
			}
		}
		return nil
	})
	return n, err
}

// SettleOptions tune a run of SettleDue.
type SettleOptions struct {
	Batch int // customers per batch of activations (200)
	// Renew, when set, is called between batches (to keep a lease) and
	// stops the run by returning false.
	Renew func() bool
	// Duty is the share of the time a run works, 0 < Duty <= 1 (1: no
	// pause): after each batch it pauses so that rewards and redemptions
	// running meanwhile keep their pace on a busy database.
	Duty float64
}

// pause waits after a batch that took worked, as the duty asks.
func (o SettleOptions) pause(ctx context.Context, worked time.Duration) {
	if o.Duty <= 0 || o.Duty >= 1 {
		return
	}
	t := time.NewTimer(time.Duration(float64(worked) * (1 - o.Duty) / o.Duty))
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// SettleDue writes every activation and expiry due at at, of one business
// or ("") of all, in bounded batches: expiries many lots to a transaction
// (expireDue), then each customer with a lot still due in a transaction of
// its own (activations, and lots that activated and expired meanwhile). It
// returns how many entries it wrote.
func SettleDue(ctx context.Context, st Store, businessID string, at time.Time, opt SettleOptions) (int, error) {
	// Expiries first, many customers to a transaction: a monthly policy
	// makes a month's lots all expire at one midnight.
	total, err := expireDue(ctx, st, businessID, at, opt)
	if err != nil {
		return total, err
	}
	for {
		started := time.Now()
		keys, err := st.DueLotCustomers(ctx, businessID, at, orDefault(opt.Batch, 200))
		if err != nil || len(keys) == 0 {
			return total, err
		}
		wrote := 0
		for _, k := range keys {
			n, err := settleCustomer(ctx, st, k, at)
			if err != nil {
				return total, err
			}
			wrote += n
		}
		total += wrote
		if wrote == 0 || (opt.Renew != nil && !opt.Renew()) {
			// Nothing settled although due: another instance is at it.
			return total, nil
		}
		opt.pause(ctx, time.Since(started))
	}
}

// expiryBatch is how many due lots expireDue takes per transaction.
const expiryBatch = 500

// expireDue writes the expiries of active lots due at at, a batch of
// lots (with every other due lot of their customers) per transaction. An
// expiry takes what remains of its lot and never lowers a tier. It returns
// how many entries it wrote.
func expireDue(ctx context.Context, st Store, businessID string, at time.Time, opt SettleOptions) (int, error) {
	total := 0
	for {
		started := time.Now()
		n := 0
		err := st.WithTx(ctx, func(tx Tx) error {
			lots, err := tx.DueExpiries(ctx, businessID, at, expiryBatch)
			if err != nil || len(lots) == 0 {
				return err
			}
			expiries := make([]LotSettlement, len(lots))
			for i, l := range lots {
				expiries[i] = SettleLotAt(l, IntentExpiry, maxTime(l.ExpiresAt, l.ActivatesAt))
			}
			n = len(lots)
			if err := tx.ExpireLots(ctx, expiries); err != nil {
				return err
			}
			for _, x := range expiries {
				e := x.Entry
				if err := record(ctx, tx, e.BusinessID, EventPointsExpired, NewTransactionJSON(*e)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil || n == 0 {
			return total, err
		}
		total += n
		if opt.Renew != nil && !opt.Renew() {
			return total, nil
		}
		opt.pause(ctx, time.Since(started))
	}
}
