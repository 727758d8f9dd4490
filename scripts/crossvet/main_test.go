package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestVet(t *testing.T) {
	tests := []struct {
		name     string
		goos     string
		pattern  string
		wantCode int
		want     string // in the output; "" for none
	}{
		{"a clean package", "windows", "./clean", 0, ""},
		{"a type error in a Windows file", "windows", "./typeerror", 1, `n_windows.go:3:23: cannot use "one"`},
		{"the same package on macOS", "darwin", "./typeerror", 0, ""},
		{"a vet finding in a Windows test", "windows", "./printf", 1, "printf_windows_test.go:9:21: fmt.Sprintf format %d has arg \"not a number\" of wrong type string (printf, windows)"},
		{"the same package on Linux", "linux", "./printf", 0, ""},
		{"a package that is not there", "windows", "./nothere", 1, "nothere: directory not found (windows)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run([]string{"-goos", tt.goos, "-C", "testdata/mod", tt.pattern}, &stdout, &stderr)
			if code != tt.wantCode {
				t.Fatalf("got exit %d, want %d; stdout %q, stderr %q", code, tt.wantCode, stdout.String(), stderr.String())
			}
			if tt.want == "" && stdout.Len() > 0 {
				t.Errorf("got %q, want no output", stdout.String())
			}
			if tt.want != "" && !strings.Contains(stdout.String(), tt.want) {
				t.Errorf("got %q, want it to contain %q", stdout.String(), tt.want)
			}
			if n := strings.Count(stdout.String(), "\n"); tt.want != "" && n != 1 {
				t.Errorf("got %d lines, want 1 (a test variant's files reported once): %q", n, stdout.String())
			}
		})
	}
}

func TestUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"no OS", []string{"./clean"}},
		{"no package", []string{"-goos", "windows"}},
		{"an unknown flag", []string{"-os", "windows", "./clean"}},
		{"an OS Go does not know", []string{"-goos", "plan10", "-C", "testdata/mod", "./clean"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(tt.args, &stdout, &stderr); code != 2 {
				t.Errorf("got exit %d, want 2", code)
			}
			if stderr.Len() == 0 {
				t.Error("got no message on stderr")
			}
		})
	}
}
