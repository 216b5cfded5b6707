package browser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestImportCustomers: the owner uploads a customers file with a row in
// error and sees it in the preview, beside the first rows; a file with a
// column the import does not read is refused with the reason beside the
// file field; the corrected file previews clean, is started, and its
// page follows it to its end by itself. On a desktop and on a
// phone, every page checked for sideways scrolling and accessibility.
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
			broken := file("broken.csv", "email,first_name,last_name,balance.points\n"+
				"ann."+who+"@import.example,Ann,With-a-rather-long-family-name-that-must-wrap,120\n"+
				"bob."+who+"-at-import.example,Bob,Smith,15\n")
			fixed := file("fixed.csv", "email,first_name,last_name,balance.points\n"+
				"ann."+who+"@import.example,Ann,With-a-rather-long-family-name-that-must-wrap,120\n"+
				"bob."+who+"@import.example,Bob,Smith,15\n")
			unknown := file("unknown.csv", "email,loyalty_card\nzed@import.example,123\n")

			o := newTabOn(t, "owner", sc)
			s.signInOwner(o)
			o.follow("/business/imports", "imports")
			o.check("imports")

			o.do(chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{unknown}, poll))
			o.submit("#upload", "imports")
			if got := o.text("#file-error"); !strings.Contains(got, `"loyalty_card"`) {
				t.Errorf("an unknown column: %q beside the file", got)
			}
			o.check("imports_refused")

			o.do(chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{broken}, poll))
			o.submitTo("#upload", "import", "notice=import_uploaded")
			if got := o.text("#row-errors"); !strings.Contains(got, "The email must be a valid email address.") || !strings.Contains(got, "3") {
				t.Errorf("the preview's rows in error:\n%s", got)
			}
			if got := o.text("#first-rows"); !strings.Contains(got, "ann."+who+"@import.example") {
				t.Errorf("the preview's first rows:\n%s", got)
			}
			o.check("import_preview")

			o.do(chromedp.Click(chromedp.CSS("#reupload"), poll), waitPage("imports"))
			o.do(chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{fixed}, poll))
			o.submitTo("#upload", "import", "notice=import_uploaded")
			if o.eval(`document.querySelector("#row-errors") !== null`) {
				t.Errorf("the corrected file still has rows in error: %s", o.text("#row-errors"))
			}
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
		})
	})
}
