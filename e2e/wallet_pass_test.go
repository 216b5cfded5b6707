package e2e

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"testing"

	"github.com/loyalty/loyalty/internal/app"
	"github.com/loyalty/loyalty/internal/testenv"
	"github.com/loyalty/loyalty/internal/walletpass/passtest"
)

// withPasses configures both wallets with throwaway keys.
func withPasses(k passtest.Keys) func(*app.Config) {
	return func(c *app.Config) {
		c.PublicURL = "https://loyalty.example.com"
		c.Passes = app.PassConfig{AppleCert: k.AppleCert, AppleKey: k.AppleKey, AppleWWDR: k.AppleWWDR,
			ApplePassTypeID: "pass.test.loyalty", AppleTeamID: "TEAM123456",
			GoogleIssuerID: "3388000000012345678", GoogleClassID: "loyalty_card", GoogleKey: k.GoogleKey}
	}
}

// TestWalletPasses (issue 31 item 6): a member downloads their card of the
// business as an Apple Wallet pass whose signature openssl verifies
// against the issuing certificate and whose files match the manifest, with
// the balance, the business's colour and logo, and their customer id as
// the QR code; and gets a Save to Google Wallet link whose JWT verifies
// with the service account's public key. A business the member does not
// belong to, and a service without the keys, answer 404.
func TestWalletPasses(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		keys := passtest.New(t)
		e := startWith(t, testenv.MigratedDSN(t, engine), roomy, withPasses(keys))
		owner := e.owner(t, e.biz)
		userApp := e.userApp(t)
		u := e.register(t, e.biz.Key, map[string]any{"email": "wallet@example.com", "first_name": "Ada", "last_name": "Lovelace",
			"pin_code": 1357})
		member := e.asUser(t, userApp, e.biz.Key, "wallet@example.com", "1357")
		owner.reward(t, u.ID, 42)

		// The business's brand colour and an uploaded logo, as the console
		// saves them.
		var logo bytes.Buffer
		img := image.NewNRGBA(image.Rect(0, 0, 640, 200))
		img.SetNRGBA(0, 0, color.NRGBA{R: 200, A: 255})
		png.Encode(&logo, img)
		path, err := e.app.API.StoreImage(e.biz.ID, logo.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		prof, err := e.app.DB.BusinessProfile(ctx, e.biz.ID)
		if err != nil {
			t.Fatal(err)
		}
		changed := prof
		changed.BrandColor, changed.Logo = "#0f766e", path
		if err := e.app.DB.UpdateBusinessProfile(ctx, e.biz.ID, prof, changed); err != nil {
			t.Fatal(err)
		}

		for _, q := range []string{"", "?business_id=" + e.biz.ID} {
			r := member.get(t, "/users/me/passes/apple"+q).want(t, http.StatusOK)
			if ct := r.Header.Get("Content-Type"); ct != "application/vnd.apple.pkpass" {
				t.Errorf("Content-Type %q", ct)
			}
			p, err := passtest.OpenApple(r.Body, keys.AppleWWDR)
			if err != nil {
				t.Fatalf("the pass does not verify: %v", err)
			}
			card, _ := p.Pass["storeCard"].(map[string]any)
			header, _ := card["headerFields"].([]any)
			codes, _ := p.Pass["barcodes"].([]any)
			if len(header) != 1 || header[0].(map[string]any)["value"] != 42.0 || len(codes) != 1 ||
				codes[0].(map[string]any)["message"] != u.ID || p.Pass["organizationName"] != "Corner Cafe" ||
				p.Pass["passTypeIdentifier"] != "pass.test.loyalty" || p.Pass["backgroundColor"] != "rgb(15, 118, 110)" {
				t.Errorf("pass.json %s", p.Files["pass.json"])
			}
			if lg, err := png.DecodeConfig(bytes.NewReader(p.Files["logo.png"])); err != nil || lg.Width != 320 || lg.Height != 100 {
				t.Errorf("logo.png %+v (%v), want the logo scaled to 320x100", lg, err)
			}
		}

		var link struct {
			SaveURL string `json:"save_url"`
		}
		member.get(t, "/users/me/passes/google").want(t, http.StatusOK).data(t, &link)
		claims, err := passtest.OpenGoogle(link.SaveURL, keys.GooglePublic)
		if err != nil {
			t.Fatalf("the Google Wallet JWT does not verify: %v", err)
		}
		payload, _ := claims["payload"].(map[string]any)
		objs, _ := payload["loyaltyObjects"].([]any)
		if claims["iss"] != keys.GoogleEmail || claims["typ"] != "savetowallet" || len(objs) != 1 {
			t.Fatalf("claims %v", claims)
		}
		o := objs[0].(map[string]any)
		if o["accountId"] != u.ID || at(o, "loyaltyPoints.balance.int") != 42.0 || at(o, "barcode.value") != u.ID ||
			o["classId"] != "3388000000012345678.loyalty_card" || o["accountName"] != "Ada Lovelace" {
			t.Errorf("loyalty object %v", o)
		}
		if origins, _ := claims["origins"].([]any); len(origins) != 1 || origins[0] != "https://loyalty.example.com" {
			t.Errorf("origins %v", claims["origins"])
		}

		// A member of another business asks for this one's card, and this
		// member for the other's.
		other := e.newBusiness(t, "Elsewhere")
		e.register(t, other.Key, map[string]any{"email": "elsewhere@example.com", "pin_code": 2468})
		stranger := e.asUser(t, userApp, other.Key, "elsewhere@example.com", "2468")
		for _, wallet := range []string{"apple", "google"} {
			stranger.get(t, "/users/me/passes/"+wallet+"?business_id="+e.biz.ID).wantError(t, http.StatusNotFound)
			member.get(t, "/users/me/passes/"+wallet+"?business_id="+other.ID).wantError(t, http.StatusNotFound)
		}
		// The stranger's own card of their business still comes.
		r := stranger.get(t, "/users/me/passes/apple").want(t, http.StatusOK)
		if p, err := passtest.OpenApple(r.Body, keys.AppleWWDR); err != nil || p.Pass["organizationName"] != "Elsewhere" {
			t.Errorf("the other business's member's pass: %v %v", err, p.Pass)
		}

		t.Run("without keys no pass is offered", func(t *testing.T) {
			plain := start(t, engine, roomy)
			plain.register(t, plain.biz.Key, map[string]any{"email": "plain@example.com", "pin_code": 1357})
			m := plain.asUser(t, plain.userApp(t), plain.biz.Key, "plain@example.com", "1357")
			m.get(t, "/users/me/passes/apple").wantError(t, http.StatusNotFound)
			m.get(t, "/users/me/passes/google").wantError(t, http.StatusNotFound)
		})
	})
}
