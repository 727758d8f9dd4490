// Package egohost holds what the whole module shares at its root: the
// default configuration, embedded from config.yaml.
package egohost

import _ "embed"

//go:embed config.yaml
var defaultConfig []byte

// DefaultConfig returns a copy of config.yaml as shipped: every default.
func DefaultConfig() []byte {
	return append([]byte(nil), defaultConfig...)
}
