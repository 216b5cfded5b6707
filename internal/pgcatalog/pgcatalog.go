// Package pgcatalog measures how bloated a PostgreSQL database's system
// catalogs are, so that a benchmark or a load run can say so instead of
// reporting a slowed figure as if it were the code's.
//
// Autovacuum is off on the development and CI machines, and the tests
// create and drop a schema (some 60 tables, their indexes and sequences)
// per test: every dropped table leaves dead rows in pg_class, pg_attribute,
// pg_type, pg_depend, pg_index… that nothing removes. The catalogs' files
// grow while the rows that live in them do not, and connecting, planning
// and DDL slow down.
//
// The measure is the heap bytes of the database's main catalogs per live
// row in them (counted, not taken from the statistics: those are reset by
// a crash and not updated by VACUUM FULL). It needs no extension and
// holds whatever made the files large, dead rows or space a VACUUM freed
// inside the files but could not give back. Shared catalogs
// (pg_shdepend, pg_database…) are left out: they are the whole server's,
// and other databases' tests bloat them.
//
// Measured on a 2-core development machine with PostgreSQL 15 (a
// throwaway database with one live schema of 60 tables, each with ten
// columns, a primary key and an index; bytes a row over pg_class,
// pg_attribute, pg_type, pg_depend and pg_index; pgbench, 3 s a figure,
// on a machine shared with other work, load average 3 to 8):
//
//	catalog state                         bytes/row  connect+query/s  planned query/s
//	fresh (createdb)                            149               65             3571
//	20 schemas of 60 tables dropped           1,452               76             3625
//	100 schemas dropped                       6,596               38             2403
//	after VACUUM of the catalogs                149
//
// Ten times a fresh catalog's density cost nothing measurable; forty-four
// times cost about 0.6× on both. Over the seven Tables a fresh database
// has 152 bytes a row; the shared test database of that machine, used by
// several test runs for half an hour, had 5,475 (183 MB for 35,114 rows;
// pg_attribute 90 MB for 6,959 rows). Limit sits at
// twenty times a fresh catalog: above what one session of benchmarks adds
// to a vacuumed catalog, below where figures were seen to drop.
package pgcatalog

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Limit is the most heap bytes per live row the main catalogs may have
// before a database counts as bloated: twenty times the 149 of a fresh or
// vacuumed database (see the package comment for the measurements).
const Limit = 3000

// Tables are the catalogs measured: those that every CREATE TABLE and
// DROP SCHEMA writes to, in the database connected to.
var Tables = []string{"pg_class", "pg_attribute", "pg_type", "pg_depend", "pg_index", "pg_constraint", "pg_attrdef"}

// Vacuum is the statement that makes the catalogs small again: a plain
// VACUUM of the measured tables and the others the tests write to. It
// removes the dead rows and gives the files' empty ends back to the
// system; it locks nothing a running session needs (VACUUM FULL would,
// for as long as it takes). Where live rows are scattered through a
// bloated file it does not shrink it: on the shared test database of a
// development machine (193 MB, 35,114 rows, other tests running) it took
// 4.6 s and left 179 MB. VACUUM FULL of the same tables rewrites them
// (0.5 s for 64 MB), or a database made by createdb starts at 152 bytes a
// row.
const Vacuum = `VACUUM pg_catalog.pg_class, pg_catalog.pg_attribute, pg_catalog.pg_type,
    pg_catalog.pg_depend, pg_catalog.pg_index, pg_catalog.pg_constraint, pg_catalog.pg_attrdef,
    pg_catalog.pg_trigger, pg_catalog.pg_statistic, pg_catalog.pg_sequence,
    pg_catalog.pg_namespace, pg_catalog.pg_description`

// Table is one catalog's heap size and live rows.
type Table struct {
	Name  string
	Bytes int64
	Rows  int64
}

// Bloat is what Measure found in one database.
type Bloat struct {
	Database string
	Host     string // the server's address, "" over a Unix socket
	Port     int
	User     string
	Tables   []Table
}

// Bytes is the heap size of the measured catalogs.
func (b Bloat) Bytes() int64 {
	var n int64
	for _, t := range b.Tables {
		n += t.Bytes
	}
	return n
}

// Rows is the live rows of the measured catalogs.
func (b Bloat) Rows() int64 {
	var n int64
	for _, t := range b.Tables {
		n += t.Rows
	}
	return n
}

// PerRow is the heap bytes per live row.
func (b Bloat) PerRow() float64 {
	rows := b.Rows()
	if rows == 0 {
		return 0
	}
	return float64(b.Bytes()) / float64(rows)
}

// Bloated tells whether PerRow is above Limit.
func (b Bloat) Bloated() bool { return b.PerRow() > Limit }

// String reads, for instance, "database test: system catalogs 146 MB for
// 13,399 live rows, 10,900 bytes a row (limit 3,000); largest pg_attribute
// 86 MB for 6,959 rows".
func (b Bloat) String() string {
	var largest Table
	for _, t := range b.Tables {
		if t.Bytes > largest.Bytes {
			largest = t
		}
	}
	return fmt.Sprintf("database %s: system catalogs %s for %d live rows, %.0f bytes a row (limit %d); largest %s %s for %d rows",
		b.Database, mb(b.Bytes()), b.Rows(), b.PerRow(), Limit, largest.Name, mb(largest.Bytes), largest.Rows)
}

// Warning is the line to print when the catalogs are bloated, saying what
// it does to figures and what to run; "" when they are not.
func (b Bloat) Warning() string {
	if !b.Bloated() {
		return ""
	}
	return "PostgreSQL CATALOG BLOATED (" + b.String() + "): connections, planning and DDL are slowed " +
		"(0.6× measured at 6,600 bytes a row), so figures measured now are not the code's. " +
		"Vacuum it first (docs/measuring.md): " + b.VacuumCommand() +
		"; if it is still bloated after that (the dead rows are gone but the files stay as large when live rows are " +
		"scattered through them), run VACUUM FULL on the same tables while nothing else uses the database, or " +
		"measure on a database of your own made by createdb"
}

// VacuumCommand is the psql command that vacuums the catalogs measured.
func (b Bloat) VacuumCommand() string {
	cmd := "psql"
	if b.Host != "" {
		cmd += fmt.Sprintf(" -h %s -p %d", b.Host, b.Port)
	}
	return cmd + fmt.Sprintf(` -U %s -d %s -c "%s"`, b.User, b.Database, strings.Join(strings.Fields(Vacuum), " "))
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/(1<<20)) }

// Measure counts the live rows of the main catalogs of the database db is
// connected to and reads their heap sizes. On a bloated catalog it reads
// the files whole (about 0.2 s for 150 MB).
func Measure(ctx context.Context, db *sql.DB) (Bloat, error) {
	var b Bloat
	var port sql.NullInt64
	err := db.QueryRowContext(ctx, `SELECT current_database(), current_user, coalesce(host(inet_server_addr()), ''), inet_server_port()`).
		Scan(&b.Database, &b.User, &b.Host, &port)
	if err != nil {
		return b, fmt.Errorf("pgcatalog: measure: %w", err)
	}
	b.Port = int(port.Int64)
	var q strings.Builder
	for i, t := range Tables {
		if i > 0 {
			q.WriteString(" UNION ALL ")
		}
		fmt.Fprintf(&q, `SELECT '%[1]s', pg_relation_size('pg_catalog.%[1]s'), (SELECT count(*) FROM pg_catalog.%[1]s)`, t)
	}
	rows, err := db.QueryContext(ctx, q.String())
	if err != nil {
		return b, fmt.Errorf("pgcatalog: measure: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var t Table
		if err := rows.Scan(&t.Name, &t.Bytes, &t.Rows); err != nil {
			return b, err
		}
		b.Tables = append(b.Tables, t)
	}
	return b, rows.Err()
}
