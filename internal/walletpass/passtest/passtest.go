// Package passtest makes throwaway keys that sign wallet passes, and opens
// passes the way the wallets check them: the signature against the
// issuing certificate (with openssl), every file against the manifest,
// the JWT against the public key. For tests only.
package passtest

import (
	"archive/zip"
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/smallstep/pkcs7"
)

// Keys are files of a throwaway configuration: a self-signed CA playing
// Apple's WWDR intermediate, a pass certificate it issued with its key,
// and a Google service-account key file.
type Keys struct {
	AppleCert, AppleKey, AppleWWDR string // PEM files
	GoogleKey                      string // service-account JSON file
	GoogleEmail                    string
	GooglePublic                   *rsa.PublicKey
}

// New writes a fresh set of Keys under a temporary directory.
func New(tb testing.TB) Keys {
	tb.Helper()
	dir := tb.TempDir()
	must := func(err error) {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
	}
	caKey, err := rsa.GenerateKey(rand.Reader, 2048)
	must(err)
	now := time.Now()
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "Test WWDR", Organization: []string{"Loyalty tests"}},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	must(err)
	caCert, err := x509.ParseCertificate(caDER)
	must(err)
	passKey, err := rsa.GenerateKey(rand.Reader, 2048)
	must(err)
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2),
		Subject:   pkix.Name{CommonName: "Pass Type ID: pass.test.loyalty", OrganizationalUnit: []string{"TEAM123456"}},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), KeyUsage: x509.KeyUsageDigitalSignature}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &passKey.PublicKey, caKey)
	must(err)

	k := Keys{AppleCert: filepath.Join(dir, "pass.pem"), AppleKey: filepath.Join(dir, "pass.key"),
		AppleWWDR: filepath.Join(dir, "wwdr.pem"), GoogleKey: filepath.Join(dir, "service-account.json"),
		GoogleEmail: "wallet@loyalty-test.iam.gserviceaccount.com"}
	must(os.WriteFile(k.AppleCert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: leafDER}), 0o600))
	must(os.WriteFile(k.AppleWWDR, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o600))
	must(os.WriteFile(k.AppleKey, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(passKey)}), 0o600))

	gKey, err := rsa.GenerateKey(rand.Reader, 2048)
	must(err)
	p8, err := x509.MarshalPKCS8PrivateKey(gKey)
	must(err)
	sa, err := json.Marshal(map[string]string{"type": "service_account", "project_id": "loyalty-test",
		"private_key_id": "test-key-1", "client_email": k.GoogleEmail, "client_id": "1",
		"private_key": string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: p8}))})
	must(err)
	must(os.WriteFile(k.GoogleKey, sa, 0o600))
	k.GooglePublic = &gKey.PublicKey
	return k
}

// Pkpass is an opened Apple Wallet pass.
type Pkpass struct {
	Files map[string][]byte // every file of the zip, by name
	Pass  map[string]any    // pass.json
}

// OpenApple opens a .pkpass as Wallet checks it: a zip whose
// manifest.json names every other file but signature with its SHA-1, and
// whose signature is a valid detached PKCS#7 signature of manifest.json
// by a certificate that caFile issued (openssl smime -verify).
func OpenApple(data []byte, caFile string) (Pkpass, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return Pkpass{}, fmt.Errorf("not a zip: %w", err)
	}
	p := Pkpass{Files: map[string][]byte{}}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			return p, err
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return p, fmt.Errorf("%s: %w", f.Name, err)
		}
		p.Files[f.Name] = b
	}
	var manifest map[string]string
	if err := json.Unmarshal(p.Files["manifest.json"], &manifest); err != nil {
		return p, fmt.Errorf("manifest.json: %w", err)
	}
	for name, b := range p.Files {
		if name == "manifest.json" || name == "signature" {
			continue
		}
		sum := sha1.Sum(b)
		if manifest[name] != hex.EncodeToString(sum[:]) {
			return p, fmt.Errorf("manifest.json gives %s the SHA-1 %q, its bytes have %x", name, manifest[name], sum)
		}
	}
	for name := range manifest {
		if _, ok := p.Files[name]; !ok {
			return p, fmt.Errorf("manifest.json names %s, which the pass lacks", name)
		}
	}
	if err := verifySignature(p.Files["manifest.json"], p.Files["signature"], caFile); err != nil {
		return p, err
	}
	if err := carriesIssuer(p.Files["signature"], caFile); err != nil {
		return p, err
	}
	if err := json.Unmarshal(p.Files["pass.json"], &p.Pass); err != nil {
		return p, fmt.Errorf("pass.json: %w", err)
	}
	return p, nil
}

// verifySignature checks sig, detached, over content with openssl.
func verifySignature(content, sig []byte, caFile string) error {
	if len(sig) == 0 {
		return errors.New("the pass has no signature")
	}
	dir, err := os.MkdirTemp("", "pkpass")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cf, sf := filepath.Join(dir, "manifest.json"), filepath.Join(dir, "signature")
	if err := os.WriteFile(cf, content, 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(sf, sig, 0o600); err != nil {
		return err
	}
	out, err := exec.Command("openssl", "smime", "-verify", "-binary", "-inform", "DER", "-in", sf, "-content", cf,
		"-CAfile", caFile, "-out", os.DevNull).CombinedOutput()
	if err != nil {
		return fmt.Errorf("openssl smime -verify: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// carriesIssuer checks that the signature carries the certificate of
// caFile beside the signer's, as Wallet wants the WWDR certificate there.
func carriesIssuer(sig []byte, caFile string) error {
	p7, err := pkcs7.Parse(sig)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(caFile)
	if err != nil {
		return err
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return fmt.Errorf("%s holds no PEM certificate", caFile)
	}
	for _, c := range p7.Certificates {
		if bytes.Equal(c.Raw, block.Bytes) {
			return nil
		}
	}
	return fmt.Errorf("the signature carries %d certificates, none of them the WWDR certificate", len(p7.Certificates))
}

// OpenGoogle checks a "Save to Google Wallet" link: its address, and its
// JWT's RS256 signature by pub. It returns the JWT's claims.
func OpenGoogle(saveURL string, pub *rsa.PublicKey) (jwt.MapClaims, error) {
	raw, ok := strings.CutPrefix(saveURL, "https://pay.google.com/gp/v/save/")
	if !ok {
		return nil, fmt.Errorf("%q is not a Save to Google Wallet link", saveURL)
	}
	claims := jwt.MapClaims{}
	_, err := jwt.ParseWithClaims(raw, claims, func(*jwt.Token) (any, error) { return pub, nil },
		jwt.WithValidMethods([]string{"RS256"}), jwt.WithAudience("google"), jwt.WithIssuedAt())
	if err != nil {
		return nil, err
	}
	return claims, nil
}
