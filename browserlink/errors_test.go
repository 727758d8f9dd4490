package browserlink

import (
	"errors"
	"testing"

	"github.com/egohost/egohost/extwire"
	"github.com/egohost/egohost/protocol"
)

func TestExtensionErrorCodesMap(t *testing.T) {
	tests := []struct {
		ext  string
		want protocol.Code
	}{
		{"no_tab", protocol.CodeTabNotFound},
		{"already_attached", protocol.CodeAlreadyAttached},
		{"attach_failed", protocol.CodeAttachFailed},
		{"detached", protocol.CodeDetached},
		{"cdp_error", protocol.CodeCDP},
		{"too_large", protocol.CodeTooLarge},
		{"unknown_op", protocol.CodeInvalidParams},
		{"internal", protocol.CodeExtension},
	}
	for _, tt := range tests {
		t.Run(tt.ext, func(t *testing.T) {
			err := extensionError("cdp", &extwire.ExtError{Code: tt.ext, Message: "m"})
			var pe *protocol.Error
			if !errors.As(err, &pe) || pe.Code != tt.want {
				t.Fatalf("got error %v, want code %s", err, tt.want.Name())
			}
		})
	}
}
