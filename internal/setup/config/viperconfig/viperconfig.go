// Package viperconfig reads egohost's configuration with viper, the
// project's config reader: the service and every command of egohost-host
// load it so. The CLI's verbs read the same files with plain maps
// (config.Load) and find the same Config (TestLayersAgree).
package viperconfig

import (
	"bytes"

	"github.com/spf13/viper"

	"github.com/egohost/egohost/internal/setup/config"
)

// Load is config.Load with viper reading and merging the layers.
func Load(opts config.Options) (*config.Config, error) { return config.LoadWith(opts, &layers{}) }

// layers are config.Layers over viper (its own instances, never the
// globals).
type layers struct{ v *viper.Viper }

func (l *layers) Defaults(yaml []byte) error {
	l.v = viper.New()
	l.v.SetConfigType("yaml")
	return l.v.ReadConfig(bytes.NewReader(yaml))
}

func (l *layers) Keys() []string { return l.v.AllKeys() }

func (l *layers) Parse(format string, data []byte) (map[string]any, error) {
	uv := viper.New()
	uv.SetConfigType(format)
	if err := uv.ReadConfig(bytes.NewReader(data)); err != nil {
		return nil, err
	}
	return uv.AllSettings(), nil
}

func (l *layers) Merge(settings map[string]any) error { return l.v.MergeConfigMap(settings) }

func (l *layers) Set(key, value string) { l.v.Set(key, value) }

func (l *layers) Get(key string) any { return l.v.Get(key) }
