package printf

import (
	"fmt"
	"testing"
)

func TestWindows(t *testing.T) {
	t.Log(fmt.Sprintf("%d", "not a number"))
}
