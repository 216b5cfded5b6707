package httpapi

import (
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
	"github.com/loyalty/loyalty/internal/ratelimit"
)

// tokenEndpoint serves POST /oauth/token (RFC 6749, form-encoded). It
// answers JSON whatever Accept says: the API's version negotiation is not
// OAuth's, and the reference docs' own examples send
// Accept: application/x-www-form-urlencoded.
func (s *Server) tokenEndpoint() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, ok := s.oauthForm(w, r)
		if !ok {
			return
		}
		req := oauth.TokenRequest{
			GrantType: f.Get("grant_type"), Username: f.Get("username"), Password: f.Get("password"), Scope: f.Get("scope"),
			RefreshToken: f.Get("refresh_token"), AppKeyForm: f.Get("application_key"),
			Code: f.Get("code"), RedirectURI: f.Get("redirect_uri"), CodeVerifier: f.Get("code_verifier"),
		}
		var oe *oauth.Error
		if req.ClientID, req.ClientSecret, oe = clientCredentials(r, f); oe != nil {
			writeOAuthError(w, oe)
			return
		}
		if err := tokenTextError(r, req); err != nil {
			writeOAuthError(w, &oauth.Error{Status: http.StatusBadRequest, Code: "invalid_request", Description: loyalty.ErrorMessage(err)})
			return
		}
		if err := s.tokenTenant(r, &req); err != nil {
			if errors.As(err, &oe) {
				writeOAuthError(w, oe)
			} else {
				s.writeError(w, r, businessAPI, err)
			}
			return
		}
		password := req.GrantType == oauth.GrantPassword
		// A client that sends its secret has a budget of its own: a wrong
		// secret fails before any PIN or password is checked.
		try := ratelimit.Attempt{Addr: s.clientIP(r), Account: req.Username}
		if req.ClientSecret != "" {
			try.Client = req.ClientID
		}
		if password {
			if ok, retry := s.Guesses.Check(r.Context(), try); !ok {
				s.metrics.refused.Inc()
				writeOAuthError(w, &oauth.Error{Status: http.StatusTooManyRequests, Code: "invalid_grant",
					Description: "Too many failed sign-ins from this address; try again later.", RetryAfter: retry})
				return
			}
		}
		resp, err := s.OAuth.Token(r.Context(), req)
		if password && err == nil {
			s.Guesses.Succeeded(r.Context(), try)
		}
		if password && errors.As(err, &oe) && oe.Code == "invalid_grant" && oe.Status != http.StatusTooManyRequests {
			s.Guesses.Failed(r.Context(), try)
			s.metrics.guesses.WithLabelValues(guessLabel(req)).Inc()
		}
		switch {
		case errors.As(err, &oe):
			writeOAuthError(w, oe)
		case err != nil:
			s.writeError(w, r, businessAPI, err)
		default:
			writeJSON(w, http.StatusOK, resp)
		}
	})
}

// oauthForm starts a request to an OAuth endpoint (token, revocation):
// no caching, the per-IP budget, and the form body, read from the body
// only and with no parameter repeated. ok is false when the response is
// already written.
func (s *Server) oauthForm(w http.ResponseWriter, r *http.Request) (url.Values, bool) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	if !s.limit(w, r, businessAPI, "tok:ip:"+s.clientIP(r), s.Limits.Token) {
		return nil, false
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		writeOAuthError(w, &oauth.Error{Status: http.StatusBadRequest, Code: "invalid_request", Description: "The body must be application/x-www-form-urlencoded."})
		return nil, false
	}
	// Only the body counts: query-string values must not reach a grant.
	f := r.PostForm
	if name := repeated(f); name != "" {
		// RFC 6749 section 3.2: a proxy and this server must never
		// read different values of one parameter.
		writeOAuthError(w, &oauth.Error{Status: http.StatusBadRequest, Code: "invalid_request",
			Description: "The " + name + " parameter must not be repeated."})
		return nil, false
	}
	return f, true
}

// clientCredentials returns the client id and secret of a request to an
// OAuth endpoint: HTTP Basic (RFC 6749 section 2.3.1: both parts
// form-encoded before base64, so they are decoded here) or the
// client_id and client_secret form fields, never both methods at once.
func clientCredentials(r *http.Request, f url.Values) (id, secret string, _ *oauth.Error) {
	id, secret = f.Get("client_id"), f.Get("client_secret")
	h := r.Header.Get("Authorization")
	if len(h) < 6 || !strings.EqualFold(h[:6], "basic ") {
		return id, secret, nil
	}
	bad := &oauth.Error{Status: http.StatusUnauthorized, Code: "invalid_client",
		Description: "The HTTP Basic credentials must be base64 of the form-encoded client_id, a colon and the form-encoded client_secret."}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(h[6:]))
	if err != nil {
		return "", "", bad
	}
	rawID, rawSecret, ok := strings.Cut(string(raw), ":")
	if !ok {
		return "", "", bad
	}
	basicID, err1 := url.QueryUnescape(rawID)
	basicSecret, err2 := url.QueryUnescape(rawSecret)
	if err1 != nil || err2 != nil {
		return "", "", bad
	}
	switch {
	case f.Has("client_secret"):
		// RFC 6749 section 2.3: one authentication method per request.
		return "", "", &oauth.Error{Status: http.StatusBadRequest, Code: "invalid_request",
			Description: "The client authenticated twice (HTTP Basic and client_secret); use one method."}
	case id != "" && id != basicID:
		return "", "", &oauth.Error{Status: http.StatusBadRequest, Code: "invalid_request",
			Description: "The client_id parameter is not the client of the HTTP Basic credentials."}
	}
	return basicID, basicSecret, nil
}

// tokenTenant resolves the Application Key of a token request into
// req.Tenant: the X-Application-Key header, or the application_key form
// field the reference docs' examples send instead; when both are sent they
// must agree. Without either, the code and refresh grants take the
// business from the code or the refresh token (req.Tenant stays zero);
// the password grant needs the form field (oauth.Server checks it).
func (s *Server) tokenTenant(r *http.Request, req *oauth.TokenRequest) error {
	key, form := r.Header.Get("X-Application-Key"), req.AppKeyForm
	switch {
	case key != "" && form != "" && key != form:
		return &oauth.Error{Status: http.StatusBadRequest, Code: "invalid_request",
			Description: "The application_key does not match the X-Application-Key header."}
	case key == "":
		key = form
	}
	if key == "" {
		if req.GrantType == oauth.GrantPassword {
			return &oauth.Error{Status: http.StatusBadRequest, Code: "invalid_request",
				Description: "The application_key parameter is required."}
		}
		return nil
	}
	tenant, err := s.Store.Tenant(r.Context(), key)
	if loyalty.ErrorCode(err) == loyalty.EUnauthorized {
		return &oauth.Error{Status: http.StatusUnauthorized, Code: "invalid_client",
			Description: "The Application Key (X-Application-Key or application_key) is not valid."}
	} else if err != nil {
		return err
	}
	req.Tenant = tenant
	if req.BusinessIDs, err = s.Store.BusinessIDs(r.Context(), tenant); err != nil {
		return err
	}
	if len(req.BusinessIDs) > 0 {
		if b, err := s.Store.Business(r.Context(), req.BusinessIDs[0]); err == nil {
			req.Country = b.Country
		}
	}
	return nil
}

// repeated returns the first name (in sorted order) that f holds more than
// once, or "".
func repeated(f url.Values) string {
	var names []string
	for name, vs := range f {
		if len(vs) > 1 {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	if name := slices.Min(names); len(name) <= 64 {
		return name
	}
	return "(long-named)"
}

func writeOAuthError(w http.ResponseWriter, e *oauth.Error) {
	if e.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Basic realm="loyalty"`)
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	writeJSON(w, e.Status, e)
}

// guessLabel names the business a failed check was for, in the alarm
// metric: the business, or the coalition's key when the key names several.
func guessLabel(req oauth.TokenRequest) string {
	if len(req.BusinessIDs) == 1 {
		return req.BusinessIDs[0]
	}
	return "coalition"
}
