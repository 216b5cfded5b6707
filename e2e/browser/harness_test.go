package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/loyalty/loyalty/internal/app"
	"github.com/loyalty/loyalty/internal/cli"
	"github.com/loyalty/loyalty/internal/httpapi"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/testenv"
)

// browserCtx is the one headless Chromium every test opens its own
// isolated browser contexts in (cookies are per host, not per port, so
// tests must not share one).
var browserCtx context.Context

// TestMain starts one Chromium for the package, or skips without one. It
// runs up to two tests per core at once unless -parallel says otherwise:
// a test mostly waits for the browser to load and lay out pages, and at
// go test's default of one per core the package took over seven minutes
// on a busy two-core machine.
func TestMain(m *testing.M) {
	flag.Parse()
	testenv.DefaultParallel(2 * runtime.GOMAXPROCS(0))
	os.Exit(run(m))
}

func run(m *testing.M) int {
	path := chromiumPath()
	if path == "" {
		fmt.Println("e2e/browser: no Chromium (apt-get install chromium, or set LOYALTY_CHROMIUM); skipping the browser tests")
		return 0
	}
	dir, err := os.MkdirTemp("", "loyalty-chromium-")
	if err != nil {
		fmt.Println(err)
		return 1
	}
	defer os.RemoveAll(dir)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // CI runs as root
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-quic", true),
		chromedp.UserDataDir(dir),
		chromedp.WindowSize(1280, 900),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(allocCtx)
	defer cancel()
	// Start the browser now, once, so no test pays for it.
	if err := chromedp.Do(ctx); err != nil {
		fmt.Println("e2e/browser: start Chromium:", err)
		return 1
	}
	browserCtx = ctx
	return m.Run()
}

func chromiumPath() string {
	if p := os.Getenv("LOYALTY_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// roomy limits keep the API's rate limiter out of the way.
var roomy = httpapi.Limits{Business: 100000, User: 100000, Token: 100000, Window: time.Minute}

// site is the running service on a fresh database, with one business.
type site struct {
	engine string
	app    *app.App
	dsn    string
	dir    string // the data directory: the file outbox writes under it
	url    string
	owner  owner
	n      atomic.Int64
	read   sync.Map // the outbox's files mail has returned: each message is read once
}

// owner is a business and its owner's credentials.
type owner struct {
	BusinessID, Key, Email, Password string
}

// engines runs fn once per database engine, in parallel.
func engines(t *testing.T, fn func(t *testing.T, s *site)) {
	t.Helper()
	t.Parallel()
	for _, engine := range testenv.Engines() {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			fn(t, newSite(t, engine))
		})
	}
}

func newSite(t *testing.T, engine string) *site {
	t.Helper()
	s := &site{engine: engine, dsn: testenv.MigratedDSN(t, engine), dir: t.TempDir()}
	a, err := app.Open(context.Background(), app.Config{DB: s.dsn, DataDir: s.dir, Limits: roomy, PasswordCost: testenv.PasswordCost,
		Logger: slog.New(slog.NewJSONHandler(&testLog{t: t}, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		t.Fatalf("app.Open: %v", err)
	}
	t.Cleanup(func() { a.Close() })
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(srv.Close)
	s.app, s.url = a, srv.URL
	s.owner = owner{Email: "owner-" + s.unique() + "@cafe.example", Password: "owner-pass-" + s.unique()}
	b, err := a.Admin.CreateBusiness(context.Background(), loyalty.NewBusiness{Name: "Corner Cafe", LoyaltyType: loyalty.PerSpend,
		OwnerEmail: s.owner.Email, OwnerPassword: s.owner.Password})
	if err != nil {
		t.Fatalf("CreateBusiness: %v", err)
	}
	s.owner.BusinessID, s.owner.Key = b.BusinessID, b.ApplicationKey
	return s
}

func (s *site) unique() string { return fmt.Sprint(s.n.Add(1)) }

// testLog sends the server's warnings and errors to the test log.
type testLog struct{ t *testing.T }

// Write implements io.Writer.
func (l *testLog) Write(p []byte) (int, error) {
	l.t.Log("server: " + strings.TrimSpace(string(p)))
	return len(p), nil
}

// admin runs the loyalty command line on the site's database.
func (s *site) admin(t *testing.T, args ...string) map[string]any {
	t.Helper()
	var out, errb bytes.Buffer
	all := append(append([]string{"loyalty", "--db", s.dsn, "--data-dir", t.TempDir()}, args...), "--json")
	if err := cli.Run(context.Background(), all, &out, &errb); err != nil {
		t.Fatalf("loyalty %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	var m map[string]any
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		t.Fatalf("loyalty %s: output %q: %v", strings.Join(args, " "), out.String(), err)
	}
	return m
}

// tab is one person's browser: an isolated browser context (its own
// cookies) with a tab in it.
type tab struct {
	t     *testing.T
	ctx   context.Context
	name  string
	width int64 // the emulated screen's width; 0 for the default window
}

// newTab opens a browser for who. When the test fails, the page the tab
// shows is saved as a screenshot under the test's temporary directory;
// with LOYALTY_SCREENSHOTS=dir, every key page is saved there too.
func newTab(t *testing.T, who string) *tab {
	t.Helper()
	id := takeBrowserContext(t)
	ctx, cancel := chromedp.NewContext(browserCtx, chromedp.WithExistingBrowserContext(id))
	dir := t.TempDir()
	b := &tab{t: t, ctx: ctx, name: who}
	t.Cleanup(func() {
		if t.Failed() {
			b.save(filepath.Join(dir, who+"-failure.png"))
		}
		cancel() // closes the tab
		giveBackBrowserContext(id)
	})
	// The first run creates the tab, which lives as long as the context it
	// ran with: the tab's own, not a step's.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("open a browser tab: %v", err)
	}
	return b
}

// idleContexts are the browser contexts (each with cookies of its own:
// one person's browser) that no tab uses, their cookies cleared. A new
// context costs this machine some 2 CPU-seconds, a tab in an existing one
// a third of that, and the pages keep no state but cookies (they run no
// script), so finished tests give theirs back for the next.
var idleContexts struct {
	sync.Mutex
	ids []cdp.BrowserContextID
}

// takeBrowserContext returns an idle browser context, or a new one.
func takeBrowserContext(t *testing.T) cdp.BrowserContextID {
	t.Helper()
	idleContexts.Lock()
	if n := len(idleContexts.ids); n > 0 {
		id := idleContexts.ids[n-1]
		idleContexts.ids = idleContexts.ids[:n-1]
		idleContexts.Unlock()
		// A person's browser starts with no cookie of another's.
		ctx, cancel := context.WithTimeout(browserCtx, stepTimeout)
		defer cancel()
		jar, err := cdp.Call(ctx, chromedp.FromContext(browserCtx).Browser, storage.GetCookies, storage.GetCookiesParams{BrowserContextID: id})
		if err != nil {
			t.Fatalf("read the cookies of an idle browser context: %v", err)
		}
		if len(jar.Cookies) > 0 {
			t.Fatalf("an idle browser context kept %d cookies (%s, ...)", len(jar.Cookies), jar.Cookies[0].Name)
		}
		return id
	}
	idleContexts.Unlock()
	ctx, cancel := context.WithTimeout(browserCtx, stepTimeout)
	defer cancel()
	res, err := cdp.Call(ctx, chromedp.FromContext(browserCtx).Browser, target.CreateBrowserContext, target.CreateBrowserContextParams{})
	if err != nil {
		t.Fatalf("create a browser context: %v", err)
	}
	return res.BrowserContextID
}

// giveBackBrowserContext clears the cookies of id, whose tabs are closed,
// and makes it idle; a context whose cookies cannot be cleared is
// disposed of instead.
func giveBackBrowserContext(id cdp.BrowserContextID) {
	ctx, cancel := context.WithTimeout(browserCtx, stepTimeout)
	defer cancel()
	browser := chromedp.FromContext(browserCtx).Browser
	if _, err := cdp.Call(ctx, browser, storage.ClearCookies, storage.ClearCookiesParams{BrowserContextID: id}); err != nil {
		cdp.Call(ctx, browser, target.DisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: id})
		return
	}
	idleContexts.Lock()
	idleContexts.ids = append(idleContexts.ids, id)
	idleContexts.Unlock()
}

// save writes a screenshot of the whole page to path.
func (b *tab) save(path string) {
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Logf("screenshot of %s's page: %v", b.name, err)
		return
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Logf("screenshot: %v", err)
		return
	}
	b.t.Logf("screenshot of %s's page: %s", b.name, path)
}

var shotMu sync.Mutex

// keyPage saves a screenshot of a key page when LOYALTY_SCREENSHOTS names
// a directory.
func (b *tab) keyPage(name string) {
	dir := os.Getenv("LOYALTY_SCREENSHOTS")
	if dir == "" {
		return
	}
	shotMu.Lock()
	defer shotMu.Unlock()
	// A page scrolled (to a field with autofocus) comes out of a full-page
	// screenshot with the part below the first screen blank: it is taken
	// from the top, and scrolled back after.
	y := b.evalString(`String(window.scrollY)`)
	b.eval(`window.scrollTo(0, 0), true`)
	b.save(filepath.Join(dir, strings.ReplaceAll(b.t.Name(), "/", "_")+"-"+name+".png"))
	b.eval(`window.scrollTo(0, ` + y + `), true`)
}

// stepTimeout bounds each step: waiting for an element never hangs a test.
const stepTimeout = 15 * time.Second

// run calls f with the tab's context bounded by stepTimeout.
func (b *tab) run(f func(context.Context, ...chromedp.Action[chromedp.Void]) error, steps ...chromedp.Action[chromedp.Void]) error {
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	return f(ctx, steps...)
}

// do runs steps and fails the test at the first error.
func (b *tab) do(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := b.run(chromedp.Do, steps...); err != nil {
		loc, _ := b.location()
		b.t.Fatalf("%s's browser at %s: %v", b.name, loc, err)
	}
}

// location is the URL the tab shows.
func (b *tab) location() (string, error) {
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Location())
}

// open navigates to url and waits for the page named page.
func (b *tab) open(url, page string) {
	b.t.Helper()
	b.do(chromedp.Navigate(url), waitPage(page))
}

// submit clicks a button and waits for the page named page.
func (b *tab) submit(button, page string) {
	b.t.Helper()
	b.do(chromedp.Click(chromedp.CSS(button), poll), waitPage(page))
}

// submitTo clicks a button and waits until the tab shows an address
// containing part and the page named page (for a form leading to another
// address of the same page, where waiting for the page alone would find
// the old one).
func (b *tab) submitTo(button, page, part string) {
	b.t.Helper()
	// The page before is marked, so that a form posted to its own address
	// is not taken for the answer while that comes (a page loaded has no
	// mark; while one loads, asking fails).
	b.eval(`(window.__beforeSubmit = true, true)`)
	loaded := func() bool {
		ctx, cancel := context.WithTimeout(b.ctx, time.Second)
		defer cancel()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.__beforeSubmit !== true`))
		return err == nil && v
	}
	b.do(chromedp.Click(chromedp.CSS(button), poll))
	deadline := time.Now().Add(stepTimeout)
	for {
		if loc, err := b.location(); err == nil && strings.Contains(loc, part) && loaded() {
			break
		}
		if time.Now().After(deadline) {
			loc, _ := b.location()
			b.t.Fatalf("%s's browser at %s, not at an address with %q", b.name, loc, part)
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.do(waitPage(page))
}

// fill sets the values of the inputs named by CSS selectors (typing key
// by key is kept for the one test of keyboard use, see toConsent).
func (b *tab) fill(fields ...string) {
	b.t.Helper()
	for i := 0; i+1 < len(fields); i += 2 {
		b.do(chromedp.SetValue(chromedp.CSS(fields[i]), fields[i+1], poll))
	}
}

// text returns the visible text of the first element matching sel.
func (b *tab) text(sel string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel), poll))
	if err != nil {
		b.t.Fatalf("%s's browser: text of %s: %v", b.name, sel, err)
	}
	return strings.TrimSpace(s)
}

// poll makes a query look for its element every 50 ms, not chromedp's
// 5 ms: while a loaded machine lays out a page, a query every 5 ms takes
// the CPU the page needs, and the slower the page the more it takes (run
// beside e2e, the package used a third more CPU than alone).
var poll = chromedp.RetryInterval(50 * time.Millisecond)

// waitPage waits until the page rendered from template name is shown.
func waitPage(name string) chromedp.Action[chromedp.Void] {
	return chromedp.WaitVisible(chromedp.CSS(`main[data-page="`+name+`"]`), poll)
}

// eval evaluates a JavaScript boolean expression in the page.
func (b *tab) eval(js string) bool {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js))
	if err != nil {
		b.t.Fatalf("%s's browser: evaluate %s: %v", b.name, js, err)
	}
	return v
}

// business reads the site owner's business.
func (s *site) business(t *testing.T) loyalty.Business {
	t.Helper()
	b, err := s.app.DB.Business(context.Background(), s.owner.BusinessID)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// pointPerUnit sets b's rules to one point per unit of currency spent.
func (s *site) pointPerUnit(t *testing.T, b loyalty.Business) {
	t.Helper()
	var rules loyalty.RulesInput
	decodeInput(t, `{"reward_ratio": 1, "reward_milestone_amount": 1}`, &rules)
	if _, err := s.app.Services.Transactions.UpdateRules(context.Background(), b, rules); err != nil {
		t.Fatal(err)
	}
}
