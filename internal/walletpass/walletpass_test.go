package walletpass_test

import (
	"archive/zip"
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/loyalty/loyalty/internal/walletpass"
	"github.com/loyalty/loyalty/internal/walletpass/passtest"
)

// data is a member's card with a logo.
func data(t *testing.T) walletpass.PassData {
	t.Helper()
	var logo bytes.Buffer
	if err := png.Encode(&logo, image.NewNRGBA(image.Rect(0, 0, 160, 50))); err != nil {
		t.Fatal(err)
	}
	return walletpass.PassData{BusinessID: "b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1", BusinessName: "Corner Cafe", Colour: "#0f766e",
		Logo: logo.Bytes(), MemberID: "c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2", MemberName: "Ada Lovelace", Points: 1234,
		Barcode: "c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2"}
}

func apple(t *testing.T, k passtest.Keys) *walletpass.AppleConfig {
	t.Helper()
	cfg, err := walletpass.LoadApple(k.AppleCert, k.AppleKey, k.AppleWWDR, "pass.test.loyalty", "TEAM123456")
	if err != nil {
		t.Fatalf("LoadApple: %v", err)
	}
	return cfg
}

// TestApplePass: the pass is a zip whose manifest lists every file's
// SHA-1, signed (detached PKCS#7) by the pass certificate that the WWDR
// certificate issued, with the member's card in pass.json.
func TestApplePass(t *testing.T) {
	k := passtest.New(t)
	d := data(t)
	pkpass, err := walletpass.Apple(apple(t, k), d)
	if err != nil {
		t.Fatal(err)
	}
	p, err := passtest.OpenApple(pkpass, k.AppleWWDR)
	if err != nil {
		t.Fatalf("the pass does not verify: %v", err)
	}
	for _, name := range []string{"pass.json", "manifest.json", "signature", "icon.png", "icon@2x.png", "logo.png"} {
		if len(p.Files[name]) == 0 {
			t.Errorf("the pass has no %s", name)
		}
	}
	if !bytes.Equal(p.Files["logo.png"], d.Logo) {
		t.Error("logo.png is not the business's logo")
	}
	want := map[string]any{"formatVersion": 1.0, "passTypeIdentifier": "pass.test.loyalty", "teamIdentifier": "TEAM123456",
		"organizationName": "Corner Cafe", "logoText": "Corner Cafe", "serialNumber": d.BusinessID + "-" + d.MemberID,
		"backgroundColor": "rgb(15, 118, 110)", "foregroundColor": "rgb(255, 255, 255)"}
	for key, v := range want {
		if p.Pass[key] != v {
			t.Errorf("pass.json %s = %v, want %v", key, p.Pass[key], v)
		}
	}
	card, _ := p.Pass["storeCard"].(map[string]any)
	header, _ := card["headerFields"].([]any)
	if len(header) != 1 || header[0].(map[string]any)["value"] != 1234.0 {
		t.Errorf("storeCard header fields %v, want the balance 1234", header)
	}
	second, _ := card["secondaryFields"].([]any)
	if len(second) != 1 || second[0].(map[string]any)["value"] != "Ada Lovelace" {
		t.Errorf("storeCard secondary fields %v, want the member's name", second)
	}
	codes, _ := p.Pass["barcodes"].([]any)
	if len(codes) != 1 {
		t.Fatalf("barcodes %v", p.Pass["barcodes"])
	}
	code := codes[0].(map[string]any)
	if code["format"] != "PKBarcodeFormatQR" || code["message"] != d.Barcode || code["messageEncoding"] != "iso-8859-1" {
		t.Errorf("barcode %v, want a QR code of %s", code, d.Barcode)
	}

	t.Run("without a logo or colour", func(t *testing.T) {
		d := data(t)
		d.Logo, d.Colour, d.MemberName = nil, "", ""
		pkpass, err := walletpass.Apple(apple(t, k), d)
		if err != nil {
			t.Fatal(err)
		}
		p, err := passtest.OpenApple(pkpass, k.AppleWWDR)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := p.Files["logo.png"]; ok {
			t.Error("a logo.png without a logo")
		}
		if p.Pass["backgroundColor"] != "rgb(67, 56, 202)" {
			t.Errorf("background %v, want Loyalty's colour", p.Pass["backgroundColor"])
		}
	})
	t.Run("a pale colour takes dark text", func(t *testing.T) {
		d := data(t)
		d.Colour = "#fde68a"
		pkpass, err := walletpass.Apple(apple(t, k), d)
		if err != nil {
			t.Fatal(err)
		}
		p, err := passtest.OpenApple(pkpass, k.AppleWWDR)
		if err != nil {
			t.Fatal(err)
		}
		if p.Pass["foregroundColor"] != "rgb(0, 0, 0)" {
			t.Errorf("foreground %v on #fde68a, want black", p.Pass["foregroundColor"])
		}
	})
}

// TestApplePassTampered: the check the tests rely on refuses a pass whose
// file no longer matches its hash, whose manifest no longer matches its
// signature, whose signature is damaged, or that another CA issued.
func TestApplePassTampered(t *testing.T) {
	k := passtest.New(t)
	pkpass, err := walletpass.Apple(apple(t, k), data(t))
	if err != nil {
		t.Fatal(err)
	}
	files := unzip(t, pkpass)
	cases := map[string]func(map[string][]byte){
		"a file changed": func(f map[string][]byte) {
			f["pass.json"] = bytes.Replace(f["pass.json"], []byte("1234"), []byte("9234"), 1)
		},
		"a file added": func(f map[string][]byte) { f["strip.png"] = f["icon.png"] },
		"the manifest changed": func(f map[string][]byte) {
			f["pass.json"] = bytes.Replace(f["pass.json"], []byte("1234"), []byte("9234"), 1)
			f["manifest.json"] = manifestWith(t, f)
		},
		"the signature damaged": func(f map[string][]byte) {
			s := bytes.Clone(f["signature"])
			s[len(s)-10] ^= 0xff
			f["signature"] = s
		},
		"no signature": func(f map[string][]byte) { delete(f, "signature") },
	}
	for name, tamper := range cases {
		t.Run(name, func(t *testing.T) {
			f := map[string][]byte{}
			for n, b := range files {
				f[n] = b
			}
			tamper(f)
			_, err := passtest.OpenApple(rezip(t, f), k.AppleWWDR)
			if err == nil {
				t.Fatal("the tampered pass verifies")
			}
			t.Logf("refused: %v", err)
		})
	}
	t.Run("another CA", func(t *testing.T) {
		if _, err := passtest.OpenApple(pkpass, passtest.New(t).AppleWWDR); err == nil ||
			!strings.Contains(err.Error(), "openssl") {
			t.Errorf("a pass verifies against a CA that did not issue it: %v", err)
		}
	})
}

// TestLoadApple refuses a key that is not the certificate's, and a
// certificate that the WWDR certificate did not issue.
func TestLoadApple(t *testing.T) {
	a, b := passtest.New(t), passtest.New(t)
	if _, err := walletpass.LoadApple(a.AppleCert, b.AppleKey, a.AppleWWDR, "pass.x", "T"); err == nil {
		t.Error("a key of another certificate was taken")
	}
	if _, err := walletpass.LoadApple(a.AppleCert, a.AppleKey, b.AppleWWDR, "pass.x", "T"); err == nil {
		t.Error("a certificate that WWDR did not issue was taken")
	}
	if _, err := walletpass.LoadApple(a.AppleCert, a.AppleKey, a.AppleWWDR, "", "T"); err == nil {
		t.Error("a configuration without a pass type id was taken")
	}
	if _, err := walletpass.Apple(nil, data(t)); err == nil {
		t.Error("a pass was built without configuration")
	}
}

func google(t *testing.T, k passtest.Keys) *walletpass.GoogleConfig {
	t.Helper()
	cfg, err := walletpass.LoadGoogle(k.GoogleKey, "3388000000012345678", "loyalty_card", []string{"https://loyalty.example.com"})
	if err != nil {
		t.Fatalf("LoadGoogle: %v", err)
	}
	return cfg
}

// TestGoogleSaveURL: the link holds an RS256 JWT from the service account
// to google, of type savetowallet, with the member's loyalty object.
func TestGoogleSaveURL(t *testing.T) {
	k := passtest.New(t)
	d := data(t)
	u, err := walletpass.GoogleSaveURL(google(t, k), d)
	if err != nil {
		t.Fatal(err)
	}
	claims, err := passtest.OpenGoogle(u, k.GooglePublic)
	if err != nil {
		t.Fatalf("the JWT does not verify: %v", err)
	}
	if claims["iss"] != k.GoogleEmail || claims["aud"] != "google" || claims["typ"] != "savetowallet" {
		t.Errorf("claims %v", claims)
	}
	if o, _ := claims["origins"].([]any); len(o) != 1 || o[0] != "https://loyalty.example.com" {
		t.Errorf("origins %v", claims["origins"])
	}
	payload, _ := claims["payload"].(map[string]any)
	objs, _ := payload["loyaltyObjects"].([]any)
	if len(objs) != 1 {
		t.Fatalf("payload %v, want one loyalty object", payload)
	}
	o := objs[0].(map[string]any)
	points, _ := o["loyaltyPoints"].(map[string]any)
	balance, _ := points["balance"].(map[string]any)
	barcode, _ := o["barcode"].(map[string]any)
	if o["id"] != "3388000000012345678."+d.BusinessID+"-"+d.MemberID || o["classId"] != "3388000000012345678.loyalty_card" ||
		o["accountId"] != d.MemberID || o["accountName"] != "Ada Lovelace" || balance["int"] != 1234.0 ||
		barcode["type"] != "QR_CODE" || barcode["value"] != d.Barcode || o["hexBackgroundColor"] != "#0f766e" {
		t.Errorf("loyalty object %v", o)
	}
	tok, _, err := jwt.NewParser().ParseUnverified(strings.TrimPrefix(u, walletpass.GoogleSaveBase), jwt.MapClaims{})
	if err != nil || tok.Header["kid"] != "test-key-1" || tok.Header["alg"] != "RS256" {
		t.Errorf("header %v (%v), want RS256 with the key's id", tok.Header, err)
	}

	t.Run("another key or a changed payload is refused", func(t *testing.T) {
		if _, err := passtest.OpenGoogle(u, passtest.New(t).GooglePublic); err == nil {
			t.Error("the JWT verifies with another key")
		}
		parts := strings.Split(strings.TrimPrefix(u, walletpass.GoogleSaveBase), ".")
		other, err := walletpass.GoogleSaveURL(google(t, k), walletpass.PassData{BusinessID: d.BusinessID, BusinessName: "x",
			MemberID: d.MemberID, Points: 99999, Barcode: d.Barcode})
		if err != nil {
			t.Fatal(err)
		}
		forged := strings.Split(strings.TrimPrefix(other, walletpass.GoogleSaveBase), ".")
		if _, err := passtest.OpenGoogle(walletpass.GoogleSaveBase+parts[0]+"."+forged[1]+"."+parts[2], k.GooglePublic); err == nil {
			t.Error("a JWT with another payload verifies with the first one's signature")
		}
	})
	t.Run("configuration", func(t *testing.T) {
		if _, err := walletpass.LoadGoogle(k.GoogleKey, "", "c", nil); err == nil {
			t.Error("no issuer id was taken")
		}
		bad := filepath.Join(t.TempDir(), "k.json")
		os.WriteFile(bad, []byte(`{"type":"authorized_user"}`), 0o600)
		if _, err := walletpass.LoadGoogle(bad, "1", "c", nil); err == nil {
			t.Error("a file that is not a service-account key was taken")
		}
		if _, err := walletpass.GoogleSaveURL(nil, d); err == nil {
			t.Error("a link was made without configuration")
		}
	})
}

func unzip(t *testing.T, data []byte) map[string][]byte {
	t.Helper()
	p, err := passtest.OpenApple(data, "/nonexistent")
	if p.Files == nil {
		t.Fatalf("unzip: %v", err)
	}
	return p.Files
}

func rezip(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, b := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// manifestWith is a manifest.json matching the files as they are now.
func manifestWith(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var b strings.Builder
	b.WriteString("{")
	first := true
	for name, data := range files {
		if name == "manifest.json" || name == "signature" {
			continue
		}
		if !first {
			b.WriteString(",")
		}
		first = false
		b.WriteString(`"` + name + `":"` + sha1hex(data) + `"`)
	}
	b.WriteString("}")
	return []byte(b.String())
}

func sha1hex(b []byte) string {
	s := sha1.Sum(b)
	return hex.EncodeToString(s[:])
}

// TestLogo: a JPEG logo larger than the pass's logo area comes back as a
// PNG that fits it, its colour kept; what is not an image comes back nil.
func TestLogo(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 1000, 500))
	for y := 0; y < 500; y++ {
		for x := 0; x < 1000; x++ {
			img.SetNRGBA(x, y, color.NRGBA{R: 200, G: 10, B: 10, A: 255})
		}
	}
	var src bytes.Buffer
	if err := jpeg.Encode(&src, img, nil); err != nil {
		t.Fatal(err)
	}
	out := walletpass.Logo(src.Bytes())
	got, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if b := got.Bounds(); b.Dx() != 200 || b.Dy() != 100 {
		t.Errorf("logo %v, want 200x100", b)
	}
	if r, g, _, _ := got.At(100, 50).RGBA(); r>>8 < 180 || g>>8 > 40 {
		t.Errorf("logo colour %v, want the red kept", got.At(100, 50))
	}
	if walletpass.Logo([]byte("RIFF....WEBP")) != nil {
		t.Error("a logo from bytes that are no image")
	}
}
