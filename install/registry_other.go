//go:build !windows

package install

import "errors"

// errNoRegistry: the registry exists on Windows only.
var errNoRegistry = errors.New("the registry exists on Windows only")

func registryValue(key string) (string, bool, error) { return "", false, errNoRegistry }

func setRegistryValue(key, value string) error { return errNoRegistry }

func deleteRegistryKey(key string) (bool, error) { return false, errNoRegistry }
