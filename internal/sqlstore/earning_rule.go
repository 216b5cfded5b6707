package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/loyalty/loyalty/internal/loyalty"
)

const earningRuleColumns = `r.id, r.business_id, r.name, r.enabled, r.priority, r.exclusive, r.starts_at, r.ends_at, r.definition,
	r.deleted_at, r.created_at, r.updated_at`

func scanEarningRule(row scanner) (loyalty.EarningRule, error) {
	var r loyalty.EarningRule
	var starts, ends, deleted sql.NullTime
	var def string
	err := row.Scan(&r.ID, &r.BusinessID, &r.Name, &r.Enabled, &r.Priority, &r.Exclusive, &starts, &ends, &def, &deleted,
		&r.CreatedAt, &r.UpdatedAt)
	if err == sql.ErrNoRows {
		return r, loyalty.Errorf(loyalty.ENotFound, "Earning rule not found.")
	} else if err != nil {
		return r, err
	}
	r.StartsAt, r.EndsAt, r.Deleted = starts.Time, ends.Time, deleted.Valid
	var d loyalty.RuleDefinition
	if err := json.Unmarshal([]byte(def), &d); err != nil {
		return r, err
	}
	r.SetDefinition(d)
	return r, nil
}

// EarningRule returns one rule of a business, deleted or not.
func (d *DB) EarningRule(ctx context.Context, businessID string, id int64) (loyalty.EarningRule, error) {
	return earningRuleWhere(ctx, d.db, businessID, id)
}

// EarningRule returns one rule of a business, deleted or not.
func (t *tx) EarningRule(ctx context.Context, businessID string, id int64) (loyalty.EarningRule, error) {
	return earningRuleWhere(ctx, t.Tx, businessID, id)
}

func earningRuleWhere(ctx context.Context, q querier, businessID string, id int64) (loyalty.EarningRule, error) {
	r, err := scanEarningRule(q.QueryRowContext(ctx, `SELECT `+earningRuleColumns+` FROM earning_rules r
		WHERE r.business_id = $1 AND r.id = $2`, businessID, id))
	return r, dbError(err)
}

// EarningRulePage pages the live rules of a business, oldest first.
func (d *DB) EarningRulePage(ctx context.Context, businessID string, q loyalty.ListQuery) ([]loyalty.EarningRule, int, error) {
	from, args, err := listWhere([]string{"r.business_id = $1", "r.deleted_at IS NULL"}, []any{businessID}, q, nil)
	if err != nil {
		return nil, 0, err
	}
	out := []loyalty.EarningRule{}
	total, err := d.listPage(ctx, earningRuleColumns, `FROM earning_rules r`+from, `r.id`, args, q, func(rows *sql.Rows) error {
		r, err := scanEarningRule(rows)
		out = append(out, r)
		return err
	})
	return out, total, err
}

// EarningRules returns every live rule of a business, oldest first.
func (d *DB) EarningRules(ctx context.Context, businessID string) ([]loyalty.EarningRule, error) {
	return earningRules(ctx, d.db, businessID)
}

// EarningRules returns every live rule of a business, oldest first.
func (t *tx) EarningRules(ctx context.Context, businessID string) ([]loyalty.EarningRule, error) {
	return earningRules(ctx, t.Tx, businessID)
}

func earningRules(ctx context.Context, q querier, businessID string) ([]loyalty.EarningRule, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+earningRuleColumns+` FROM earning_rules r
		WHERE r.business_id = $1 AND r.deleted_at IS NULL ORDER BY r.id`, businessID)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	out := []loyalty.EarningRule{}
	for rows.Next() {
		r, err := scanEarningRule(rows)
		if err != nil {
			return nil, dbError(err)
		}
		out = append(out, r)
	}
	return out, dbError(rows.Err())
}

// InsertEarningRule stores a new rule.
func (t *tx) InsertEarningRule(ctx context.Context, r *loyalty.EarningRule) error {
	t.accessChanged() // whether the business has earning rules, and which
	def, err := json.Marshal(r.Definition())
	if err != nil {
		return err
	}
	return dbError(t.QueryRowContext(ctx, `INSERT INTO earning_rules (business_id, name, enabled, priority, exclusive, starts_at,
		ends_at, definition, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`, r.BusinessID,
		r.Name, r.Enabled, r.Priority, r.Exclusive, nullTime(r.StartsAt), nullTime(r.EndsAt), string(def), r.CreatedAt.UTC(),
		r.UpdatedAt.UTC()).Scan(&r.ID))
}

// UpdateEarningRule writes every field of a rule, or stamps it deleted.
func (t *tx) UpdateEarningRule(ctx context.Context, r *loyalty.EarningRule) error {
	t.accessChanged()
	def, err := json.Marshal(r.Definition())
	if err != nil {
		return err
	}
	var deleted sql.NullTime
	if r.Deleted {
		deleted = nullTime(r.UpdatedAt)
	}
	_, err = t.ExecContext(ctx, `UPDATE earning_rules SET name = $1, enabled = $2, priority = $3, exclusive = $4, starts_at = $5,
		ends_at = $6, definition = $7, deleted_at = $8, updated_at = $9 WHERE business_id = $10 AND id = $11`, r.Name, r.Enabled,
		r.Priority, r.Exclusive, nullTime(r.StartsAt), nullTime(r.EndsAt), string(def), deleted, r.UpdatedAt.UTC(), r.BusinessID, r.ID)
	return dbError(err)
}

// EarningRuleUsage returns a customer's uses of rules and the points
// rules' budgets gave, each in the period named.
func (d *DB) EarningRuleUsage(ctx context.Context, customerID string, uses, budgets []loyalty.RulePeriod) (loyalty.RuleUsage, error) {
	return earningRuleUsage(ctx, d.db, customerID, uses, budgets)
}

// EarningRuleUsage is DB.EarningRuleUsage in the transaction.
func (t *tx) EarningRuleUsage(ctx context.Context, customerID string, uses, budgets []loyalty.RulePeriod) (loyalty.RuleUsage, error) {
	return earningRuleUsage(ctx, t.Tx, customerID, uses, budgets)
}

func earningRuleUsage(ctx context.Context, q querier, customerID string, uses, budgets []loyalty.RulePeriod) (loyalty.RuleUsage, error) {
	out := loyalty.RuleUsage{Uses: map[int64]int64{}, Spent: map[int64]int64{}}
	for _, k := range uses {
		var n int64
		err := q.QueryRowContext(ctx, `SELECT uses FROM earning_rule_uses WHERE rule_id = $1 AND customer_id = $2 AND period = $3`,
			k.RuleID, customerID, k.Period).Scan(&n)
		if err != nil && err != sql.ErrNoRows {
			return out, dbError(err)
		}
		out.Uses[k.RuleID] = n
	}
	for _, k := range budgets {
		var n int64
		err := q.QueryRowContext(ctx, `SELECT points FROM earning_rule_budgets WHERE rule_id = $1 AND period = $2`,
			k.RuleID, k.Period).Scan(&n)
		if err != nil && err != sql.ErrNoRows {
			return out, dbError(err)
		}
		out.Spent[k.RuleID] = n
	}
	return out, nil
}

// RuleUsers counts the customers with a use of a rule recorded in a
// period.
func (d *DB) RuleUsers(ctx context.Context, ruleID int64, period string) (int, error) {
	var n int
	err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM earning_rule_uses WHERE rule_id = $1 AND period = $2`, ruleID, period).Scan(&n)
	return n, dbError(err)
}

// TakeRuleUse counts one more use of a rule by a customer in a period
// unless the count has reached max: one upsert, which a concurrent take of
// the same counter waits on (the row's lock) and then sees committed.
func (t *tx) TakeRuleUse(ctx context.Context, ruleID int64, customerID, period string, max int64) (bool, error) {
	res, err := t.ExecContext(ctx, `INSERT INTO earning_rule_uses (rule_id, customer_id, period, uses) VALUES ($1, $2, $3, 1)
		ON CONFLICT (rule_id, customer_id, period) DO UPDATE SET uses = earning_rule_uses.uses + 1
		WHERE earning_rule_uses.uses < $4`, ruleID, customerID, period, max)
	return affectedOne(res, err)
}

// TakeRuleBudget adds points (at most max) to what a rule's budget gave
// in a period unless the sum would pass max, as TakeRuleUse counts.
func (t *tx) TakeRuleBudget(ctx context.Context, ruleID int64, period string, points, max int64) (bool, error) {
	res, err := t.ExecContext(ctx, `INSERT INTO earning_rule_budgets (rule_id, period, points) VALUES ($1, $2, $3)
		ON CONFLICT (rule_id, period) DO UPDATE SET points = earning_rule_budgets.points + $3
		WHERE earning_rule_budgets.points + $3 <= $4`, ruleID, period, points, max)
	return affectedOne(res, err)
}

// affectedOne reports whether a write changed one row.
func affectedOne(res sql.Result, err error) (bool, error) {
	if err != nil {
		return false, dbError(err)
	}
	n, err := res.RowsAffected()
	return n == 1, dbError(err)
}

// CustomerPurchaseFacts returns a customer's birth date and whether it
// has a reward for a spend.
func (d *DB) CustomerPurchaseFacts(ctx context.Context, businessID, customerID string) (loyalty.CustomerFacts, error) {
	return customerPurchaseFacts(ctx, d.db, businessID, customerID)
}

// CustomerPurchaseFacts is DB.CustomerPurchaseFacts in the transaction.
func (t *tx) CustomerPurchaseFacts(ctx context.Context, businessID, customerID string) (loyalty.CustomerFacts, error) {
	return customerPurchaseFacts(ctx, t.Tx, businessID, customerID)
}

func customerPurchaseFacts(ctx context.Context, q querier, businessID, customerID string) (loyalty.CustomerFacts, error) {
	var f loyalty.CustomerFacts
	err := q.QueryRowContext(ctx, `SELECT c.birth_date, EXISTS (SELECT 1 FROM transactions t WHERE t.business_id = c.business_id
		AND t.customer_id = c.user_id AND t.intent = $3 AND t.amount > 0) FROM customers c WHERE c.business_id = $1 AND c.user_id = $2`,
		businessID, customerID, loyalty.IntentReward).Scan(&f.BirthDate, &f.Purchased)
	if err == sql.ErrNoRows {
		return f, nil
	}
	return f, dbError(err)
}
