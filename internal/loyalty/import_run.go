package loyalty

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/loyalty/loyalty/internal/worker"
)

// ImportWorker runs started imports in the background. It claims one
// with a lease, so that two instances never run the same import, and
// moves the lease on with each row it settles; a row's change, its mark
// and the import's progress commit in one transaction, and only while the
// claim holds. A worker that dies leaves the import to whichever worker
// claims it once the lease runs out, which resumes after the last row
// settled: each row is done once.
type ImportWorker struct {
	Imports *ImportService
	Logger  *slog.Logger
	Clock   func() time.Time
	Poll    time.Duration // how often to look for started imports (2s)
	Lease   time.Duration // how long a claim holds without progress (1 min)

	wakeOnce sync.Once
	wake     chan struct{}
	// afterRow, in tests, runs after each row settled; an error stops the
	// run there as a crash would.
	afterRow func(row int64) error
}

func (w *ImportWorker) wakeCh() chan struct{} {
	w.wakeOnce.Do(func() { w.wake = make(chan struct{}, 1) })
	return w.wake
}

// Wake makes a running worker look for started imports now.
func (w *ImportWorker) Wake() {
	select {
	case w.wakeCh() <- struct{}{}:
	default:
	}
}

func (w *ImportWorker) now() time.Time {
	if w.Clock != nil {
		return w.Clock().UTC()
	}
	return time.Now().UTC()
}

func (w *ImportWorker) lease() time.Duration { return cmp.Or(w.Lease, time.Minute) }

// Start runs the worker in the background until stop is called; stop
// waits for the row under way.
func (w *ImportWorker) Start(ctx context.Context) (stop func()) {
	return worker.Start(ctx, func(ctx context.Context) {
		worker.Loop(ctx, cmp.Or(w.Poll, 2*time.Second), w.wakeCh(), func(ctx context.Context) {
			if _, err := w.Drain(ctx); err != nil && ctx.Err() == nil {
				w.logger().ErrorContext(ctx, "imports: run failed", "err", err)
			}
		})
	})
}

func (w *ImportWorker) logger() *slog.Logger {
	if w.Logger != nil {
		return w.Logger
	}
	return slog.Default()
}

// Drain runs due imports until none is left or ctx is done, and returns
// how many it finished.
func (w *ImportWorker) Drain(ctx context.Context) (int, error) {
	store := w.Imports.Store
	finished := 0
	for ctx.Err() == nil {
		ids, err := store.DueImports(ctx, w.now(), 10)
		if err != nil || len(ids) == 0 {
			return finished, err
		}
		for _, id := range ids {
			now, claim := w.now(), NewID()
			im, ok, err := store.ClaimImport(ctx, id, claim, now, now.Add(w.lease()))
			if err != nil {
				return finished, err
			}
			if !ok {
				continue
			}
			if err := w.run(ctx, im, claim); err != nil {
				return finished, fmt.Errorf("import %d: %w", im.ID, err)
			}
			finished++
		}
	}
	return finished, nil
}

// run imports the rows of a claimed import after the last one settled.
func (w *ImportWorker) run(ctx context.Context, im Import, claim string) error {
	s := w.Imports
	b, err := s.Store.Business(ctx, im.BusinessID)
	if err != nil {
		return err
	}
	rows, err := newRowReader(im.Kind, im.Mapping, newChunkReader(ctx, s.Store, im))
	if err != nil {
		return err
	}
	if len(rows.unmapped) > 0 {
		return fmt.Errorf("the columns %q were started unmapped", rows.unmapped)
	}
	for ctx.Err() == nil {
		rec, num, rowErr, err := rows.next()
		if err == io.EOF {
			return s.Store.FinishImport(ctx, im.ID, claim)
		} else if err != nil {
			return err
		}
		if num <= im.NextRow {
			continue // settled before the run was resumed
		}
		mark := ImportRowMark{BusinessID: b.ID, ImportID: im.ID, Claim: claim, Row: num,
			Key: ImportRowKey(im.Kind, im.FileHash, num), LeaseUntil: w.now().Add(w.lease())}
		if err := w.row(ctx, b, im, rows.cols, rec, rowErr, mark); err != nil {
			if errors.Is(err, ErrImportLeaseLost) {
				return nil // another worker has it now
			}
			return err
		}
		if w.afterRow != nil {
			if err := w.afterRow(num); err != nil {
				return err
			}
		}
	}
	return ctx.Err()
}

// row settles one row: imported (its mark written with its change),
// failed (the reason kept), or skipped (imported already by an earlier
// import of the same file). An error returned stops the run; the row is
// tried again when the import is resumed.
func (w *ImportWorker) row(ctx context.Context, b Business, im Import, cols []*ImportCol, rec []string, rowErr error, mark ImportRowMark) error {
	s := w.Imports
	var r importRow
	if rowErr == nil {
		r, rowErr = readRow(b, im, cols, rec, mark.Row, s.Store.Now())
	}
	if rowErr != nil {
		e := rowError(mark.Row, rowErr)
		return s.Store.SettleImportRow(ctx, mark, &e)
	}
	if done, err := s.Store.ImportRowMarked(ctx, b.ID, mark.Key); err != nil {
		return err
	} else if done {
		return s.Store.SettleImportRow(ctx, mark, nil)
	}
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		m := mark
		if err = s.importRow(ctx, b, im, r, &m); err == nil {
			if !m.written {
				return fmt.Errorf("row %d: its change committed without its mark", mark.Row)
			}
			return nil
		}
		if err == ErrRowImported {
			return s.Store.SettleImportRow(ctx, mark, nil)
		}
		if storedRefusal(err) {
			e := rowError(mark.Row, err)
			return s.Store.SettleImportRow(ctx, mark, &e)
		}
		if ErrorCode(err) != EConflict || err == ErrImportLeaseLost {
			return err
		}
		// A concurrent change won (or SQLite was busy): try the row again.
	}
	return err
}

// importRow makes a row's change through the API's services, in a
// transaction that writes the row's mark.
func (s *ImportService) importRow(ctx context.Context, b Business, im Import, r importRow, mark *ImportRowMark) error {
	switch im.Kind {
	case ImportTransactions:
		_, _, err := s.Services.Transactions.create(ctx, b, r.tx, nil, entryOptions{imported: mark})
		return err
	case ImportProducts:
		return s.Store.WithTxOptions(ctx, importTx(mark), func(tx Tx) error {
			_, _, err := upsertProduct(ctx, tx, b, &r.product)
			return err
		})
	}
	cs := s.Services.Customers
	welcomed := false
	err := s.Store.WithTxOptions(ctx, importTx(mark), func(tx Tx) error {
		nc := r.customer
		c, created, err := cs.createTx(ctx, tx, b, nc.user, nc.addr, nc.enabled, nil)
		if err != nil {
			return err
		}
		if r.points > 0 {
			e := newEntry(b, c.ID, IntentAdjust, tx.Now())
			e.Points, e.Comments = r.points, "Opening balance (import)"
			if err := appendEntry(ctx, tx, &e); err != nil {
				return err
			}
		}
		if r.consent != nil {
			ct := Consent{BusinessID: b.ID, CustomerID: c.ID, Kind: ConsentMarketing, ContactChannels: *r.consent,
				Source: ConsentFromImport, By: "import #" + strconv.FormatInt(im.ID, 10), CreatedAt: tx.Now()}
			if err := recordConsent(ctx, tx, &ct); err != nil {
				return err
			}
		}
		if r.giftcard > 0 {
			e := newEntry(b, c.ID, IntentStoreCredit, tx.Now())
			e.Amount, e.Giftcard, e.Comments = r.giftcard, r.giftcard, "Opening gift-card balance (import)"
			if err := appendEntry(ctx, tx, &e); err != nil {
				return err
			}
		}
		welcomed = created
		if !created {
			return nil
		}
		return cs.welcome(ctx, tx, b, c.User)
	})
	if err == nil && welcomed {
		cs.notify()
	}
	return err
}
