//go:build !race

package main

// raceDetector: see race_test.go.
const raceDetector = false
