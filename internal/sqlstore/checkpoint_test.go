package sqlstore_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// TestCheckpointsBesideTheWriter (SQLite only: PostgreSQL's checkpoints
// are the server's): a few hundred pages of writes, fewer than the 1,000
// at which the committing connection would copy the log itself, reach
// the database file within a second or so, copied by the checkpointer.
func TestCheckpointsBesideTheWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loyalty.db")
	db, err := sqlstore.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	// Start from an empty log, every page in the file.
	if _, err := db.SQL().ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	size := func(name string) int64 {
		fi, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	before := size(path)
	b := createBusiness(t, db, "")
	for i := range 30 {
		createCustomer(t, db, b.BusinessID, loyalty.CustomerInput{Email: loyalty.Some(fmt.Sprintf("c%d@ck.example", i))})
	}
	const frame = 4096 + 24 // a page and its frame header
	if pages := size(path+"-wal") / frame; pages == 0 || pages >= 1000 {
		t.Fatalf("the writes took %d pages of log; the test needs some, and fewer than SQLite's own checkpoint's 1,000", pages)
	}
	deadline := time.Now().Add(5 * time.Second)
	for size(path) == before {
		if time.Now().After(deadline) {
			t.Fatalf("the database file is still %d bytes 5 s after the writes: nothing checkpointed them", before)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
