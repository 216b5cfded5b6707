package loyalty_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

var _ loyalty.ImportBackend = (*sqlstore.DB)(nil)

// importer is the import service and a worker over a world's store.
func (w *world) importer() (*loyalty.ImportService, *loyalty.ImportWorker) {
	s := &loyalty.ImportService{Services: loyalty.NewServices(w.db, loyalty.ServiceOptions{}), Store: w.db}
	return s, &loyalty.ImportWorker{Imports: s, Clock: func() time.Time { return w.db.Clock() }}
}

// member creates a customer of b and returns its id.
func (w *world) member(tb testing.TB, b loyalty.Business, email string) string {
	tb.Helper()
	c, err := w.svc.Create(w.ctx, b, input(tb, `{"email":"`+email+`"}`))
	if err != nil {
		tb.Fatalf("create %s: %v", email, err)
	}
	return c.ID
}

// byEmail reads a customer of b by e-mail.
func (w *world) byEmail(b loyalty.Business, email string) (c loyalty.Customer, err error) {
	err = w.db.WithTx(w.ctx, func(tx loyalty.Tx) error {
		c, err = tx.CustomerByContact(w.ctx, b.ID, email, "")
		return err
	})
	return c, err
}

// byPhone finds a customer of b by phone.
func (w *world) byPhone(b loyalty.Business, phone string) (c loyalty.Customer, err error) {
	err = w.db.WithTx(w.ctx, func(tx loyalty.Tx) error {
		c, err = tx.CustomerByContact(w.ctx, b.ID, "", phone)
		return err
	})
	return c, err
}

// entries counts a business's ledger entries of an intent.
func (w *world) entries(tb testing.TB, b loyalty.Business, intent string) int {
	tb.Helper()
	var n int
	if err := w.db.SQL().QueryRowContext(w.ctx, `SELECT COUNT(*) FROM transactions WHERE business_id = $1 AND intent = $2`,
		b.ID, intent).Scan(&n); err != nil {
		tb.Fatal(err)
	}
	return n
}

// uploadAndRun uploads a file, starts it and runs it to the end.
func uploadAndRun(tb testing.TB, s *loyalty.ImportService, wk *loyalty.ImportWorker, b loyalty.Business, kind, file string) loyalty.Import {
	tb.Helper()
	ctx := context.Background()
	im, err := s.Upload(ctx, b, loyalty.ImportUpload{Kind: kind, FileName: "file.csv"}, strings.NewReader(file))
	if err != nil {
		tb.Fatalf("Upload: %v", err)
	}
	if _, err := s.Start(ctx, b, im.ID); err != nil {
		tb.Fatalf("Start: %v", err)
	}
	if n, err := wk.Drain(ctx); err != nil || n != 1 {
		tb.Fatalf("Drain = %d, %v; want 1 import run", n, err)
	}
	if im, err = s.Get(ctx, b, im.ID); err != nil || im.Status != loyalty.ImportFinished {
		tb.Fatalf("after the run: %+v, %v", im, err)
	}
	return im
}

func errorRows(list []loyalty.ImportRowError) string {
	var out []string
	for _, e := range list {
		out = append(out, fmt.Sprintf("%d %s", e.Row, strings.Join(e.Fields, ",")))
	}
	return strings.Join(out, "; ")
}

// TestImportTransactions: the preview shows the first rows and each row in
// error with the API's messages; the run imports the good rows back-dated,
// reports those refused without stopping, and the same file imported
// again adds nothing.
func TestImportTransactions(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		b := w.business(t, "CA")
		ann := w.member(t, b, "ann@example.com")
		s, wk := w.importer()
		file := "intent,customer.id,customer.email,amount,points,created_at,transaction_details.external_order_id\n" +
			"reward," + ann + ",,20.00,,2025-03-01T10:00:00+00:00,A-1\n" +
			"adjust_points_balance,,bob@example.com,,50,2025-03-02T10:00:00Z,A-2\n" +
			"reward,,not-an-email,abc,,,A-3\n" +
			"redeem," + ann + ",,,999999,,A-4\n" +
			"reward," + ann + ",,5.00,,2999-01-01T00:00:00+00:00,A-5\n"
		im, err := s.Upload(w.ctx, b, loyalty.ImportUpload{Kind: loyalty.ImportTransactions, FileName: "past.csv"}, strings.NewReader(file))
		if err != nil {
			t.Fatal(err)
		}
		if im.Status != loyalty.ImportUploaded || im.TotalRows != 5 || im.InvalidRows != 2 || im.FileHash == "" || im.Chunks != 1 {
			t.Fatalf("uploaded %+v", im)
		}
		p, err := s.Preview(w.ctx, b, im.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Rows) != 5 || p.Rows[0][1] != ann || len(p.Columns) != 7 {
			t.Errorf("preview rows %q columns %q", p.Rows, p.Columns)
		}
		if got := errorRows(p.Errors); got != "4 amount,customer.email; 6 created_at" {
			t.Errorf("preview errors %q", got)
		}
		if !strings.Contains(p.Errors[0].Message, "amount: The amount must be a sum of money") ||
			!strings.Contains(p.Errors[0].Message, "customer.email: The email must be a valid email address.") {
			t.Errorf("preview message %q", p.Errors[0].Message)
		}
		if _, err := s.Start(w.ctx, b, im.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Start(w.ctx, b, im.ID); loyalty.ErrorCode(err) != loyalty.EConflict {
			t.Errorf("second start: %v, want conflict", err)
		}
		if _, err := wk.Drain(w.ctx); err != nil {
			t.Fatal(err)
		}
		im, _ = s.Get(w.ctx, b, im.ID)
		if im.Status != loyalty.ImportFinished || im.Done != 2 || im.Failed != 3 || im.Skipped != 0 || im.NextRow != 6 {
			t.Fatalf("after the run %+v", im)
		}
		var report []loyalty.ImportRowError
		if _, err := s.EachError(w.ctx, b, im.ID, func(e loyalty.ImportRowError) error { report = append(report, e); return nil }); err != nil {
			t.Fatal(err)
		}
		if got := errorRows(report); got != "4 amount,customer.email; 5 points; 6 created_at" || !strings.Contains(report[1].Message, "balance is not enough") {
			t.Errorf("report %q (%+v)", got, report)
		}
		var at time.Time
		if err := w.db.SQL().QueryRowContext(w.ctx, `SELECT created_at FROM transactions WHERE business_id = $1 AND intent = 'reward'`,
			b.ID).Scan(&at); err != nil || !at.Equal(time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)) {
			t.Errorf("reward dated %v, %v; want the file's date", at, err)
		}
		if w.entries(t, b, loyalty.IntentReward) != 1 || w.entries(t, b, loyalty.IntentAdjust) != 1 {
			t.Fatalf("ledger after the first import: %d rewards, %d adjustments", w.entries(t, b, loyalty.IntentReward), w.entries(t, b, loyalty.IntentAdjust))
		}

		again := uploadAndRun(t, s, wk, b, loyalty.ImportTransactions, file)
		if again.Done != 0 || again.Skipped != 2 || again.Failed != 3 {
			t.Errorf("the same file again: %+v; want 2 rows skipped, none done", again)
		}
		if w.entries(t, b, loyalty.IntentReward) != 1 || w.entries(t, b, loyalty.IntentAdjust) != 1 {
			t.Errorf("the same file imported twice moved the ledger twice")
		}
	})
}

// TestImportCustomers: customers come with their opening balances, and a
// second import of the file creates no one and credits nothing again.
func TestImportCustomers(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		b := w.business(t, "CA")
		s, wk := w.importer()
		file := "Email,phone,first_name,balance.points,balance.giftcard,consents.allow_email,consents.allow_sms\n" +
			"cleo@example.com,,Cleo,120,15.50,true,false\n" +
			",+15145550199,Dan,,,,\n" +
			"eve@example.com,,Eve,-5,,,maybe\n" +
			"cleo@example.com,,Cleo again,,,,\n"
		im := uploadAndRun(t, s, wk, b, loyalty.ImportCustomers, file)
		if im.TotalRows != 4 || im.InvalidRows != 1 || im.Done != 2 || im.Failed != 2 {
			t.Fatalf("import %+v", im)
		}
		var report []loyalty.ImportRowError
		s.EachError(w.ctx, b, im.ID, func(e loyalty.ImportRowError) error { report = append(report, e); return nil })
		if got := errorRows(report); got != "4 balance.points,consents.allow_sms; 5 email" {
			t.Errorf("report %q", got)
		}
		c, err := w.byEmail(b, "cleo@example.com")
		if err != nil || c.Balance.Points != 120 || c.Balance.Giftcard != 1550 || c.FirstName != "Cleo" {
			t.Fatalf("cleo %+v, %v", c, err)
		}
		// The consent columns are Cleo's marketing consent, from the import;
		// Dan's empty cells record nothing.
		consents := &loyalty.ConsentService{Store: w.db}
		st, err := consents.State(w.ctx, b, c.ID, loyalty.ConsentMarketing)
		if err != nil || !st.Email || st.SMS || len(st.History) != 1 || st.History[0].Source != loyalty.ConsentFromImport {
			t.Errorf("cleo's consent %+v, %v; want e-mail yes from the import", st, err)
		}
		dan, err := w.byPhone(b, "+15145550199")
		if err != nil {
			t.Fatal(err)
		}
		if st, err := consents.State(w.ctx, b, dan.ID, loyalty.ConsentMarketing); err != nil || len(st.History) != 0 {
			t.Errorf("dan's consent %+v, %v; want none", st, err)
		}
		again := uploadAndRun(t, s, wk, b, loyalty.ImportCustomers, file)
		if again.Done != 0 || again.Skipped != 2 {
			t.Errorf("again %+v", again)
		}
		c, _ = w.byEmail(b, "cleo@example.com")
		if c.Balance.Points != 120 || w.entries(t, b, loyalty.IntentAdjust) != 1 {
			t.Errorf("after the second import: %d points, %d adjustments", c.Balance.Points, w.entries(t, b, loyalty.IntentAdjust))
		}
	})
}

// TestImportProducts: a products file creates or updates products by SKU
// as POST /products/batch does, a bad row failing alone with its field
// named; the same file imported again changes nothing.
func TestImportProducts(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		b := w.business(t, "US")
		s, wk := w.importer()
		products := s.Services.Products
		if _, err := products.Create(w.ctx, b, loyalty.ProductInput{Title: loyalty.Some("Old"), SKU: loyalty.Some("CR-01"),
			Tags: loyalty.Some([]string{"keep"})}); err != nil {
			t.Fatal(err)
		}
		file := "product_sku,title,product_actual_price,tags\n" +
			"CR-01,Croissant,2.40,\n" +
			"SC-02,Scone,3.10,bakery|vegan\n" +
			",No SKU,1.00,\n" +
			"MU-03,Muffin,-1,\n" +
			"NT-04,,1.00,\n"
		im := uploadAndRun(t, s, wk, b, loyalty.ImportProducts, file)
		if im.TotalRows != 5 || im.Done != 2 || im.Failed != 3 {
			t.Fatalf("import %+v", im)
		}
		var report []loyalty.ImportRowError
		s.EachError(w.ctx, b, im.ID, func(e loyalty.ImportRowError) error { report = append(report, e); return nil })
		if got := errorRows(report); got != "4 product_sku; 5 product_actual_price; 6 title" {
			t.Errorf("report %q", got)
		}
		list, total, err := products.List(w.ctx, b, loyalty.ListQuery{Page: 1, PerPage: 10})
		if err != nil || total != 2 {
			t.Fatalf("%d products, %v; want 2", total, err)
		}
		got := map[string]loyalty.Product{}
		for _, p := range list {
			got[p.SKU] = p
		}
		if p := got["CR-01"]; p.Title != "Croissant" || p.ActualPrice != 240 || fmt.Sprint(p.Tags) != "[keep]" {
			t.Errorf("the updated product %+v: the row's fields changed, its tags kept", p)
		}
		if p := got["SC-02"]; p.Title != "Scone" || fmt.Sprint(p.Tags) != "[bakery vegan]" {
			t.Errorf("the new product %+v", p)
		}
		again := uploadAndRun(t, s, wk, b, loyalty.ImportProducts, file)
		if again.Done != 0 || again.Skipped != 2 {
			t.Errorf("again %+v", again)
		}
	})
}

// TestImportFileRefused: a file the import cannot read is refused whole,
// naming why; so is a bad option.
func TestImportFileRefused(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		b := w.business(t, "CA")
		s, _ := w.importer()
		for name, c := range map[string]struct{ kind, file, field string }{
			"unknown column": {loyalty.ImportTransactions, "intent,shoe_size\nreward,9\n", "file"},
			"empty":          {loyalty.ImportCustomers, "", "file"},
			"no rows":        {loyalty.ImportCustomers, "email\n", "file"},
			"twice":          {loyalty.ImportCustomers, "email,EMAIL\na@b.example,a@b.example\n", "file"},
			"bad kind":       {"coupons", "email\n", "type"},
		} {
			_, err := s.Upload(w.ctx, b, loyalty.ImportUpload{Kind: c.kind}, strings.NewReader(c.file))
			if e, ok := err.(*loyalty.Error); !ok || len(e.Fields[c.field]) == 0 {
				t.Errorf("%s: %v, want invalid %s", name, err, c.field)
			}
		}
		_, err := s.Upload(w.ctx, b, loyalty.ImportUpload{Kind: loyalty.ImportTransactions, BranchID: loyalty.NewID()},
			strings.NewReader("intent\nreward\n"))
		testenv.WantField(t, err, "options.branch_id")
	})
}

// TestImportTenants: one business never sees, starts or reports another's import.
func TestImportTenants(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		a, other := w.business(t, "CA"), w.business(t, "CA")
		s, _ := w.importer()
		im, err := s.Upload(w.ctx, a, loyalty.ImportUpload{Kind: loyalty.ImportCustomers}, strings.NewReader("email\nx@example.com\n"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Get(w.ctx, other, im.ID)
		testenv.WantNotFound(t, err)
		_, err = s.Preview(w.ctx, other, im.ID)
		testenv.WantNotFound(t, err)
		_, err = s.Start(w.ctx, other, im.ID)
		testenv.WantNotFound(t, err)
		_, err = s.EachError(w.ctx, other, im.ID, func(loyalty.ImportRowError) error { return nil })
		testenv.WantNotFound(t, err)
		_, err = s.StartFile(w.ctx, other, im.FileID)
		testenv.WantField(t, err, "file_id")
		if list, err := s.List(w.ctx, other, 0, 10); err != nil || len(list) != 0 {
			t.Errorf("other's list %+v, %v", list, err)
		}
	})
}

// TestImportResume: a worker that stops mid-import (a crash) leaves the
// import to the next worker once its lease runs out, which goes on after
// the last row settled; a worker whose lease was taken over stops without
// writing; each row is imported once.
func TestImportResume(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		b := w.business(t, "CA")
		ann := w.member(t, b, "ann@example.com")
		now := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
		w.db.Clock = func() time.Time { return now }
		s, first := w.importer()
		var file strings.Builder
		file.WriteString("intent,customer.id,points\n")
		for i := 1; i <= 20; i++ {
			fmt.Fprintf(&file, "adjust_points_balance,%s,%d\n", ann, i)
		}
		im, err := s.Upload(w.ctx, b, loyalty.ImportUpload{Kind: loyalty.ImportTransactions}, strings.NewReader(file.String()))
		if err != nil {
			t.Fatal(err)
		}
		s.Start(w.ctx, b, im.ID)

		crash := errors.New("simulated crash")
		loyalty.SetImportAfterRow(first, func(row int64) error {
			if row == 8 {
				return crash
			}
			return nil
		})
		if _, err := first.Drain(w.ctx); !errors.Is(err, crash) {
			t.Fatalf("first run: %v", err)
		}
		_, second := w.importer()
		if n, err := second.Drain(w.ctx); n != 0 || err != nil {
			t.Fatalf("a second worker ran the import under a live lease: %d, %v", n, err)
		}
		// The lease runs out; the second worker takes over, and while it
		// runs, the first worker (still holding its old claim) comes back.
		now = now.Add(2 * time.Minute)
		loyalty.SetImportAfterRow(first, nil)
		loyalty.SetImportAfterRow(second, func(row int64) error {
			if row == 12 {
				stale, _ := s.Get(w.ctx, b, im.ID)
				stale.Status = loyalty.ImportRunning
				if err := loyalty.RunClaimed(first, w.ctx, stale, "an expired claim"); err != nil {
					return fmt.Errorf("the stale worker: %w", err)
				}
			}
			return nil
		})
		if n, err := second.Drain(w.ctx); n != 1 || err != nil {
			t.Fatalf("resumed run: %d, %v", n, err)
		}
		im, _ = s.Get(w.ctx, b, im.ID)
		if im.Status != loyalty.ImportFinished || im.Done != 20 || im.Failed != 0 || im.Skipped != 0 {
			t.Errorf("after the resumed run: %+v", im)
		}
		var n, sum int64
		w.db.SQL().QueryRowContext(w.ctx, `SELECT COUNT(*), SUM(points) FROM transactions WHERE business_id = $1 AND intent = $2`,
			b.ID, loyalty.IntentAdjust).Scan(&n, &sum)
		if n != 20 || sum != 210 {
			t.Errorf("ledger holds %d adjustments worth %d points; want each row once: 20 worth 210", n, sum)
		}
	})
}

// TestImportUploadCutShort: an upload whose file cannot be read to the end
// (the client went away) leaves a failed import and no chunks behind.
func TestImportUploadCutShort(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		b := w.business(t, "CA")
		s, _ := w.importer()
		// More than a chunk, so that some of the file was stored before the failure.
		body := io.MultiReader(strings.NewReader("email\n"+strings.Repeat("a@example.com\n", 25000)), iotest.ErrReader(errors.New("connection reset")))
		if _, err := s.Upload(w.ctx, b, loyalty.ImportUpload{Kind: loyalty.ImportCustomers}, body); err == nil {
			t.Fatal("an upload cut short succeeded")
		}
		list, _ := s.List(w.ctx, b, 0, 10)
		var chunks int
		w.db.SQL().QueryRowContext(w.ctx, `SELECT COUNT(*) FROM import_chunks`).Scan(&chunks)
		if len(list) != 1 || list[0].Status != loyalty.ImportFailed || list[0].Failure != "The upload did not complete." || chunks != 0 {
			t.Errorf("after an upload cut short: %+v, %d chunks kept", list, chunks)
		}
	})
}
