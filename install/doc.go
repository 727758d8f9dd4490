// Package install puts egohost where browsers and the OS look for it: the
// native messaging host manifest for each browser, channel and packaging
// on each OS (and, on Windows, the HKCU registry keys that point at it),
// the extension ID that manifest allows, and the per-user system service
// that runs `egohost serve`. It also inspects what is installed, for
// `egohost install` to be idempotent and for `egohost doctor`.
//
// Path functions are pure (they take goos and home), so Linux CI checks
// every OS's locations. This is the only package that imports
// github.com/kardianos/service and golang.org/x/sys/windows/registry.
package install
