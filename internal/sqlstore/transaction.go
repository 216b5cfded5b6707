package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// entryColumns are the columns of a new ledger entry, in entryArgs' order.
const entryColumns = `business_id, customer_id, branch_id, intent, type_code, name, amount, points, giftcard, visits,
	tier_amount, tier_points, offer_id, coupon_id, giftcard_id, reverses_id, external_order_id,
	custom_field_1, custom_field_2, custom_field_3, custom_field_4, custom_field_5, has_details, created_at,
	receipt_number, comments, pending_points`

// entryValues are the values of entryColumns from entryArgs' parameters.
// An entry that names no branch belongs to the business's main branch
// ($3, the branch, else the main one of business $4, the business again):
// that subquery runs only for such entries, on the one-per-business index
// branches_main. Each parameter once and in order: SQLite's writer
// prepares it with ? (positional).
const entryValues = `$1, $2, COALESCE($3, (SELECT m.id FROM branches m WHERE m.business_id = $4 AND m.is_main)),
	$5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28`

// entryArgs are the values of entryColumns for e.
func entryArgs(e *loyalty.Transaction) []any {
	d := e.Details
	if d == nil {
		d = &loyalty.TransactionDetails{}
	}
	return []any{e.BusinessID, e.CustomerID, nullString(e.BranchID), e.BusinessID, e.Intent, e.TypeCode, e.Name, e.Amount, e.Points, e.Giftcard,
		e.Visits, e.TierAmount, e.TierPoints, nullInt(e.OfferID), nullInt(e.CouponID), nullInt(e.GiftcardID), nullInt(e.ReversesID),
		d.ExternalOrderID, d.CustomField1, d.CustomField2, d.CustomField3, d.CustomField4, d.CustomField5, e.Details != nil,
		e.CreatedAt.UTC(), e.Receipt, e.Comments, e.Pending}
}

// activitySet is the SET clauses that add an entry's activity
// (loyalty.EntryActivity) to the customers row aliased cu: visits and
// spend added, and the last visit moved to the entry's visit (time at,
// branch) when that is later. Every write path that moves a balance
// includes it.
func activitySet(visits, spend, at, branch string) string {
	// at is compared with the column first: PostgreSQL types a parameter
	// by where it first meets it.
	later := `(cu.last_visit_at < ` + at + ` OR (cu.last_visit_at IS NULL AND ` + at + ` IS NOT NULL))`
	return `visits_total = cu.visits_total + ` + visits + `, spend_total = cu.spend_total + ` + spend +
		`, last_visit_at = CASE WHEN ` + later + ` THEN ` + at + ` ELSE cu.last_visit_at END` +
		`, last_visit_branch = CASE WHEN ` + later + ` THEN ` + branch + ` ELSE cu.last_visit_branch END`
}

// activityArgs are the values of activitySet's parameters for e: visits,
// spend, the visit's time (NULL for none) and its branch (NULL for none
// named).
func activityArgs(e *loyalty.Transaction) []any {
	a := loyalty.EntryActivity(e)
	return []any{a.Visits, int64(a.Spend), a.VisitAt, nullString(a.VisitBranch)}
}

// balanceGuard is the one rule every balance move obeys, as SQL over the
// customers row aliased cu: an active customer of the business, the
// entry's branch (NULL for none) one of the business's, and neither
// balance below zero. points, giftcard and branch are SQL expressions of
// the entry's values (a parameter standing alone needs a CAST for
// PostgreSQL to know its type). Every write path builds its condition
// from it.
func balanceGuard(points, giftcard, branch string) string {
	return `cu.deleted_at IS NULL AND cu.enabled AND cu.points + ` + points + ` >= 0 AND cu.giftcard + ` + giftcard + ` >= 0
	AND (` + branch + ` IS NULL OR EXISTS (SELECT 1 FROM branches br WHERE br.business_id = cu.business_id AND br.id = ` + branch + `))`
}

// aloneGuard is balanceGuard for an entry written on its own (AppendAlone):
// also no referral waiting, which only the transactional path can pay.
func aloneGuard(points, giftcard, branch string) string {
	return balanceGuard(points, giftcard, branch) + ` AND NOT cu.referral_pending`
}

// appendUpdate moves the balance of a transactional Append: $1 active
// points, $2 gift card, $6 pending points; $7-$10 the entry's activity
// (activityArgs).
var appendUpdate = `UPDATE customers AS cu SET points = cu.points + $1, giftcard = cu.giftcard + $2, tx_count = cu.tx_count + 1,
	pending_points = cu.pending_points + $6, ` + activitySet("$7", "$8", "$9", "$10") + `
	WHERE cu.business_id = $3 AND cu.user_id = $4 AND ` + balanceGuard("$1", "$2", "CAST($5 AS TEXT)") + `
	RETURNING points, giftcard, pending_points, referral_pending`

// Append moves the balance and writes a ledger entry in the same
// transaction. The conditional update keeps balances at or above zero even
// under concurrent redemptions; a move it refuses is explained by the
// domain from the customer's row (refusal). The entry's points move lots
// too, as the domain plans them: from the lots an entry names, read
// under the customer's lock first (planNamed), else by loyalty.PlanLots.
func (t *tx) Append(ctx context.Context, e *loyalty.Transaction) error {
	var plan loyalty.LotPlan
	if e.NamesLots() {
		var err error
		if plan, err = t.planNamed(ctx, e); err != nil {
			return dbError(err)
		}
	} else {
		plan = loyalty.PlanLots(e)
	}
	err := t.QueryRowContext(ctx, appendUpdate, append([]any{e.Points - e.Pending, e.Giftcard, e.BusinessID, e.CustomerID,
		nullString(e.BranchID), e.Pending}, activityArgs(e)...)...).
		Scan(&e.Balance.Points, &e.Balance.Giftcard, &e.Balance.Pending, &e.ReferralPending)
	if err == sql.ErrNoRows {
		return t.refusal(ctx, e)
	} else if err != nil {
		return dbError(err)
	}
	err = t.QueryRowContext(ctx, `INSERT INTO transactions (`+entryColumns+`) VALUES (`+entryValues+`) RETURNING id`,
		entryArgs(e)...).Scan(&e.ID)
	if _, unique := uniqueColumn(err); unique && e.ReversesID != 0 {
		return loyalty.Refused(loyalty.RefusedReversed)
	} else if err != nil {
		return dbError(err)
	}
	for _, it := range e.Items {
		if _, err := t.ExecContext(ctx, `INSERT INTO transaction_items (transaction_id, reward_id, quantity, points) VALUES ($1, $2, $3, $4)`,
			e.ID, it.RewardID, it.Quantity, it.Points); err != nil {
			return dbError(err)
		}
	}
	return dbError(t.applyLots(ctx, e, plan))
}

// aloneUpdate moves the balance for AppendAlone on SQLite under
// aloneGuard; batchSQL does the same for PostgreSQL. Its parameters:
// $1 business, $2 customer, $3 branch or NULL, $4 active points, $5 gift
// card, $6 pending points, $7-$10 the entry's activity (activityArgs).
var aloneUpdate = `UPDATE customers AS cu SET points = cu.points + $4, giftcard = cu.giftcard + $5, tx_count = cu.tx_count + 1,
	pending_points = cu.pending_points + $6, ` + activitySet("$7", "$8", "$9", "$10") + `
	WHERE cu.business_id = $1 AND cu.user_id = $2 AND ` + aloneGuard("$4", "$5", "$3") + `
	RETURNING points, giftcard, pending_points`

// AppendAlone writes an entry without catalog items and moves the balance
// outside any caller's transaction, when the customer row allows it as it
// stands (aloneGuard). Otherwise it writes nothing and reports false: the
// caller takes the transactional path, which explains a refusal or does
// what else the entry needs (a referral to pay). The entries of
// concurrent calls are written together, one commit for many
// (appendBatch).
func (d *DB) AppendAlone(ctx context.Context, e *loyalty.Transaction) (bool, error) {
	if len(e.Items) > 0 {
		return false, nil
	}
	done, err := d.batch.append(ctx, e)
	return done, dbError(err)
}

// aloneInsert writes the entry of a lone append (SQLite).
const aloneInsert = `INSERT INTO transactions (` + entryColumns + `) VALUES (` + entryValues + `) RETURNING id`

// refusal reads the customer's row as the refused move found it, for
// the domain to say which part of the balance rule refused it.
func (t *tx) refusal(ctx context.Context, e *loyalty.Transaction) error {
	f := loyalty.BalanceFacts{Found: true}
	err := t.QueryRowContext(ctx, `SELECT cu.enabled, cu.deleted_at IS NOT NULL, cu.giftcard,
		CAST($3 AS TEXT) IS NULL OR EXISTS (SELECT 1 FROM branches br WHERE br.business_id = cu.business_id AND br.id = $3),
		EXISTS (SELECT 1 FROM transactions r WHERE r.business_id = cu.business_id AND r.reverses_id = $4)
		FROM customers cu WHERE cu.business_id = $1 AND cu.user_id = $2`,
		e.BusinessID, e.CustomerID, nullString(e.BranchID), e.ReversesID).Scan(&f.Enabled, &f.Deleted, &f.Giftcard, &f.BranchOK, &f.Reversed)
	if err == sql.ErrNoRows {
		f.Found = false
	} else if err != nil {
		return dbError(err)
	}
	return loyalty.RefusalFor(f, e)
}

const transactionColumns = `t.id, t.business_id, t.customer_id, COALESCE(t.branch_id, ''), t.intent, t.type_code, t.name, t.amount,
	t.points, t.giftcard, t.visits, t.tier_amount, t.tier_points, COALESCE(t.offer_id, 0), COALESCE(t.coupon_id, 0),
	COALESCE(t.giftcard_id, 0), COALESCE(t.reverses_id, 0), t.external_order_id, t.custom_field_1, t.custom_field_2,
	t.custom_field_3, t.custom_field_4, t.custom_field_5, t.has_details, t.created_at, t.receipt_number, t.comments,
	t.pending_points, COALESCE(t.lot_id, 0)`

func scanTransaction(row scanner) (loyalty.Transaction, error) {
	var e loyalty.Transaction
	var d loyalty.TransactionDetails
	var has bool
	err := row.Scan(&e.ID, &e.BusinessID, &e.CustomerID, &e.BranchID, &e.Intent, &e.TypeCode, &e.Name, &e.Amount,
		&e.Points, &e.Giftcard, &e.Visits, &e.TierAmount, &e.TierPoints, &e.OfferID, &e.CouponID, &e.GiftcardID, &e.ReversesID,
		&d.ExternalOrderID, &d.CustomField1, &d.CustomField2, &d.CustomField3, &d.CustomField4, &d.CustomField5, &has, &e.CreatedAt,
		&e.Receipt, &e.Comments, &e.Pending, &e.LotID)
	if err == sql.ErrNoRows {
		return e, loyalty.Errorf(loyalty.ENotFound, "Transaction not found.")
	}
	if has {
		e.Details = &d
	}
	return e, err
}

// Transaction returns one entry of a business's ledger.
func (t *tx) Transaction(ctx context.Context, businessID string, id int64) (loyalty.Transaction, error) {
	e, err := scanTransaction(t.QueryRowContext(ctx, `SELECT `+transactionColumns+` FROM transactions t
		WHERE t.business_id = $1 AND t.id = $2`, businessID, id))
	return e, dbError(err)
}

// transactionFilterColumns maps the ledger's filterable fields to SQL.
var transactionFilterColumns = map[string]string{
	"created_at": "t.created_at", "updated_at": "t.created_at", "transaction_type": "t.type_code",
	"branch.id": "t.branch_id", "customer.id": "t.customer_id",
	"transaction_details.external_order_id": "t.external_order_id",
}

// CustomerTransactions pages the entries of an active customer of the
// business (else ENotFound), newest first. Without filters the total is the
// customer's entry counter, not a count of the whole history.
func (d *DB) CustomerTransactions(ctx context.Context, businessID, customerID string, q loyalty.ListQuery) ([]loyalty.Transaction, int, error) {
	// The entry counter is also the check that the customer exists here.
	var total int
	err := d.row(ctx, `SELECT tx_count FROM customers WHERE business_id = $1 AND user_id = $2 AND deleted_at IS NULL`,
		businessID, customerID).Scan(&total)
	if err == sql.ErrNoRows {
		return nil, 0, loyalty.Errorf(loyalty.ENotFound, "Customer not found.")
	} else if err != nil {
		return nil, 0, dbError(err)
	}
	if len(q.Filters) > 0 {
		total = -1 // a filtered page is counted
	}
	return d.transactions(ctx, []string{"t.business_id = $1", "t.customer_id = $2"}, []any{businessID, customerID}, q, total)
}

// Transactions pages a business's entries, newest first. Without filters,
// or filtered by type code alone, the total is read from the business's
// entry counts (transaction_counts, see its migration), not counted over
// the whole ledger.
func (d *DB) Transactions(ctx context.Context, businessID string, q loyalty.ListQuery) ([]loyalty.Transaction, int, error) {
	total, err := d.ledgerTotal(ctx, businessID, q.Filters)
	if err != nil {
		return nil, 0, err
	}
	return d.transactions(ctx, []string{"t.business_id = $1"}, []any{businessID}, q, total)
}

// ledgerTotal sums the business's entry counts that match filters, or
// returns -1 when the filters are not on the type code alone (then the
// page counts its entries).
func (d *DB) ledgerTotal(ctx context.Context, businessID string, filters []loyalty.Filter) (int, error) {
	const sum = `SELECT COALESCE(SUM(n), 0) FROM transaction_counts WHERE business_id = $1`
	var total int
	if len(filters) == 0 {
		return total, dbError(d.row(ctx, sum, businessID).Scan(&total))
	}
	f := filters[0]
	if len(filters) > 1 || transactionFilterColumns[f.Field] != "t.type_code" || len(f.Values) == 0 {
		return -1, nil
	}
	values := f.Values
	not := ""
	switch f.Op {
	case loyalty.OpEq:
		values = values[:1]
	case loyalty.OpIn:
	case loyalty.OpNotIn:
		not = "NOT " // type_code is never NULL
	default:
		return -1, nil
	}
	list, args := placeholders([]any{businessID}, values)
	err := d.db.QueryRowContext(ctx, sum+` AND type_code `+not+`IN (`+list+`)`, args...).Scan(&total)
	return total, dbError(err)
}

// transactions runs a ledger page; total < 0 means count it.
func (d *DB) transactions(ctx context.Context, where []string, args []any, q loyalty.ListQuery, total int) ([]loyalty.Transaction, int, error) {
	cond, args, err := filterSQL(q.Filters, transactionFilterColumns, args)
	if err != nil {
		return nil, 0, err
	}
	from := ` FROM transactions t WHERE ` + strings.Join(append(where, cond...), " AND ")
	if total < 0 {
		if err := d.db.QueryRowContext(ctx, `SELECT COUNT(*)`+from, args...).Scan(&total); err != nil {
			return nil, 0, dbError(err)
		}
	}
	if total <= q.Offset() {
		return nil, total, nil
	}
	n := len(args)
	query := d.db.QueryContext
	if len(q.Filters) == 0 {
		query = d.rows
	}
	rows, err := query(ctx, `SELECT `+transactionColumns+from+
		fmt.Sprintf(` ORDER BY t.created_at DESC, t.id DESC LIMIT $%d OFFSET $%d`, n+1, n+2), append(args, q.PerPage, q.Offset())...)
	if err != nil {
		return nil, 0, dbError(err)
	}
	defer rows.Close()
	var out []loyalty.Transaction
	for rows.Next() {
		e, err := scanTransaction(rows)
		if err != nil {
			return nil, 0, dbError(err)
		}
		out = append(out, e)
	}
	return out, total, dbError(rows.Err())
}

// TierTotals sums a customer's tier spend, points and visits in [from, to).
func (d *DB) TierTotals(ctx context.Context, businessID, customerID string, from, to time.Time) (loyalty.TierTotals, error) {
	tot, err := tierTotalsOf(ctx, d.db, businessID, []string{customerID}, from, to)
	return tot[customerID], err
}

// CustomersByID returns the customers of a business with the given ids,
// deleted ones too, by id: the customers of a page of the ledger (at most
// a page's worth of ids).
func (d *DB) CustomersByID(ctx context.Context, businessID string, ids []string) (map[string]loyalty.Customer, error) {
	out := map[string]loyalty.Customer{}
	if len(ids) == 0 {
		return out, nil
	}
	args := []any{businessID}
	marks := make([]string, len(ids))
	for i, id := range ids {
		args = append(args, id)
		marks[i] = fmt.Sprintf("$%d", i+2)
	}
	rows, err := d.db.QueryContext(ctx, `SELECT `+customerColumns(d.dialect)+` FROM customers c
		WHERE c.business_id = $1 AND c.user_id IN (`+strings.Join(marks, ", ")+`)`, args...)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	for rows.Next() {
		c, err := scanCustomer(rows)
		if err != nil {
			return nil, dbError(err)
		}
		out[c.ID] = c
	}
	return out, dbError(rows.Err())
}

// SetTransactionDetails replaces the details of an entry: the one change
// the ledger allows to a written entry, the business's own references on
// it (its points and amounts are never updated).
func (t *tx) SetTransactionDetails(ctx context.Context, businessID string, id int64, d loyalty.TransactionDetails) error {
	res, err := t.ExecContext(ctx, `UPDATE transactions SET external_order_id = $3, custom_field_1 = $4, custom_field_2 = $5,
		custom_field_3 = $6, custom_field_4 = $7, custom_field_5 = $8, has_details = $9 WHERE business_id = $1 AND id = $2`,
		businessID, id, d.ExternalOrderID, d.CustomField1, d.CustomField2, d.CustomField3, d.CustomField4, d.CustomField5, true)
	if err != nil {
		return dbError(err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return dbError(err)
	} else if n == 0 {
		return loyalty.Errorf(loyalty.ENotFound, "Transaction not found.")
	}
	return nil
}

// ReversalsOf returns the entries of a business that reverse one of ids
// (reverses_id is unique and indexed).
func (d *DB) ReversalsOf(ctx context.Context, businessID string, ids []int64) ([]loyalty.Transaction, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	args := []any{businessID}
	ph := make([]string, len(ids))
	for i, id := range ids {
		args = append(args, id)
		ph[i] = fmt.Sprintf("$%d", i+2)
	}
	rows, err := d.db.QueryContext(ctx, `SELECT `+transactionColumns+` FROM transactions t
		WHERE t.business_id = $1 AND t.reverses_id IN (`+strings.Join(ph, ", ")+`) ORDER BY t.id`, args...)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	var out []loyalty.Transaction
	for rows.Next() {
		e, err := scanTransaction(rows)
		if err != nil {
			return nil, dbError(err)
		}
		out = append(out, e)
	}
	return out, dbError(rows.Err())
}
