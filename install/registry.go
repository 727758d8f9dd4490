package install

// The Windows registry, where Chrome finds a native messaging host's
// manifest (registry_windows.go); on other OSes each call fails with
// errNoRegistry. The API is declared here, the same on every OS, so that
// its importers compile alike everywhere (per_os_test.go).

// RegistryValue returns the default value of key (e.g. a
// NativeMessagingHosts key), and false when the key does not exist.
func RegistryValue(key string) (string, bool, error) { return registryValue(key) }

// SetRegistryValue creates key if needed and sets its default value.
func SetRegistryValue(key, value string) error { return setRegistryValue(key, value) }

// DeleteRegistryKey deletes key and reports whether it existed.
func DeleteRegistryKey(key string) (bool, error) { return deleteRegistryKey(key) }
