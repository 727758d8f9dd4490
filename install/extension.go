package install

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// ExtensionID returns the Chrome extension ID derived from a manifest's
// "key": the base64 DER SubjectPublicKeyInfo of the extension's public
// key. The ID is the first 16 bytes of SHA-256(DER) in hex, with each hex
// digit 0-f mapped to a letter a-p.
func ExtensionID(keyBase64 string) (string, error) {
	key := strings.Join(strings.Fields(keyBase64), "")
	if key == "" {
		return "", errors.New("extension id: empty key")
	}
	der, err := base64.StdEncoding.DecodeString(key)
	if err != nil {
		return "", fmt.Errorf("extension id: decode key: %w", err)
	}
	sum := sha256.Sum256(der)
	id := make([]byte, 32)
	for i, b := range sum[:16] {
		id[2*i] = 'a' + b>>4
		id[2*i+1] = 'a' + b&0x0f
	}
	return string(id), nil
}

// ValidExtensionID reports whether id has the form of a Chrome extension
// ID (32 letters a-p).
func ValidExtensionID(id string) bool {
	if len(id) != 32 {
		return false
	}
	for _, c := range []byte(id) {
		if c < 'a' || c > 'p' {
			return false
		}
	}
	return true
}

// Origin returns the origin Chrome gives an extension, as host manifests
// must list it: "chrome-extension://<id>/", with the trailing slash.
func Origin(extensionID string) string {
	return "chrome-extension://" + extensionID + "/"
}
