package chromeext

import (
	"strings"
	"testing"
)

// testKey is the "key" of egohost's extension (extension/.key.tmp): the
// base64 DER SubjectPublicKeyInfo of its RSA public key.
const testKey = "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAxQyXh4zHk3XN43PkJddKX3RcmgBRbyhuItgaDSQ6pjK1tnq4pcqY6nefwArX9SbhAzv+IKfTWLAFs2UyloozcQAyvRIrrRyV2pLKwHdybuJPXDjEcBVwIH3TXLxThM2FHgUb/Gnj4MTKCC94R/XQlEfETAUMxScJyBAmfoI0alSASny1x4BlfSX4k2Ym1VP5en1w/DyfjF8XwsT9vU6edO5SwphHItBdbVBZpA+sFbQxpGBIee/v25ggydtuP1UEjeH+7Rjb7nFMeaHnAkuSBbDdLkdPgBy1nuWYxz920AAIjoujCa0xRrFKGcdxN7h9C/3Ma+6DIc0uAXON7+w3AwIDAQAB"

func TestID(t *testing.T) {
	tests := []struct {
		name    string
		key     string
		want    string
		wantErr string
	}{
		{name: "egohost's key", key: testKey, want: testID},
		{name: "wrapped over lines", key: testKey[:64] + "\n" + testKey[64:128] + "\n  " + testKey[128:] + "\n", want: testID},
		{name: "empty", key: " \n", wantErr: "extension id: empty key"},
		{name: "not base64", key: "not*base64", wantErr: "extension id: decode key: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ID(tt.key)
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Errorf("got error %v, want one starting with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want nil", err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if !ValidID(got) {
				t.Errorf("got %q, which ValidID refuses", got)
			}
		})
	}
}

func TestValidID(t *testing.T) {
	tests := []struct {
		id   string
		want bool
	}{
		{testID, true},
		{strings.Repeat("p", 32), true},
		{strings.Repeat("a", 31), false},
		{strings.Repeat("a", 33), false},
		{strings.Repeat("q", 32), false},
		{strings.ToUpper(testID), false},
		{"", false},
	}
	for _, tt := range tests {
		if got := ValidID(tt.id); got != tt.want {
			t.Errorf("ValidID(%q): got %v, want %v", tt.id, got, tt.want)
		}
	}
}

func TestOrigin(t *testing.T) {
	if got, want := Origin(testID), "chrome-extension://"+testID+"/"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

const testID = "aokapgkciafkaelljglcdibalbfomkdb"

func TestParseOrigin(t *testing.T) {
	tests := []struct {
		origin  string
		want    string
		wantErr bool
	}{
		{origin: "chrome-extension://" + testID + "/", want: testID},
		{origin: "chrome-extension://" + testID, want: testID},
		{origin: "chrome-extension://" + testID + "//", wantErr: true},
		{origin: "chrome-extension://short/", wantErr: true},
		{origin: "chrome-extension://" + strings.ToUpper(testID) + "/", wantErr: true},
		{origin: "moz-extension://" + testID + "/", wantErr: true},
		{origin: "--parent-window=0", wantErr: true},
		{origin: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.origin, func(t *testing.T) {
			got, err := ParseOrigin(tt.origin)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("got %q, %v, want %q, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}
