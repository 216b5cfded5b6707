package oauth

import (
	"context"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// Token type hints of a revocation request (RFC 7009 section 2.1).
const (
	HintAccessToken  = "access_token"
	HintRefreshToken = "refresh_token"
)

// RevokeRequest is a parsed token revocation request (RFC 7009).
type RevokeRequest struct {
	ClientID      string
	ClientSecret  string
	Token         string
	TokenTypeHint string // HintAccessToken, HintRefreshToken or anything else (ignored)
}

// Revoke revokes a token of the authenticated client (RFC 7009). A refresh
// token revokes its chain: the access token issued with it and every pair
// rotated from the same grant. An access token revokes its pair, the
// refresh token issued with it included (section 2.1 allows it), so a
// client that signs out with either ends the grant. An unknown token, one
// already revoked and a token of another client are left alone without an
// error (section 2.2): the answer tells nothing about other clients'
// tokens. The hint only picks which kind is looked up first.
func (s *Server) Revoke(ctx context.Context, r RevokeRequest) error {
	app, err := s.client(ctx, TokenRequest{ClientID: r.ClientID, ClientSecret: r.ClientSecret})
	if err != nil {
		return err
	}
	if r.Token == "" {
		return errInvalidRequest("The token parameter is required.")
	}
	hash := s.Hash.Token(r.Token)
	now := s.now()
	asRefresh := func() (bool, error) {
		t, err := s.Store.Refresh(ctx, hash)
		if found, err := foundToken(err); !found {
			return false, err
		}
		if t.AppID == app.ID {
			return true, s.Store.RevokeChain(ctx, t.ChainID, now)
		}
		return true, nil
	}
	asAccess := func() (bool, error) {
		t, err := s.Store.Access(ctx, hash)
		if found, err := foundToken(err); !found {
			return false, err
		}
		if t.AppID == app.ID {
			return true, s.Store.RevokeToken(ctx, t.ID, now)
		}
		return true, nil
	}
	order := []func() (bool, error){asRefresh, asAccess}
	if r.TokenTypeHint == HintAccessToken {
		order[0], order[1] = asAccess, asRefresh
	}
	for _, try := range order {
		if found, err := try(); found || err != nil {
			return err
		}
	}
	return nil
}

// foundToken tells a token found from one that is not (a nil error) from
// a failed lookup (its error).
func foundToken(err error) (bool, error) {
	if loyalty.ErrorCode(err) == loyalty.ENotFound {
		return false, nil
	}
	return err == nil, err
}
