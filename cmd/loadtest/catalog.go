package main

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/loyalty/loyalty/internal/pgcatalog"
)

// reportCatalog prints how bloated the PostgreSQL catalog of dsn's
// database is (internal/pgcatalog) before the run, and returns what to
// print after it: when the catalog is bloated, the warning again, beside
// the figures it makes lower (connecting and planning measured at 0.6×).
// The run goes on either way: the size scenario, say, is worth its
// minutes even so; its figures are not a measure of the code.
func reportCatalog(ctx context.Context, dsn string) func() {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		fmt.Printf("PostgreSQL catalog: not measured: %v\n", err)
		return func() {}
	}
	defer db.Close()
	b, err := pgcatalog.Measure(ctx, db)
	if err != nil {
		fmt.Printf("PostgreSQL catalog: not measured: %v\n", err)
		return func() {}
	}
	w := b.Warning()
	if w == "" {
		fmt.Printf("PostgreSQL catalog: %s\n", b)
		return func() {}
	}
	fmt.Printf("WARNING: %s\n", w)
	return func() { fmt.Printf("WARNING: the figures above were measured on a bloated catalog: %s\n", w) }
}
