// Package web serves Loyalty's server-rendered pages: the developer portal,
// support's app review, the business portal and the consent pages of the
// authorization-code flow. Templates and styles are embedded in the binary.
package web

import (
	"bytes"
	"context"
	"crypto/cipher"
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/loyalty/loyalty/internal/console"
	"github.com/loyalty/loyalty/internal/format"
	"github.com/loyalty/loyalty/internal/httpapi"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
	"github.com/loyalty/loyalty/internal/ratelimit"
	"github.com/loyalty/loyalty/internal/wallet"
)

//go:embed templates/*.html static
var assets embed.FS

// Store is what the pages read directly.
type Store interface {
	Business(ctx context.Context, id string) (loyalty.Business, error)
}

// Config is what the pages are built from.
type Config struct {
	OAuth     *oauth.Server
	Admin     *loyalty.AdminService // the business portal's Application Key
	Store     Store
	Customers *loyalty.CustomerService // joins through the referral page, the counter's look-up
	// Consents and UnsubscribeKey serve the unsubscribe links of campaign
	// messages; nil: no unsubscribe page.
	Consents       *loyalty.ConsentService
	UnsubscribeKey []byte
	Console        *console.Services      // the merchant console's staff, access and audit log
	Desk           *console.CustomerDesk  // the console's customers and counter
	Program        *console.ProgramDesk   // the console's program setup
	Marketing      *console.MarketingDesk // the console's campaigns and automations
	Wallet         *wallet.Desk           // the members' wallet pages; nil: none
	Images         ImageStore             // the business's uploaded logo and cover; nil: addresses only
	// PublicURL is the service's address as people reach it
	// (https://loyalty.example.com), for links in e-mails. Without it an
	// invitation links to the host the owner's browser used, and a
	// password-reset e-mail (asked for by someone not signed in, whose Host
	// header proves nothing) names the page instead of linking to it.
	PublicURL string
	Limiter   ratelimit.Limiter // budgets sign-in and sign-up per client IP; nil: none
	// Guesses is the budget of failed credential checks per client IP,
	// shared with the token endpoint's password grant; nil: none.
	Guesses   *ratelimit.Guesses
	Transport Transport
	Logger    *slog.Logger
}

// SignInLimit is how many sign-in and sign-up posts one IP may make per
// minute, on top of each account's lockout.
const SignInLimit = 30

// Server renders the pages.
type Server struct {
	Config
	pages     map[string]*template.Template
	flashOnce sync.Once
	flashAEAD cipher.AEAD
}

// New returns the pages' server.
func New(cfg Config) (*Server, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	return &Server{Config: cfg, pages: pages}, nil
}

// parsePages parses the embedded templates, once per process: they are the
// same for every server and safe to execute concurrently, and parsing
// them was about half the CPU of opening a service, which the tests and
// their admin commands do hundreds of times per process.
var parsePages = sync.OnceValues(func() (map[string]*template.Template, error) {
	pages := map[string]*template.Template{}
	names, err := fs.Glob(assets, "templates/*.html")
	if err != nil {
		return nil, err
	}
	funcs := template.FuncMap{
		"date":   func(t time.Time) string { return t.UTC().Format("Jan 2, 2006") },
		"grant":  func(g string) string { return labels[g] },
		"api":    func(a string) string { return labels["api:"+a] },
		"status": func(st string) string { return labels[st] },
		"add":    func(a, b int) int { return a + b },
		"sub":    func(a, b int64) int64 { return a - b },
		// count writes a count with thousands separators.
		"count": thousands,
		// money writes an amount in the business's currency, by its locale.
		"money": func(b loyalty.Business, m loyalty.Money) string { return format.Money(m, b) },
		// currency is the business's currency code, for a field's label.
		"currency": func(b loyalty.Business) string { return b.CurrencyCode() },
		// sample is an amount as a field takes it, with the currency's
		// decimals: "12.50", or "1250" in yen.
		"sample": format.Sample,
		// initial is the first letter of a name, for a mark in its place.
		"initial": func(s string) string {
			for _, r := range strings.TrimSpace(s) {
				return strings.ToUpper(string(r))
			}
			return ""
		},
		"dict": func(kv ...any) map[string]any {
			m := map[string]any{}
			for i := 0; i+1 < len(kv); i += 2 {
				m[kv[i].(string)] = kv[i+1]
			}
			return m
		},
	}
	for _, name := range names {
		if name == "templates/layout.html" || name == "templates/partials.html" {
			continue
		}
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(assets, "templates/layout.html", "templates/partials.html", name)
		if err != nil {
			return nil, err
		}
		pages[strings.TrimSuffix(strings.TrimPrefix(name, "templates/"), ".html")] = t
	}
	return pages, nil
})

// Register adds the pages' routes to mux.
func (s *Server) Register(mux *http.ServeMux) {
	static, _ := fs.Sub(assets, "static")
	files := http.StripPrefix("/static/", http.FileServerFS(static))
	mux.Handle("GET /static/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		files.ServeHTTP(w, r)
	}))
	mux.Handle("GET /{$}", s.page(s.home))
	s.developerRoutes(mux)
	s.supportRoutes(mux)
	s.businessRoutes(mux)
	s.referralRoutes(mux)
	s.passwordRoutes(mux)
	s.walletRoutes(mux)
	s.unsubscribeRoutes(mux)
	mux.Handle("GET /oauth/authorize", s.page(s.authorize))
	mux.Handle("POST /oauth/authorize", s.page(s.authorizePost))
}

// labels are the words the pages use for codes.
var labels = map[string]string{
	oauth.GrantCode: "Authorization Code", oauth.GrantPassword: "Password Grant",
	"api:" + oauth.APIBusiness: "Business API", "api:" + oauth.APIUser: "User API",
	oauth.AppPending: "Pending approval", oauth.AppApproved: "Approved", oauth.AppSuspended: "Suspended",
}

// portal is one of the signed-in areas.
type portal struct {
	Name    string // shown beside the brand
	Home    string
	Kind    string // oauth.Kind*: whose session opens it
	Cookie  string
	SignOut string
	// Accounts are the portal's accounts as password resets see them.
	Accounts console.Portal
}

var (
	developers = portal{Name: "Developers", Home: "/developers", Kind: oauth.KindDeveloper, Cookie: "loyalty_developer",
		SignOut: "/developers/signout", Accounts: console.DeveloperPortal}
	support = portal{Name: "Support", Home: "/support", Kind: oauth.KindSupport, Cookie: "loyalty_support",
		SignOut: "/support/signout", Accounts: console.SupportPortal}
	business = portal{Name: "Business", Home: "/business", Kind: oauth.KindOwner, Cookie: "loyalty_owner",
		SignOut: "/business/signout", Accounts: console.BusinessPortal}
)

// view is what every template gets.
type view struct {
	Page   string // the template's name, on <main data-page>
	Title  string
	Portal portal
	Narrow bool   // a single narrow card (sign-in, consent)
	Public bool   // a page for a business's customers: no portal links
	User   string // the signed-in e-mail, for the header
	CSRF   string
	Notice string
	Error  string
	Fields map[string][]string // messages per form field
	Form   map[string]string   // values to show again
	// Console is the merchant console's bar: the business, the role and
	// the sections the role may open; nil outside the console.
	Console *consoleBar
	// Wallet is a member wallet's bar: the business, and the member's
	// sections once signed in; nil outside the wallet.
	Wallet *walletBar
	// Brand is a business's colours, on the pages that wear them; Images
	// the origins of the business's logo and cover.
	Brand  *brandStyle
	Images []string
	// Script is a script of /static/ the page runs, "" for none: a page
	// works without it, and is quicker with it.
	Script string
	Data   any
}

// handler is a page handler; an error it returns becomes an error page.
type handler func(w http.ResponseWriter, r *http.Request) error

// pageOption changes what page checks.
type pageOption int

// pageNoCSRF: a post whose signed address is its authority, which a mail
// program sends without the page (unsubscribeRoutes).
const pageNoCSRF pageOption = 1

// page wraps a handler with the pages' security: headers on every answer,
// a CSRF check and a size limit on every post, and text checks on every
// form field and query parameter.
func (s *Server) page(h handler, opts ...pageOption) http.Handler {
	noCSRF := slices.Contains(opts, pageNoCSRF)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", csp(""))
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("Cache-Control", "no-store")
		if s.Transport.IsHTTPS(r) {
			hd.Set("Strict-Transport-Security", "max-age=31536000")
		}
		var err error
		if r.Method == http.MethodPost && isUpload(r) {
			// A file upload: the CSRF token is its first part (upload.go).
			r, err = s.openUpload(w, r)
		} else if r.Method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
			if perr := r.ParseForm(); perr != nil {
				err = loyalty.Errorf(loyalty.EBadRequest, "The form could not be read.")
			} else if !noCSRF && !s.validCSRF(r) {
				err = errCSRF
			} else {
				err = loyalty.CheckValues("form field", r.PostForm)
			}
		}
		if err == nil {
			// Text PostgreSQL would refuse, or a store would keep altered.
			err = loyalty.CheckValues("query parameter", r.URL.Query())
		}
		if err == nil {
			err = h(w, r)
		}
		if err != nil {
			s.fail(w, r, err)
		}
	})
}

// csp is the Content-Security-Policy of a page; formTarget is an extra
// origin forms may post or redirect to (the consent page's callback).
func csp(formTarget string) string { return policy{formTarget: formTarget}.String() }

// policy is a page's Content-Security-Policy: what it adds to the pages'
// strict default.
type policy struct {
	formTarget string   // an origin forms may post or redirect to
	styleNonce string   // the nonce of the page's own <style> (a brand's colours)
	images     []string // origins images may come from (a business's logo)
	scripts    bool     // the page runs a script of this site, which may post to it
	manifest   bool     // the page links a web app manifest of this site
}

// String writes the policy as the header's value.
func (p policy) String() string {
	forms := "'self'"
	if p.formTarget != "" {
		forms += " " + p.formTarget
	}
	styles := "'self'"
	if p.styleNonce != "" {
		styles += " 'nonce-" + p.styleNonce + "'"
	}
	images := "'self' data:"
	for _, o := range p.images {
		images += " " + o
	}
	scripts := ""
	if p.scripts {
		scripts = "; script-src 'self'; connect-src 'self'"
	}
	if p.manifest {
		scripts += "; manifest-src 'self'"
	}
	return "default-src 'none'; style-src " + styles + "; img-src " + images + scripts + "; form-action " + forms +
		"; frame-ancestors 'none'; base-uri 'none'"
}

var errCSRF = loyalty.Errorf(loyalty.EForbidden, "This form has expired or did not come from this site. Go back, reload the page and try again.")

// fail answers with an error page for err.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var de *loyalty.Error
	msg := "Something went wrong on our side. Please try again in a moment."
	if errors.As(err, &de) {
		msg = de.Message
		if de.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(de.RetryAfter))
		}
	} else if r.Context().Err() != nil {
		return
	} else {
		s.Logger.ErrorContext(r.Context(), "page failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	// The status is the API's for the same code; only the page's words differ.
	status := httpapi.StatusOf(loyalty.ErrorCode(err))
	title := http.StatusText(status)
	switch status {
	case http.StatusNotFound:
		title, msg = "Page not found", "The page you asked for does not exist, or is not yours to see."
	case http.StatusAccepted:
		// ENotMet: a valid request whose condition is not met, so nothing
		// was done; "Accepted" would read as if it had been.
		title = "Not done"
	}
	s.render(w, r, status, "error", view{Title: title, Narrow: true, Data: errorPage{Heading: title, Message: msg}})
}

// errorPage is the body of the error template.
type errorPage struct {
	Heading, Message, Code string
}

// render writes a page. The CSRF cookie is set here when the browser has
// none, so every rendered form carries a matching token.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, name string, v view) {
	t, ok := s.pages[name]
	if !ok {
		panic("web: no template " + name)
	}
	v.Page, v.CSRF = name, s.csrfToken(w, r)
	if v.Brand != nil || len(v.Images) > 0 || v.Script != "" || v.Wallet != nil {
		p := policy{images: v.Images, scripts: v.Script != "", manifest: v.Wallet != nil}
		if v.Brand != nil {
			p.styleNonce = v.Brand.Nonce
		}
		w.Header().Set("Content-Security-Policy", p.String())
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", v); err != nil {
		s.Logger.ErrorContext(r.Context(), "template failed", "page", name, "err", err)
		http.Error(w, "Internal error.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// redirect sends the browser to a page of this site after a post.
func redirect(w http.ResponseWriter, path string) { redirectTo(w, path, http.StatusSeeOther) }

// redirectTo answers with status and Location to, and no body (unlike
// http.Redirect, which adds a link page to GET answers).
func redirectTo(w http.ResponseWriter, to string, status int) {
	w.Header().Set("Location", to)
	w.WriteHeader(status)
}

// allowPost spends one of the client IP's sign-in posts; it reports false
// when the budget is spent.
func (s *Server) allowPost(r *http.Request) (bool, int) {
	if s.Limiter == nil {
		return true, 0
	}
	res, err := s.Limiter.Allow(r.Context(), "web:ip:"+s.Transport.ClientIP(r), SignInLimit, time.Minute)
	if err != nil {
		s.Logger.ErrorContext(r.Context(), "rate limiter failed", "err", err)
		return true, 0
	}
	return res.Allowed, int(time.Until(res.Reset).Seconds()) + 1
}
