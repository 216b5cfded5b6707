package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/loyalty/loyalty/internal/loyalty"
)

const userColumns = `u.id, COALESCE(u.email, ''), COALESCE(u.phone, ''), u.country_code, u.first_name, u.last_name,
	u.birth_date, u.language, u.gender, u.profile_photo, u.created_at, u.updated_at`

// customerColumns read a membership (alias c) on dialect: the business's
// own profile of the person, never the person's record that other
// businesses share.
func customerColumns(dialect string) string { return customerColumnsWith(balanceColumns(dialect)) }

// customerColumnsWith is customerColumns with balance for the balance's
// columns (balanceColumns, or balanceNeverExpiring).
func customerColumnsWith(balance string) string {
	return `c.user_id, COALESCE(c.email, ''), COALESCE(c.phone, ''), c.country_code, c.first_name, c.last_name,
	c.birth_date, c.language, c.gender, '', c.created_at, c.updated_at, c.business_id, c.enabled, ` + balance + `,
	c.street, c.city, c.region, c.country, c.address_country_code, c.zip_code, c.lat, c.long, c.deleted_at`
}

type scanner interface{ Scan(...any) error }

func userDest(u *loyalty.User) []any {
	return []any{&u.ID, &u.Email, &u.Phone, &u.CountryCode, &u.FirstName, &u.LastName,
		&u.BirthDate, &u.Language, &u.Gender, &u.ProfilePhoto, &u.CreatedAt, &u.UpdatedAt}
}

func scanUser(row scanner) (loyalty.User, error) {
	var u loyalty.User
	err := row.Scan(userDest(&u)...)
	if err == sql.ErrNoRows {
		return u, loyalty.Errorf(loyalty.ENotFound, "User not found.")
	}
	return u, err
}

func scanCustomer(row scanner) (loyalty.Customer, error) {
	var c loyalty.Customer
	var lat, long sql.NullFloat64
	var deleted sql.NullTime
	a := &c.Address
	dest := append(userDest(&c.User), &c.BusinessID, &c.Enabled)
	dest = append(append(dest, balanceDest(&c.Balance)...), &a.Street, &a.City, &a.Region, &a.Country, &a.CountryCode, &a.ZipCode,
		&lat, &long, &deleted)
	if err := row.Scan(dest...); err != nil {
		if err == sql.ErrNoRows {
			return c, loyalty.Errorf(loyalty.ENotFound, "Customer not found.")
		}
		return c, err
	}
	if lat.Valid {
		a.Lat = &lat.Float64
	}
	if long.Valid {
		a.Long = &long.Float64
	}
	// The membership's times are its profile's (read once).
	c.CreatedAt, c.UpdatedAt = c.User.CreatedAt, c.User.UpdatedAt
	c.Deleted = deleted.Valid
	return c, nil
}

// Customer returns an active customer of a business.
func (d *DB) Customer(ctx context.Context, businessID, customerID string) (loyalty.Customer, error) {
	return d.customerBy(ctx, customerByKey[d.dialect], businessID, customerID)
}

// CustomerNeverExpiring is Customer for a business none of whose points
// has ever had an expiry (loyalty.Tenant.NeverExpires): its statement
// does not reach point_lots, which on PostgreSQL costs a third of the
// statement (the relation and its index opened and locked at each
// execution) even when it finds no lot.
func (d *DB) CustomerNeverExpiring(ctx context.Context, businessID, customerID string) (loyalty.Customer, error) {
	return d.customerBy(ctx, customerNeverExpiringByKey[d.dialect], businessID, customerID)
}

func (d *DB) customerBy(ctx context.Context, query, businessID, customerID string) (loyalty.Customer, error) {
	if d.dialect == Postgres {
		var c loyalty.Customer
		err := d.native(ctx, func(conn *pgx.Conn) (err error) {
			c, err = scanCustomer(nativeRow{conn.QueryRow(ctx, query, businessID, customerID)})
			return err
		})
		return c, dbError(err)
	}
	c, err := scanCustomer(d.row(ctx, query, businessID, customerID))
	return c, dbError(err)
}

// CustomerActive implements loyalty.CustomerReader: one row read by key,
// no column of it.
func (d *DB) CustomerActive(ctx context.Context, businessID, customerID string) (bool, error) {
	const query = `SELECT 1 FROM customers c WHERE c.business_id = $1 AND c.user_id = $2 AND c.deleted_at IS NULL`
	var one int
	var err error
	if d.dialect == Postgres {
		err = d.native(ctx, func(conn *pgx.Conn) error {
			return nativeRow{conn.QueryRow(ctx, query, businessID, customerID)}.Scan(&one)
		})
	} else {
		err = d.row(ctx, query, businessID, customerID).Scan(&one)
	}
	if err == sql.ErrNoRows {
		return false, nil
	}
	return err == nil, dbError(err)
}

// customerByKey reads an active customer $2 of business $1, by engine,
// and customerNeverExpiringByKey the same without the next expiry: built
// once, as they are the statements of every GET /customers/{id}.
var (
	customerByKey = map[string]string{Postgres: customerByKeyOn(balanceColumns(Postgres)),
		SQLite: customerByKeyOn(balanceColumns(SQLite))}
	customerNeverExpiringByKey = map[string]string{Postgres: customerByKeyOn(balanceNeverExpiring),
		SQLite: customerByKeyOn(balanceNeverExpiring)}
)

func customerByKeyOn(balance string) string {
	return `SELECT ` + customerColumnsWith(balance) + ` FROM customers c
	WHERE c.business_id = $1 AND c.user_id = $2 AND c.deleted_at IS NULL`
}

// activeCustomers is the condition on customers c that leaves the
// deleted out of a list. On PostgreSQL it is not written `deleted_at IS
// NULL`: without statistics (autovacuum off, or a table just loaded) the
// planner takes that for true of one row in 200, believes a business has
// a handful of active customers, and sorts them all rather than walk the
// join-date index to the page (61 ms for page 1 of 110,000 customers).
// The same test written as a comparison is one it takes for true of a
// third of the rows, and the walk it then chooses reads just the page
// (0.08 ms).
func activeCustomers(dialect string) string {
	if dialect == Postgres {
		return `COALESCE(c.deleted_at, 'infinity'::timestamptz) >= 'infinity'::timestamptz`
	}
	return `c.deleted_at IS NULL`
}

// customerFilterColumns maps the filterable fields of GET /customers to SQL.
var customerFilterColumns = map[string]string{
	"created_at": "c.created_at", "updated_at": "c.updated_at", "email": "c.email", "phone": "c.phone",
}

// Customers lists the active customers of a business, oldest first, with
// the total that match.
func (d *DB) Customers(ctx context.Context, businessID string, q loyalty.ListQuery) ([]loyalty.Customer, int, error) {
	from, args, err := customerListFrom(d.dialect, businessID, q)
	if err != nil {
		return nil, 0, err
	}
	var out []loyalty.Customer
	scan := func(rows *sql.Rows) error {
		c, err := scanCustomer(rows)
		out = append(out, c)
		return err
	}
	order := "c.created_at, c.user_id"
	if len(q.Filters) > 0 {
		var total int
		if err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) `+from, args...).Scan(&total); err != nil {
			return nil, 0, dbError(err)
		}
		err := d.pageRowsLate(ctx, total, "c", customerColumns(d.dialect), from, order, args, q, scan)
		return out, total, err
	}
	// All of the business's customers: their number is kept in
	// customer_counts (see its migration), not counted row by row.
	var total int
	if err := d.db.QueryRowContext(ctx, `SELECT COALESCE(SUM(n), 0) FROM customer_counts WHERE business_id = $1`, businessID).Scan(&total); err != nil {
		return nil, 0, dbError(err)
	}
	err = d.pageRowsLate(ctx, total, "c", customerColumns(d.dialect), from, order, args, q, scan)
	return out, total, err
}

// maxLookups is the longest e-mail or phone list customerListFrom reads
// as one lookup per value.
const maxLookups = 16

// customerListFrom is the FROM and WHERE clauses of a page of the
// business's active customers, with their arguments.
//
// A filtered list says active as `deleted_at IS NULL`, unlike
// activeCustomers: a filter picks few customers, which the planner should
// read through the filter's own index, and that form is the predicate of
// the partial indexes on e-mail and phone (customers_email,
// customers_phone), the only ones an equality on them can use. Written as
// activeCustomers' comparison, without statistics, an e-mail or phone
// filter read all of a business's customers (1.3 s at 1,000,000), and the
// page of the newest by update time walked the join-date index from the
// oldest (1.4 s); both read their matches alone with it (0.5 ms).
//
// A list of e-mails or phones (`in`) is read as one lookup per distinct
// value, the lookups' customers unioned (a business has at most one
// active customer with a given e-mail, or phone, so none is read twice).
// Written as one
// condition, never analysed, PostgreSQL planned it as a walk of all of a
// business's e-mails, each tested against the list.
// TestCustomerFiltersReadTheirMatches holds both. Only a list of up to
// maxLookups: SQLite took over 30 s to answer 21 lists of 100 e-mails
// (TestFilterListCap) with the first read as 100 lookups.
func customerListFrom(dialect, businessID string, q loyalty.ListQuery) (string, []any, error) {
	active := activeCustomers(dialect)
	if len(q.Filters) > 0 {
		active = `c.deleted_at IS NULL`
	}
	fixed := []string{"c.business_id = $1", active}
	var lookups []loyalty.Filter
	rest := q
	rest.Filters = nil
	for _, f := range q.Filters {
		if f.Op == loyalty.OpIn && (f.Field == "email" || f.Field == "phone") && len(f.Values) <= maxLookups && lookups == nil {
			lookups = append(lookups, f)
			continue
		}
		rest.Filters = append(rest.Filters, f)
	}
	where, args, err := listWhere(fixed, []any{businessID}, rest, customerFilterColumns)
	if err != nil || lookups == nil {
		return `FROM customers c` + where, args, err
	}
	f := lookups[0]
	var branches []string
	seen := map[any]bool{}
	for _, v := range f.Values {
		if seen[v] {
			continue
		}
		seen[v] = true
		args = append(args, v)
		branches = append(branches, fmt.Sprintf(`SELECT c.* FROM customers c WHERE c.business_id = $1 AND c.deleted_at IS NULL AND %s = $%d`,
			customerFilterColumns[f.Field], len(args)))
	}
	return `FROM (` + strings.Join(branches, ` UNION ALL `) + `) c` + where, args, nil
}

// filterSQL turns parsed filters into SQL conditions, numbering placeholders
// after the arguments already given.
func filterSQL(filters []loyalty.Filter, columns map[string]string, args []any) ([]string, []any, error) {
	var conds []string
	ph := func(v any) string {
		if t, ok := v.(time.Time); ok {
			v = t.UTC()
		}
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	for _, f := range filters {
		col, ok := columns[f.Field]
		if !ok {
			return nil, nil, loyalty.Errorf(loyalty.EBadRequest, "Filtering on %q is not supported here.", f.Field)
		}
		switch f.Op {
		case loyalty.OpEq, loyalty.OpGt, loyalty.OpGte, loyalty.OpLt, loyalty.OpLte:
			op := map[string]string{loyalty.OpEq: "=", loyalty.OpGt: ">", loyalty.OpGte: ">=", loyalty.OpLt: "<", loyalty.OpLte: "<="}[f.Op]
			conds = append(conds, col+" "+op+" "+ph(f.Values[0]))
		case loyalty.OpBetween:
			lo := ph(f.Values[0])
			conds = append(conds, col+" BETWEEN "+lo+" AND "+ph(f.Values[1]))
		case loyalty.OpIn, loyalty.OpNotIn:
			list := make([]string, len(f.Values))
			for i, v := range f.Values {
				list[i] = ph(v)
			}
			not := ""
			if f.Op == loyalty.OpNotIn {
				// NOT IN must keep rows whose value is missing.
				not = "NOT "
				conds = append(conds, "("+col+" IS NULL OR "+col+" NOT IN ("+strings.Join(list, ", ")+"))")
				continue
			}
			conds = append(conds, col+" "+not+"IN ("+strings.Join(list, ", ")+")")
		}
	}
	return conds, args, nil
}

// UserByEmail finds a person by canonical e-mail.
func (t *tx) UserByEmail(ctx context.Context, email string) (loyalty.User, error) {
	return scanUser(t.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users u WHERE u.email = $1`, email))
}

// UserByPhone finds a person by E.164 phone.
func (t *tx) UserByPhone(ctx context.Context, phone string) (loyalty.User, error) {
	return scanUser(t.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users u WHERE u.phone = $1`, phone))
}

// InsertUser stores a new person.
func (t *tx) InsertUser(ctx context.Context, u *loyalty.User) error {
	_, err := t.ExecContext(ctx, `INSERT INTO users (id, email, phone, country_code, first_name, last_name, birth_date,
		language, gender, profile_photo, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		u.ID, nullString(u.Email), nullString(u.Phone), u.CountryCode, u.FirstName, u.LastName, u.BirthDate,
		u.Language, u.Gender, u.ProfilePhoto, u.CreatedAt.UTC(), u.UpdatedAt.UTC())
	return dbError(err)
}

// UpdateUser writes a person's profile fields.
func (t *tx) UpdateUser(ctx context.Context, u *loyalty.User) error {
	_, err := t.ExecContext(ctx, `UPDATE users SET email = $1, phone = $2, country_code = $3, first_name = $4, last_name = $5,
		birth_date = $6, language = $7, gender = $8, profile_photo = $9, updated_at = $10 WHERE id = $11`,
		nullString(u.Email), nullString(u.Phone), u.CountryCode, u.FirstName, u.LastName, u.BirthDate,
		u.Language, u.Gender, u.ProfilePhoto, u.UpdatedAt.UTC(), u.ID)
	return dbError(err)
}

// CustomerAny returns a membership, deleted or not.
func (t *tx) CustomerAny(ctx context.Context, businessID, userID string) (loyalty.Customer, error) {
	c, err := scanCustomer(t.QueryRowContext(ctx, `SELECT `+customerColumns(t.dialect())+`
		FROM customers c WHERE c.business_id = $1 AND c.user_id = $2`, businessID, userID))
	return c, dbError(err)
}

// CustomerByContact returns the active customer of a business whose
// profile has the e-mail (or, when email is empty, the phone).
func (t *tx) CustomerByContact(ctx context.Context, businessID, email, phone string) (loyalty.Customer, error) {
	col, v := "email", email
	if email == "" {
		col, v = "phone", phone
	}
	c, err := scanCustomer(t.QueryRowContext(ctx, `SELECT `+customerColumns(t.dialect())+` FROM customers c
		WHERE c.business_id = $1 AND c.`+col+` = $2 AND c.deleted_at IS NULL`, businessID, v))
	return c, dbError(err)
}

// PersonReach tells how many businesses know a person and whether the
// person has claimed the account with a PIN.
func (t *tx) PersonReach(ctx context.Context, userID string) (memberships int, hasPIN bool, err error) {
	err = t.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM customers c WHERE c.user_id = u.id AND c.deleted_at IS NULL),
		u.pin_hash IS NOT NULL FROM users u WHERE u.id = $1`, userID).Scan(&memberships, &hasPIN)
	return memberships, hasPIN, dbError(err)
}

func latLong(a loyalty.Address) (sql.NullFloat64, sql.NullFloat64) {
	var lat, long sql.NullFloat64
	if a.Lat != nil {
		lat = sql.NullFloat64{Float64: *a.Lat, Valid: true}
	}
	if a.Long != nil {
		long = sql.NullFloat64{Float64: *a.Long, Valid: true}
	}
	return lat, long
}

// InsertCustomer stores a new membership with a zero balance.
func (t *tx) InsertCustomer(ctx context.Context, c *loyalty.Customer) error {
	a := c.Address
	lat, long := latLong(a)
	_, err := t.ExecContext(ctx, `INSERT INTO customers (business_id, user_id, email, phone, country_code, first_name, last_name,
		birth_date, language, gender, enabled, street, city, region, country, address_country_code, zip_code, lat, long,
		created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)`,
		c.BusinessID, c.ID, nullString(c.Email), nullString(c.Phone), c.CountryCode, c.FirstName, c.LastName,
		c.BirthDate, c.Language, c.Gender, c.Enabled, a.Street, a.City, a.Region, a.Country, a.CountryCode, a.ZipCode, lat, long,
		c.CreatedAt.UTC(), c.UpdatedAt.UTC())
	return dbError(err)
}

// UpdateCustomer writes a membership's profile and fields (never its balance,
// which only ledger entries move).
func (t *tx) UpdateCustomer(ctx context.Context, c *loyalty.Customer) error {
	a := c.Address
	lat, long := latLong(a)
	var deleted sql.NullTime
	if c.Deleted {
		deleted = nullTime(c.UpdatedAt)
	}
	_, err := t.ExecContext(ctx, `UPDATE customers SET email = $1, phone = $2, country_code = $3, first_name = $4,
		last_name = $5, birth_date = $6, language = $7, gender = $8, enabled = $9, street = $10, city = $11, region = $12,
		country = $13, address_country_code = $14, zip_code = $15, lat = $16, long = $17, created_at = $18, updated_at = $19,
		deleted_at = $20 WHERE business_id = $21 AND user_id = $22`,
		nullString(c.Email), nullString(c.Phone), c.CountryCode, c.FirstName, c.LastName, c.BirthDate, c.Language, c.Gender,
		c.Enabled, a.Street, a.City, a.Region, a.Country, a.CountryCode, a.ZipCode, lat, long,
		c.CreatedAt.UTC(), c.UpdatedAt.UTC(), deleted, c.BusinessID, c.ID)
	return dbError(err)
}
