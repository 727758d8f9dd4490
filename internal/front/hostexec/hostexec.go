// Package hostexec runs the full binary (egohost-host) for a command the
// light CLI does not have. It is the CLI's only per-OS code, kept here so
// that the CLI itself compiles the same on every OS (scripts/test.sh vets
// the other OSes' builds only where a package's files differ; its API is
// declared here, once, for the same reason: per_os_test.go).
package hostexec

// Exec runs path with argv and env in place of this process. Where a
// process can be replaced (unix), it is: the full binary gets the
// terminal, the signals and the exit code as if it had been run itself,
// and Exec returns only when that fails. Elsewhere (Windows) path runs as
// a child with this process's streams, and exited is true once it has
// exited, with its exit code.
func Exec(path string, argv, env []string) (code int, exited bool, err error) {
	return execHost(path, argv, env)
}
