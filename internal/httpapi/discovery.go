package httpapi

import (
	"net/http"

	"github.com/loyalty/loyalty/internal/oauth"
)

// authServerMetadata is the authorization server metadata (RFC 8414).
type authServerMetadata struct {
	Issuer                        string   `json:"issuer"`
	AuthorizationEndpoint         string   `json:"authorization_endpoint,omitempty"`
	TokenEndpoint                 string   `json:"token_endpoint"`
	RevocationEndpoint            string   `json:"revocation_endpoint"`
	GrantTypesSupported           []string `json:"grant_types_supported"`
	ResponseTypesSupported        []string `json:"response_types_supported"`
	ResponseModesSupported        []string `json:"response_modes_supported,omitempty"`
	CodeChallengeMethodsSupported []string `json:"code_challenge_methods_supported,omitempty"`
	TokenAuthMethodsSupported     []string `json:"token_endpoint_auth_methods_supported"`
	RevocationAuthMethods         []string `json:"revocation_endpoint_auth_methods_supported"`
	ScopesSupported               []string `json:"scopes_supported"`
	ServiceDocumentation          string   `json:"service_documentation"`
}

// clientAuthMethods are the client authentication methods of the token
// and revocation endpoints.
var clientAuthMethods = []string{"client_secret_basic", "client_secret_post"}

// authServerMetadata serves GET /.well-known/oauth-authorization-server:
// what a client needs to find the endpoints, with the issuer being the
// base URL the client reached the service at.
func (s *Server) authServerMetadata(w http.ResponseWriter, r *http.Request) {
	if !s.limit(w, r, businessAPI, "meta:ip:"+s.clientIP(r), s.Limits.Token) {
		return
	}
	base := s.baseURL(r)
	m := authServerMetadata{
		Issuer:                    base,
		TokenEndpoint:             base + "/oauth/token",
		RevocationEndpoint:        base + "/oauth/revoke",
		GrantTypesSupported:       []string{oauth.GrantPassword, oauth.GrantRefresh},
		ResponseTypesSupported:    []string{},
		TokenAuthMethodsSupported: clientAuthMethods,
		RevocationAuthMethods:     clientAuthMethods,
		ScopesSupported:           []string{oauth.ScopeAdmin, oauth.ScopeUser},
		ServiceDocumentation:      base + "/openapi.yaml",
	}
	if s.Pages != nil {
		// The authorization-code flow needs the sign-in and consent pages.
		m.AuthorizationEndpoint = base + "/oauth/authorize"
		m.GrantTypesSupported = []string{oauth.GrantCode, oauth.GrantPassword, oauth.GrantRefresh}
		m.ResponseTypesSupported = []string{"code"}
		m.ResponseModesSupported = []string{"query"}
		m.CodeChallengeMethodsSupported = oauth.CodeChallengeMethods
	}
	writeJSON(w, http.StatusOK, m)
}

// baseURL is the scheme and host the client reached the service at.
func (s *Server) baseURL(r *http.Request) string {
	if s.BaseURL != nil {
		return s.BaseURL(r)
	}
	if r.TLS != nil {
		return "https://" + r.Host
	}
	return "http://" + r.Host
}
