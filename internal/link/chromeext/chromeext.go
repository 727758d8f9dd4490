// Package chromeext holds Chrome's rules for extensions and native
// messaging hosts: an extension's ID from its manifest key, the form of IDs
// and origins, and host names. Standard library only; the installer, the
// config loader, the relay and the service share it.
package chromeext

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// ID returns the Chrome extension ID derived from a manifest's
// "key": the base64 DER SubjectPublicKeyInfo of the extension's public
// key. The ID is the first 16 bytes of SHA-256(DER) in hex, with each hex
// digit 0-f mapped to a letter a-p.
func ID(keyBase64 string) (string, error) {
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

// ValidID reports whether id has the form of a Chrome extension
// ID (32 letters a-p).
func ValidID(id string) bool {
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

// ParseOrigin returns the extension ID in origin, which must be
// "chrome-extension://<id>/" (the trailing slash is optional) with a
// well-formed ID (32 letters a-p).
func ParseOrigin(origin string) (string, error) {
	id, ok := strings.CutPrefix(origin, "chrome-extension://")
	id = strings.TrimSuffix(id, "/")
	if !ok || !ValidID(id) {
		return "", fmt.Errorf("parse origin %q: want chrome-extension://<32 letters a-p>/", origin)
	}
	return id, nil
}

// ValidHostName reports whether name follows Chrome's rule for native
// messaging host names: lower-case alphanumerics, underscores and dots,
// no leading or trailing dot, no "..".
func ValidHostName(name string) bool {
	if name == "" || strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".") || strings.Contains(name, "..") {
		return false
	}
	for _, c := range []byte(name) {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}
