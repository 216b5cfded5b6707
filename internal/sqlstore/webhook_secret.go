package sqlstore

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strings"
)

// Webhook signing secrets must be readable to sign deliveries, so they
// cannot be hashed like the other secrets. They are kept encrypted with
// AES-256-GCM under the server secret webhook_secrets (server_secrets,
// created on first use and shared by every instance): a copy of the
// endpoints table, a log line or a backup of it alone reveals no secret.
// The key lives in the same database, so a copy of the whole database
// does; keeping it elsewhere (a KMS) is what would close that.

// webhookSecretName is the server secret the key is kept under.
const webhookSecretName = "webhook_secrets"

// sealedPrefix marks a sealed secret and its format.
const sealedPrefix = "gcm1:"

type webhookCipher struct{ aead cipher.AEAD }

// webhookCipher returns the cipher of the webhook secrets. Call it
// outside a transaction: on SQLite the writer a first use takes would be
// the transaction's own.
func (d *DB) webhookCipher(ctx context.Context) (*webhookCipher, error) {
	if c := d.webhookKey.Load(); c != nil {
		return c, nil
	}
	key, err := d.Secret(ctx, webhookSecretName)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	c := &webhookCipher{aead: aead}
	d.webhookKey.Store(c)
	return c, nil
}

// seal encrypts a secret; the endpoint's id is bound to it as associated
// data, so a sealed secret copied to another endpoint does not open.
func (c *webhookCipher) seal(endpointID, secret string) string {
	if secret == "" {
		return ""
	}
	nonce := make([]byte, c.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	return sealedPrefix + base64.StdEncoding.EncodeToString(c.aead.Seal(nonce, nonce, []byte(secret), []byte(endpointID)))
}

// open decrypts a sealed secret.
func (c *webhookCipher) open(endpointID, sealed string) (string, error) {
	if sealed == "" {
		return "", nil
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(sealed, sealedPrefix))
	if err != nil || !strings.HasPrefix(sealed, sealedPrefix) || len(raw) < c.aead.NonceSize() {
		return "", errors.New("webhook secret: not sealed")
	}
	n := c.aead.NonceSize()
	plain, err := c.aead.Open(nil, raw[:n], raw[n:], []byte(endpointID))
	if err != nil {
		return "", errors.New("webhook secret: does not open under the server's key")
	}
	return string(plain), nil
}
