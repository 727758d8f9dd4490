package clean

import "fmt"

// Name is Windows' own.
func Name(s string) string { return fmt.Sprintf("windows %s", s) }
