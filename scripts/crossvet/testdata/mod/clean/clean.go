// Package clean builds on every OS.
package clean

import "fmt"

// Describe names n.
func Describe(n int) string { return fmt.Sprintf("n=%d", n) }
