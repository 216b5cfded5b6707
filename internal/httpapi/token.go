package httpapi

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
)

// tokenEndpoint serves POST /oauth/token (RFC 6749, form-encoded).
func (s *Server) tokenEndpoint() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Pragma", "no-cache")
		if !s.limit(w, r, businessAPI, "tok:ip:"+s.clientIP(r), s.Limits.Token) {
			return
		}
		if !acceptable(r.Header.Get("Accept")) {
			writeStatus(w, businessAPI, http.StatusNotAcceptable, "Only version 1 of the API is available.")
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
		if err := r.ParseForm(); err != nil {
			writeOAuthError(w, &oauth.Error{Status: http.StatusBadRequest, Code: "invalid_request", Description: "The body must be application/x-www-form-urlencoded."})
			return
		}
		// Only the body counts: query-string values must not reach a grant.
		f := r.PostForm
		if name := repeated(f); name != "" {
			// RFC 6749 section 3.2: a proxy and this server must never
			// read different values of one parameter.
			writeOAuthError(w, &oauth.Error{Status: http.StatusBadRequest, Code: "invalid_request",
				Description: "The " + name + " parameter must not be repeated."})
			return
		}
		req := oauth.TokenRequest{
			GrantType: f.Get("grant_type"), ClientID: f.Get("client_id"), ClientSecret: f.Get("client_secret"),
			Username: f.Get("username"), Password: f.Get("password"), Scope: f.Get("scope"),
			RefreshToken: f.Get("refresh_token"), AppKeyForm: f.Get("application_key"),
			Code: f.Get("code"), RedirectURI: f.Get("redirect_uri"), CodeVerifier: f.Get("code_verifier"),
		}
		if id, secret, ok := r.BasicAuth(); ok && req.ClientID == "" {
			req.ClientID, req.ClientSecret = id, secret
		}
		if err := tokenTextError(r, req); err != nil {
			writeOAuthError(w, &oauth.Error{Status: http.StatusBadRequest, Code: "invalid_request", Description: loyalty.ErrorMessage(err)})
			return
		}
		key := r.Header.Get("X-Application-Key")
		tenant, err := s.Store.Tenant(r.Context(), key)
		if loyalty.ErrorCode(err) == loyalty.EUnauthorized || key == "" {
			writeOAuthError(w, &oauth.Error{Status: http.StatusUnauthorized, Code: "invalid_client",
				Description: "A valid X-Application-Key header is required."})
			return
		} else if err != nil {
			s.writeError(w, r, businessAPI, err)
			return
		}
		req.Tenant = tenant
		if req.BusinessIDs, err = s.Store.BusinessIDs(r.Context(), tenant); err != nil {
			s.writeError(w, r, businessAPI, err)
			return
		}
		if len(req.BusinessIDs) > 0 {
			if b, err := s.Store.Business(r.Context(), req.BusinessIDs[0]); err == nil {
				req.Country = b.Country
			}
		}
		resp, err := s.OAuth.Token(r.Context(), req)
		var oe *oauth.Error
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
