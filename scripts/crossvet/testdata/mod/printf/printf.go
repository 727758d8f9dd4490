// Package printf has a vet finding in a test that only Windows builds.
package printf
