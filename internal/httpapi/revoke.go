package httpapi

import (
	"errors"
	"net/http"

	"github.com/loyalty/loyalty/internal/oauth"
)

// revokeEndpoint serves POST /oauth/revoke (RFC 7009): the client
// authenticates as at the token endpoint (HTTP Basic or the form) and
// names a token; the answer is 200 whether or not there was anything to
// revoke.
func (s *Server) revokeEndpoint() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, ok := s.oauthForm(w, r)
		if !ok {
			return
		}
		req := oauth.RevokeRequest{Token: f.Get("token"), TokenTypeHint: f.Get("token_type_hint")}
		var oe *oauth.Error
		if req.ClientID, req.ClientSecret, oe = clientCredentials(r, f); oe != nil {
			writeOAuthError(w, oe)
			return
		}
		err := s.OAuth.Revoke(r.Context(), req)
		switch {
		case errors.As(err, &oe):
			writeOAuthError(w, oe)
		case err != nil:
			s.writeError(w, r, businessAPI, err)
		default:
			// RFC 7009 section 2.2: the body is ignored; an empty JSON
			// object keeps clients that insist on JSON content happy.
			writeJSON(w, http.StatusOK, struct{}{})
		}
	})
}
