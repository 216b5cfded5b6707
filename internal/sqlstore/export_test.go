package sqlstore

import (
	"context"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// SetBatchFault makes every PostgreSQL batch of lone appends call fault
// before its statement is sent (committed false) and after it committed
// (committed true); an error stands for the connection lost there. It
// returns a function that removes the fault.
func SetBatchFault(fault func(committed bool) error) (restore func()) {
	testHookBatch = fault
	return func() { testHookBatch = nil }
}

// ListenerPID is the server process of the connection db listens on for
// other instances' changes (PostgreSQL), 0 when it has none.
func (d *DB) ListenerPID() int32 {
	if d.listener == nil {
		return 0
	}
	return d.listener.pid.Load()
}

// CustomerPageSQL is the query of page 1 of a business's customer list
// ($1 the business, $2 the page's size, $3 its offset), as Customers
// writes it for dialect.
func CustomerPageSQL(dialect string) string {
	return latePage("c", "c.user_id", "FROM customers c WHERE c.business_id = $1 AND "+activeCustomers(dialect), "c.created_at, c.user_id", 1)
}

// AccessGeneration counts the changes that ended the token cache,
// including those heard from the database's notifications.
func (d *DB) AccessGeneration() uint64 { return d.tokens.gen.Load() }

// DueMessagesSQL is the outbox's poll, for its plan test.
const DueMessagesSQL = dueMessagesSQL

// EntriesByIDSQL is the read of ledger entries by id of the event
// readers, for its plan test: its one parameter is $1.
func EntriesByIDSQL(dialect string) string {
	from, _ := entriesByID(dialect, nil, nil)
	return `SELECT ` + transactionColumns + ` FROM ` + from
}

// CustomerByKeySQL is DB.Customer's statement on dialect.
func CustomerByKeySQL(dialect string) string { return customerByKey[dialect] }

// BatchSQL is the statement of PostgreSQL's group writer.
func BatchSQL() string { return batchSQL }

// InsertEvents writes events in one transaction the way a batch of lone
// appends writes its entries' events.
func (d *DB) InsertEvents(ctx context.Context, events []loyalty.Event) error {
	return d.runTx(ctx, func(t *tx) error { return t.insertEvents(ctx, events) })
}

// CustomerListSQL is the count and the page query of the customer list
// Customers runs for q (the page's columns cut to the key), with the
// arguments of each.
func CustomerListSQL(dialect, businessID string, q loyalty.ListQuery) (count, page string, countArgs, pageArgs []any, err error) {
	from, args, err := customerListFrom(dialect, businessID, q)
	if err != nil {
		return "", "", nil, nil, err
	}
	return `SELECT COUNT(*) ` + from, latePage("c", "c.user_id", from, "c.created_at, c.user_id", len(args)),
		args, append(append([]any(nil), args...), q.PerPage, q.Offset()), nil
}

// TierTotalsSQL is the statement that sums the tier totals of n customers
// ($4 to $n+3) of business $1 in [$2, $3).
func TierTotalsSQL(n int) string {
	in, _ := placeholders([]any{nil, nil, nil}, make([]string, n))
	return tierTotalsSQL(in)
}

// UnsequencedSQL are the queries that find a business's first unnumbered
// event ($1 the business) and the businesses with unnumbered events ($1
// how many).
func UnsequencedSQL() (first, businesses string) { return firstUnsequenced, unsequencedBusinesses }

// CandidatesSQL is the query Candidates runs, with its arguments.
func CandidatesSQL(dialect, businessID string, c loyalty.CustomerCriteria, after string, limit int) (string, []any) {
	return candidatesSQL(dialect, businessID, c, after, limit)
}
