package config

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"go.yaml.in/yaml/v3"
)

// values are settings as the file formats decode them: nested maps whose
// keys are lower case (keys are case-insensitive), leaves of the
// format's types (string, bool, int, float64, lists). config.yaml, the
// user file and the environment merge into one (Load), read by dotted
// key. (It does what viper did here, which the CLI must not link: every
// package a binary links is initialised at its every start.)
type values map[string]any

// parseValues decodes a settings file of format (yaml, yml, json or
// toml).
func parseValues(data []byte, format string) (values, error) {
	var m map[string]any
	var err error
	switch format {
	case "json":
		err = json.Unmarshal(data, &m)
	case "toml":
		err = toml.Unmarshal(data, &m)
	default:
		err = yaml.Unmarshal(data, &m)
	}
	if err != nil {
		return nil, err
	}
	if m == nil {
		m = map[string]any{}
	}
	return values(lowerKeys(m).(map[string]any)), nil
}

// lowerKeys lower-cases the keys of every map in v (a YAML map with
// other than string keys gets their text).
func lowerKeys(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, val := range v {
			out[strings.ToLower(k)] = lowerKeys(val)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, val := range v {
			out[strings.ToLower(fmt.Sprint(k))] = lowerKeys(val)
		}
		return out
	case []any:
		for i, val := range v {
			v[i] = lowerKeys(val)
		}
	}
	return v
}

// merge sets src's values over v's: sections merge key by key; a value
// that is not a section does not replace one (readUserFile refuses it
// first, as a section's name).
func (v values) merge(src map[string]any) {
	for k, sv := range src {
		if dm, ok := v[k].(map[string]any); ok {
			if sm, ok := sv.(map[string]any); ok {
				values(dm).merge(sm)
			}
			continue
		}
		v[k] = sv
	}
}

// set sets the dotted key to val, making its sections as needed.
func (v values) set(key string, val any) {
	path := strings.Split(key, ".")
	m := map[string]any(v)
	for _, p := range path[:len(path)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[path[len(path)-1]] = val
}

// Get returns the value of the dotted key (a section is a map), or nil.
func (v values) Get(key string) any {
	var cur any = map[string]any(v)
	for p := range strings.SplitSeq(key, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		if cur, ok = m[p]; !ok {
			return nil
		}
	}
	return cur
}
