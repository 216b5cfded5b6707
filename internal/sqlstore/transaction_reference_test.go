package sqlstore_test

import (
	"errors"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// mainBranch returns the id of a business's main branch.
func mainBranch(tb testing.TB, db *sqlstore.DB, businessID string) string {
	tb.Helper()
	all, err := db.Branches(ctx, businessID)
	if err != nil {
		tb.Fatal(err)
	}
	for _, b := range all {
		if b.IsMain {
			return b.ID
		}
	}
	tb.Fatalf("business %s has no main branch", businessID)
	return ""
}

// addBranch adds a branch that is not the main one.
func addBranch(tb testing.TB, db *sqlstore.DB, businessID string) string {
	tb.Helper()
	br := loyalty.Branch{ID: loyalty.NewID(), BusinessID: businessID, Name: "Second"}
	if err := db.WithTx(ctx, func(tx loyalty.Tx) error { return tx.InsertBranch(ctx, &br) }); err != nil {
		tb.Fatal(err)
	}
	return br.ID
}

// branchOf reads the branch an entry is stored with ("" for NULL).
func branchOf(tb testing.TB, db *sqlstore.DB, id int64) string {
	tb.Helper()
	var branch *string
	if err := db.SQL().QueryRowContext(ctx, `SELECT branch_id FROM transactions WHERE id = $1`, id).Scan(&branch); err != nil {
		tb.Fatal(err)
	}
	if branch == nil {
		return ""
	}
	return *branch
}

// TestMigrationPutsOldEntriesOnTheMainBranch: migration 00012 gives the
// entries written without a branch the business's main branch, and leaves
// an entry's own branch alone.
func TestMigrationPutsOldEntriesOnTheMainBranch(t *testing.T) {
	for _, engine := range testenv.Engines() {
		t.Run(engine, func(t *testing.T) {
			db, err := sqlstore.Open(ctx, testenv.DSN(t, engine))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			if err := db.MigrateTo(ctx, 11); err != nil {
				t.Fatal(err)
			}
			// The rows as version 11 holds them, written in its own terms
			// (the store's code writes today's schema).
			now := time.Now().UTC()
			b := struct{ BusinessID string }{loyalty.NewID()}
			main, other, person := loyalty.NewID(), loyalty.NewID(), loyalty.NewID()
			for _, q := range []struct {
				sql  string
				args []any
			}{
				{`INSERT INTO businesses (id, name, loyalty_type, country_code, created_at, updated_at) VALUES ($1, 'Old', 'per_spend', 'US', $2, $2)`,
					[]any{b.BusinessID, now}},
				{`INSERT INTO branches (id, business_id, name, is_main, created_at) VALUES ($1, $2, 'Main', TRUE, $3)`, []any{main, b.BusinessID, now}},
				{`INSERT INTO branches (id, business_id, name, is_main, created_at) VALUES ($1, $2, 'Second', FALSE, $3)`, []any{other, b.BusinessID, now}},
				{`INSERT INTO users (id, email, created_at, updated_at) VALUES ($1, 'old@example.com', $2, $2)`, []any{person, now}},
				{`INSERT INTO customers (business_id, user_id, email, created_at, updated_at) VALUES ($1, $2, 'old@example.com', $3, $3)`,
					[]any{b.BusinessID, person, now}},
			} {
				if _, err := db.SQL().ExecContext(ctx, q.sql, q.args...); err != nil {
					t.Fatal(err)
				}
			}
			c := struct{ ID string }{person}
			insert := func(branch any) int64 {
				var id int64
				err := db.SQL().QueryRowContext(ctx, `INSERT INTO transactions (business_id, customer_id, branch_id, intent, type_code, name, created_at)
					VALUES ($1, $2, $3, 'reward', 4, 'Reward', $4) RETURNING id`, b.BusinessID, c.ID, branch, time.Now().UTC()).Scan(&id)
				if err != nil {
					t.Fatal(err)
				}
				return id
			}
			none, own := insert(nil), insert(other)
			if _, err := db.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			if got, want := branchOf(t, db, none), main; got != want {
				t.Errorf("an old entry without a branch is on %q, want the main branch %q", got, want)
			}
			if got := branchOf(t, db, own); got != other {
				t.Errorf("an old entry of branch %q is now on %q", other, got)
			}
		})
	}
}

// TestEveryWritePathKeepsTheReferenceFields: an entry written by Append,
// by the lone append (SQLite) or its PostgreSQL batch keeps its receipt
// number and comments, and one that names no branch is stored on the main
// branch while one that names a branch keeps it.
func TestEveryWritePathKeepsTheReferenceFields(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		b := createBusiness(t, db, "")
		c := createCustomer(t, db, b.BusinessID, loyalty.CustomerInput{Email: loyalty.Some("paths@example.com")})
		main, other := mainBranch(t, db, b.BusinessID), addBranch(t, db, b.BusinessID)
		entry := func(branch string) *loyalty.Transaction {
			return &loyalty.Transaction{BusinessID: b.BusinessID, CustomerID: c.ID, BranchID: branch, Intent: loyalty.IntentReward,
				TypeCode: loyalty.TypeCodeReward, Name: "Reward", Points: 3, Receipt: "R-" + branch, Comments: "by " + branch,
				CreatedAt: time.Now().UTC().Truncate(time.Second)}
		}
		write := map[string]func(e *loyalty.Transaction){
			"Append": func(e *loyalty.Transaction) {
				if err := db.WithTx(ctx, func(tx loyalty.Tx) error { return tx.Append(ctx, e) }); err != nil {
					t.Fatal(err)
				}
			},
			"AppendAlone": func(e *loyalty.Transaction) {
				if done, err := db.AppendAlone(ctx, e); err != nil || !done {
					t.Fatalf("AppendAlone: %v, %v", done, err)
				}
			},
		}
		for name, w := range write {
			for _, branch := range []string{"", other} {
				e := entry(branch)
				w(e)
				want := branch
				if want == "" {
					want = main
				}
				if got := branchOf(t, db, e.ID); got != want {
					t.Errorf("%s with branch %q: stored on %q, want %q", name, branch, got, want)
				}
				err := db.WithTx(ctx, func(tx loyalty.Tx) error {
					got, err := tx.Transaction(ctx, b.BusinessID, e.ID)
					if err == nil && (got.Receipt != e.Receipt || got.Comments != e.Comments) {
						t.Errorf("%s: read back receipt %q, comments %q; want %q, %q", name, got.Receipt, got.Comments, e.Receipt, e.Comments)
					}
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}

// TestTryUndoesOnlyItsPart: what a failed Try wrote is gone, what the
// transaction wrote before it commits; on PostgreSQL a failed statement
// inside Try does not abort the transaction.
func TestTryUndoesOnlyItsPart(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		b := createBusiness(t, db, "")
		kept := loyalty.Branch{ID: loyalty.NewID(), BusinessID: b.BusinessID, Name: "Kept"}
		undone := loyalty.Branch{ID: loyalty.NewID(), BusinessID: b.BusinessID, Name: "Undone"}
		after := loyalty.Branch{ID: loyalty.NewID(), BusinessID: b.BusinessID, Name: "After"}
		refused := errors.New("refused")
		err := db.WithTx(ctx, func(tx loyalty.Tx) error {
			if err := tx.InsertBranch(ctx, &kept); err != nil {
				return err
			}
			err := tx.Try(ctx, func() error {
				if err := tx.InsertBranch(ctx, &undone); err != nil {
					return err
				}
				return refused
			})
			if err != refused {
				t.Errorf("Try returned %v, want fn's error", err)
			}
			// A statement that fails (the same id twice) inside Try.
			err = tx.Try(ctx, func() error { return tx.InsertBranch(ctx, &kept) })
			if err == nil {
				t.Errorf("inserting a branch twice succeeded")
			}
			return tx.InsertBranch(ctx, &after)
		})
		if err != nil {
			t.Fatalf("the transaction around the failed Try: %v", err)
		}
		all, err := db.Branches(ctx, b.BusinessID)
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]bool{}
		for _, br := range all {
			names[br.Name] = true
		}
		if !names["Kept"] || !names["After"] || names["Undone"] {
			t.Errorf("branches after the commit: %v; want Kept and After, not Undone", names)
		}
	})
}

// TestIdempotencyKeysAreKeptTheirTime: a key is found for
// IdempotencyKeyTTL, then forgotten, and may then be used again.
func TestIdempotencyKeysAreKeptTheirTime(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		b := createBusiness(t, db, "")
		start := time.Now()
		at := start
		db.Clock = func() time.Time { return at }
		begin := func() error {
			return db.WithTx(ctx, func(tx loyalty.Tx) error {
				if err := tx.BeginIdempotent(ctx, b.BusinessID, "K", []byte("hash")); err != nil {
					return err
				}
				return tx.FinishIdempotent(ctx, b.BusinessID, "K", 1, []byte(`{}`))
			})
		}
		if err := begin(); err != nil {
			t.Fatal(err)
		}
		at = start.Add(loyalty.IdempotencyKeyTTL - time.Minute)
		if _, err := db.IdempotentReply(ctx, b.BusinessID, "K"); err != nil {
			t.Fatalf("a key within its time: %v", err)
		}
		wantCode(t, begin(), loyalty.EConflict)
		at = start.Add(loyalty.IdempotencyKeyTTL + time.Minute)
		_, err := db.IdempotentReply(ctx, b.BusinessID, "K")
		wantCode(t, err, loyalty.ENotFound)
		if err := begin(); err != nil {
			t.Fatalf("reusing a forgotten key: %v", err)
		}
		var n int
		if err := db.SQL().QueryRowContext(ctx, `SELECT COUNT(*) FROM idempotency_keys WHERE business_id = $1`, b.BusinessID).Scan(&n); err != nil || n != 1 {
			t.Fatalf("keys kept: %d (%v), want 1", n, err)
		}
	})
}
