package sqlstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// TestMigrationOpensALotPerBalance: a balance kept before lots existed
// becomes one active lot that never expires, so that the lots add up to
// the balance from the start and the first redemption has a lot to take
// from.
func TestMigrationOpensALotPerBalance(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db, err := sqlstore.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		if err := db.MigrateTo(ctx, 14); err != nil {
			t.Fatal(err)
		}
		now := time.Now().UTC().Truncate(time.Second)
		business, person, empty := loyalty.NewID(), loyalty.NewID(), loyalty.NewID()
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{`INSERT INTO businesses (id, name, loyalty_type, country_code, created_at, updated_at) VALUES ($1, 'Old', 'per_spend', 'US', $2, $2)`,
				[]any{business, now}},
			{`INSERT INTO branches (id, business_id, name, is_main, created_at) VALUES ($1, $2, 'Main', TRUE, $3)`, []any{loyalty.NewID(), business, now}},
			{`INSERT INTO users (id, email, created_at, updated_at) VALUES ($1, 'kept@example.com', $2, $2)`, []any{person, now}},
			{`INSERT INTO users (id, email, created_at, updated_at) VALUES ($1, 'none@example.com', $2, $2)`, []any{empty, now}},
			{`INSERT INTO customers (business_id, user_id, email, points, created_at, updated_at) VALUES ($1, $2, 'kept@example.com', 120, $3, $3)`,
				[]any{business, person, now}},
			{`INSERT INTO customers (business_id, user_id, email, created_at, updated_at) VALUES ($1, $2, 'none@example.com', $3, $3)`,
				[]any{business, empty, now}},
		} {
			if _, err := db.SQL().ExecContext(ctx, q.sql, q.args...); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		var n, earned, remaining int64
		var state string
		var expires *time.Time
		err = db.SQL().QueryRowContext(ctx, `SELECT COUNT(*) OVER (), earned, remaining, state, expires_at FROM point_lots
			WHERE business_id = $1`, business).Scan(&n, &earned, &remaining, &state, &expires)
		if err != nil || n != 1 || earned != 120 || remaining != 120 || state != "active" || expires != nil {
			t.Fatalf("opening lots: %d, earned %d, remaining %d, %s, expires %v (%v); want one of 120, active, never", n, earned, remaining, state, expires, err)
		}
		e := loyalty.Transaction{BusinessID: business, CustomerID: person, Intent: loyalty.IntentRedeem, TypeCode: loyalty.TypeCodeRedeem,
			Name: loyalty.TypeName(loyalty.TypeCodeRedeem), Points: -100, CreatedAt: now}
		if err := db.WithTx(ctx, func(tx loyalty.Tx) error { return tx.Append(ctx, &e) }); err != nil {
			t.Fatal(err)
		}
		if err := db.SQL().QueryRowContext(ctx, `SELECT remaining FROM point_lots WHERE business_id = $1`, business).Scan(&remaining); err != nil || remaining != 20 {
			t.Fatalf("the opening lot after redeeming 100: %d (%v)", remaining, err)
		}
	})
}
