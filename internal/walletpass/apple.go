package walletpass

import (
	"archive/zip"
	"bytes"
	"crypto/sha1"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/smallstep/pkcs7"
)

// ContentType is the media type of an Apple Wallet pass.
const ContentType = "application/vnd.apple.pkpass"

// passJSON is pass.json of a store card (Apple's PassKit package format).
type passJSON struct {
	FormatVersion      int       `json:"formatVersion"`
	PassTypeIdentifier string    `json:"passTypeIdentifier"`
	SerialNumber       string    `json:"serialNumber"`
	TeamIdentifier     string    `json:"teamIdentifier"`
	OrganizationName   string    `json:"organizationName"`
	Description        string    `json:"description"`
	LogoText           string    `json:"logoText"`
	BackgroundColor    string    `json:"backgroundColor"`
	ForegroundColor    string    `json:"foregroundColor"`
	LabelColor         string    `json:"labelColor"`
	StoreCard          structure `json:"storeCard"`
	Barcodes           []barcode `json:"barcodes"`
	// Barcode is the same code for iOS 8 and earlier, which read no
	// barcodes list.
	Barcode barcode `json:"barcode"`
}

// structure is the fields of a pass, by where Wallet shows them.
type structure struct {
	HeaderFields    []field `json:"headerFields"`
	SecondaryFields []field `json:"secondaryFields,omitempty"`
	BackFields      []field `json:"backFields"`
}

// field is one labelled value of a pass.
type field struct {
	Key   string `json:"key"`
	Label string `json:"label,omitempty"`
	Value any    `json:"value"`
}

// barcode is a pass's code.
type barcode struct {
	Format          string `json:"format"`
	Message         string `json:"message"`
	MessageEncoding string `json:"messageEncoding"`
	AltText         string `json:"altText,omitempty"`
}

// newPassJSON is d's pass.json under cfg's pass type.
func newPassJSON(cfg *AppleConfig, d PassData) passJSON {
	bg, fg := d.colours()
	code := barcode{Format: "PKBarcodeFormatQR", Message: d.Barcode, MessageEncoding: "iso-8859-1"}
	p := passJSON{
		FormatVersion: 1, PassTypeIdentifier: cfg.PassTypeID, SerialNumber: d.serial(), TeamIdentifier: cfg.TeamID,
		OrganizationName: d.BusinessName, Description: d.BusinessName + " loyalty card", LogoText: d.BusinessName,
		BackgroundColor: bg.css(), ForegroundColor: fg.css(), LabelColor: fg.css(),
		StoreCard: structure{
			HeaderFields: []field{{Key: "points", Label: "Points", Value: d.Points}},
			BackFields: []field{
				{Key: "member", Label: "Member number", Value: d.MemberID},
				{Key: "balance_note", Label: "Balance", Value: "The points shown are the balance when this card was added. " +
					"Add it again from the app to see today's."},
			},
		},
		Barcodes: []barcode{code}, Barcode: code,
	}
	if d.MemberName != "" {
		p.StoreCard.SecondaryFields = []field{{Key: "name", Label: "Member", Value: d.MemberName}}
	}
	return p
}

// Apple builds and signs d's Apple Wallet pass: the .pkpass file, a zip of
// pass.json, the icon (in the business's colour), the logo when there is
// one, manifest.json (each file's SHA-1) and signature, a detached
// PKCS#7 signature of the manifest by the pass certificate, carrying the
// WWDR certificate.
func Apple(cfg *AppleConfig, d PassData) ([]byte, error) {
	if cfg == nil {
		return nil, fmt.Errorf("walletpass: no Apple pass configuration")
	}
	if err := d.validate(); err != nil {
		return nil, err
	}
	pass, err := json.MarshalIndent(newPassJSON(cfg, d), "", "  ")
	if err != nil {
		return nil, err
	}
	bg, _ := d.colours()
	files := map[string][]byte{
		"pass.json":   pass,
		"icon.png":    square(29, bg),
		"icon@2x.png": square(58, bg),
		"icon@3x.png": square(87, bg),
	}
	if d.Logo != nil {
		files["logo.png"] = d.Logo
	}
	manifest, err := manifestOf(files)
	if err != nil {
		return nil, err
	}
	sig, err := sign(cfg, manifest)
	if err != nil {
		return nil, err
	}
	files["manifest.json"], files["signature"] = manifest, sig
	return zipOf(files)
}

// manifestOf is manifest.json: each file's name with the hex SHA-1 of its
// bytes, as Apple specifies.
func manifestOf(files map[string][]byte) ([]byte, error) {
	m := make(map[string]string, len(files))
	for name, data := range files {
		sum := sha1.Sum(data)
		m[name] = hex.EncodeToString(sum[:])
	}
	return json.MarshalIndent(m, "", "  ")
}

// sign is the detached PKCS#7 signature of manifest by the pass
// certificate, with the WWDR certificate in the chain it carries.
func sign(cfg *AppleConfig, manifest []byte) ([]byte, error) {
	sd, err := pkcs7.NewSignedData(manifest)
	if err != nil {
		return nil, err
	}
	sd.SetDigestAlgorithm(pkcs7.OIDDigestAlgorithmSHA256)
	if err := sd.AddSignerChain(cfg.Cert, cfg.Key, []*x509.Certificate{cfg.WWDR}, pkcs7.SignerInfoConfig{}); err != nil {
		return nil, fmt.Errorf("walletpass: sign the manifest: %w", err)
	}
	sd.Detach()
	return sd.Finish()
}

// zipOf writes the files into a zip, in name order.
func zipOf(files map[string][]byte) ([]byte, error) {
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range names {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(files[name]); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
