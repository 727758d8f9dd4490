// Package extension embeds the egohost Chrome extension (plain JavaScript,
// no build step) so that one egohost binary can install and load it.
package extension

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

//go:embed manifest.json *.js *.html *.css
var files embed.FS

// ID is the extension's fixed ID, derived from the key in manifest.json.
const ID = "aokapgkciafkaelljglcdibalbfomkdb"

// Files returns the extension's files.
func Files() fs.FS { return files }

// WriteTo writes the extension into dir (created 0700), replacing older
// copies of its files, and returns dir's absolute path for --load-extension.
func WriteTo(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("write extension: %w", err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return "", fmt.Errorf("write extension: %w", err)
	}
	err = fs.WalkDir(files, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := files.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(abs, path), b, 0o600)
	})
	if err != nil {
		return "", fmt.Errorf("write extension: %w", err)
	}
	return abs, nil
}
