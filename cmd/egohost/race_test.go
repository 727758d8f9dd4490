//go:build race

package main

// raceDetector says the tests were built with -race: TestMain builds the
// two binaries with it too, reusing the packages `go vet -race` and
// `go test -race` compiled instead of compiling the tree a second time
// without it (a minute of CPU in a fresh clone).
const raceDetector = true
