package sqlstore

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// CreateCoalition stores a coalition and its Application Key.
func (d *DB) CreateCoalition(ctx context.Context, name, appKey string) (string, error) {
	id := loyalty.NewID()
	err := d.runTx(ctx, func(t *tx) error {
		t.accessChanged() // a new Application Key
		if _, err := t.ExecContext(ctx, `INSERT INTO coalitions (id, name, created_at) VALUES ($1, $2, $3)`, id, name, t.now); err != nil {
			return err
		}
		_, err := t.ExecContext(ctx, `INSERT INTO application_keys (key, coalition_id, created_at) VALUES ($1, $2, $3)`, appKey, id, t.now)
		return err
	})
	return id, err
}

// CreateBusiness stores a business with its main branch, its owner and its
// Application Key, in one transaction.
func (d *DB) CreateBusiness(ctx context.Context, n loyalty.NewBusiness, passwordHash, appKey string) (loyalty.CreatedBusiness, error) {
	out := loyalty.CreatedBusiness{BusinessID: loyalty.NewID(), ApplicationKey: appKey, OwnerID: loyalty.NewID()}
	err := d.runTx(ctx, func(t *tx) error {
		t.accessChanged() // a new Application Key
		if n.CoalitionID != "" {
			var one int
			err := t.QueryRowContext(ctx, `SELECT 1 FROM coalitions WHERE id = $1`, n.CoalitionID).Scan(&one)
			if err == sql.ErrNoRows {
				return loyalty.StoredInvalid("coalition", "The coalition does not exist.")
			} else if err != nil {
				return err
			}
		}
		var owners int
		if err := t.QueryRowContext(ctx, `SELECT COUNT(*) FROM owners WHERE email = $1`, n.OwnerEmail).Scan(&owners); err != nil {
			return err
		}
		if owners > 0 {
			return loyalty.StoredInvalid("owner_email", "An owner with this e-mail already exists.")
		}
		if _, err := t.ExecContext(ctx, `INSERT INTO businesses (id, coalition_id, name, loyalty_type, country_code, currency_code,
			created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			out.BusinessID, nullString(n.CoalitionID), n.Name, n.LoyaltyType, n.Country, n.Currency, t.now, t.now); err != nil {
			return err
		}
		if n.Sandbox {
			if _, err := t.ExecContext(ctx, `UPDATE businesses SET sandbox = TRUE WHERE id = $1`, out.BusinessID); err != nil {
				return err
			}
		}
		if _, err := t.ExecContext(ctx, `INSERT INTO branches (id, business_id, name, is_main, created_at) VALUES ($1, $2, $3, $4, $5)`,
			loyalty.NewID(), out.BusinessID, n.Name, true, t.now); err != nil {
			return err
		}
		if _, err := t.ExecContext(ctx, `INSERT INTO owners (id, business_id, email, username, password_hash, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
			out.OwnerID, out.BusinessID, n.OwnerEmail, n.OwnerEmail, passwordHash, t.now); err != nil {
			return err
		}
		_, err := t.ExecContext(ctx, `INSERT INTO application_keys (key, business_id, created_at) VALUES ($1, $2, $3)`, appKey, out.BusinessID, t.now)
		return err
	})
	return out, err
}

const businessColumns = `b.id, COALESCE(b.coalition_id, ''), b.name, b.loyalty_type, b.about, b.logo, b.cover, b.country_code,
	b.currency_code, b.created_at, b.sandbox, b.clock_offset_seconds`

// scanBusiness scans businessColumns into b, then the columns after them into more.
func scanBusiness(row interface{ Scan(...any) error }, b *loyalty.Business, more ...any) error {
	var offset int64
	err := row.Scan(append([]any{&b.ID, &b.CoalitionID, &b.Name, &b.LoyaltyType, &b.About, &b.Logo, &b.Cover, &b.Country, &b.Currency, &b.CreatedAt,
		&b.Sandbox, &offset}, more...)...)
	b.ClockOffset = time.Duration(offset) * time.Second
	return err
}

// Business returns one business.
func (d *DB) Business(ctx context.Context, id string) (loyalty.Business, error) {
	var b loyalty.Business
	err := scanBusiness(d.row(ctx, `SELECT `+businessColumns+` FROM businesses b WHERE b.id = $1`, id), &b)
	if err == sql.ErrNoRows {
		return b, loyalty.Errorf(loyalty.ENotFound, "Business not found.")
	}
	return b, dbError(err)
}

// Account returns the owner and the business for GET /me.
func (d *DB) Account(ctx context.Context, businessID, ownerID string) (loyalty.Account, error) {
	var a loyalty.Account
	o := &a.Owner
	row := d.db.QueryRowContext(ctx, `SELECT `+businessColumns+`, o.id, o.business_id, o.email, o.username, o.first_name, o.last_name
		FROM owners o JOIN businesses b ON b.id = o.business_id WHERE o.id = $1 AND o.business_id = $2`, ownerID, businessID)
	err := scanBusiness(row, &a.Business, &o.ID, &o.BusinessID, &o.Email, &o.Username, &o.FirstName, &o.LastName)
	if err == sql.ErrNoRows {
		return a, loyalty.Errorf(loyalty.ENotFound, "Account not found.")
	}
	return a, dbError(err)
}

// Branches lists the branches of a business, the main one first.
func (d *DB) Branches(ctx context.Context, businessID string) ([]loyalty.Branch, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT `+branchColumns+` FROM branches
		WHERE business_id = $1 ORDER BY is_main DESC, created_at, id`, businessID)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	var out []loyalty.Branch
	for rows.Next() {
		b, err := scanBranch(rows)
		if err != nil {
			return nil, dbError(err)
		}
		out = append(out, b)
	}
	return out, dbError(rows.Err())
}

// Tenant resolves an Application Key; an unknown or rotated key is
// EUnauthorized.
func (d *DB) Tenant(ctx context.Context, key string) (loyalty.Tenant, error) {
	t := loyalty.Tenant{Key: key}
	var offset int64
	err := d.row(ctx, `SELECT COALESCE(k.business_id, ''), COALESCE(k.coalition_id, ''), COALESCE(b.clock_offset_seconds, 0)
		FROM application_keys k LEFT JOIN businesses b ON b.id = k.business_id
		WHERE k.key = $1 AND k.revoked_at IS NULL`, key).Scan(&t.BusinessID, &t.CoalitionID, &offset)
	t.ClockOffset = time.Duration(offset) * time.Second
	if err == sql.ErrNoRows {
		return t, loyalty.Errorf(loyalty.EUnauthorized, "The application key is invalid.")
	}
	return t, dbError(err)
}

// BusinessIDs returns the businesses a tenant covers: the business itself,
// or every member of the coalition.
func (d *DB) BusinessIDs(ctx context.Context, t loyalty.Tenant) ([]string, error) {
	if t.BusinessID != "" {
		return []string{t.BusinessID}, nil
	}
	rows, err := d.db.QueryContext(ctx, `SELECT id FROM businesses WHERE coalition_id = $1 ORDER BY created_at, id`, t.CoalitionID)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, dbError(err)
		}
		ids = append(ids, id)
	}
	return ids, dbError(rows.Err())
}

// RotateKey revokes the current key of a business or coalition and stores
// newKey in its place.
func (d *DB) RotateKey(ctx context.Context, t loyalty.Tenant, newKey string) error {
	return d.runTx(ctx, func(x *tx) error {
		x.accessChanged()
		col, id := "business_id", t.BusinessID
		if id == "" {
			col, id = "coalition_id", t.CoalitionID
		}
		if _, err := x.ExecContext(ctx, `UPDATE application_keys SET revoked_at = $1 WHERE `+col+` = $2 AND revoked_at IS NULL`, x.now, id); err != nil {
			return err
		}
		_, err := x.ExecContext(ctx, `INSERT INTO application_keys (key, `+col+`, created_at) VALUES ($1, $2, $3)`, newKey, id, x.now)
		return err
	})
}

// businessWithRulesColumns read a business with its earning rules and whether
// any points offer (loyalty.PointsOfferTypes, written into the text: the
// statements that read these columns number their own parameters) may
// apply (aliases b and br); through a LEFT JOIN each may be NULL.
// businessWithRules scans them.
var businessWithRulesColumns = `b.id, b.coalition_id, b.name, b.loyalty_type, b.about, b.logo, b.cover, b.country_code, b.created_at,
	b.sandbox, b.clock_offset_seconds, ` + rulesColumns + `,
	EXISTS (SELECT 1 FROM offers o WHERE o.business_id = b.id AND o.type_id IN (` + intList(loyalty.PointsOfferTypes()) + `) AND o.enabled AND o.deleted_at IS NULL),
	EXISTS (SELECT 1 FROM earning_rules er WHERE er.business_id = b.id AND er.deleted_at IS NULL),
	EXISTS (SELECT 1 FROM punch_cards pc WHERE pc.business_id = b.id AND pc.deleted_at IS NULL)`

// intList writes integers as a SQL list's items.
func intList(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

// businessWithRules receives businessWithRulesColumns.
type businessWithRules struct {
	id, coalition, name, loyaltyType, about, logo, cover, country sql.NullString
	created                                                       sql.NullTime
	sandbox                                                       sql.NullBool
	clockOffset                                                   sql.NullInt64
	rules                                                         storedRules
	hasOffers, hasEarningRules, hasPunchCards                     bool
}

func (l *businessWithRules) dest() []any {
	return append(append([]any{&l.id, &l.coalition, &l.name, &l.loyaltyType, &l.about, &l.logo, &l.cover, &l.country, &l.created,
		&l.sandbox, &l.clockOffset}, l.rules.dest()...), &l.hasOffers, &l.hasEarningRules, &l.hasPunchCards)
}

// business returns the business read, or nil when the row had none.
func (l *businessWithRules) business() *loyalty.Business {
	if !l.id.Valid {
		return nil
	}
	b := &loyalty.Business{ID: l.id.String, CoalitionID: l.coalition.String, Name: l.name.String, LoyaltyType: l.loyaltyType.String,
		About: l.about.String, Logo: l.logo.String, Cover: l.cover.String, Country: l.country.String, CreatedAt: l.created.Time,
		Sandbox: l.sandbox.Bool, ClockOffset: time.Duration(l.clockOffset.Int64) * time.Second}
	st := &loyalty.BusinessState{Rules: loyalty.DefaultRules(b.ID, b.LoyaltyType), HasPointsOffers: l.hasOffers,
		HasEarningRules: l.hasEarningRules, HasPunchCards: l.hasPunchCards}
	l.rules.into(&st.Rules)
	b.Currency = st.Rules.Currency
	b.Loaded = st
	return b
}

// BusinessWithRules reads a business with its earning rules and whether
// any points offer may apply, in one query.
func (d *DB) BusinessWithRules(ctx context.Context, id string) (loyalty.Business, error) {
	var l businessWithRules
	err := d.row(ctx, `SELECT `+businessWithRulesColumns+`
		FROM businesses b LEFT JOIN business_rules br ON br.business_id = b.id WHERE b.id = $1`, id).Scan(l.dest()...)
	if err == sql.ErrNoRows {
		return loyalty.Business{}, loyalty.Errorf(loyalty.ENotFound, "Business not found.")
	} else if err != nil {
		return loyalty.Business{}, dbError(err)
	}
	b := *l.business()
	return b, loadOffers(ctx, d.db, &b)
}

// loadOffers reads the points offers and the earning rules of a business
// read with its state, when it has any (loyalty.BusinessState.PointsOffers,
// EarningRules): a token lookup keeps them as long as the rest
// (accessCache), and every change of an offer or a rule ends it.
func loadOffers(ctx context.Context, q querier, b *loyalty.Business) error {
	if b.Loaded == nil {
		return nil
	}
	if b.Loaded.HasPointsOffers {
		offers, err := pointsOffers(ctx, q, b.ID)
		if err != nil {
			return err
		}
		b.Loaded.PointsOffers, b.Loaded.OffersRead = offers, true
	}
	if b.Loaded.HasEarningRules {
		rules, err := earningRules(ctx, q, b.ID)
		if err != nil {
			return err
		}
		b.Loaded.SetEarningRules(rules)
	}
	if b.Loaded.HasPunchCards {
		cards, err := punchCards(ctx, q, b.ID)
		if err != nil {
			return err
		}
		b.Loaded.PunchCards, b.Loaded.CardsRead = cards, true
	}
	return nil
}

// ApplicationKey returns the live Application Key of a business.
func (d *DB) ApplicationKey(ctx context.Context, businessID string) (string, error) {
	var key string
	err := d.db.QueryRowContext(ctx, `SELECT key FROM application_keys WHERE business_id = $1 AND revoked_at IS NULL
		ORDER BY created_at DESC LIMIT 1`, businessID).Scan(&key)
	if err == sql.ErrNoRows {
		return "", loyalty.Errorf(loyalty.ENotFound, "The business has no Application Key.")
	}
	return key, dbError(err)
}
