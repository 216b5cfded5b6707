package browser

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// TestImportCustomers: the owner uploads a customers file from another
// system, its columns named in its own words ("E-mail address", "First",
// "Points balance") and one the import has no field for. The upload
// matches the columns it can and asks about the other: the import cannot
// start until the owner chooses Ignore for it (a save without a choice is
// refused beside the column). The preview shows the row in error beside
// the first rows. The corrected file, uploaded again, starts from the
// owner's choices (nothing to ask), is started, and its page follows it
// to its end by itself. A file with no rows is refused beside the file
// field. On a desktop and on a phone, every page checked for sideways
// scrolling, selects cut off and accessibility.
func TestImportCustomers(t *testing.T) {
	engines(t, func(t *testing.T, s *site) {
		onScreens(t, s, screens, func(t *testing.T, sc screen) {
			dir := t.TempDir()
			file := func(name, content string) string {
				p := filepath.Join(dir, name)
				if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
				return p
			}
			who := sc.name + "-" + s.unique()
			// The card column is named per screen: the business remembers
			// its choices, and with one engine both screens share it.
			header := "E-mail address,First,Last name,Points balance,Card no " + sc.name + "\n"
			broken := file("broken.csv", header+
				"ann."+who+"@import.example,Ann,With-a-rather-long-family-name-that-must-wrap,120,C-1001\n"+
				"bob."+who+"-at-import.example,Bob,Smith,15,C-1002\n")
			fixed := file("fixed.csv", header+
				"ann."+who+"@import.example,Ann,With-a-rather-long-family-name-that-must-wrap,120,C-1001\n"+
				"bob."+who+"@import.example,Bob,Smith,15,C-1002\n")
			empty := file("empty.csv", "email,first_name\n")

			o := newTabOn(t, "owner", sc)
			s.signInOwner(o)
			o.follow("/business/imports", "imports")
			o.check("imports")

			o.do(chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{empty}, poll))
			o.submit("#upload", "imports")
			if got := o.text("#file-error"); !strings.Contains(got, "no rows") {
				t.Errorf("a file without rows: %q beside the file", got)
			}
			o.check("imports_refused")

			o.do(chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{broken}, poll))
			o.submitTo("#upload", "import", "notice=import_uploaded")
			if got := o.text("#mapping-needed"); !strings.Contains(got, "Card no "+sc.name) {
				t.Errorf("the page asks about %q, want the card column", got)
			}
			for i, want := range []string{"email", "first_name", "last_name", "balance.points", ""} {
				if got := o.evalString(`document.querySelector("#column-` + strconv.Itoa(i) + `").value`); got != want {
					t.Errorf("column %d guessed as %q, want %q", i, got, want)
				}
			}
			if o.eval(`document.querySelector("#start") !== null`) {
				t.Errorf("an import with a column nobody matched offers to start")
			}
			o.check("import_mapping")

			o.submit("#map", "import")
			if got := o.text("#column-4-error"); !strings.Contains(got, "Ignore") {
				t.Errorf("a column left unmatched: %q beside it", got)
			}
			o.check("import_mapping_refused")

			o.do(chromedp.SetValue(chromedp.CSS("#column-4"), "-", poll))
			o.submitTo("#map", "import", "notice=import_mapped")
			if got := o.text("#row-errors"); !strings.Contains(got, "The email must be a valid email address.") || !strings.Contains(got, "3") ||
				!strings.Contains(got, "E-mail address") {
				t.Errorf("the preview's rows in error:\n%s", got)
			}
			if got := o.text("#first-rows"); !strings.Contains(got, "ann."+who+"@import.example") || !strings.Contains(strings.ToLower(got), "e-mail address") {
				t.Errorf("the preview's first rows:\n%s", got)
			}
			o.check("import_preview")

			o.do(chromedp.Click(chromedp.CSS("#reupload"), poll), waitPage("imports"))
			o.do(chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{fixed}, poll))
			o.submitTo("#upload", "import", "notice=import_uploaded")
			if o.eval(`document.querySelector("#mapping-needed") !== null`) {
				t.Errorf("the second file asks again: %q", o.text("#mapping-needed"))
			}
			if got := o.evalString(`document.querySelector("#column-4").value`); got != "-" {
				t.Errorf("the card column of the second file is %q, want the remembered Ignore", got)
			}
			if o.eval(`document.querySelector("#row-errors") !== null`) {
				t.Errorf("the corrected file still has rows in error: %s", o.text("#row-errors"))
			}
			o.check("import_mapped")
			o.submitTo("#start", "import", "notice=import_started")
			if o.eval(`document.querySelector("#refresh") !== null`) {
				o.check("import_progress")
			}
			// The page follows the import by itself (import.js) and shows
			// its end without a click.
			o.do(chromedp.WaitVisible(chromedp.CSS("#import-finished"), poll))
			if got := o.text("#import-status"); got != "Finished" {
				t.Errorf("the import's page says %q at its end", got)
			}
			if got := o.text("#rows-done"); got != "2" {
				t.Errorf("%s rows imported, want 2", got)
			}
			o.check("import_finished")
			var c loyalty.Customer
			err := s.app.DB.WithTx(context.Background(), func(tx loyalty.Tx) (err error) {
				c, err = tx.CustomerByContact(context.Background(), s.owner.BusinessID, "ann."+who+"@import.example", "")
				return err
			})
			if err != nil || c.Balance.Points != 120 || c.FirstName != "Ann" {
				t.Errorf("ann after the import: %+v, %v", c, err)
			}
		})
	})
}
