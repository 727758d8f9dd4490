//go:build race

package e2e

// raceDetector says the tests were built with -race; the egohost binary
// under test is then built with it too: the service and the relay are
// checked for data races as the tests drive them, and the build reuses
// the packages `go test -race` compiled instead of compiling them all a
// second time without it (minutes of CPU in a fresh CI clone).
const raceDetector = true
