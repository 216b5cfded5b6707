package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loyalty/loyalty/internal/app"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// rewardScript makes wrk POST rewards by amount, each for a customer
// picked at random among the ids listed.
const rewardScript = `ids = {%s}
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
  local id = ids[math.random(#ids)]
  return wrk.format(nil, nil, nil, '{"intent":"reward","amount":12.50,"customer":{"id":"' .. id .. '"}}')
end
`

// rewardCustomers is how many customers the reward load spreads over.
const rewardCustomers = 500

func rewardScenario(ctx context.Context, a *app.App, base, key, token, customerID string, o options) error {
	b, err := businessOfKey(ctx, a, key)
	if err != nil {
		return err
	}
	all, err := rewardCustomerIDs(ctx, a, b, customerID)
	if err != nil {
		return err
	}
	ids := make([]string, len(all))
	for i, id := range all {
		ids[i] = `"` + id + `"`
	}
	dir, err := os.MkdirTemp("", "loyalty-wrk")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "reward.lua")
	if err := os.WriteFile(script, []byte(fmt.Sprintf(rewardScript, strings.Join(ids, ","))), 0o600); err != nil {
		return err
	}
	req, _ := http.NewRequest("POST", base+"/transactions", strings.NewReader(`{"intent":"reward","amount":1,"customer":{"id":"`+customerID+`"}}`))
	req.Header.Set("X-Application-Key", key)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("warm-up reward: status %d", resp.StatusCode)
	}
	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	res, err := wrk(base+"/transactions", key, token, o.conns, o.threads, o.dur, script)
	if err != nil {
		return err
	}
	fmt.Printf("POST /transactions (reward by amount, %d customers): %s\n", rewardCustomers, res)
	fmt.Printf("peak resident memory of the process: %s\n", peakRSS())
	if o.bare {
		if a.DB.Dialect() != sqlstore.Postgres {
			fmt.Println("bare transaction: measured on PostgreSQL only")
			return nil
		}
		n, err := bareRewards(ctx, a, b.ID, all, o.conns, o.dur)
		if err != nil {
			return err
		}
		fmt.Printf("bare BEGIN, INSERT entry, UPDATE balance, COMMIT (%d clients, no HTTP): %.0f/s\n", o.conns, n)
	}
	return nil
}

// bareRewards is the reference the reward figure is read against: conns
// clients each running, as fast as they can, the plainest transaction a
// reward needs (insert the entry, move the balance, commit) on the same
// tables, with no HTTP, authentication or rules. It returns transactions
// per second.
func bareRewards(ctx context.Context, a *app.App, businessID string, ids []string, conns int, dur time.Duration) (float64, error) {
	db := a.DB.SQL()
	var done atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, conns)
	end := time.Now().Add(dur)
	for w := range conns {
		wg.Go(func() {
			for i := w; time.Now().Before(end); i += conns {
				id := ids[(i*7919)%len(ids)]
				tx, err := db.BeginTx(ctx, nil)
				if err != nil {
					errs <- err
					return
				}
				_, err = tx.ExecContext(ctx, `INSERT INTO transactions (business_id, customer_id, intent, type_code, name,
					amount, points, visits, tier_amount, tier_points, created_at) VALUES ($1, $2, 'reward', 4, 'Reward',
					1250, 12, 1, 1250, 12, $3)`, businessID, id, time.Now().UTC())
				if err == nil {
					_, err = tx.ExecContext(ctx, `UPDATE customers SET points = points + 12, tx_count = tx_count + 1
						WHERE business_id = $1 AND user_id = $2`, businessID, id)
				}
				if err == nil {
					err = tx.Commit()
				} else {
					tx.Rollback()
				}
				if err != nil {
					errs <- err
					return
				}
				done.Add(1)
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return 0, err
	}
	return float64(done.Load()) / dur.Seconds(), nil
}

// rewardCustomerIDs adds customers to b until, with first, there are
// rewardCustomers, gives the planner their statistics, and returns their
// ids.
func rewardCustomerIDs(ctx context.Context, a *app.App, b loyalty.Business, first string) ([]string, error) {
	cs := &loyalty.CustomerService{Store: a.DB}
	ids := []string{first}
	for i := 1; i < rewardCustomers; i++ {
		c, err := cs.Create(ctx, b, loyalty.CustomerInput{Email: loyalty.Some(fmt.Sprintf("reward-%d@example.com", i))})
		if err != nil {
			return nil, err
		}
		ids = append(ids, c.ID)
	}
	return ids, analyze(ctx, a)
}

// historyScenario compares page 1 of a short and a long history.
func historyScenario(ctx context.Context, a *app.App, base, key, token string, o options) error {
	b, err := businessOfKey(ctx, a, key)
	if err != nil {
		return err
	}
	short, err := seed(ctx, a, b, "short@example.com", 100)
	if err != nil {
		return err
	}
	start := time.Now()
	longID, err := seed(ctx, a, b, "long@example.com", o.entries)
	if err != nil {
		return err
	}
	fmt.Printf("seeded %d entries in %s\n", o.entries, time.Since(start).Round(time.Millisecond))
	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	// Each history is measured twice, interleaved, so neither gets the
	// warmer caches or the quieter machine.
	long := fmt.Sprintf("%d entries", o.entries)
	for _, c := range []struct {
		name, id string
	}{{"100 entries", short}, {long, longID}, {"100 entries", short}, {long, longID}} {
		target := base + "/customers/" + c.id + "/transactions?page=1"
		if err := check(target, key, token); err != nil {
			return err
		}
		res, err := wrk(target, key, token, o.conns, o.threads, o.dur, "")
		if err != nil {
			return err
		}
		fmt.Printf("GET /customers/{id}/transactions page 1, %s: %s\n", c.name, res)
	}
	return nil
}

func businessOfKey(ctx context.Context, a *app.App, key string) (loyalty.Business, error) {
	t, err := a.DB.Tenant(ctx, key)
	if err != nil {
		return loyalty.Business{}, err
	}
	return a.DB.Business(ctx, t.BusinessID)
}

// seed creates a customer with n reward entries, written through the
// ledger in batches of one transaction each.
func seed(ctx context.Context, a *app.App, b loyalty.Business, email string, n int) (string, error) {
	cs := &loyalty.CustomerService{Store: a.DB}
	c, err := cs.Create(ctx, b, loyalty.CustomerInput{Email: loyalty.Some(email)})
	if err != nil {
		return "", err
	}
	for done := 0; done < n; {
		batch := min(5000, n-done)
		err := a.DB.WithTx(ctx, func(tx loyalty.Tx) error {
			for i := 0; i < batch; i++ {
				e := loyalty.Transaction{BusinessID: b.ID, CustomerID: c.ID, Intent: loyalty.IntentReward,
					TypeCode: loyalty.TypeCodeReward, Name: "Reward", Amount: 1000, Points: 10, TierAmount: 1000,
					TierPoints: 10, Visits: 1, CreatedAt: tx.Now()}
				if err := tx.Append(ctx, &e); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return "", err
		}
		done += batch
	}
	return c.ID, nil
}

// analyze gives the planner statistics of the seeded tables, as a live
// database has them: the store's own (sqlstore.DB.Analyze; on SQLite
// without samples). On PostgreSQL it vacuums first: autovacuum would
// otherwise do both within a minute or so of the seeding, in the middle
// of the measured run, and the run should not measure that.
func analyze(ctx context.Context, a *app.App) error {
	if a.DB.Dialect() == sqlstore.Postgres {
		if _, err := a.DB.SQL().ExecContext(ctx, "VACUUM"); err != nil {
			return err
		}
	}
	return a.DB.Analyze(ctx)
}
