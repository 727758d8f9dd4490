package viperconfig_test

import (
	"testing"

	"github.com/egohost/egohost/internal/setup/config"
	"github.com/egohost/egohost/internal/setup/config/viperconfig"
)

func BenchmarkLoad(b *testing.B) {
	for _, tc := range []struct {
		name string
		load func(config.Options) (*config.Config, error)
	}{{"viper", viperconfig.Load}, {"maps", config.Load}} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := tc.load(config.Options{Home: "/home/u", GOOS: "linux"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
