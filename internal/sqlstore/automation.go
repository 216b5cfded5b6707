package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

const automationColumns = `a.id, a.business_id, a.name, a.enabled, a.trigger_type, a.trigger_days, a.trigger_count, a.segment_id,
	a.actions, a.period_days, a.pass_started, a.pass_after, a.baselined,
	a.trigger_level_id, a.trigger_card_id, a.created_at, a.updated_at`

func scanAutomation(row scanner) (loyalty.Automation, error) {
	var a loyalty.Automation
	var segment sql.NullInt64
	var actions string
	var pass sql.NullTime
	var level, card sql.NullInt64
	err := row.Scan(&a.ID, &a.BusinessID, &a.Name, &a.Enabled, &a.Trigger.Type, &a.Trigger.Days, &a.Trigger.Count, &segment,
		&actions, &a.PeriodDays, &pass, &a.PassAfter, &a.Baselined, &level, &card, &a.CreatedAt, &a.UpdatedAt)
	if err != nil {
		return a, dbError(err)
	}
	a.SegmentID, a.PassStarted, a.Trigger.LevelID, a.Trigger.CardID = segment.Int64, pass.Time, level.Int64, card.Int64
	if err := json.Unmarshal([]byte(actions), &a.Actions); err != nil {
		return a, fmt.Errorf("sqlstore: automation %d: actions: %w", a.ID, err)
	}
	return a, nil
}

// Automations pages a business's automations, oldest first.
func (d *DB) Automations(ctx context.Context, businessID string, q loyalty.ListQuery) ([]loyalty.Automation, int, error) {
	from, args, err := listWhere([]string{"a.business_id = $1"}, []any{businessID}, q, nil)
	if err != nil {
		return nil, 0, err
	}
	var out []loyalty.Automation
	total, err := d.listPage(ctx, automationColumns, `FROM automations a`+from, `a.id`, args, q, func(rows *sql.Rows) error {
		a, err := scanAutomation(rows)
		out = append(out, a)
		return err
	})
	return out, total, err
}

// Automation returns one automation of a business.
func (d *DB) Automation(ctx context.Context, businessID string, id int64) (loyalty.Automation, error) {
	return scanAutomation(d.db.QueryRowContext(ctx, `SELECT `+automationColumns+` FROM automations a WHERE a.business_id = $1 AND a.id = $2`,
		businessID, id))
}

// EnabledAutomations lists every business's enabled automations.
func (d *DB) EnabledAutomations(ctx context.Context) ([]loyalty.Automation, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT `+automationColumns+` FROM automations a WHERE a.enabled ORDER BY a.id`)
	var out []loyalty.Automation
	err = scanAll(rows, err, func(rows *sql.Rows) error {
		a, err := scanAutomation(rows)
		out = append(out, a)
		return err
	})
	return out, err
}

const runColumns = `automation_id, business_id, customer_id, run_key, step, state, due_at, started_at`

// DueRuns lists up to limit waiting runs of an automation due by at.
func (d *DB) DueRuns(ctx context.Context, automationID int64, waiting string, at time.Time, limit int) ([]loyalty.AutomationRun, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT `+runColumns+` FROM automation_runs WHERE automation_id = $1 AND state = $2
		AND due_at <= $3 ORDER BY due_at LIMIT $4`, automationID, waiting, at.UTC(), limit)
	var out []loyalty.AutomationRun
	err = scanAll(rows, err, func(rows *sql.Rows) error {
		var r loyalty.AutomationRun
		err := rows.Scan(&r.AutomationID, &r.BusinessID, &r.CustomerID, &r.Key, &r.Step, &r.State, &r.DueAt, &r.StartedAt)
		out = append(out, r)
		return err
	})
	return out, err
}

// RunCounts counts an automation's runs by state.
func (d *DB) RunCounts(ctx context.Context, automationID int64) (map[string]int, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT state, COUNT(*) FROM automation_runs WHERE automation_id = $1 GROUP BY state`, automationID)
	out := map[string]int{}
	err = scanAll(rows, err, func(rows *sql.Rows) error {
		var s string
		var n int
		err := rows.Scan(&s, &n)
		out[s] = n
		return err
	})
	return out, err
}

// automationArgs are the values of the written columns of a.
func automationArgs(a *loyalty.Automation) []any {
	return []any{a.Name, a.Enabled, a.Trigger.Type, a.Trigger.Days, a.Trigger.Count, nullInt(a.SegmentID), a.ActionsJSON(),
		a.PeriodDays, optionalTime(a.PassStarted), a.PassAfter, a.Baselined, nullInt(a.Trigger.LevelID), nullInt(a.Trigger.CardID), a.UpdatedAt.UTC()}
}

// InsertAutomation stores a new automation.
func (t *tx) InsertAutomation(ctx context.Context, a *loyalty.Automation) error {
	return dbError(t.QueryRowContext(ctx, `INSERT INTO automations (name, enabled, trigger_type, trigger_days, trigger_count,
		segment_id, actions, period_days, pass_started, pass_after, baselined, trigger_level_id, trigger_card_id, updated_at,
		business_id, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) RETURNING id`,
		append(automationArgs(a), a.BusinessID, a.CreatedAt.UTC())...).Scan(&a.ID))
}

// UpdateAutomation writes every field of an automation.
func (t *tx) UpdateAutomation(ctx context.Context, a *loyalty.Automation) error {
	_, err := t.ExecContext(ctx, `UPDATE automations SET name = $1, enabled = $2, trigger_type = $3, trigger_days = $4,
		trigger_count = $5, segment_id = $6, actions = $7, period_days = $8, pass_started = $9, pass_after = $10, baselined = $11,
		trigger_level_id = $12, trigger_card_id = $13, updated_at = $14 WHERE business_id = $15 AND id = $16`, append(automationArgs(a), a.BusinessID, a.ID)...)
	return dbError(err)
}

// DeleteAutomation removes an automation and its runs.
func (t *tx) DeleteAutomation(ctx context.Context, businessID string, id int64) error {
	if _, err := t.ExecContext(ctx, `DELETE FROM automation_runs WHERE automation_id = $1 AND business_id = $2`, id, businessID); err != nil {
		return dbError(err)
	}
	res, err := t.ExecContext(ctx, `DELETE FROM automations WHERE business_id = $1 AND id = $2`, businessID, id)
	if err != nil {
		return dbError(err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return dbError(sql.ErrNoRows)
	}
	return nil
}

// StartRun records a run; false when the automation has one of the key
// for the customer.
func (t *tx) StartRun(ctx context.Context, r loyalty.AutomationRun) (bool, error) {
	res, err := t.ExecContext(ctx, `INSERT INTO automation_runs (`+runColumns+`, occurred_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT (automation_id, customer_id, run_key) DO NOTHING`,
		r.AutomationID, r.BusinessID, r.CustomerID, r.Key, r.Step, r.State, r.DueAt.UTC(), r.StartedAt.UTC(), nullTime(r.Occurred))
	if err != nil {
		return false, dbError(err)
	}
	n, err := res.RowsAffected()
	return n == 1, dbError(err)
}

// SetRunOccurred writes r.Occurred on the customer's run of the automation
// under r.Key.
func (t *tx) SetRunOccurred(ctx context.Context, r loyalty.AutomationRun) error {
	_, err := t.ExecContext(ctx, `UPDATE automation_runs SET occurred_at = $1 WHERE automation_id = $2 AND customer_id = $3
		AND run_key = $4`, nullTime(r.Occurred), r.AutomationID, r.CustomerID, r.Key)
	return dbError(err)
}

// LastRunStarted is when the customer's latest run of the automation began.
func (t *tx) LastRunStarted(ctx context.Context, automationID int64, customerID string) (time.Time, error) {
	var last aggTime
	err := t.QueryRowContext(ctx, `SELECT MAX(started_at) FROM automation_runs WHERE automation_id = $1 AND customer_id = $2`,
		automationID, customerID).Scan(&last)
	return last.Time, dbError(err)
}

// AdvanceRun writes a run's step, state and due time if it is still at
// step from and waiting.
func (t *tx) AdvanceRun(ctx context.Context, r loyalty.AutomationRun, from int, waiting string) (bool, error) {
	res, err := t.ExecContext(ctx, `UPDATE automation_runs SET step = $1, state = $2, due_at = $3
		WHERE automation_id = $4 AND customer_id = $5 AND run_key = $6 AND step = $7 AND state = $8`,
		r.Step, r.State, r.DueAt.UTC(), r.AutomationID, r.CustomerID, r.Key, from, waiting)
	if err != nil {
		return false, dbError(err)
	}
	n, err := res.RowsAffected()
	return n == 1, dbError(err)
}

// AddCustomerTag gives a customer a tag, if it has not got it.
func (t *tx) AddCustomerTag(ctx context.Context, businessID, customerID, tag string) error {
	_, err := t.ExecContext(ctx, `INSERT INTO customer_tags (business_id, customer_id, tag) VALUES ($1, $2, $3)
		ON CONFLICT (business_id, customer_id, tag) DO NOTHING`, businessID, customerID, tag)
	return dbError(err)
}

// aggTime scans a time that may be NULL and that SQLite returns as text
// when it comes out of an aggregate (MAX of a DATETIME column loses the
// column's type).
type aggTime struct{ Time time.Time }

// sqliteTimeLayouts are the forms modernc's SQLite writes times in
// (_time_format=sqlite), with or without a fraction.
var sqliteTimeLayouts = []string{"2006-01-02 15:04:05.999999999-07:00", "2006-01-02 15:04:05-07:00", time.RFC3339Nano}

// Scan implements sql.Scanner.
func (t *aggTime) Scan(v any) error {
	switch x := v.(type) {
	case nil:
		t.Time = time.Time{}
	case time.Time:
		t.Time = x
	case string:
		var err error
		for _, l := range sqliteTimeLayouts {
			var p time.Time
			if p, err = time.Parse(l, x); err == nil {
				t.Time = p.UTC()
				return nil
			}
		}
		return fmt.Errorf("sqlstore: time %q: %w", x, err)
	default:
		return fmt.Errorf("sqlstore: cannot scan %T as a time", v)
	}
	return nil
}
