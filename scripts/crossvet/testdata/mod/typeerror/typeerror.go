// Package typeerror does not build on Windows.
package typeerror

// N is a number.
func N() int { return n() }
