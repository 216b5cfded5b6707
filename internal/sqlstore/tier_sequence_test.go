package sqlstore_test

import (
	"slices"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// TestTiersSequenceMigration: programs stored before tiers_sequence (its
// migration, 00014) come out of it counting the criteria their levels set,
// and go on reaching the same levels.
func TestTiersSequenceMigration(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		// The business is made by today's store, before the schema goes
		// back to what the programs were stored in.
		b := createBusiness(t, db, "").BusinessID
		if err := db.MigrateDownTo(ctx, 13); err != nil {
			t.Fatal(err)
		}
		now := time.Now().UTC().Truncate(time.Second)
		insert := func(levels ...[3]int64) int64 {
			t.Helper()
			var id int64
			if err := db.SQL().QueryRow(`INSERT INTO tiers (business_id, created_at, updated_at) VALUES ($1, $2, $3) RETURNING id`,
				b, now, now).Scan(&id); err != nil {
				t.Fatal(err)
			}
			for i, l := range levels {
				if _, err := db.SQL().Exec(`INSERT INTO tier_levels (tier_id, name, reach_spend, reach_points, reach_visits, position)
					VALUES ($1, $2, $3, $4, $5, $6)`, id, "L"+string(rune('A'+i)), l[0], l[1], l[2], i); err != nil {
					t.Fatal(err)
				}
			}
			return id
		}
		spendVisits := insert([3]int64{0, 0, 0}, [3]int64{10000, 0, 3}, [3]int64{30000, 0, 0})
		points := insert([3]int64{0, 0, 0}, [3]int64{0, 500, 0})
		base := insert([3]int64{0, 0, 0})
		if _, err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			id   int64
			want []string
		}{{spendVisits, []string{"1", "3"}}, {points, []string{"2"}}, {base, []string{"1", "2", "3"}}} {
			got, err := db.Tier(ctx, b, c.id)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Sequence, c.want) || !slices.Equal(got.Criteria(), c.want) {
				t.Errorf("program %d: sequence %v (criteria %v), want %v", c.id, got.Sequence, got.Criteria(), c.want)
			}
		}
		// The migrated program reaches its levels as before: 3 visits reach LB.
		tr, _ := db.Tier(ctx, b, spendVisits)
		if st := loyalty.TierProgress(now, tr, loyalty.TierTotals{Visits: 3}, loyalty.TierTotals{}); st.Level == nil || st.Level.Name != "LB" {
			t.Errorf("3 visits after the migration: level %+v, want LB", st.Level)
		}
	})
}

// TestTierSequenceAndPages: a program's tiers_sequence is stored as sent
// and changed by an update; TierPage and ReferralProgramPage page a
// business's programs, oldest first, with their totals.
func TestTierSequenceAndPages(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		b := loyalty.Business{ID: createBusiness(t, db, "").BusinessID}
		svc := &loyalty.TierService{Store: db}
		levels := loyalty.Some([]loyalty.TierLevelInput{
			{Name: loyalty.Some("A"), ReachSpend: loyalty.Some[loyalty.Money](500), ReachPoints: loyalty.Some[int64](10), ReachVisits: loyalty.Some[int64](2)},
			{Name: loyalty.Some("B"), ReachSpend: loyalty.Some[loyalty.Money](500), ReachPoints: loyalty.Some[int64](20), ReachVisits: loyalty.Some[int64](2)},
		})
		var ids []int64
		for range 3 {
			tr, err := svc.Create(ctx, b, loyalty.TierInput{TiersSequence: loyalty.Some([]any{"2"}), TierLevels: levels})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, tr.ID)
		}
		got, err := svc.Get(ctx, b, ids[0])
		if err != nil || !slices.Equal(got.Sequence, []string{"2"}) {
			t.Fatalf("stored sequence %v (%v), want [2]", got.Sequence, err)
		}
		up, err := svc.Update(ctx, b, ids[0], loyalty.TierInput{TiersSequence: loyalty.Some([]any{float64(2), "1"}),
			TierLevels: loyalty.Some([]loyalty.TierLevelInput{{Name: loyalty.Some("Only"), ReachSpend: loyalty.Some[loyalty.Money](100)}})})
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := svc.Get(ctx, b, ids[0]); !slices.Equal(got.Sequence, []string{"2", "1"}) || !slices.Equal(up.Sequence, got.Sequence) {
			t.Errorf("updated sequence %v, want [2 1]", got.Sequence)
		}

		page, total, err := db.TierPage(ctx, b.ID, loyalty.ListQuery{Page: 2, PerPage: 2})
		if err != nil || total != 3 || len(page) != 1 || page[0].ID != ids[2] || len(page[0].Levels) != 2 {
			t.Errorf("tier page 2 of 2: %+v, total %d (%v)", page, total, err)
		}
		if page, total, err := db.TierPage(ctx, b.ID, loyalty.ListQuery{Page: 3, PerPage: 2}); err != nil || total != 3 || len(page) != 0 {
			t.Errorf("tier page past the end: %+v, total %d (%v)", page, total, err)
		}

		rp := &loyalty.ReferralProgramService{Store: db}
		var pids []int64
		for range 3 {
			p, err := rp.Create(ctx, b, loyalty.ReferralProgramInput{CondMinAmount: loyalty.Some[loyalty.Money](100),
				RefereeEarns: loyalty.Some[int64](1), RefererEarns: loyalty.Some[int64](2), ExpiresIn: loyalty.Some[int64](30)})
			if err != nil {
				t.Fatal(err)
			}
			pids = append(pids, p.ID)
		}
		other := createBusiness(t, db, "").BusinessID
		progs, total, err := db.ReferralProgramPage(ctx, b.ID, loyalty.ListQuery{Page: 1, PerPage: 2})
		if err != nil || total != 3 || len(progs) != 2 || progs[0].ID != pids[0] || progs[1].ID != pids[1] {
			t.Errorf("referral page 1 of 2: %+v, total %d (%v)", progs, total, err)
		}
		if progs, total, err := db.ReferralProgramPage(ctx, other, loyalty.ListQuery{Page: 1, PerPage: 2}); err != nil || total != 0 || len(progs) != 0 {
			t.Errorf("another business's page: %+v, total %d (%v)", progs, total, err)
		}
	})
}
