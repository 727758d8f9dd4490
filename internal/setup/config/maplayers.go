package config

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"go.yaml.in/yaml/v3"
)

// mapLayers are Layers over plain maps, read with the parsers viper uses
// (yaml.v3, encoding/json, go-toml v2) and merged by viper's rules, so that
// the CLI finds what the service finds (TestLayersAgree) without linking
// viper, whose start costs every CLI call more than the rest of the CLI.
type mapLayers struct {
	config    map[string]any    // the defaults with the user file merged over them
	overrides map[string]string // the environment's, by dotted key
}

// NewMapLayers returns Layers over plain maps: what Load uses.
func NewMapLayers() Layers { return &mapLayers{overrides: map[string]string{}} }

func (l *mapLayers) Defaults(data []byte) error {
	if m, ok := shippedDefaults(data); ok {
		l.config = m
		return nil
	}
	m, err := parse("yaml", data)
	if err != nil {
		return err
	}
	l.config = m
	return nil
}

func (l *mapLayers) Keys() []string { return flatKeys(l.config, "") }

// Parse parses data as viper's AllSettings would return it: keys lower
// case, and only what holds a value (an empty section is nothing).
func (l *mapLayers) Parse(format string, data []byte) (map[string]any, error) {
	m, err := parse(format, data)
	if err != nil {
		return nil, parseError{err}
	}
	return leaves(m), nil
}

// parseError words a user file's syntax error as viper does (the user
// reads the same message from every command).
type parseError struct{ err error }

func (e parseError) Error() string { return "While parsing config: " + e.err.Error() }
func (e parseError) Unwrap() error { return e.err }

func (l *mapLayers) Merge(settings map[string]any) error {
	merge(settings, l.config)
	return nil
}

func (l *mapLayers) Set(key, value string) { l.overrides[strings.ToLower(key)] = value }

func (l *mapLayers) Get(key string) any {
	key = strings.ToLower(key)
	if v, ok := l.overrides[key]; ok {
		return v
	}
	var cur any = l.config
	for _, part := range strings.Split(key, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		if cur, ok = m[part]; !ok {
			return nil
		}
	}
	return cur
}

// parse reads data of format into a map with lower-case keys, at every
// depth (in lists too), as viper's codecs and its insensitiviseMap do.
func parse(format string, data []byte) (map[string]any, error) {
	m := map[string]any{}
	var err error
	switch format {
	case "yaml", "yml":
		err = yaml.Unmarshal(data, &m)
	case "json":
		err = json.Unmarshal(data, &m)
	case "toml":
		err = toml.Unmarshal(data, &m)
	default:
		return nil, fmt.Errorf("unsupported config format %q", format)
	}
	if err != nil {
		return nil, err
	}
	if m == nil { // an empty YAML document
		m = map[string]any{}
	}
	lower(m)
	return m, nil
}

func lower(m map[string]any) {
	for k, v := range m {
		v = lowerVal(v)
		if lk := strings.ToLower(k); lk != k {
			delete(m, k)
			k = lk
		}
		m[k] = v
	}
}

func lowerVal(v any) any {
	switch v := v.(type) {
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, val := range v {
			m[fmt.Sprint(k)] = val
		}
		lower(m)
		return m
	case map[string]any:
		lower(v)
	case []any:
		for i, e := range v {
			v[i] = lowerVal(e)
		}
	}
	return v
}

// leaves is m without its empty sections.
func leaves(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok {
			if sub = leaves(sub); len(sub) > 0 {
				out[k] = sub
			}
			continue
		}
		out[k] = v
	}
	return out
}

// merge merges src over tgt as viper's MergeConfigMap does: sections
// merge key by key, a value replaces a value, and a value where tgt has a
// section is dropped.
func merge(src, tgt map[string]any) {
	for k, sv := range src {
		tv, ok := tgt[k]
		if !ok {
			tgt[k] = sv
			continue
		}
		if tm, ok := tv.(map[string]any); ok {
			if sm, ok := sv.(map[string]any); ok {
				merge(sm, tm)
			}
			continue
		}
		tgt[k] = sv
	}
}
