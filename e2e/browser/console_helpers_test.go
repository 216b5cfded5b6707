package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"net/mail"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/loyalty/loyalty/internal/testenv"
)

// screen is a screen the console's flows run on.
type screen struct {
	name          string
	width, height int64
	mobile        bool
}

// screens are a desktop and a phone: every console flow runs on both.
var screens = []screen{{"desktop", 1280, 900, false}, {"phone", 390, 844, true}}

// onScreens runs fn for the screens of all that s's engine takes, one
// after the other. The screens are dealt out over the engines in turn
// (the desktop on SQLite, the phone on PostgreSQL): every flow runs on
// every screen and on every engine, without the cross product. What a
// page looks like does not depend on the engine, and what the engine
// stores does not depend on the screen; a browser flow costs this
// machine a few CPU-seconds a page, and all four took e2e/browser past
// five minutes. With one engine (LOYALTY_TEST_POSTGRES=off) it takes
// every screen.
func onScreens(t *testing.T, s *site, all []screen, fn func(t *testing.T, sc screen)) {
	t.Helper()
	engines := testenv.Engines()
	for i, sc := range all {
		if engines[i%len(engines)] != s.engine {
			continue
		}
		t.Run(sc.name, func(t *testing.T) { fn(t, sc) })
	}
}

// newTabOn opens a browser for who on the screen sc.
func newTabOn(t *testing.T, who string, sc screen) *tab {
	t.Helper()
	b := newTab(t, who)
	opts := []chromedp.EmulateViewportOption{}
	if sc.mobile {
		opts = append(opts, chromedp.EmulateMobile)
	}
	b.do(chromedp.EmulateViewport(sc.width, sc.height, opts...))
	b.width = sc.width
	return b
}

// fits fails the test when the page scrolls sideways: nothing may be
// wider than the screen.
func (b *tab) fits(page string) {
	b.t.Helper()
	if b.eval(`document.documentElement.scrollWidth > document.documentElement.clientWidth`) {
		wide := b.evalString(`Array.from(document.querySelectorAll("body *")).filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1).slice(0, 5).map(e => e.tagName + "." + e.className).join(", ")`)
		b.t.Errorf("the %s page scrolls sideways on a %dpx-wide screen (too wide: %s)", page, b.width, wide)
	}
}

// evalString evaluates a JavaScript string expression in the page.
func (b *tab) evalString(js string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
	if err != nil {
		b.t.Fatalf("%s's browser: evaluate %s: %v", b.name, js, err)
	}
	return v
}

var (
	axeOnce   sync.Once
	axeSource string
)

// axe returns axe-core's script from the repository's node_modules
// (npm ci), or "" when it is missing.
func axe() string {
	axeOnce.Do(func() {
		b, err := os.ReadFile(filepath.Join("..", "..", "node_modules", "axe-core", "axe.min.js"))
		if err == nil {
			axeSource = string(b)
		}
	})
	return axeSource
}

// axeViolation is one rule a page breaks, as axe-core reports it.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []any  `json:"target"`
		HTML   string `json:"html"`
	} `json:"nodes"`
}

// accessible runs axe-core in the page and fails the test on any
// violation of impact serious or critical. Without node_modules it skips
// the check, unless CI is set: there it fails.
func (b *tab) accessible(page string) {
	b.t.Helper()
	src := axe()
	if src == "" {
		if os.Getenv("CI") != "" {
			b.t.Fatal("node_modules/axe-core is missing: run npm ci")
		}
		b.t.Logf("node_modules/axe-core is missing (npm ci): the %s page's accessibility is not checked", page)
		return
	}
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](src+";undefined")); err != nil {
		b.t.Fatalf("load axe-core in the %s page: %v", page, err)
	}
	out, err := chromedp.Run(ctx, chromedp.Evaluate[string](
		`axe.run(document, {resultTypes: ["violations"]}).then(r => JSON.stringify(r.violations))`, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("axe-core on the %s page: %v", page, err)
	}
	var found []axeViolation
	if err := json.Unmarshal([]byte(out), &found); err != nil {
		b.t.Fatalf("axe-core's answer on the %s page: %v", page, err)
	}
	for _, v := range found {
		if v.Impact != "serious" && v.Impact != "critical" {
			continue
		}
		var where []string
		for _, n := range v.Nodes {
			where = append(where, n.HTML)
		}
		b.t.Errorf("the %s page breaks the accessibility rule %s (%s, %s) at:\n  %s", page, v.ID, v.Impact, v.Help, strings.Join(where, "\n  "))
	}
}

// check runs the checks every console page passes: nothing wider than the
// screen, and no serious accessibility violation.
func (b *tab) check(page string) {
	b.t.Helper()
	b.keyPage(page)
	b.fits(page)
	b.selectsFit(page)
	b.accessible(page)
}

// selectArrow is the room a closed select's arrow takes beside its text.
const selectArrow = 24

// selectsFit fails the test when an option of a select on the page would
// be cut off once chosen: its text, measured in the select's font, wider
// than the select's room for text (its width less its padding and arrow).
func (b *tab) selectsFit(page string) {
	b.t.Helper()
	cut := b.evalString(`(() => {
		const ctx = document.createElement("canvas").getContext("2d");
		const out = [];
		for (const s of document.querySelectorAll("select:not([multiple])")) {
			if (!s.getClientRects().length) continue;
			const st = getComputedStyle(s);
			ctx.font = st.fontStyle + " " + st.fontWeight + " " + st.fontSize + " " + st.fontFamily;
			const room = s.clientWidth - parseFloat(st.paddingLeft) - parseFloat(st.paddingRight) - ` + fmt.Sprint(selectArrow) + `;
			for (const o of s.options) {
				const text = o.text.trim(), w = ctx.measureText(text).width;
				if (w > room) out.push("#" + (s.id || s.name) + ": “" + text + "” needs " + Math.ceil(w) + " px, has " + Math.floor(room));
			}
		}
		return out.join("\n  ");
	})()`)
	if cut != "" {
		b.t.Errorf("the %s page cuts off options of its selects on a %dpx-wide screen:\n  %s", page, b.width, cut)
	}
}

var tokenLine = regexp.MustCompile(`(?m)^Token: (\S+)\r?$`)

// mail waits for the file outbox's newest e-mail to address whose subject
// contains subject and that no earlier call returned, and returns its body
// and the token on its Token: line.
func (s *site) mail(t *testing.T, address, subject string) (body, token string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		files, _ := filepath.Glob(filepath.Join(s.dir, "outbox", "*.eml"))
		for i := len(files) - 1; i >= 0; i-- {
			if _, done := s.read.Load(files[i]); done {
				// Already read: a second reset asked for while its
				// e-mail is still on the way must not get the first's
				// spent token.
				continue
			}
			f, err := os.Open(files[i])
			if err != nil {
				continue
			}
			m, err := mail.ReadMessage(f)
			if err == nil && strings.EqualFold(m.Header.Get("To"), address) && strings.Contains(m.Header.Get("Subject"), subject) {
				var sb strings.Builder
				buf := make([]byte, 4096)
				for {
					n, err := m.Body.Read(buf)
					sb.Write(buf[:n])
					if err != nil {
						break
					}
				}
				f.Close()
				if tm := tokenLine.FindStringSubmatch(sb.String()); tm != nil {
					s.read.Store(files[i], true)
					return sb.String(), tm[1]
				}
				t.Fatalf("the e-mail to %s has no Token: line:\n%s", address, sb.String())
			}
			f.Close()
		}
		if time.Now().After(deadline) {
			t.Fatalf("no e-mail to %s about %q in the outbox after 15 s", address, subject)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// follow opens the console's link to href as a person does, and waits for
// the page named page: on a phone it opens the Menu first, and a link
// folded into a menu (Program, Data, Settings) is reached by opening that
// menu. Opening a menu loads no page.
func (b *tab) follow(href, page string) {
	b.t.Helper()
	link := `nav.console-nav a[href="` + href + `"]`
	if b.eval(`getComputedStyle(document.querySelector("nav.console-nav .menu-toggle")).display !== "none" && !document.querySelector("nav.console-nav .menu-toggle").open`) {
		b.do(chromedp.Click(chromedp.CSS(`nav.console-nav .menu-toggle summary`), poll))
	}
	group := b.evalString(`(() => { const a = document.querySelector('` + link + `'); const g = a && a.closest(".menu-group");
		return g && !g.querySelector("details").open ? String(Array.from(g.parentElement.children).indexOf(g) + 1) : "" })()`)
	if group != "" {
		b.do(chromedp.Click(chromedp.CSS(`nav.console-nav .menu > li:nth-child(`+group+`) > details > summary`), poll))
	}
	b.do(chromedp.Click(chromedp.CSS(link), poll), waitPage(page))
}
