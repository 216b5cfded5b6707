package loyalty_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// TestGuessImportMapping: a file's columns are matched by the API's name
// first, then by the business's remembered choices, then by name
// similarity; a field is guessed once; a column with no good guess stays
// unchosen ("").
func TestGuessImportMapping(t *testing.T) {
	for _, c := range []struct {
		name       string
		kind       string
		header     []string
		remembered map[string]string
		want       map[string]string
	}{
		{"the merchant's words", loyalty.ImportCustomers,
			[]string{"E-mail address", "First", "Points balance", "Card no"}, nil,
			map[string]string{"e-mail address": "email", "first": "first_name", "points balance": "balance.points", "card no": ""}},
		{"more words", loyalty.ImportCustomers,
			[]string{"Surname", "Given name", "Mobile", "Date of birth", "Postcode", "Gift card balance"}, nil,
			map[string]string{"surname": "last_name", "given name": "first_name", "mobile": "phone", "date of birth": "birth_date",
				"postcode": "address.zip_code", "gift card balance": "balance.giftcard"}},
		{"the API's names first", loyalty.ImportCustomers,
			[]string{"E-mail", " EMAIL ", "balance.points"}, nil,
			map[string]string{"e-mail": "", "email": "email", "balance.points": "balance.points"}},
		{"remembered before similar", loyalty.ImportCustomers,
			[]string{"Nom", "Card no", "Mail", "Email"}, map[string]string{"nom": "first_name", "card no": "-", "mail": "phone"},
			map[string]string{"nom": "first_name", "card no": "-", "mail": "phone", "email": "email"}},
		{"a remembered field the API's name took", loyalty.ImportCustomers,
			[]string{"email", "Mail"}, map[string]string{"mail": "email"},
			map[string]string{"email": "email", "mail": ""}},
		{"a remembered field that no longer exists", loyalty.ImportCustomers,
			[]string{"Loyalty tier"}, map[string]string{"loyalty tier": "tier"},
			map[string]string{"loyalty tier": ""}},
		{"each field once, the best first", loyalty.ImportCustomers,
			[]string{"Points", "Points balance"}, nil,
			map[string]string{"points": "balance.points", "points balance": ""}},
		{"transactions", loyalty.ImportTransactions,
			[]string{"Customer e-mail", "Total", "Date", "Receipt no"}, nil,
			map[string]string{"customer e-mail": "customer.email", "total": "amount", "date": "created_at", "receipt no": "receipt.number"}},
		{"products", loyalty.ImportProducts,
			[]string{"SKU", "Product name", "Price"}, nil,
			map[string]string{"sku": "product_sku", "product name": "title", "price": "product_actual_price"}},
		{"nothing alike", loyalty.ImportCustomers,
			[]string{"Favourite drink", ""}, nil,
			map[string]string{"favourite drink": ""}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := loyalty.GuessImportMapping(c.kind, c.header, c.remembered)
			if len(got) != len(c.want) {
				t.Errorf("guessed %v, want %v", got, c.want)
			}
			for k, f := range c.want {
				if g, ok := got[k]; !ok || g != f {
					t.Errorf("%q: guessed %q, want %q (all: %v)", k, g, f, got)
				}
			}
		})
	}
}

// TestImportMap: the console's upload guesses the columns instead of
// refusing the file; an import with a column nobody matched cannot start;
// Map checks the choice (every column, each field once), checks every
// row again and remembers the choice, which the next upload of the kind
// starts from; the import then runs through the mapping. The API's upload
// (no guess) still refuses a column it does not name.
func TestImportMap(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		b := w.business(t, "CA")
		s, wk := w.importer()
		file := "E-mail address,First,Points balance,Card no\n" +
			"nina@example.com,Nina,40,A-17\n" +
			"omar@example.com,Omar,15,A-18\n"
		_, err := s.Upload(w.ctx, b, loyalty.ImportUpload{Kind: loyalty.ImportCustomers}, strings.NewReader(file))
		testenv.WantField(t, err, "file")

		im, err := s.Upload(w.ctx, b, loyalty.ImportUpload{Kind: loyalty.ImportCustomers, Guess: true}, strings.NewReader(file))
		if err != nil {
			t.Fatalf("Upload: %v", err)
		}
		p, err := s.Preview(w.ctx, b, im.ID)
		if err != nil || strings.Join(p.Unmapped, "|") != "Card no" || strings.Join(p.Columns, "|") != "email|first_name|balance.points|" ||
			strings.Join(p.Header, "|") != "E-mail address|First|Points balance|Card no" || p.Import.InvalidRows != 0 {
			t.Fatalf("preview: unmapped %q, columns %q, header %q, %d invalid, %v", p.Unmapped, p.Columns, p.Header, p.Import.InvalidRows, err)
		}
		_, err = s.Start(w.ctx, b, im.ID)
		testenv.WantField(t, err, "mapping")

		for name, c := range map[string]struct {
			chosen []string
			field  string
		}{
			"a column unchosen": {[]string{"email", "first_name", "balance.points", ""}, "column.3"},
			"a field twice":     {[]string{"email", "first_name", "first_name", "-"}, "column.2"},
			"an unknown field":  {[]string{"email", "tier", "balance.points", "-"}, "column.1"},
			"nothing read":      {[]string{"-", "-", "-", "-"}, "mapping"},
		} {
			_, err := s.Map(w.ctx, b, im.ID, c.chosen)
			if e, ok := err.(*loyalty.Error); !ok || len(e.Fields[c.field]) == 0 {
				t.Errorf("%s: %v, want invalid %s", name, err, c.field)
			}
		}
		// A choice that makes every row wrong is checked again, row by row.
		mapped, err := s.Map(w.ctx, b, im.ID, []string{"phone", "first_name", "balance.points", "-"})
		if err != nil || mapped.InvalidRows != 2 || mapped.TotalRows != 2 {
			t.Fatalf("Map (phone): %+v, %v", mapped, err)
		}
		if p, _ := s.Preview(w.ctx, b, im.ID); errorRows(p.Errors) != "2 country_code; 3 country_code" {
			t.Errorf("rows in error with e-mails read as phones: %q", errorRows(p.Errors))
		}
		mapped, err = s.Map(w.ctx, b, im.ID, []string{"email", "first_name", "balance.points", "-"})
		if err != nil || mapped.InvalidRows != 0 || len(mapped.Mapping.Open()) != 0 {
			t.Fatalf("Map: %+v, %v", mapped, err)
		}
		if p, _ := s.Preview(w.ctx, b, im.ID); len(p.Errors) != 0 || len(p.Unmapped) != 0 {
			t.Errorf("after the mapping: errors %q, unmapped %q", errorRows(p.Errors), p.Unmapped)
		}
		if _, err := s.Start(w.ctx, b, im.ID); err != nil {
			t.Fatalf("Start: %v", err)
		}
		if _, err := s.Map(w.ctx, b, im.ID, []string{"email", "first_name", "balance.points", "-"}); loyalty.ErrorCode(err) != loyalty.EConflict {
			t.Errorf("Map after the start: %v, want a conflict", err)
		}
		if n, err := wk.Drain(w.ctx); err != nil || n != 1 {
			t.Fatalf("Drain = %d, %v", n, err)
		}
		c, err := w.byEmail(b, "nina@example.com")
		if err != nil || c.FirstName != "Nina" || c.Balance.Points != 40 {
			t.Fatalf("nina %+v, %v", c, err)
		}

		// The next file of the kind starts from the business's choices;
		// another business's does not.
		next := "Card no,E-mail address,First\nB-1,pia@example.com,Pia\n"
		im2, err := s.Upload(w.ctx, b, loyalty.ImportUpload{Kind: loyalty.ImportCustomers, Guess: true}, strings.NewReader(next))
		if err != nil || im2.Mapping["card no"] != loyalty.ImportIgnore || len(im2.Mapping.Open()) != 0 {
			t.Fatalf("second upload: %v, %v", im2.Mapping, err)
		}
		other := w.business(t, "CA")
		im3, err := s.Upload(w.ctx, other, loyalty.ImportUpload{Kind: loyalty.ImportCustomers, Guess: true}, strings.NewReader(next))
		if err != nil || strings.Join(im3.Mapping.Open(), "|") != "card no" {
			t.Fatalf("another business's upload: %v, %v", im3.Mapping, err)
		}
		if _, err := s.Map(w.ctx, other, im.ID, []string{"email", "first_name", "balance.points", "-"}); loyalty.ErrorCode(err) != loyalty.ENotFound {
			t.Errorf("another business maps the import: %v", err)
		}
	})
}

// chunkHook is the import store with a call before each chunk of a file
// is read: the moment a mapping's check is under way.
type chunkHook struct {
	*sqlstore.DB
	before func(seq int)
}

func (h chunkHook) ImportChunk(ctx context.Context, importID int64, seq int) ([]byte, error) {
	if h.before != nil {
		h.before(seq)
	}
	return h.DB.ImportChunk(ctx, importID, seq)
}

// TestImportMapOutsideTx: a new mapping reads and checks the whole file
// outside any write transaction. Half-way through the check of a file of
// several chunks a reward is written (on SQLite's single writer it would
// wait for the check if the check held a transaction, and time out), and
// the preview is still the one before, whole. A check overtaken by a
// later one is refused and leaves none of its rows; the import keeps the
// rows in error of its current check only.
func TestImportMapOutsideTx(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		b := w.business(t, "CA")
		loaded, err := w.db.BusinessWithRules(w.ctx, b.ID)
		if err != nil {
			t.Fatal(err)
		}
		member := w.create(t, loaded, `{"email":"rita@example.com"}`)
		ledger := &loyalty.TransactionService{Store: w.db, Customers: w.svc}

		var file strings.Builder
		file.WriteString("E-mail address,First,Points balance\n")
		const rows = 30000
		for i := range rows {
			fmt.Fprintf(&file, "buyer%05d@example.com,Buyer,5\n", i)
		}
		if file.Len() < 3*loyalty.ImportChunkSize {
			t.Fatalf("the file is %d bytes, under 3 chunks", file.Len())
		}
		hook := &chunkHook{DB: w.db}
		s := &loyalty.ImportService{Services: loyalty.NewServices(w.db, loyalty.ServiceOptions{}), Store: hook}
		im, err := s.Upload(w.ctx, b, loyalty.ImportUpload{Kind: loyalty.ImportCustomers, Guess: true}, strings.NewReader(file.String()))
		if err != nil || im.InvalidRows != 0 || im.TotalRows != rows || im.Chunks < 3 {
			t.Fatalf("Upload: %+v, %v", im, err)
		}

		// E-mails read as phones: every row in error, written as the
		// check goes.
		during := false
		reward := txInput(t, `{"intent":"reward","amount":5,"customer":{"id":"`+member.ID+`"}}`)
		var rewarded *waited
		hook.before = func(seq int) {
			if seq != 2 || during {
				return
			}
			during = true
			rewarded = start(func() error {
				_, _, err := ledger.Create(w.ctx, loaded, reward, nil)
				return err
			})
			// The check waits here, between two chunks, until the reward
			// is done: were it holding the writer, the reward would never
			// be (or fail busy). The bound is for a deadlock, not speed: a
			// loaded machine under the race detector is slow.
			if !rewarded.within(stuck) {
				t.Errorf("a reward during the check was not done after %v: the check holds the writer", stuck)
			} else if rewarded.err != nil {
				t.Errorf("a reward during the check: %v", rewarded.err)
			}
			p, err := s.Preview(w.ctx, b, im.ID)
			if err != nil || p.Import.InvalidRows != 0 || len(p.Errors) != 0 || p.Columns[0] != "email" {
				t.Errorf("the preview during the check: %d invalid, %d errors shown, columns %q, %v",
					p.Import.InvalidRows, len(p.Errors), p.Columns, err)
			}
		}
		mapped, err := s.Map(w.ctx, b, im.ID, []string{"phone", "first_name", "balance.points"})
		if err != nil || mapped.InvalidRows != rows || mapped.Mapping["e-mail address"] != "phone" {
			t.Fatalf("Map (phone): %d invalid, %v, %v", mapped.InvalidRows, mapped.Mapping, err)
		}
		if !during {
			t.Fatal("the check never read a third chunk")
		}
		<-rewarded.done
		if c, err := w.byEmail(b, "rita@example.com"); err != nil || c.Balance.Points != 5 {
			t.Errorf("rita after the reward: %d points, %v", c.Balance.Points, err)
		}
		wantErrorRows(t, w, im.ID, rows)

		// A check overtaken by another one is refused; the other stands.
		during = false
		hook.before = func(seq int) {
			if seq != 2 || during {
				return
			}
			during = true
			var m loyalty.Import
			later := start(func() (err error) {
				m, err = s.Map(w.ctx, b, im.ID, []string{"email", "first_name", "-"})
				return err
			})
			if !later.within(stuck) {
				t.Errorf("a later Map during the check was not done after %v: the check holds the writer", stuck)
			} else if later.err != nil || m.InvalidRows != 0 {
				t.Errorf("the later Map: %d invalid, %v", m.InvalidRows, later.err)
			}
		}
		_, err = s.Map(w.ctx, b, im.ID, []string{"phone", "first_name", "-"})
		if loyalty.ErrorCode(err) != loyalty.EConflict {
			t.Errorf("the overtaken Map: %v, want a conflict", err)
		}
		hook.before = nil
		p, err := s.Preview(w.ctx, b, im.ID)
		if err != nil || p.Import.InvalidRows != 0 || len(p.Errors) != 0 || p.Import.Mapping["points balance"] != loyalty.ImportIgnore {
			t.Errorf("after the overtaken Map: %d invalid, %d errors shown, mapping %v, %v", p.Import.InvalidRows, len(p.Errors), p.Import.Mapping, err)
		}
		wantErrorRows(t, w, im.ID, 0)
	})
}

// waited is a call made on a goroutine of its own, so that a call
// blocked by a transaction of its caller fails the test instead of
// hanging it.
// stuck is how long a call the paused check must not hold up may take
// before it counts as held up: the check would hold it for ever.
const stuck = 2 * time.Minute

type waited struct {
	done chan struct{}
	err  error
}

// start calls fn on a goroutine of its own.
func start(fn func() error) *waited {
	w := &waited{done: make(chan struct{})}
	go func() {
		w.err = fn()
		close(w.done)
	}()
	return w
}

// within reports whether the call ended within d.
func (w *waited) within(d time.Duration) bool {
	select {
	case <-w.done:
		return true
	case <-time.After(d):
		return false
	}
}

// wantErrorRows checks that an import keeps n rows in error in all, of
// every check: a superseded or failed check leaves none behind.
func wantErrorRows(t *testing.T, w *world, importID int64, n int) {
	t.Helper()
	var got int
	if err := w.db.SQL().QueryRowContext(w.ctx, `SELECT COUNT(*) FROM import_errors WHERE import_id = $1`, importID).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != n {
		t.Errorf("%d rows in error kept, want %d", got, n)
	}
}
