//go:build !windows

package install

import "errors"

// errNoRegistry: the registry exists on Windows only.
var errNoRegistry = errors.New("the registry exists on Windows only")

// RegistryValue returns the default value of key; on this OS there is no
// registry.
func RegistryValue(key string) (string, bool, error) { return "", false, errNoRegistry }

// SetRegistryValue sets key's default value; on this OS there is no
// registry.
func SetRegistryValue(key, value string) error { return errNoRegistry }

// DeleteRegistryKey deletes key; on this OS there is no registry.
func DeleteRegistryKey(key string) (bool, error) { return false, errNoRegistry }
