package browserlink

import (
	"errors"
	"testing"

	"github.com/egohost/egohost/internal/link/extwire"
)

// An extension's error reply is a KindExtension error that keeps the
// extension's code (the service makes the agents' code of it:
// service.TestLinkErrorCodes), and says whether a retry can help.
func TestExtensionErrorKeepsItsCode(t *testing.T) {
	tests := []struct {
		ext       string
		permanent bool
	}{
		{extwire.ErrNoTab, true},
		{extwire.ErrAlreadyAttached, true},
		{extwire.ErrAttachFailed, true},
		{extwire.ErrDetached, true},
		{extwire.ErrCDP, false},
		{extwire.ErrTooLarge, true},
		{extwire.ErrUnknownOp, false},
		{"internal", false},
	}
	for _, tt := range tests {
		t.Run(tt.ext, func(t *testing.T) {
			var err error = extensionError("cdp", &extwire.ExtError{Code: tt.ext, Message: "m"})
			var e *Error
			if !errors.As(err, &e) || e.Kind != KindExtension || e.Ext.Code != tt.ext {
				t.Fatalf("got error %v, want kind extension with code %s", err, tt.ext)
			}
			if got := e.Permanent(); got != tt.permanent {
				t.Errorf("Permanent: got %v, want %v", got, tt.permanent)
			}
		})
	}
}
