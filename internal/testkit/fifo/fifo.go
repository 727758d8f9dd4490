// Package fifo makes a named pipe for the tests that check that a file
// rule refuses what is not a regular file. It is the tests' only per-OS
// code, kept here so that the packages that use it (filegate, e2e) have no
// files of their own per OS, and compile for Windows and macOS as they do
// for Linux.
package fifo

// Make makes a named pipe at path; where there are none (Windows), a
// folder, which is not a regular file either.
func Make(path string) error { return mkfifo(path) }
