package install

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/sys/windows/registry"
)

// openPath splits an `HKCU\…` key into its root and path.
func openPath(key string) (registry.Key, string, error) {
	p, ok := strings.CutPrefix(key, `HKCU\`)
	if !ok {
		return 0, "", fmt.Errorf("registry key %q: want HKCU\\…", key)
	}
	return registry.CURRENT_USER, p, nil
}

func registryValue(key string) (string, bool, error) {
	root, p, err := openPath(key)
	if err != nil {
		return "", false, err
	}
	k, err := registry.OpenKey(root, p, registry.QUERY_VALUE)
	if errors.Is(err, registry.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read registry %s: %w", key, err)
	}
	defer k.Close()
	v, _, err := k.GetStringValue("")
	if errors.Is(err, registry.ErrNotExist) {
		return "", true, nil
	}
	if err != nil {
		return "", true, fmt.Errorf("read registry %s: %w", key, err)
	}
	return v, true, nil
}

func setRegistryValue(key, value string) error {
	root, p, err := openPath(key)
	if err != nil {
		return err
	}
	k, _, err := registry.CreateKey(root, p, registry.SET_VALUE)
	if err != nil {
		return fmt.Errorf("write registry %s: %w", key, err)
	}
	defer k.Close()
	if err := k.SetStringValue("", value); err != nil {
		return fmt.Errorf("write registry %s: %w", key, err)
	}
	return nil
}

func deleteRegistryKey(key string) (bool, error) {
	root, p, err := openPath(key)
	if err != nil {
		return false, err
	}
	err = registry.DeleteKey(root, p)
	if errors.Is(err, registry.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("delete registry %s: %w", key, err)
	}
	return true, nil
}
