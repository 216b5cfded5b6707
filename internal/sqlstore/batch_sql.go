package sqlstore

// batchSQL writes a batch: the entries arrive as one array per column
// (ord numbers them, and their activity comes last: loyalty.EntryActivity) with the ids reserved for them, so the written ones
// are known by what the update returns; each earning entry opens its lot
// of points (l), and a reward's basket is written with it (bk, bl). The entries' events arrive the
// same way, tied to their entry's ord, and only those of written entries
// are inserted: an entry and its event commit together or not at all.
//
// The batch numbers its events itself (k): it moves each business's
// event_sequences row past them, holding the row for the rest of this
// one statement and its commit, the same lock the sequencer takes (see
// event.go), so the numbers stay consecutive and visible in order. A
// business's batches were one at a time already (one writer per
// instance); its transactions, numbered later by the sequencer, never
// wait for it. The rows must exist (ensureSequences): an UPDATE in a CTE
// does not see a row inserted by another CTE of the statement.
//
// Before its own, the batch numbers the business's committed events that
// are still unnumbered (g, events_number_pending, migration 00071): a
// change of one of its customers written one by one just before (a
// redeem, then a reward) waits for the sequencer, and numbering the
// batch's events first put the later change before the earlier in the
// feed (TestEventsNumberedInCommitOrder). The function runs once per
// business after c has taken every customer of the batch (g aggregates
// x, which joins c), and its statements, unlike this one, each take a
// snapshot of their own: they see a change that committed while the
// batch waited for its customer, which this statement's snapshot,
// taken before, does not. It takes each business's sequence row, in
// the order of the businesses' ids (b is sorted; a hashed aggregate
// would hand them out in hash order), so that two instances' batches
// sharing businesses never wait on each other in a circle
// (TestBatchPlanTakesSequencesInOrder).
//
// Every join is between the statement's own rows (arrays and CTEs) and
// the tables are reached by primary key, but whether the planner walks
// customers' key for each row or hashes the whole table still depends on
// how big it believes the table is: the plan the writer runs is at most a
// second old (batchConn), or made afresh for each batch (send), never one
// cached when the table was small.
var batchSQL = `WITH v AS MATERIALIZED (
	SELECT v.* FROM unnest($1::integer[], $2::text[], $3::text[], $4::text[], $5::text[], $6::integer[], $7::text[], $8::bigint[],
		$9::bigint[], $10::bigint[], $11::bigint[], $12::bigint[], $13::bigint[], $14::bigint[], $15::bigint[],
		$16::bigint[], $17::bigint[], $18::text[], $19::text[], $20::text[], $21::text[], $22::text[], $23::text[],
		$24::boolean[], $25::timestamptz[], $26::bigint[], $27::text[], $28::text[], $29::bigint[], $30::timestamptz[],
		$31::timestamptz[], $32::timestamptz[], $33::text[], $54::bigint[], $55::bigint[], $56::timestamptz[], $57::text[])
	AS v(ord, business_id, customer_id, branch_id, intent, type_code, name, amount, points, giftcard, visits,
		tier_amount, tier_points, offer_id, coupon_id, giftcard_id, reverses_id, external_order_id,
		custom_field_1, custom_field_2, custom_field_3, custom_field_4, custom_field_5, has_details, created_at, id,
		receipt_number, comments, pending_points, activates_at, expires_at, notify_at, lot_state,
		act_visits, act_spend, visit_at, visit_branch)
	ORDER BY v.business_id, v.customer_id
), c AS (
	UPDATE customers cu SET points = cu.points + (v.points - v.pending_points), giftcard = cu.giftcard + v.giftcard,
		pending_points = cu.pending_points + v.pending_points, tx_count = cu.tx_count + 1,
		` + activitySet("v.act_visits", "v.act_spend", "v.visit_at", "NULLIF(v.visit_branch, '')") + `
	FROM v
	WHERE cu.business_id = v.business_id AND cu.user_id = v.customer_id AND ` + aloneGuard("(v.points - v.pending_points)", "v.giftcard", "NULLIF(v.branch_id, '')") + `
	RETURNING v.ord, v.id, cu.points, cu.giftcard, cu.pending_points
), l AS (
	-- The lot each written entry opens, as the domain planned it (loyalty.PlanLots).
	INSERT INTO point_lots (business_id, customer_id, entry_id, earned, remaining, activates_at, expires_at, state, notify_at)
	SELECT v.business_id, v.customer_id, v.id, v.points, v.points, v.activates_at, v.expires_at, v.lot_state, v.notify_at
	FROM v JOIN c ON c.ord = v.ord WHERE v.lot_state <> ''
), t AS (
	INSERT INTO transactions (id, ` + entryColumns + `)
	SELECT v.id, v.business_id, v.customer_id,
		COALESCE(NULLIF(v.branch_id, ''), (SELECT m.id FROM branches m WHERE m.business_id = v.business_id AND m.is_main)),
		v.intent, v.type_code, v.name, v.amount, v.points,
		v.giftcard, v.visits, v.tier_amount, v.tier_points, NULLIF(v.offer_id, 0), NULLIF(v.coupon_id, 0),
		NULLIF(v.giftcard_id, 0), NULLIF(v.reverses_id, 0), v.external_order_id, v.custom_field_1, v.custom_field_2,
		v.custom_field_3, v.custom_field_4, v.custom_field_5, v.has_details, v.created_at, v.receipt_number, v.comments,
		v.pending_points
	FROM v JOIN c ON c.ord = v.ord
), x AS (
	SELECT x.*, row_number() OVER (PARTITION BY x.business_id ORDER BY x.id) AS rn
	FROM unnest($34::integer[], $35::text[], $36::text[], $37::text[], $38::timestamptz[], $39::text[], $40::bigint[])
		AS x(ord, id, business_id, type, created_at, data, entry_id)
	JOIN c ON c.ord = x.ord
), g AS (
	SELECT b.business_id, b.n, events_number_pending(b.business_id) AS pending
	FROM (SELECT x.business_id, count(*) AS n FROM x GROUP BY x.business_id ORDER BY x.business_id OFFSET 0) AS b
), k AS (
	UPDATE event_sequences s SET last_seq = s.last_seq + g.pending + g.n
	FROM g WHERE s.business_id = g.business_id
	RETURNING s.business_id, s.last_seq - g.n AS base
), e AS (
	INSERT INTO events (id, business_id, seq, type, created_at, data, entry_id)
	SELECT x.id, x.business_id, k.base + x.rn, x.type, x.created_at, x.data, NULLIF(x.entry_id, 0)
	FROM x JOIN k ON k.business_id = x.business_id
), bk AS (
	-- The baskets of written entries that carry one (tied by ord), and
	-- their lines.
	INSERT INTO baskets (entry_id, business_id, tax, shipping, channel, created_at)
	SELECT v.id, v.business_id, bk.tax, bk.shipping, bk.channel, v.created_at
	FROM unnest($41::integer[], $42::bigint[], $43::bigint[], $44::text[]) AS bk(ord, tax, shipping, channel)
	JOIN c ON c.ord = bk.ord JOIN v ON v.ord = bk.ord
), bl AS (
	INSERT INTO basket_lines (entry_id, line, sku, product_id, category_id, quantity, price, discount, points)
	SELECT v.id, bl.line, bl.sku, NULLIF(bl.product_id, 0), NULLIF(bl.category_id, 0), bl.quantity, bl.price, bl.discount, bl.points
	FROM unnest($45::integer[], $46::integer[], $47::text[], $48::bigint[], $49::bigint[], $50::bigint[], $51::bigint[],
		$52::bigint[], $53::bigint[]) AS bl(ord, line, sku, product_id, category_id, quantity, price, discount, points)
	JOIN c ON c.ord = bl.ord JOIN v ON v.ord = bl.ord
)
SELECT ord, id, points, giftcard, pending_points FROM c`
