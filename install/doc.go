// Package install puts egohost where browsers and the OS look for it: the
// native messaging host manifest for each browser and OS, the extension ID
// that manifest allows, and the per-user system service that runs
// `egohost serve`.
//
// Path functions are pure (they take goos and home), so Linux CI checks
// every OS's locations. This is the only package that imports
// github.com/kardianos/service.
package install
