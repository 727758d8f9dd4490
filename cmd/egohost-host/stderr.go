package main

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"sync"
)

// browserStderr takes what the browser writes on its stderr: it passes
// every line to w when verbose, and keeps the last lines that are not
// Chromium's usual noise (dbus, GPU, Vulkan…) to explain an early exit.
type browserStderr struct {
	w       io.Writer // nil: not shown
	mu      sync.Mutex
	partial []byte
	last    []string
}

// tailLines is how many lines browserStderr keeps.
const tailLines = 8

func (b *browserStderr) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.w != nil {
		b.w.Write(p)
	}
	b.partial = append(b.partial, p...)
	for {
		i := bytes.IndexByte(b.partial, '\n')
		if i < 0 {
			break
		}
		b.add(string(b.partial[:i]))
		b.partial = b.partial[i+1:]
	}
	if len(b.partial) > 64<<10 { // a line without end: keep its start
		b.add(string(b.partial[:4096]))
		b.partial = b.partial[:0]
	}
	return len(p), nil
}

func (b *browserStderr) add(line string) {
	if noise(line) {
		return
	}
	if len(b.last) == tailLines {
		b.last = b.last[1:]
	}
	b.last = append(b.last, strings.TrimSpace(chromiumPrefix().ReplaceAllString(line, "")))
}

// chromiumPrefix is the "[pid:tid:date:LEVEL:file.cc(line)] " of Chromium's log lines.
var chromiumPrefix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[\d+:\d+:[\d/.]+:[A-Z]+:[^\]]*\] `) })

// Tail returns the last lines worth reading, the unfinished one included.
func (b *browserStderr) Tail() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	lines := append([]string(nil), b.last...)
	if s := strings.TrimSpace(string(b.partial)); s != "" && !noise(s) {
		lines = append(lines, chromiumPrefix().ReplaceAllString(s, ""))
	}
	return strings.Join(lines, "\n")
}

func noise(line string) bool {
	if strings.TrimSpace(line) == "" {
		return true
	}
	for _, n := range []string{"dbus", "Failed to connect to the bus", "vulkan", "Vulkan", "dawn", "Dawn", "gpu", "GPU", "DevTools listening", "Fontconfig", "sandbox", "ALSA", "zygote"} {
		if strings.Contains(line, n) {
			return true
		}
	}
	return false
}
