package app

import (
	"fmt"
	"slices"
	"strings"

	"github.com/loyalty/loyalty/internal/httpapi"
	"github.com/loyalty/loyalty/internal/walletpass"
)

// PassConfig names the keys that sign the members' wallet passes; a
// wallet whose fields are all empty is not offered.
type PassConfig struct {
	// AppleCert and AppleKey are the PEM files of the pass type's
	// certificate and its unencrypted private key; AppleWWDR is Apple's
	// WWDR intermediate certificate (PEM or DER) that issued it.
	AppleCert, AppleKey, AppleWWDR string
	// ApplePassTypeID (pass.com.example.loyalty) and AppleTeamID are the
	// certificate's pass type and team.
	ApplePassTypeID, AppleTeamID string
	// GoogleIssuerID and GoogleClassID name the Google Wallet issuer and
	// its loyalty class; GoogleKey is a service account's JSON key file.
	GoogleIssuerID, GoogleClassID, GoogleKey string
}

// passes loads the configured wallets' keys; a wallet configured in
// part, or with files that do not belong together, stops the start.
func (c Config) passes() (*httpapi.Passes, error) {
	p := c.Passes
	out := &httpapi.Passes{}
	apple := map[string]string{"--apple-pass-cert": p.AppleCert, "--apple-pass-key": p.AppleKey, "--apple-pass-wwdr": p.AppleWWDR,
		"--apple-pass-type-id": p.ApplePassTypeID, "--apple-team-id": p.AppleTeamID}
	if err := allOrNone("Apple Wallet passes", apple); err != nil {
		return nil, err
	} else if p.AppleCert != "" {
		if out.Apple, err = walletpass.LoadApple(p.AppleCert, p.AppleKey, p.AppleWWDR, p.ApplePassTypeID, p.AppleTeamID); err != nil {
			return nil, err
		}
	}
	google := map[string]string{"--google-wallet-issuer-id": p.GoogleIssuerID, "--google-wallet-class-id": p.GoogleClassID,
		"--google-wallet-key": p.GoogleKey}
	if err := allOrNone("Google Wallet passes", google); err != nil {
		return nil, err
	} else if p.GoogleKey != "" {
		var origins []string
		if c.PublicURL != "" {
			origins = []string{c.PublicURL}
		}
		if out.Google, err = walletpass.LoadGoogle(p.GoogleKey, p.GoogleIssuerID, p.GoogleClassID, origins); err != nil {
			return nil, err
		}
	}
	if out.Apple == nil && out.Google == nil {
		return nil, nil
	}
	return out, nil
}

// allOrNone refuses settings of which some are set and some are not,
// naming the missing ones.
func allOrNone(what string, settings map[string]string) error {
	var set, missing []string
	for flag, v := range settings {
		if v != "" {
			set = append(set, flag)
		} else {
			missing = append(missing, flag)
		}
	}
	if len(set) > 0 && len(missing) > 0 {
		return fmt.Errorf("%s need %s too", what, strings.Join(slices.Sorted(slices.Values(missing)), ", "))
	}
	return nil
}
