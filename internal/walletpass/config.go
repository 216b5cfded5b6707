package walletpass

import (
	"crypto"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"regexp"
)

// AppleConfig is what signs Apple Wallet passes: the pass type's
// certificate and key, issued by Apple to the team, and Apple's WWDR
// intermediate certificate that issued it.
type AppleConfig struct {
	PassTypeID string // pass.com.example.loyalty
	TeamID     string
	Cert       *x509.Certificate
	Key        crypto.Signer
	WWDR       *x509.Certificate
}

// GoogleConfig is what signs "Save to Google Wallet" links: the issuer's
// loyalty class and a service account's key.
type GoogleConfig struct {
	IssuerID string // the Google Wallet issuer's number
	ClassID  string // the loyalty class's suffix (what follows "<issuer>.")
	Email    string // the service account's client_email: the JWT's iss
	KeyID    string // its private_key_id, the JWT's kid
	Key      *rsa.PrivateKey
	// Origins are the web origins allowed to show the save button
	// (https://loyalty.example.com); none when empty.
	Origins []string
}

// LoadApple reads the PEM files of an Apple pass configuration: the pass
// certificate, its private key (unencrypted PKCS#1, PKCS#8 or EC) and the
// WWDR certificate. It checks that the key is the certificate's and that
// WWDR issued the certificate, so a wrong file fails at start.
func LoadApple(certFile, keyFile, wwdrFile, passTypeID, teamID string) (*AppleConfig, error) {
	if passTypeID == "" || teamID == "" {
		return nil, errors.New("apple pass: the pass type id and the team id are required")
	}
	cert, err := readCert(certFile)
	if err != nil {
		return nil, fmt.Errorf("apple pass certificate: %w", err)
	}
	wwdr, err := readCert(wwdrFile)
	if err != nil {
		return nil, fmt.Errorf("apple WWDR certificate: %w", err)
	}
	key, err := readKey(keyFile)
	if err != nil {
		return nil, fmt.Errorf("apple pass key: %w", err)
	}
	if !samePublic(key.Public(), cert.PublicKey) {
		return nil, fmt.Errorf("apple pass key %s is not the key of certificate %s", keyFile, certFile)
	}
	if err := cert.CheckSignatureFrom(wwdr); err != nil {
		return nil, fmt.Errorf("apple pass certificate %s was not issued by the WWDR certificate %s: %w", certFile, wwdrFile, err)
	}
	return &AppleConfig{PassTypeID: passTypeID, TeamID: teamID, Cert: cert, Key: key, WWDR: wwdr}, nil
}

// serviceAccount is the part of a Google service-account JSON key file
// that signs.
type serviceAccount struct {
	Type         string `json:"type"`
	ClientEmail  string `json:"client_email"`
	PrivateKeyID string `json:"private_key_id"`
	PrivateKey   string `json:"private_key"`
}

// googleID is what Google Wallet takes in an id's parts.
var googleID = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// LoadGoogle reads a Google service-account JSON key file and the
// issuer's class.
func LoadGoogle(keyFile, issuerID, classID string, origins []string) (*GoogleConfig, error) {
	if !googleID.MatchString(issuerID) || !googleID.MatchString(classID) {
		return nil, fmt.Errorf("google wallet: the issuer id and the class id are required (letters, digits, '.', '_' and '-'), got %q and %q", issuerID, classID)
	}
	data, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, fmt.Errorf("google wallet key: %w", err)
	}
	var sa serviceAccount
	if err := json.Unmarshal(data, &sa); err != nil || sa.Type != "service_account" || sa.ClientEmail == "" {
		return nil, fmt.Errorf("google wallet key %s is not a service-account JSON key file", keyFile)
	}
	key, err := parseKey([]byte(sa.PrivateKey))
	if err != nil {
		return nil, fmt.Errorf("google wallet key %s: %w", keyFile, err)
	}
	rk, ok := key.(*rsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("google wallet key %s: the private key is not RSA", keyFile)
	}
	return &GoogleConfig{IssuerID: issuerID, ClassID: classID, Email: sa.ClientEmail, KeyID: sa.PrivateKeyID, Key: rk,
		Origins: origins}, nil
}

func readCert(file string) (*x509.Certificate, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE" {
		// Apple hands the WWDR certificate out in DER.
		return x509.ParseCertificate(data)
	}
	return x509.ParseCertificate(block.Bytes)
}

func readKey(file string) (crypto.Signer, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return parseKey(data)
}

// parseKey reads an unencrypted PEM private key: PKCS#8, PKCS#1 or EC.
func parseKey(data []byte) (crypto.Signer, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("no PEM private key found")
	}
	if block.Headers["Proc-Type"] != "" || block.Type == "ENCRYPTED PRIVATE KEY" {
		return nil, errors.New("the private key is encrypted: export it without a passphrase")
	}
	var key any
	var err error
	switch block.Type {
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	default:
		return nil, fmt.Errorf("a PEM block %q is not a private key", block.Type)
	}
	if err != nil {
		return nil, err
	}
	s, ok := key.(crypto.Signer)
	if !ok {
		return nil, errors.New("the private key cannot sign")
	}
	return s, nil
}

// samePublic reports whether two public keys are the same key.
func samePublic(a, b crypto.PublicKey) bool {
	k, ok := a.(interface{ Equal(crypto.PublicKey) bool })
	return ok && k.Equal(b)
}
