package cli

import (
	"strings"
	"testing"
)

// What a call pays in process after the start, before it dials: the
// command tree and the configuration (docs/benchmarks.md, "What a CLI call
// costs").
func BenchmarkNewRoot(b *testing.B) {
	for b.Loop() {
		c := &cli{stdin: strings.NewReader(""), stdout: new(strings.Builder), stderr: new(strings.Builder)}
		c.newRoot()
	}
}

func BenchmarkLoadConfig(b *testing.B) {
	b.Setenv("EGOHOST_CONFIG", "")
	for b.Loop() {
		if _, err := LoadConfig("", nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNewRootForAVerb(b *testing.B) {
	for b.Loop() {
		c := &cli{stdin: strings.NewReader(""), stdout: new(strings.Builder), stderr: new(strings.Builder), args: []string{"eval", "1"}}
		c.newRoot()
	}
}
