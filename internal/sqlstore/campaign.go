package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

const campaignColumns = `m.id, m.business_id, m.name, m.segment_id, m.channels, m.subject, m.email_body, m.sms_body, m.gift_points, m.gift_offer_id,
	m.skip_reached_days, m.quiet_start, m.quiet_end, m.holdout_percent, m.report_days, m.state, m.send_at, m.started_at,
	m.finished_at, m.draw_after, m.drawn, m.created_at, m.updated_at, m.gift_rule_id, m.gift_rule_days`

func scanCampaign(row scanner) (loyalty.Campaign, error) {
	var c loyalty.Campaign
	var channels string
	var sendAt, started, finished sql.NullTime
	var offer, rule sql.NullInt64
	err := row.Scan(&c.ID, &c.BusinessID, &c.Name, &c.SegmentID, &channels, &c.Subject, &c.EmailBody, &c.SMSBody, &c.GiftPoints, &offer,
		&c.SkipReachedDays, &c.QuietStart, &c.QuietEnd, &c.HoldoutPercent, &c.ReportDays, &c.State, &sendAt, &started,
		&finished, &c.DrawAfter, &c.Drawn, &c.CreatedAt, &c.UpdatedAt, &rule, &c.GiftRuleDays)
	if err != nil {
		return c, dbError(err)
	}
	if channels != "" {
		c.Channels = strings.Split(channels, ",")
	}
	c.SendAt, c.StartedAt, c.FinishedAt, c.GiftOfferID, c.GiftRuleID = sendAt.Time, started.Time, finished.Time, offer.Int64, rule.Int64
	return c, nil
}

// campaignArgs are the values of campaignWrite's columns for c.
func campaignArgs(c *loyalty.Campaign) []any {
	return []any{c.Name, c.SegmentID, strings.Join(c.Channels, ","), c.Subject, c.EmailBody, c.SMSBody, c.GiftPoints,
		nullInt(c.GiftOfferID), c.SkipReachedDays, c.QuietStart, c.QuietEnd, c.HoldoutPercent, c.ReportDays, c.State, optionalTime(c.SendAt),
		optionalTime(c.StartedAt), optionalTime(c.FinishedAt), c.DrawAfter, c.Drawn, c.UpdatedAt.UTC(), nullInt(c.GiftRuleID), c.GiftRuleDays}
}

// Campaigns pages a business's campaigns, oldest first.
func (d *DB) Campaigns(ctx context.Context, businessID string, q loyalty.ListQuery) ([]loyalty.Campaign, int, error) {
	from, args, err := listWhere([]string{"m.business_id = $1"}, []any{businessID}, q, nil)
	if err != nil {
		return nil, 0, err
	}
	var out []loyalty.Campaign
	total, err := d.listPage(ctx, campaignColumns, `FROM campaigns m`+from, `m.id`, args, q, func(rows *sql.Rows) error {
		c, err := scanCampaign(rows)
		out = append(out, c)
		return err
	})
	return out, total, err
}

// Campaign returns one campaign of a business.
func (d *DB) Campaign(ctx context.Context, businessID string, id int64) (loyalty.Campaign, error) {
	return scanCampaign(d.db.QueryRowContext(ctx, `SELECT `+campaignColumns+` FROM campaigns m WHERE m.business_id = $1 AND m.id = $2`,
		businessID, id))
}

// ActiveCampaigns lists every business's campaigns in one of states.
func (d *DB) ActiveCampaigns(ctx context.Context, states []string) ([]loyalty.Campaign, error) {
	marks, args := placeholders(nil, states)
	rows, err := d.db.QueryContext(ctx, `SELECT `+campaignColumns+` FROM campaigns m WHERE m.state IN (`+marks+`) ORDER BY m.id`, args...)
	var out []loyalty.Campaign
	err = scanAll(rows, err, func(rows *sql.Rows) error {
		c, err := scanCampaign(rows)
		out = append(out, c)
		return err
	})
	return out, err
}

// PendingRecipients lists up to limit customers of a campaign whose
// outcome is pending, in id order.
func (d *DB) PendingRecipients(ctx context.Context, campaignID int64, pending string, limit int) ([]string, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT customer_id FROM campaign_recipients WHERE campaign_id = $1 AND outcome = $2
		ORDER BY customer_id LIMIT $3`, campaignID, pending, limit)
	return scanStrings(rows, err)
}

func scanStrings(rows *sql.Rows, err error) ([]string, error) {
	var out []string
	err = scanAll(rows, err, func(rows *sql.Rows) error {
		var s string
		err := rows.Scan(&s)
		out = append(out, s)
		return err
	})
	return out, err
}

// RecipientTally counts a campaign's recipients by outcome and channel,
// the messages the sender reported sent, the gifts given and the coupons
// given that are in one of the used states.
func (d *DB) RecipientTally(ctx context.Context, campaignID int64, used []int) (loyalty.RecipientTally, error) {
	t := loyalty.RecipientTally{Outcomes: map[string]int{}, Channels: map[string]int{}}
	marks, args := placeholders([]any{campaignID}, used)
	if err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM campaign_recipients r
		JOIN transactions e ON e.id = r.gift_entry_id JOIN coupons cp ON cp.id = e.coupon_id
		WHERE r.campaign_id = $1 AND cp.coupon_type_id IN (`+marks+`)`, args...).Scan(&t.GiftsUsed); err != nil {
		return t, dbError(err)
	}
	rows, err := d.db.QueryContext(ctx, `SELECT r.outcome, r.channel, COUNT(*), COUNT(r.gift_entry_id),
		COUNT(o.id)
		FROM campaign_recipients r LEFT JOIN outbox o ON o.id = r.message_id AND o.status = $2
		WHERE r.campaign_id = $1 GROUP BY r.outcome, r.channel`, campaignID, outboxSent)
	err = scanAll(rows, err, func(rows *sql.Rows) error {
		var outcome, channel string
		var n, gifts, delivered int
		if err := rows.Scan(&outcome, &channel, &n, &gifts, &delivered); err != nil {
			return err
		}
		t.Outcomes[outcome] += n
		if channel != "" {
			t.Channels[channel] += n
		}
		t.Gifts += gifts
		t.Delivered += delivered
		return nil
	})
	return t, err
}

// RecipientActivity sums each recipient's ledger in [from, to), leaving
// out the campaign's gift entries; holdout says whose outcome is the
// holdout's.
func (d *DB) RecipientActivity(ctx context.Context, campaignID int64, from, to time.Time) ([]loyalty.RecipientSums, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT r.outcome = $4, COALESCE(SUM(t.visits), 0), COALESCE(SUM(t.tier_amount), 0),
		COALESCE(SUM(CASE WHEN t.points > 0 THEN t.points ELSE 0 END), 0)
		FROM campaign_recipients r
		LEFT JOIN transactions t ON t.business_id = r.business_id AND t.customer_id = r.customer_id
			AND t.created_at >= $2 AND t.created_at < $3
			AND t.id NOT IN (SELECT g.gift_entry_id FROM campaign_recipients g WHERE g.campaign_id = $1 AND g.gift_entry_id IS NOT NULL)
		WHERE r.campaign_id = $1
		GROUP BY r.customer_id, r.outcome`, campaignID, from.UTC(), to.UTC(), loyalty.RecipientHoldout)
	var out []loyalty.RecipientSums
	err = scanAll(rows, err, func(rows *sql.Rows) error {
		var s loyalty.RecipientSums
		err := rows.Scan(&s.Holdout, &s.Visits, &s.Spend, &s.Points)
		out = append(out, s)
		return err
	})
	return out, err
}

// InsertCampaign stores a new campaign.
func (t *tx) InsertCampaign(ctx context.Context, c *loyalty.Campaign) error {
	return dbError(t.QueryRowContext(ctx, `INSERT INTO campaigns (name, segment_id, channels, subject, email_body, sms_body,
		gift_points, gift_offer_id, skip_reached_days, quiet_start, quiet_end, holdout_percent, report_days, state, send_at,
		started_at, finished_at, draw_after, drawn, updated_at, gift_rule_id, gift_rule_days, business_id, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24)
		RETURNING id`,
		append(campaignArgs(c), c.BusinessID, c.CreatedAt.UTC())...).Scan(&c.ID))
}

// UpdateCampaign writes every field of a campaign.
func (t *tx) UpdateCampaign(ctx context.Context, c *loyalty.Campaign) error {
	_, err := t.ExecContext(ctx, `UPDATE campaigns SET name = $1, segment_id = $2, channels = $3, subject = $4, email_body = $5,
		sms_body = $6, gift_points = $7, gift_offer_id = $8, skip_reached_days = $9, quiet_start = $10, quiet_end = $11,
		holdout_percent = $12, report_days = $13, state = $14, send_at = $15, started_at = $16, finished_at = $17,
		draw_after = $18, drawn = $19, updated_at = $20, gift_rule_id = $21, gift_rule_days = $22 WHERE business_id = $23 AND id = $24`, append(campaignArgs(c), c.BusinessID, c.ID)...)
	return dbError(err)
}

// DeleteCampaign removes a campaign that drew nobody.
func (t *tx) DeleteCampaign(ctx context.Context, businessID string, id int64) error {
	res, err := t.ExecContext(ctx, `DELETE FROM campaigns WHERE business_id = $1 AND id = $2`, businessID, id)
	if err != nil {
		return dbError(err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return dbError(sql.ErrNoRows)
	}
	return nil
}

// SegmentInUse reports whether a campaign of the business goes to the segment.
func (t *tx) SegmentInUse(ctx context.Context, businessID string, segmentID int64) (bool, error) {
	var n int
	err := t.QueryRowContext(ctx, `SELECT COUNT(*) FROM campaigns WHERE business_id = $1 AND segment_id = $2`,
		businessID, segmentID).Scan(&n)
	return n > 0, dbError(err)
}

// InsertRecipients records drawn recipients, leaving any drawn already:
// one statement for a batch (a drawing of 200,000 is 400 of them).
func (t *tx) InsertRecipients(ctx context.Context, rs []loyalty.Recipient) error {
	if len(rs) == 0 {
		return nil
	}
	rows := make([]string, len(rs))
	args := make([]any, 0, 5*len(rs))
	for i, r := range rs {
		n := len(args)
		rows[i] = fmt.Sprintf("($%d, $%d, $%d, $%d, $%d)", n+1, n+2, n+3, n+4, n+5)
		args = append(args, r.CampaignID, r.BusinessID, r.CustomerID, r.Outcome, optionalTime(r.DoneAt))
	}
	_, err := t.ExecContext(ctx, `INSERT INTO campaign_recipients (campaign_id, business_id, customer_id, outcome, done_at)
		VALUES `+strings.Join(rows, ", ")+` ON CONFLICT (campaign_id, customer_id) DO NOTHING`, args...)
	return dbError(err)
}

// RecipientFacts reads what reaching a customer needs.
func (t *tx) RecipientFacts(ctx context.Context, businessID, customerID, reached string) (loyalty.RecipientFacts, error) {
	var f loyalty.RecipientFacts
	var name sql.NullString
	var last aggTime
	c, err := scanCustomer(scanMore{t.QueryRowContext(ctx, `SELECT `+customerColumns(t.dialect())+`,
		c.consent_email, c.consent_sms, c.consent_push,
		(SELECT l.name FROM customer_tiers ct JOIN tiers tr ON tr.id = ct.tier_id AND tr.enabled
			JOIN tier_levels l ON l.id = ct.level_id
			WHERE ct.business_id = c.business_id AND ct.customer_id = c.user_id LIMIT 1),
		(SELECT MAX(r.done_at) FROM campaign_recipients r WHERE r.business_id = c.business_id AND r.customer_id = c.user_id
			AND r.outcome = $3)
		FROM customers c WHERE c.business_id = $1 AND c.user_id = $2 AND c.deleted_at IS NULL AND c.enabled`, businessID, customerID, reached),
		[]any{&f.Consent.Email, &f.Consent.SMS, &f.Consent.Push, &name, &last}})
	switch {
	case err == sql.ErrNoRows || loyalty.ErrorCode(dbError(err)) == loyalty.ENotFound:
		return loyalty.RecipientFacts{}, nil
	case err != nil:
		return f, dbError(err)
	}
	f.Customer, f.TierName, f.LastReached = c, name.String, last.Time
	return f, nil
}

// scanMore scans a row whose leading columns a scan function reads, and
// its last ones into more.
type scanMore struct {
	row  scanner
	more []any
}

func (s scanMore) Scan(dest ...any) error { return s.row.Scan(append(dest, s.more...)...) }

// FinishRecipient records a pending recipient's outcome; false when it
// was not pending any more.
func (t *tx) FinishRecipient(ctx context.Context, r loyalty.Recipient, pending string) (bool, error) {
	res, err := t.ExecContext(ctx, `UPDATE campaign_recipients SET outcome = $1, channel = $2, message_id = $3, gift_entry_id = $4,
		done_at = $5 WHERE campaign_id = $6 AND customer_id = $7 AND outcome = $8`,
		r.Outcome, r.Channel, nullInt(r.MessageID), nullInt(r.GiftEntryID), r.DoneAt.UTC(), r.CampaignID, r.CustomerID, pending)
	if err != nil {
		return false, dbError(err)
	}
	n, err := res.RowsAffected()
	return n == 1, dbError(err)
}

// CampaignsReached returns when each of the campaigns recorded the
// outcome reached for a customer.
func (d *DB) CampaignsReached(ctx context.Context, businessID, customerID string, campaignIDs []int64, reached string) (map[int64]time.Time, error) {
	return campaignsReached(ctx, d.db, businessID, customerID, campaignIDs, reached)
}

// CampaignsReached is DB.CampaignsReached in the transaction.
func (t *tx) CampaignsReached(ctx context.Context, businessID, customerID string, campaignIDs []int64, reached string) (map[int64]time.Time, error) {
	return campaignsReached(ctx, t.Tx, businessID, customerID, campaignIDs, reached)
}

func campaignsReached(ctx context.Context, q querier, businessID, customerID string, campaignIDs []int64, reached string) (map[int64]time.Time, error) {
	out := map[int64]time.Time{}
	if len(campaignIDs) == 0 {
		return out, nil
	}
	marks, args := placeholders([]any{businessID, customerID, reached}, campaignIDs)
	rows, err := q.QueryContext(ctx, `SELECT campaign_id, done_at FROM campaign_recipients
		WHERE business_id = $1 AND customer_id = $2 AND outcome = $3 AND campaign_id IN (`+marks+`)`, args...)
	err = scanAll(rows, err, func(rows *sql.Rows) error {
		var id int64
		var at sql.NullTime
		if err := rows.Scan(&id, &at); err != nil {
			return err
		}
		if at.Valid {
			out[id] = at.Time
		}
		return nil
	})
	return out, err
}
