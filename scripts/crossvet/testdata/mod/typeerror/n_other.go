//go:build !windows

package typeerror

func n() int { return 1 }
