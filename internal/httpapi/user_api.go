package httpapi

import (
	"net/http"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
)

// users holds the user API's handlers.
type users struct {
	s *Server
}

// userCtx is what a user-API request carries: the program of its
// Application Key and, on calls with a token, the token's user.
type userCtx struct {
	program loyalty.Program
	userID  string
	// svc are the services on the clock of the key's business (its
	// sandbox clock, if any): whatever the handler does goes through them.
	svc loyalty.Services
}

// userHandler is a user-API handler that returns its error for the
// wrapper to write in the user API's shape.
type userHandler func(w http.ResponseWriter, r *http.Request, uc *userCtx) error

// userAPI wraps a user-API handler that needs a token: version, rate
// limit (per token, per IP without one), Application Key, a bearer token
// with the user scope issued under the same key, and a {user_id} that is
// "me" or the token's own user.
func (s *Server) userAPI(h userHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc, ok, err := s.admit(w, r, userAPI, "u", s.Limits.User, oauth.ScopeUser, false)
		if !ok {
			return
		}
		var uc *userCtx
		if err == nil {
			uc, err = s.userContext(r, rc)
		}
		if err == nil {
			err = h(w, r, uc)
		}
		if err != nil {
			s.writeError(w, r, userAPI, err)
		}
	})
}

// userContext checks the path's user against the token and reads the
// program of the key.
func (s *Server) userContext(r *http.Request, rc *reqCtx) (*userCtx, error) {
	if rc.token.SubjectKind != "user" {
		return nil, loyalty.Errorf(loyalty.EForbidden, "This token does not belong to a user.")
	}
	if id := r.PathValue("user_id"); id != "" {
		if err := loyalty.Self(id, rc.token.SubjectID); err != nil {
			return nil, err
		}
	}
	p, err := rc.svc.Users.Program(r.Context(), rc.tenant)
	if err != nil {
		return nil, err
	}
	return &userCtx{program: p, userID: rc.token.SubjectID, svc: rc.svc}, nil
}

// userOpen wraps the user-API calls that need only the Application Key
// (create a user, verify, PIN reset): version, a rate limit per client IP,
// and the key.
func (s *Server) userOpen(h userHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.limit(w, r, userAPI, "uo:ip:"+s.clientIP(r), s.Limits.User) {
			return
		}
		if !acceptable(r.Header.Get("Accept")) {
			writeStatus(w, userAPI, http.StatusNotAcceptable, notAcceptable)
			return
		}
		err := func() error {
			if err := requestTextError(r); err != nil {
				return err
			}
			key := r.Header.Get("X-Application-Key")
			if key == "" {
				return loyalty.Errorf(loyalty.EUnauthorized, "The X-Application-Key header is required.")
			}
			t, err := s.Store.Tenant(r.Context(), key)
			if err != nil {
				return err
			}
			// A sign-up's welcome entries are dated by the business's
			// clock, as every call with a token is.
			svc := s.Services.ClockedBy(t.ClockOffset)
			p, err := svc.Users.Program(r.Context(), t)
			if err != nil {
				return err
			}
			return h(w, r, &userCtx{program: p, svc: svc})
		}()
		if err != nil {
			s.writeError(w, r, userAPI, err)
		}
	})
}
