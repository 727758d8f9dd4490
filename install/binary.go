package install

import (
	"path/filepath"
	"strings"
)

// TemporaryBinary says why the binary at path will not last (a `go run`
// or `go test` build folder, a temporary folder, the Go build cache), or
// returns "" when it looks stable. A host manifest must point at a
// binary that is still there tomorrow. tempDirs are the folders that
// count as temporary: os.TempDir() and the Go build cache (GOCACHE).
func TemporaryBinary(path string, tempDirs []string) string {
	clean := filepath.Clean(path)
	for _, elem := range strings.Split(filepath.ToSlash(clean), "/") {
		if strings.HasPrefix(elem, "go-build") {
			return "it is a `go run` / `go test` build (" + elem + " folder)"
		}
	}
	for _, d := range tempDirs {
		if d == "" {
			continue
		}
		d = filepath.Clean(d)
		if rel, err := filepath.Rel(d, clean); err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
			return "it is under the temporary folder " + d
		}
	}
	return ""
}
