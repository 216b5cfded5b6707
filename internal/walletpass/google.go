package walletpass

import (
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// GoogleSaveBase is where a "Save to Google Wallet" link goes, the signed
// JWT following it.
const GoogleSaveBase = "https://pay.google.com/gp/v/save/"

// loyaltyObject is the member's card as Google Wallet's loyaltyObject.
type loyaltyObject struct {
	ID              string       `json:"id"`
	ClassID         string       `json:"classId"`
	State           string       `json:"state"`
	AccountID       string       `json:"accountId"`
	AccountName     string       `json:"accountName"`
	LoyaltyPoints   points       `json:"loyaltyPoints"`
	Barcode         googleCode   `json:"barcode"`
	HexBackground   string       `json:"hexBackgroundColor"`
	TextModulesData []textModule `json:"textModulesData"`
}

type points struct {
	Label   string `json:"label"`
	Balance struct {
		Int int64 `json:"int"`
	} `json:"balance"`
}

type googleCode struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

type textModule struct {
	ID     string `json:"id"`
	Header string `json:"header"`
	Body   string `json:"body"`
}

// newLoyaltyObject is d's card in cfg's class.
func newLoyaltyObject(cfg *GoogleConfig, d PassData) loyaltyObject {
	bg, _ := d.colours()
	name := d.MemberName
	if name == "" {
		name = d.MemberID
	}
	o := loyaltyObject{
		ID: cfg.IssuerID + "." + d.serial(), ClassID: cfg.IssuerID + "." + cfg.ClassID, State: "ACTIVE",
		AccountID: d.MemberID, AccountName: name, Barcode: googleCode{Type: "QR_CODE", Value: d.Barcode},
		HexBackground: bg.hex(), TextModulesData: []textModule{{ID: "business", Header: "Card of", Body: d.BusinessName}},
	}
	o.LoyaltyPoints.Label = "Points"
	o.LoyaltyPoints.Balance.Int = d.Points
	return o
}

// GoogleSaveURL returns d's "Save to Google Wallet" link: a JWT (RS256,
// typ savetowallet, from the service account to google) holding the
// member's loyaltyObject, signed with the service account's key.
func GoogleSaveURL(cfg *GoogleConfig, d PassData) (string, error) {
	if cfg == nil {
		return "", fmt.Errorf("walletpass: no Google Wallet configuration")
	}
	if err := d.validate(); err != nil {
		return "", err
	}
	origins := cfg.Origins
	if origins == nil {
		origins = []string{}
	}
	claims := jwt.MapClaims{
		"iss":     cfg.Email,
		"aud":     "google",
		"typ":     "savetowallet",
		"iat":     time.Now().Unix(),
		"origins": origins,
		"payload": map[string]any{"loyaltyObjects": []loyaltyObject{newLoyaltyObject(cfg, d)}},
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, claims)
	if cfg.KeyID != "" {
		tok.Header["kid"] = cfg.KeyID
	}
	signed, err := tok.SignedString(cfg.Key)
	if err != nil {
		return "", fmt.Errorf("walletpass: sign the Google Wallet JWT: %w", err)
	}
	return GoogleSaveBase + signed, nil
}
