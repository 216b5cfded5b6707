package testenv

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Cert is a self-signed certificate for 127.0.0.1, valid for an hour, for
// tests of the TLS a service speaks or calls.
type Cert struct {
	TLS  tls.Certificate // for a server's tls.Config
	Pool *x509.CertPool  // for a client that must trust it
	PEM  []byte          // the certificate, PEM-encoded
	Key  []byte          // its ECDSA key, PEM-encoded
}

// SelfSigned makes a Cert.
func SelfSigned(tb testing.TB) Cert {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "loyalty test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		tb.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		tb.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return Cert{TLS: tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, Pool: pool,
		PEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		Key: pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})}
}

// Files writes the certificate and its key to dir and returns their paths.
func (c Cert) Files(tb testing.TB, dir string) (certFile, keyFile string) {
	tb.Helper()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, c.PEM, 0o600); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(keyFile, c.Key, 0o600); err != nil {
		tb.Fatal(err)
	}
	return certFile, keyFile
}
