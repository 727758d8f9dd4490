package config

import (
	"crypto/sha256"
	"encoding/hex"
)

//go:generate go test -run TestDefaultSettings -update .

// shippedDefaults returns config.yaml's settings as parse("yaml", …)
// reads them when data is the config.yaml they were made from (its
// SHA-256 is defaultsSHA256), else ok false. They are compiled in
// (defaults_gen.go) because parsing the shipped YAML at every start was a
// tenth of a CLI call's CPU (docs/benchmarks.md, "What a CLI call costs");
// a config.yaml edited since falls back to parsing, and TestDefaultSettings
// fails until defaults_gen.go is made again (go generate ./internal/setup/config).
func shippedDefaults(data []byte) (m map[string]any, ok bool) {
	sum := sha256.Sum256(data)
	if hex.EncodeToString(sum[:]) != defaultsSHA256 {
		return nil, false
	}
	return defaultSettings(), true
}
